/**
 * `svcgen init [dir]` (issue 18): a starter API that validates clean and generates a service with
 * its routes, handler and principal stubs; a non-empty folder is refused with its name, and
 * nothing in it changes.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { runCli } from '../support/cli.js';
import { svcgenBin } from '../support/paths.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'svcgen-init-'));

describe('svcgen init', () => {
  it('writes a starter that validates clean and generates a service with the expected routes', async () => {
    const cwd = fresh();
    const init = await runCli(['init', 'notes'], cwd);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain(
      'wrote a starter API to notes: README.md, api.raml, schemas/note.json, schemas/notebook.json, schemas/user.json',
    );
    expect(init.stderr).toContain('next: svcgen generate notes/api.raml -o notes/service');
    expect(readFileSync(join(cwd, 'notes', 'README.md'), 'utf8')).toMatch(/## What to edit/);

    const validate = await runCli(['validate', 'notes/api.raml', '--format', 'json'], cwd);
    expect(validate.code).toBe(0);
    expect(JSON.parse(validate.stdout)).toEqual([]); // no errors, and no warnings either

    const generate = await runCli(['generate', 'notes/api.raml', '-o', 'notes/service'], cwd);
    expect(generate.code, generate.stderr).toBe(0);
    const service = join(cwd, 'notes', 'service');
    for (const file of [
      'src/routes/notebooks.ts',
      'src/routes/notes.ts',
      'src/routes/users.ts',
      'src/custom/handlers/set-owner.ts',
      'src/custom/principals/owner.ts',
      'src/models/note.ts',
    ]) {
      expect(existsSync(join(service, file)), file).toBe(true);
    }
    const readme = readFileSync(join(service, 'README.md'), 'utf8');
    for (const route of [
      '| POST   | `/api/v0/notebooks/{id}/notes`',
      '| PATCH  | `/api/v0/notes/{id}`',
      '`POST /api/v0/auth/login`',
    ])
      expect(readme).toContain(route);
  });

  // The tests above run src/ in process; a user runs the build (dist/), one folder deeper: `init`
  // once looked for its templates relative to its own module and crashed there.
  it('works from the built command, as a user runs it', async () => {
    const cwd = fresh();
    const run = await execa(process.execPath, [svcgenBin, 'init', 'notes'], { cwd, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readdirSync(join(cwd, 'notes')).sort()).toEqual(['README.md', 'api.raml', 'schemas']);
  });

  it('writes into the current folder when it is empty', async () => {
    const cwd = fresh();
    const init = await runCli(['init'], cwd);
    expect(init.code, init.stderr).toBe(0);
    expect(readdirSync(cwd).sort()).toEqual(['README.md', 'api.raml', 'schemas']);
  });

  it('refuses a folder that is not empty, names it, and changes nothing', async () => {
    const cwd = fresh();
    mkdirSync(join(cwd, 'mine'));
    writeFileSync(join(cwd, 'mine', 'api.raml'), 'my own API\n');
    const run = await runCli(['init', 'mine'], cwd);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'svcgen init: mine is not empty (it has api.raml); init writes only into a new or empty folder, so that it overwrites nothing\n',
    );
    expect(readdirSync(join(cwd, 'mine'))).toEqual(['api.raml']);
    expect(readFileSync(join(cwd, 'mine', 'api.raml'), 'utf8')).toBe('my own API\n');
  });

  it('says a folder it cannot write, with the reason, and returns: no stack trace, no endless mkdir', async () => {
    const cwd = fresh();
    // /sys refuses to make a folder (EPERM); /proc has none to make, and Node's recursive mkdir spun there for ever.
    for (const [target, code] of [
      ['/sys/kernel/svcgen-init', /\[(EPERM|EACCES|ENOENT)\]/],
      ['/proc/svcgen-init', /\[ENOENT\]/],
    ] as const) {
      const run = await runCli(['init', target], cwd);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^svcgen init: cannot write ${target}: .*${code.source}`));
      expect(run.stderr).not.toContain('internal error');
    }
  }, 30_000);

  it('says the next command with its paths quoted where a shell needs it, and an absolute path as given', async () => {
    const cwd = fresh();
    const run = await runCli(['init', "my api's"], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`next: svcgen generate 'my api'\\''s/api.raml' -o 'my api'\\''s/service'`);
    const absolute = join(cwd, 'abs');
    expect((await runCli(['init', absolute], fresh())).stderr).toContain(`wrote a starter API to ${absolute}:`);
  });

  it('refuses a file where the folder should be', async () => {
    const cwd = fresh();
    writeFileSync(join(cwd, 'notes'), '');
    const run = await runCli(['init', 'notes'], cwd);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('svcgen init: notes exists and is not a folder; give a new or empty folder\n');
  });
});
