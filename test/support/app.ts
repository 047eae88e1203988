/** The runtime's bare app (runtime/src/lib/http/app.ts) as the tests of its own behaviour build it: quiet, small limits. */
import { createApp } from '../../runtime/src/lib/http/app.js';

export type App = ReturnType<typeof createApp>;

export function testApp(bodyLimit = 1024): App {
  return createApp({
    logLevel: 'info',
    bodyLimit,
    timeouts: { request: 5000, keepAlive: 5000, handler: 5000 },
    trustProxy: false,
    logger: false,
  });
}
