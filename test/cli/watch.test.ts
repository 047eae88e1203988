/**
 * `svcgen generate … --watch` (issue 18), as a user runs it: the built CLI in a child process on
 * the `svcgen init` starter. An edited schema (an included file) regenerates the project; an
 * error is printed and the watch goes on; the fix regenerates; Ctrl-C (SIGINT) exits 0.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { svcgenBin } from '../support/paths.js';

async function until(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((settle) => setTimeout(settle, 50));
  }
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('svcgen generate --watch', () => {
  it('regenerates on a change to an included schema, survives an error, and exits 0 on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-watch-'));
    expect((await runCli(['init', '.'], dir)).code).toBe(0);
    const schema = join(dir, 'schemas', 'note.json');
    const model = join(dir, 'service', 'src', 'models', 'note.ts');
    const edit = (from: string, to: string) => writeFileSync(schema, readFileSync(schema, 'utf8').replace(from, to));

    const watch = execa('node', [svcgenBin, 'generate', 'api.raml', '-o', 'service', '--watch'], {
      cwd: dir,
      reject: false,
      env: { NO_COLOR: '1' },
    });
    let stderr = '';
    watch.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const watching = () => count(stderr, 'for changes (Ctrl-C to stop)');
    try {
      await until('the first run', () => watching() === 1);
      expect(stderr).toMatch(/svcgen: service — \d+ added/);
      expect(stderr).toContain('svcgen: watching 4 files of api.raml');
      expect(readFileSync(model, 'utf8')).not.toContain('priority');

      edit(
        '"done": {',
        '"priority": { "type": ["integer", "null"], "_db_settings": { "type": "integer" } },\n        "done": {',
      );
      await until('the model to have the new field', () => readFileSync(model, 'utf8').includes('priority'));
      await until('the second run to end', () => watching() === 2);
      expect(stderr).toContain('svcgen: schemas/note.json changed; generating again');

      edit('"ref_document": "Notebook"', '"ref_document": "Notebok"');
      await until('the diagnostic', () => stderr.includes('error SVC2050'));
      await until('the third run to end', () => watching() === 3);
      expect(stderr).toContain('schemas/note.json:');
      expect(stderr).toContain('help: did you mean `Notebook`?');
      expect(watch.exitCode).toBeNull();

      const before = stderr.length;
      edit('"ref_document": "Notebok"', '"ref_document": "Notebook"');
      await until('the fourth run to end', () => watching() === 4);
      expect(stderr.slice(before)).toMatch(/svcgen: service — 0 added, 0 changed, 0 deleted, \d+ unchanged/);
    } finally {
      watch.kill('SIGINT');
    }
    const ended = await watch;
    expect(ended.exitCode, stderr).toBe(0);
    expect(stderr).toMatch(/svcgen: stopped watching\n$/);
  }, 90_000);

  it('cannot be combined with --check or --dry-run', async () => {
    const run = await runCli(['generate', 'api.raml', '-o', 'out', '--watch', '--check'], tmpdir());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("option '--watch' cannot be used with option '--check'");
  });
});
