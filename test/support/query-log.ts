/**
 * What a service started with `SVC_LOG_LEVEL: 'debug'` sent to its database: each statement's
 * text is a `"msg":"query"` log line (without its values).
 */
import type { RunningService } from './server.js';

/**
 * The statements `service` sent while `work` ran, in order. Logs are written asynchronously:
 * the output is read once it has stopped growing, before and after.
 */
export async function statementsDuring(service: RunningService, work: () => Promise<void>): Promise<string[]> {
  return statementsIn(await outputDuring(service, work));
}

/** What `service` wrote to its output while `work` ran. */
export async function outputDuring(service: RunningService, work: () => Promise<void>): Promise<string> {
  const before = await settled(service);
  await work();
  await settled(service);
  return service.output().slice(before);
}

/** The statements a service's `output` logged, in order. */
export function statementsIn(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"query"'))
    .map((line) => String((JSON.parse(line) as { query: unknown }).query));
}

/**
 * The outbox's own work, which runs beside the requests (numbering events, pruning): on its svc_
 * tables, under an advisory lock on PostgreSQL (taken by every poll, a quarter of a second apart).
 * Not a write that appends its event in its own statement (`with w as (…)`), nor a read that names
 * what it reads with its objects `"svc_related:…"`, `"svc_page:total"` or `"svc_linked:…"`: those
 * are the request's.
 */
export function isOutboxWork(statement: string): boolean {
  if (/^\s*with w as \(/i.test(statement) || /"svc_(related|page|linked):/.test(statement)) return false;
  return /svc_|pg_try_advisory_xact_lock/.test(statement);
}

async function settled(service: RunningService): Promise<number> {
  for (let last = -1; last !== service.output().length;) {
    last = service.output().length;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return service.output().length;
}
