/**
 * The API reference page (`{base}/docs`) in a real browser: headless Chromium
 * (test/support/chromium.ts: the machine's, else npm's) loads it from the service alone — every request
 * the page makes stays on 127.0.0.1, so it works offline — and shows every top-level resource of
 * the API. A screenshot is kept in .tmp/artifacts/ for people to look at. `docs.enable = false`
 * turns the page off.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { chromiumMissing, launchChromium } from '../support/chromium.js';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';
import { builtProject, fixtureRaml } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const ARTIFACTS = join(repoRoot, '.tmp', 'artifacts');

/** The tags the page should show: one per top-level resource. */
function resources(fixture: string): string[] {
  const { ir } = analyze(fixtureRaml(fixture));
  return [...new Set(ir!.routes.map((r) => r.path.split('/')[1]!))].sort();
}

if (chromiumMissing) console.warn(chromiumMissing);
/** Skipped, the title says how to get Chromium. */
const title = chromiumMissing ? `the docs page of %s (skipped: ${chromiumMissing})` : 'the docs page of %s';

describe.skipIf(chromiumMissing).each([
  ['blog', '/api/v2'],
  ['ramses-example', '/v1'],
  // oxlint-disable-next-line vitest/valid-title -- a string either way (see above)
])(title, (fixture, base) => {
  let database: TestDatabase;
  let service: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    const dir = await builtProject(fixture, 'e2e-docs');
    database = await testDatabase('sqlite', dir, `docs-${fixture}`);
    service = await startService(dir, database.env, base);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await database?.drop();
  });

  it('loads offline in Chromium and shows every resource', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    const elsewhere: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    const answer = await page.goto(`${service.origin}${base}/docs`);
    expect(answer?.status()).toBe(200);
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    const tags = await page.$$eval('.opblock-tag', (elements) => elements.map((e) => e.getAttribute('data-tag')));
    for (const resource of resources(fixture)) expect(tags).toContain(resource);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(resources(fixture).length);
    expect(elsewhere).toEqual([]);
    // It runs whole under its Content-Security-Policy, which another site's frame cannot hold.
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer?.headers()['x-frame-options']).toBe('DENY');
    expect(refused).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `docs-${fixture}.png`), fullPage: false });
  });

  it('serves only the page and its assets, and docs.enable = false turns it off', async () => {
    expect((await fetch(`${service.origin}${base}/docs/package.json`)).status).toBe(404);
    expect((await fetch(`${service.origin}${base}/docs/swagger-ui-bundle.js`)).headers.get('content-type')).toContain(
      'javascript',
    );
    const dir = await builtProject(fixture, 'e2e-docs');
    const off = await startService(dir, { ...database.env, SVC_DOCS_ENABLE: 'false' }, base);
    try {
      expect((await fetch(`${off.origin}${base}/docs`)).status).toBe(404);
      expect((await fetch(`${off.origin}${base}/openapi.json`)).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});
