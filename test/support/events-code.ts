/**
 * The events fixture's handlers and processors, as a user would write them in the stubs svcgen
 * created (src/custom/handlers, src/custom/processors): used by the HTTP suite and by the test
 * that a schema change makes `tsc` point at a stale handler.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the user writes in src/custom/: the stubs svcgen created, filled in. */
const EVENTS_FIXTURE_CODE: Record<string, string> = {
  'handlers/set-slug': `import type { SetSlugEvent } from '../../events.js';

export async function setSlug(event: SetSlugEvent): Promise<void> {
  const name = event.fields.name?.new_value;
  if (name === 'boom') throw new Error('a plain error, with internals: /etc/secret');
  if (name !== undefined && !('slug' in event.fields)) {
    event.setFieldValue('slug', name.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  }
}
`,
  'handlers/add-open-tasks': `import type { AddOpenTasksEvent } from '../../events.js';

export async function addOpenTasks(event: AddOpenTasksEvent): Promise<void> {
  const id = event.instance?.id;
  if (id == null) return;
  const open = await event.db.task.count({ where: { project_id: id, done: false } });
  (event.response as Record<string, unknown>)['open_tasks'] = open;
}
`,
  'handlers/close-tasks': `import type { CloseTasksEvent } from '../../events.js';

export async function closeTasks(event: CloseTasksEvent): Promise<void> {
  if (event.fields.status?.new_value !== 'closed' || event.instance?.id == null) return;
  await event.db.task.updateMany({ where: { project_id: event.instance.id }, data: { done: true } });
}
`,
  'handlers/refuse-frozen': `import { HttpError } from '../../lib/errors.js';
import type { RefuseFrozenEvent } from '../../events.js';

export async function refuseFrozen(event: RefuseFrozenEvent): Promise<void> {
  if (event.instance?.name === 'frozen') throw new HttpError(409, 'frozen projects do not change');
}
`,
  'handlers/audit': `import type { AuditEvent } from '../../events.js';

/** Used by Project, Task and User: the event is any of theirs. */
export async function audit(event: AuditEvent): Promise<void> {
  const response = event.response as { count?: unknown } | undefined;
  // Before a change of many there is no answer yet: what it selects is counted (event.where).
  const selected =
    event.where && event.model.name === 'Project' ? await event.db.project.count({ where: event.where as never }) : null;
  const count = typeof response?.count === 'number' ? response.count : selected;
  await event.db.auditEntry.create({ data: { model: event.model.name, action: event.action, count } });
}
`,
  'handlers/refuse-inactive': `import { HttpError } from '../../lib/errors.js';
import type { RefuseInactiveEvent } from '../../events.js';

export async function refuseInactive(event: RefuseInactiveEvent): Promise<void> {
  if (event.instance?.active === false) throw new HttpError(403, 'this account is disabled');
}
`,
  'handlers/count-login': `import type { CountLoginEvent } from '../../events.js';

export async function countLogin(event: CountLoginEvent): Promise<void> {
  const user = event.instance!;
  const count = (user.login_count ?? 0) + 1;
  await event.db.user.update({ where: { username: user.username }, data: { login_count: count } });
  event.setFieldValue('login_count', count);
}
`,
  'processors/trim': `import type { TrimArgs } from '../../events.js';

/** Task.title is a string; User.display_name may be null. */
export function trim({ new_value }: TrimArgs): TrimArgs['new_value'] {
  return new_value === null ? null : new_value.trim();
}
`,
  'processors/capitalize': `import type { CapitalizeArgs } from '../../events.js';

export function capitalize({ new_value }: CapitalizeArgs): CapitalizeArgs['new_value'] {
  return new_value === null ? null : new_value.charAt(0).toUpperCase() + new_value.slice(1);
}
`,
};

export function writeEventsCode(dir: string): void {
  for (const [module, code] of Object.entries(EVENTS_FIXTURE_CODE))
    writeFileSync(join(dir, 'src/custom', `${module}.ts`), code);
}
