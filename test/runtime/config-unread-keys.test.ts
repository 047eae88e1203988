/** service.ini keys that nothing reads are named at start-up (runtime/src/lib/config.ts `Config.warnings`). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/src/lib/config.js';

const configOf = (text: string, extraKeys: string[] = []) => {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-ini-')), 'service.ini');
  writeFileSync(file, text);
  return loadConfig({ file, env: {}, extraKeys, defaults: { mongodbUrl: 'mongodb://127.0.0.1/x' } });
};

describe('service.ini keys the service does not read', () => {
  it('names a key written with underscores for dots, with the setting it meant, and keeps the default', () => {
    const config = configOf('auth_timeout = 60\n');
    expect(config.authTimeout).toBe(86400);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toMatch(
      /service\.ini sets auth_timeout, which is not a setting .*did you mean auth\.timeout\?/,
    );
  });

  it('suggests the setting a misspelt key is closest to, in a section too', () => {
    expect(configOf('[database]\nrul = sqlite::memory:\n').warnings[0]).toMatch(
      /sets database\.rul.*did you mean database\.url\?/,
    );
    expect(configOf('max_limt = 5\n').warnings[0]).toMatch(/did you mean max_limit\?/);
  });

  it('says of a key like no setting that only the service’s own code could read it', () => {
    expect(configOf('billing_region = eu\n').warnings).toEqual([
      expect.stringMatching(/sets billing_region, which is not a setting .*only your own code could read it/),
    ]);
  });

  it('is silent about every setting the service reads: its own, the API’s secret, webhooks and events', () => {
    const ini = [
      'auth = false',
      'auth_tkt_secret = x',
      'events.retention = 7d',
      'events.dead_retention = 30d',
      'webhooks.timeout = 10s',
      '[database]',
      'url = sqlite::memory:',
      '[webhooks.billing]',
      'url = https://billing.example/hook',
      'events = *',
    ].join('\n');
    expect(configOf(ini, ['auth_tkt_secret']).warnings).toEqual([]);
  });
});
