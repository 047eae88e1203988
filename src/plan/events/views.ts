/**
 * Views of the event files: `src/events.ts` (generated: the types each user function is checked
 * against), `src/model-events.ts` (generated: every model's handlers and processors as the
 * runtime runs them) and one user-owned stub per handler and per processor, typed by
 * `src/events.ts`: when the API changes, `tsc` points at the stub that no longer fits. The stubs
 * import the types, and model-events.ts imports the stubs: no import goes round.
 */
import type { EventBinding, Model, ServiceIR, UserFunction } from '../../ir/types.js';
import { commentText, quote } from '../shared/literal.js';
import { camel, handlerModule, modelNames, pascal, processorModule } from '../shared/names.js';

/** Names the generated events module declares itself; a user function named so is imported under an alias. */
const RESERVED = ['modelEvents', 'serviceEvents', 'EVENTS', 'Event', 'ProcessorArgs', 'Database'];

/** `src/events.ts`: the types each handler and processor is checked against. */
export function eventTypesView(ir: ServiceIR) {
  const typed = typedModels(ir);
  const { user, imports } = caller(ir, typed);
  const modelEventTypes = typed
    .filter((name) => ir.userCode.handlers.some((h) => usedModels(h).includes(name)))
    .map((name) => ({ name: modelNames({ name }).event, model: name }));
  const processorTypes = ir.userCode.processors.map((p) => ({
    type: `${pascal(p.name)}Args`,
    doc: commentText(`\`${p.name}\`: ${p.usedBy.map((u) => `${u.model}.${u.field}`).join(', ')}.`),
    union: p.usedBy.map((u) => `ProcessorArgsOf<${u.model}, ${quote(u.field ?? '')}>`).join(' | '),
  }));
  return {
    user,
    usesDatabase: modelEventTypes.length > 0 || processorTypes.length > 0,
    modelTypeImports: imports.map(({ model, types }) => ({
      name: types.join(', '),
      from: `./models/${modelNames({ name: model }).file}.js`,
    })),
    modelEventTypes,
    handlerTypes: ir.userCode.handlers.map((h) => ({
      type: `${pascal(h.name)}Event`,
      doc: commentText(`\`${h.name}\`: ${h.usedBy.map((u) => `${u.event} of ${u.model}`).join(', ')}.`),
      union: handlerEventType(usedModels(h)),
    })),
    sharesHandlers: ir.userCode.handlers.some((h) => usedModels(h).length > 1),
    processorTypes,
  };
}

/**
 * The event type of a handler of `models`: its model's event, or for several, any of theirs with a
 * `setFieldValue` of the fields they share (lib/events.ts `SharedEvent`).
 */
function handlerEventType(models: readonly string[]): string {
  const events = models.map((m) => modelNames({ name: m }).event).join(' | ');
  return models.length > 1 ? `SharedEvent<${events}, ${models.join(' | ')}>` : events;
}

/** `src/model-events.ts`: every model's handlers and processors, bound as the runtime runs them. */
export function modelEventsView(ir: ServiceIR) {
  const locals = localNames(ir);
  const models = boundModels(ir);
  const { user, imports } = caller(ir, typedModels(ir));
  return {
    user,
    modelImports: imports.map(({ model, types }) => {
      const names = modelNames({ name: model });
      const variable = models.some((m) => m.name === model) ? `${names.variable}, ` : '';
      return { names: `${variable}${types.map((t) => `type ${t}`).join(', ')}`, from: `./models/${names.file}.js` };
    }),
    userImports: [
      ...ir.userCode.handlers.map((h) => userImport(h.name, locals.handlers.get(h.name)!, handlerModule(h.name))),
      ...ir.userCode.processors.map((p) => userImport(p.name, locals.processors.get(p.name)!, processorModule(p.name))),
    ].sort((a, b) => (a.from < b.from ? -1 : 1)),
    models: models.map((m) => modelBindingView(m, locals)),
  };
}

