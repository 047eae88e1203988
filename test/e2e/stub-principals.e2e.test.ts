/**
 * A service ported from Ramses whose ACLs name dynamic principals (`{{item_owner}}`…) that are
 * still the stubs svcgen wrote: their ACL lines match no one, and the service says so at start-up,
 * once per principal, naming the file to fill in (issue 29). Once they are written, it says nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtProject } from '../support/project.js';
import { withRamsesFunctions } from '../support/ramses-example.js';
import { startService, type RunningService } from '../support/server.js';

const AUTH = {
  SVC_DATABASE_URL: 'sqlite::memory:',
  SVC_AUTH: 'true',
  SVC_AUTH_TKT_SECRET: 'stub-principals-0123456789abcdef0123456789abcdef',
};

const warningsIn = (output: string) => output.split('\n').filter((line) => line.includes('returns nothing yet'));

describe('ramses-example with its principals still stubs', () => {
  let dir: string;
  let service: RunningService | undefined;

  beforeAll(async () => {
    dir = await builtProject('ramses-example', 'e2e-stub-principals');
  }, 600_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('warns once per principal at start-up, naming its file', async () => {
    service = await startService(dir, AUTH, '/v1');
    const warnings = warningsIn(service.output());
    expect(warnings).toHaveLength(3);
    for (const [name, file] of [
      ['item_owner', 'src/custom/principals/item-owner.ts'],
      ['user_profile', 'src/custom/principals/user-profile.ts'],
      ['user_self', 'src/custom/principals/user-self.ts'],
    ] as const) {
      expect(
        warnings.some((line) => line.includes(`{{${name}}}`) && line.includes(file)),
        name,
      ).toBe(true);
    }
    expect(warnings.every((line) => line.includes('"level":40'))).toBe(true);
    await service.stop();
    service = undefined;
  });

  it('says nothing once they are written', async () => {
    await withRamsesFunctions(dir);
    service = await startService(dir, AUTH, '/v1');
    expect(warningsIn(service.output())).toEqual([]);
  });
});
