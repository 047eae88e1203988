/** The command line: commands, exit codes, output formats. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { raml, writeTree } from '../support/files.js';
import { repoRoot, svcgenBin } from '../support/paths.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

function svcgen(args: string[], cwd = repoRoot, env: Record<string, string> = {}) {
  return execa('node', [svcgenBin, ...args], { cwd, reject: false, env: { ...env, FORCE_COLOR: undefined } });
}

describe('svcgen', () => {
  it('prints its version', async () => {
    const run = await svcgen(['--version']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('prints help naming every command', async () => {
    const run = await svcgen(['--help']);
    expect(run.exitCode).toBe(0);
    for (const command of ['generate', 'validate', 'inspect']) expect(run.stdout).toContain(command);
  });

  it.each([
    [['frobnicate']],
    [['validate']],
    [['validate', 'a.raml', '--format', 'xml']],
    [['inspect', 'a.raml']],
    [['generate', 'a.raml']],
  ])('exits 2 on wrong usage: %j', async (args) => {
    const run = await svcgen(args);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).not.toBe('');
  });

  it('stops quietly when its reader closes the pipe early (`svcgen inspect … | head`)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      'node',
      [svcgenBin, 'inspect', join(repoRoot, 'fixtures/ramses-example/api.raml'), '--openapi'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read one chunk, then close the pipe as `head -c 10` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  });

  it('validates the Ramses example', async () => {
    const run = await svcgen(['validate', join(repoRoot, 'fixtures/ramses-example/api.raml')]);
    expect(run.exitCode).toBe(0);
  });

  it('exits 1 with compiler-style diagnostics for invalid input', async () => {
    const dir = writeTree({ 'api.raml': raml('title: T\n/a:\n  get:\n    is: [pagd]\ntraits:\n  - paged: {}\n') });
    const run = await svcgen(['validate', 'api.raml'], dir);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      [
        'api.raml:5:10 - error SVC1202: unknown trait "pagd"',
        '',
        '5     is: [pagd]',
        '           ~~~~',
        'help: did you mean `paged`?',
        '',
        'Found 1 error and 0 warnings. The models, their links and the ACLs are checked once these errors are fixed.',
      ].join('\n'),
    );
  });

  it('prints diagnostics as JSON with 1-based positions relative to the current directory', async () => {
    const dir = writeTree({ 'sub/api.raml': raml('title: T\nprotocols: [http]\n') });
    const run = await svcgen(['validate', 'sub/api.raml', '--format', 'json'], dir);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        severity: 'error',
        code: 'SVC1105',
        message: '"http" is not a protocol; use HTTP or HTTPS',
        file: 'sub/api.raml',
        line: 3,
        column: 13,
        endLine: 3,
        endColumn: 17,
        hint: 'protocol names are upper case: HTTP',
      },
    ]);
    expect(run.stderr).toBe('');
  });

  it('uses colours only on a terminal', async () => {
    const dir = writeTree({ 'api.raml': raml('title: T\nx: 1\n') });
    const run = await svcgen(['validate', 'api.raml'], dir);
    expect(run.stderr).not.toContain('\u001b[');
  });

  it('prints the TCK document', async () => {
    const dir = writeTree({ 'api.raml': raml('title: T\n/a:\n  get:\n') });
    const run = await svcgen(['inspect', 'api.raml', '--tck'], dir);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ramlVersion: 'RAML08',
      type: 'Api',
      specification: { title: 'T', resources: [{ relativeUri: '/a' }] },
      errors: [],
    });
  });

  it('prints the ACL matrix: who may use each route with auth on', async () => {
    const run = await svcgen(['inspect', join(repoRoot, 'fixtures/ramses-example/api.raml'), '--acl']);
    expect(run.exitCode).toBe(0);
    const row = (method: string, path: string) =>
      run.stdout
        .split('\n')
        .find((l) => new RegExp(`^${method}\\s+${path.replace(/[{}/]/g, '\\$&')}\\s`).test(l))
        ?.split(/\s+/);
    expect(run.stdout.split('\n')[3]).toMatch(
      /^method\s+route\s+x-ACL\s+anonymous\s+member\s+owner\s+admin\s+owner by$/,
    );
    // anonymous, member, owner ({{item_owner}}), admin
    expect(row('GET', '/v1/stories')?.slice(3)).toEqual(['allow', 'allow', 'allow', 'allow', '-']);
    expect(row('POST', '/v1/stories')?.slice(3)).toEqual(['401', 'allow', 'allow', 'allow', '-']);
    // 401*: {{item_owner}} is asked first; a principal may grant everyone, which the owner column does not show.
    expect(row('PATCH', '/v1/stories/{id}')?.slice(3)).toEqual(['401*', '403', 'allow', 'allow', '{{item_owner}}']);
    expect(run.stdout).toMatch(/^401\*: refused unless \{\{item_owner\}\}, .* let anonymous callers in/m);
    expect(row('DELETE', '/v1/stories/{id}')?.slice(3)).toEqual(['401', '403', '403', 'allow', '-']);
    // settings is not in User's _auth_fields: only admins (and the user, who is not the matrix's "owner") read it
    expect(row('GET', '/v1/users/{username}/settings')?.slice(3)).toEqual(['401', '403', '403', 'allow', '-']);
    // …which the matrix says below it, as a probe found the service answer the user on their own record.
    expect(run.stdout).toContain(
      'On their own User record a user reads every field but hidden ones, and writes them all but groups',
    );
  });

  it('reports a missing file as a diagnostic, not a crash', async () => {
    const run = await svcgen(['validate', 'nope.raml'], writeTree({}));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('error SVC1001: cannot read nope.raml: no such file');
  });

  it('exits 3 and says it is a bug when svcgen itself fails', async () => {
    let stderr = '';
    const code = await main(['validate', 'api.raml'], {
      cwd: writeTree({ 'api.raml': raml('title: T\nx: 1\n') }),
      color: false,
      stdout: () => undefined,
      stderr: (text) => {
        if (!text.includes('bug')) throw new Error('boom');
        stderr += text;
      },
    });
    expect(code).toBe(3);
    expect(stderr).toContain('this is a bug in svcgen');
    expect(stderr).toContain('Error: boom');
  });
});