/**
 * How the event files type the caller: `user` is the type argument that makes `request.user` the
 * signed-in user (`, SignedInUser`: the user's own row, model-file.ts `signedInType`), when the
 * API has authentication and the files name any model (else none: the runtime's default);
 * `imports` are the types they import from each model's file, sorted by model.
 */
function caller(
  ir: ServiceIR,
  typed: readonly string[],
): { user: string; imports: { model: string; types: string[] }[] } {
  const userModel = ir.auth && typed.length > 0 ? ir.auth.userModel : undefined;
  const signedIn = userModel && modelNames({ name: userModel }).signedIn;
  const models = [...new Set([...typed, ...(userModel ? [userModel] : [])])].sort();
  return {
    user: signedIn ? `, ${signedIn}` : '',
    imports: models.map((model) => ({
      model,
      types: [...(model === userModel ? [signedIn!] : []), ...(typed.includes(model) ? [model] : [])],
    })),
  };
}

/** The models with a handler or a processor. */
function boundModels(ir: ServiceIR): Model[] {
  return ir.models.filter((m) => m.eventHandlers.length > 0 || m.fields.some((f) => f.processors.length > 0));
}

/** The models whose types the event files name, sorted. */
function typedModels(ir: ServiceIR): string[] {
  return [
    ...new Set([
      ...boundModels(ir).map((m) => m.name),
      ...ir.userCode.handlers.flatMap(usedModels),
      ...ir.userCode.processors.flatMap(usedModels),
    ]),
  ].sort();
}

function modelBindingView(model: Model, locals: LocalNames) {
  const phase = (p: EventBinding['phase']) =>
    model.eventHandlers
      .filter((b) => b.phase === p)
      .map((b) => ({ action: b.action, handlers: b.handlers.map((h) => locals.handlers.get(h)!).join(', ') }));
  const processed = model.fields.filter((f) => f.processors.length > 0);
  return {
    model: model.name,
    variable: modelNames(model).variable,
    before: phase('before'),
    after: phase('after'),
    processors: processed.map((f) => ({
      field: f.name,
      chain: f.processors.map((p) => locals.processors.get(p)!).join(', '),
    })),
  };
}

function userImport(name: string, local: string, module: string) {
  const exported = camel(name);
  return { names: local === exported ? exported : `${exported} as ${local}`, from: `./${module}.js` };
}

interface LocalNames {
  readonly handlers: ReadonlyMap<string, string>;
  readonly processors: ReadonlyMap<string, string>;
}

/** The name each user function has in src/events.ts: its own, unless a model, a type or a function of the other kind has it. */
function localNames(ir: ServiceIR): LocalNames {
  const taken = new Set([
    ...RESERVED,
    ...ir.models.flatMap((m) => [m.name, modelNames(m).variable, modelNames(m).event]),
  ]);
  const allocate = (functions: readonly UserFunction[], suffix: string) => {
    const out = new Map<string, string>();
    for (const f of functions) {
      let local = camel(f.name);
      if (taken.has(local)) local = `${local}${suffix}`;
      while (taken.has(local)) local = `${local}_`;
      taken.add(local);
      out.set(f.name, local);
    }
    return out;
  };
  return {
    handlers: allocate(ir.userCode.handlers, 'Handler'),
    processors: allocate(ir.userCode.processors, 'Processor'),
  };
}

function usedModels(f: UserFunction): string[] {
  return [...new Set(f.usedBy.map((u) => u.model))].sort();
}

// --- user-owned stubs ---------------------------------------------------------------------------

export function handlerStubView(handler: UserFunction) {
  return {
    name: handler.name,
    functionName: camel(handler.name),
    eventType: `${pascal(handler.name)}Event`,
    uses: handler.usedBy.map((u) => commentText(`${u.model}: ${u.event}`)),
  };
}

export function processorStubView(processor: UserFunction) {
  return {
    name: processor.name,
    functionName: camel(processor.name),
    argsType: `${pascal(processor.name)}Args`,
    uses: processor.usedBy.map((u) => commentText(`${u.model}.${u.field}`)),
  };
}
