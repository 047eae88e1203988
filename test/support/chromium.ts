/**
 * Headless Chromium for the browser tests, driven by playwright-core: `CHROMIUM_PATH` when set,
 * else a `chromium` on PATH (Debian's package), else the one `npm ci` brings with the
 * @sparticuz/chromium devDependency (Linux x64 only). That one is unpacked on first use into
 * .tmp/chromium/<version>, with the NSS and expat libraries it links to: a machine with only Node
 * lacks them (Debian's chromium package would have brought them), and the package ships them.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot } from './paths.js';

/**
 * Started otherwise, Chromium stalls on this closed network (its background connections are
 * refused, many at a time). playwright-core adds a fresh --user-data-dir.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PACKAGE = join(repoRoot, 'node_modules', '@sparticuz', 'chromium');

/** @sparticuz/chromium ships a Linux x64 binary only. */
const packaged = process.platform === 'linux' && process.arch === 'x64' && existsSync(PACKAGE);

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `command` in one of PATH's folders, as a shell would find it. */
function onPath(command: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** The Chromium given or installed on this machine; undefined when only npm's can be had. */
const installed = process.env['CHROMIUM_PATH'] || onPath('chromium');

/** Why the browser tests are skipped here, with the fix; undefined when they run. */
export const chromiumMissing: string | undefined =
  installed || packaged
    ? undefined
    : 'no Chromium, the browser tests are skipped: install one (Debian: apt-get install chromium) or set ' +
      `CHROMIUM_PATH; the Chromium of the npm package @sparticuz/chromium runs on Linux x64 only (this is ${process.platform} ${process.arch})`;

interface ChromiumBinary {
  executablePath: string;
  /** What the browser needs in its environment beyond the tests' own. */
  env: Record<string, string>;
}

/**
 * @sparticuz/chromium unpacked into .tmp/chromium/<version>, once per checkout. The package unpacks
 * into os.tmpdir(), so a child process does it with TMPDIR pointing at a folder of ours; the
 * libraries (its "al2023" layer) are unpacked only where the package believes it runs on AWS
 * Lambda's Amazon Linux 2023, which AWS_EXECUTION_ENV tells it. Two processes unpacking at once
 * each use a folder of their own and the first to finish wins, so none sees half a binary.
 */
async function unpackedChromium(): Promise<ChromiumBinary> {
  const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const dir = join(repoRoot, '.tmp', 'chromium', version);
  if (!existsSync(join(dir, 'chromium'))) {
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    await execa(
      'node',
      ['--input-type=module', '-e', "await (await import('@sparticuz/chromium')).default.executablePath();"],
      { cwd: repoRoot, env: { TMPDIR: partial, AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs20.x' } },
    );
    writeFileSync(join(partial, 'fonts.conf'), fontsConf(dir));
    try {
      renameSync(partial, dir);
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  const libraries = [join(dir, 'al2023', 'lib'), process.env['LD_LIBRARY_PATH']].filter(Boolean).join(delimiter);
  return {
    executablePath: join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: libraries, FONTCONFIG_FILE: join(dir, 'fonts.conf') },
  };
}

/**
 * Where fontconfig finds no font, Chromium's renderer dies on the docs page (a FATAL in Skia's
 * font manager), and a machine with only Node has none. The package ships Open Sans, but its
 * fonts.conf names AWS Lambda's folders (/tmp/fonts); this one names ours. Characters that Open Sans
 * lacks are drawn as boxes.
 */
function fontsConf(dir: string): string {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
    `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

/** Starts headless Chromium: the installed one, else npm's (see the top of this file). */
export async function launchChromium(): Promise<Browser> {
  const binary = installed ? { executablePath: installed, env: {} } : await unpackedChromium();
  return chromium.launch({
    executablePath: binary.executablePath,
    args: FLAGS,
    env: { ...process.env, ...binary.env },
  });
}
