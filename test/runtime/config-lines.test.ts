/**
 * What service.ini says besides its values (runtime/src/lib/config-lines.ts), and settings that
 * were taken and did nothing: a probe's `system.password: …` line (Python configparser's form) was
 * logged whole, secret included, and left no system user; a system user set in part was none, unsaid;
 * an origin with a trailing slash matched no browser's; a name set twice held its last value unsaid.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../runtime/src/lib/config.js';

const configOf = (text: string, env: NodeJS.ProcessEnv = {}) => {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-ini-')), 'service.ini');
  writeFileSync(file, text);
  return loadConfig({ file, env, extraKeys: ['auth_tkt_secret'], defaults: { mongodbUrl: 'mongodb://127.0.0.1/x' } });
};

const refusal = (text: string, env: NodeJS.ProcessEnv = {}): string => {
  try {
    configOf(text, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return 'accepted';
};

describe('a line of service.ini that is not name = value', () => {
  it.each([
    ['system.password: Hunter2-SuperSecret', 'system.password'],
    ['system.password Hunter2-SuperSecret', 'system.password'],
    ['[auth]\nauth_tkt_secret:Hunter2-SuperSecret', 'auth_tkt_secret'],
  ])('%j is an error naming its line and name, never the rest of it', (line, name) => {
    const message = refusal(`auth = true\n${line}\n`);
    expect(message).toMatch(new RegExp(`service\\.ini line \\d+: "${name} …" is not "name = value"`));
    expect(message).not.toContain('Hunter2');
  });

  it('never shows a line that names no setting: a value continued below its name, a bare word', () => {
    // A probe's secret, continued on an indented line (configparser's form), was logged as a setting's name.
    for (const text of [
      'webhooks.timeout =\n    f0e1d2c3b4a5968778695a4b3c2d1e0fSECRET\n',
      'auth = false\nSUPERSECRETVALUE\n',
      'auth = false\nHunter2 and more\n',
    ]) {
      const message = refusal(text);
      expect(message).toMatch(/service\.ini line 2: is not "name = value"/);
      expect(message).not.toMatch(/SECRET|Hunter2/);
    }
    expect(refusal('auth\n')).toMatch(/line 1: "auth …" is not "name = value"/);
  });

  it('refuses a value that a ; or # would cut short, unless it is quoted or escaped', () => {
    // `CorrectHorse;Battery9` was the password `CorrectHorse`.
    const message = refusal('system.password = CorrectHorse;Battery9\n');
    expect(message).toContain(
      'service.ini line 1: the value of system.password holds ; or #, where service.ini starts a comment',
    );
    expect(message).not.toContain('Battery9');
    expect(refusal('[auth]\nsecret = abc#def\n')).toContain('the value of auth.secret holds ; or #');
    const quoted = configOf('system.user = root\nsystem.email = r@x.io\nsystem.password = "Correct;Horse#Battery9"\n');
    expect(quoted.system?.password).toBe('Correct;Horse#Battery9');
    expect(configOf('database.url = sqlite:./a\\;b.db\n').databaseUrl).toBe('sqlite:./a;b.db');
  });

  it('takes comments, sections and a value with a colon', () => {
    const config = configOf('; a comment\n# another\nauth = true\n[database]\nurl = postgres://u:p@h/db\n');
    expect(config.auth).toBe(true);
    expect(config.databaseUrl).toBe('postgres://u:p@h/db');
  });
});

describe('a name service.ini sets twice', () => {
  it('is a warning naming both lines: the last holds', () => {
    const config = configOf('auth = true\nmax_limit = 5\n[auth]\ntimeout = 60\n[]\nauth = false\n');
    expect(config.auth).toBe(false);
    expect(config.warnings).toEqual([
      expect.stringMatching(/service\.ini sets auth on lines 1, 6: the last one holds/),
    ]);
  });
});

describe('a system user set in part', () => {
  it('is an error naming what is missing (it was no system user, and no word)', () => {
    expect(refusal('system.user = admin\nsystem.password = adminpassword1\n')).toContain(
      'the system user needs system.user, system.password, system.email, or none of them: system.email is not set (in service.ini or SVC_SYSTEM_EMAIL)',
    );
    expect(refusal('system.user = admin\n')).toContain('system.password and system.email are not set');
    expect(refusal('system.user = admin\nsystem.password = adminpassword1\n', { SVC_SYSTEM_EMAIL: 'a@b.c' })).toBe(
      'accepted',
    );
    expect(configOf('').system).toBeNull();
  });
});

describe('cors.allow_origins', () => {
  it.each([
    ['https://app.example.com/', 'a browser sends https://app.example.com'],
    ['https://App.Example.com', 'a browser sends https://app.example.com'],
    ['https://app.example.com:443', 'a browser sends https://app.example.com'],
    ['https://*.example.com', 'a pattern'],
    ['app.example.com', 'no origin'],
  ])('refuses %j, which no Origin header can match', (origin, why) => {
    const message = refusal(`cors.enable = true\ncors.allow_origins = https://ok.example.com, ${origin}\n`);
    expect(message).toContain(`cors.allow_origins can never match "${origin}" (${why}`);
  });

  it('takes origins as browsers send them, and *', () => {
    const config = configOf(
      'cors.enable = true\ncors.allow_origins = https://app.example.com, http://localhost:5173\n',
    );
    expect(config.cors.allowOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(configOf('cors.allow_origins = *\n').cors.allowOrigins).toEqual(['*']);
  });
});
