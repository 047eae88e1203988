/**
 * The generated service.ini names every setting the service reads, with its default (its README
 * says it does): a new user looked there for the webhooks' and the events' settings, which were
 * only in the README.
 */
import { describe, expect, it } from 'vitest';
import { STANDARD_KEYS } from '../../runtime/src/lib/config.js';
import { GLOBAL_KEYS } from '../../runtime/src/lib/webhooks/settings.js';
import { generateFixture } from '../support/generated.js';

describe('service.ini', () => {
  it('names every setting, commented out with its default, and how to write a webhook subscription', async () => {
    const ini = (await generateFixture('ramses-example')).get('service.ini')!.content;
    const named = new Set([...ini.matchAll(/^; ([\w.]+) =/gm)].map((m) => m[1]));
    // The auth settings beside `auth` are said once, by the auth section of the ini; the system user's too.
    const keys = [...STANDARD_KEYS, ...GLOBAL_KEYS, 'events.retention', 'events.dead_retention'];
    expect(keys.filter((key) => !named.has(key) && !key.startsWith('system.'))).toEqual([]);
    expect(ini).toMatch(/^; \[webhooks\.billing\]\n; url = .*\n; events = \w+\.\*\n; secret = /m);
    // Last in the file: the keys below a section header are its own.
    expect(ini.trimEnd().endsWith('; secret = whsec_…')).toBe(true);
  });
});
