/**
 * `reportOutcomes` (src/write/outcomes.ts): a handler renamed in a schema leaves its old file unused
 * (SVC3008) and gets a new, empty stub beside it; the warning says where its code should go, or the
 * new name would quietly run nothing (a new user's payment guard stopped guarding).
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticBag } from '../../src/diagnostics/diagnostic.js';
import type { Change } from '../../src/write/changes.js';
import { reportOutcomes } from '../../src/write/outcomes.js';

const unused: Change = { path: 'src/custom/handlers/guard-payment.ts', kind: 'unused', owner: 'user', before: 'x' };

function hints(changes: readonly Change[]): (string | undefined)[] {
  const bag = new DiagnosticBag();
  reportOutcomes(changes, 'service', 'api.raml', bag);
  return bag.sorted().map((d) => d.hint);
}

describe('an unused stub', () => {
  it('names the new stub beside it as where its code may belong', () => {
    const added: Change = {
      path: 'src/custom/handlers/guard-invoice-payment.ts',
      kind: 'add',
      owner: 'user',
      after: '',
    };
    expect(hints([unused, added])).toEqual([
      "renamed? src/custom/handlers/guard-invoice-payment.ts is new in this run, as an empty stub: move this file's code there",
    ]);
  });

  it('names, of a model the API renamed, the stub of its new name, and that stub to no other unused file', () => {
    const user = (path: string, kind: 'unused' | 'add'): Change =>
      kind === 'unused' ? { path, kind, owner: 'user', before: 'x' } : { path, kind, owner: 'user', after: '' };
    const changes = [
      user('src/custom/events/payment.ts', 'unused'),
      user('src/custom/events/time-entry.ts', 'unused'),
      user('src/custom/events/work-log.ts', 'add'),
    ];
    const bag = new DiagnosticBag();
    reportOutcomes(changes, 'service', 'api.raml', bag, false, [['time-entry', 'work-log']]);
    expect(bag.sorted().map((d) => [d.message.split(':')[0], d.hint])).toEqual([
      ['unused src/custom/events/payment.ts', undefined],
      [
        'unused src/custom/events/time-entry.ts',
        "renamed? src/custom/events/work-log.ts is new in this run, as an empty stub: move this file's code there",
      ],
    ]);
  });

  it('guesses no successor for a stub an earlier run left unused (a new model then is no rename of it)', () => {
    const added: Change = { path: 'src/custom/handlers/grade.ts', kind: 'add', owner: 'user', after: '' };
    expect(hints([{ ...unused, unusedBefore: true }, added])).toEqual([undefined]);
  });

  it('says nothing more where no stub of that folder is new', () => {
    const elsewhere: Change = { path: 'src/custom/principals/owner.ts', kind: 'add', owner: 'user', after: '' };
    const generated: Change = { path: 'src/custom/handlers/index.ts', kind: 'add', owner: 'generated', after: '' };
    expect(hints([unused, elsewhere, generated])).toEqual([undefined]);
  });

  it('says it no longer compiles where the event type it imports is gone from src/events.ts', () => {
    const stub: Change = {
      ...unused,
      before:
        "import type { GuardPaymentEvent } from '../../events.js';\nexport default (event: GuardPaymentEvent) => {};\n",
    };
    const events = (text: string): Change => ({
      path: 'src/events.ts',
      kind: 'change',
      owner: 'generated',
      after: text,
    });
    const report = (changes: readonly Change[]) => {
      const bag = new DiagnosticBag();
      reportOutcomes(changes, 'service', 'api.raml', bag);
      return bag.sorted().map((d) => [d.message, d.hint]);
    };
    expect(report([stub, events('export type GuardInvoicePaymentEvent = InvoiceEvent;\n')])).toEqual([
      [
        'unused src/custom/handlers/guard-payment.ts: api.raml no longer refers to it; kept (yours: delete it when you no longer need it); it no longer compiles (src/events.ts has no GuardPaymentEvent), so npm run build fails until you move its code and delete it',
        'move its code into the function that took its place (its stub in the same folder), or delete it',
      ],
    ]);
    // Still there (another model still names the handler's type): it compiles, and nothing more is said.
    expect(report([stub, events('export type GuardPaymentEvent = InvoiceEvent;\n')])[0]![1]).toBeUndefined();
  });

  // A new-user probe removed the model whose x-ACL named {{subscriber}}: its stub was said to be
  // kept, and the build then failed on it with nothing said.
  it('says so of a principal whose object type is gone from src/principals.ts, or with it', () => {
    const stub: Change = {
      path: 'src/custom/principals/subscriber.ts',
      kind: 'unused',
      owner: 'user',
      before:
        "import type { RequestBy } from '../../lib/auth/index.js';\nimport type { SubscriberObject } from '../../principals.js';\n",
    };
    const principals = (change: Partial<Change>): Change => ({
      path: 'src/principals.ts',
      kind: 'change',
      owner: 'generated',
      ...change,
    });
    const said = (changes: readonly Change[]) => {
      const bag = new DiagnosticBag();
      reportOutcomes(changes, 'service', 'api.raml', bag);
      return bag.sorted().map((d) => d.message.slice(d.message.indexOf('; it no longer') + 2));
    };
    const breaks =
      'it no longer compiles (src/principals.ts has no SubscriberObject), so npm run build fails until you move its code and delete it';
    expect(said([stub, principals({ after: 'export type OwnerObject = Show;\n' })])).toEqual([breaks]);
    expect(
      said([stub, principals({ kind: 'delete', before: 'export type SubscriberObject = Subscription;\n' })]),
    ).toEqual([breaks]);
  });
});
