/** Views of the project's settings and wiring: service.ini, src/config.ts and src/app.ts. */
import type { ServiceIR } from '../../ir/types.js';
import { commentText, literal, quote } from '../shared/literal.js';
import { groupOf, routeGroupNames } from '../shared/names.js';

export function serviceIniView(ir: ServiceIR) {
  return {
    // In a `;` comment: one line, or the title could add settings.
    title: commentText(ir.title),
    mongodbUrl: `mongodb://127.0.0.1:27017/${ir.name}`,
    ticketSecret: ir.auth?.ticket?.secretSetting ?? null,
    exampleEvents: exampleEvents(ir),
  };
}

/** The first model's events, as a subscription names them (`*`: every event). */
function exampleEvents(ir: ServiceIR): string {
  const model = ir.models.find((m) => !m.internal);
  return model ? `${model.name}.*` : '*';
}

export function configView(ir: ServiceIR) {
  return {
    extraKeys: literal(ir.auth?.ticket ? [ir.auth.ticket.secretSetting] : []),
    mongodbUrl: quote(`mongodb://127.0.0.1:27017/${ir.name}`),
  };
}

export function appView(ir: ServiceIR) {
  const groups = [...new Set(ir.routes.map((r) => groupOf(r)))];
  return {
    auth: ir.auth !== null,
    basePath: quote(ir.basePath),
    plugins: groups.map((g) => ({ name: routeGroupNames(g).plugin, file: routeGroupNames(g).file })),
  };
}
