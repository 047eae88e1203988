/**
 * Community gardens and their plots, for the end-to-end tests of creates below a parent: a garden
 * has a coordinator (a username) and plots, made below it by `POST /gardens/{id}/plots` (and, with
 * `flat`, by `POST /plots` naming the garden). The plots' x-ACL and schema are the test's.
 */
import { securedRaml, type AclRules } from './files.js';

export const GARDEN_ACL: AclRules = {
  collection: 'allow g:admin all\nallow authenticated view',
  item: 'allow g:admin all\nallow authenticated view',
};

const PLOTS = `      securedBy: [plot_acl]
      get:
      post:
        body:
          application/json:
            schema: !include plot.json
`;

const id = { _db_settings: { type: 'id_field', primary_key: true } };

/** The API's files: `plotAcl` on the plots' routes, `plot` (besides `id`, `number` and `garden_id`) in their schema. */
export function gardenFiles(options: {
  readonly plotAcl: AclRules;
  readonly flat?: boolean;
  readonly plot?: Readonly<Record<string, unknown>>;
  readonly gardenId?: Readonly<Record<string, unknown>>;
}): Record<string, string> {
  const flat = options.flat ? `/plots:\n${PLOTS.replace(/^ {4}/gm, '')}` : '';
  const resources = `
/gardens:
  securedBy: [garden_acl]
  get:
  post:
    body:
      application/json:
        schema: !include garden.json
  /{id}:
    get:
    /plots:
${PLOTS}${flat}`;
  return {
    'api.raml': securedRaml('Gardens', { garden_acl: GARDEN_ACL, plot_acl: options.plotAcl }, resources),
    'garden.json': JSON.stringify({
      type: 'object',
      properties: {
        id,
        coordinator: { type: ['string', 'null'], _db_settings: { type: 'string' } },
        plots: { _db_settings: { type: 'relationship', document: 'Plot', backref_name: 'garden' } },
      },
    }),
    'plot.json': JSON.stringify({
      type: 'object',
      ...options.plot,
      properties: {
        id,
        number: { type: 'integer', _db_settings: { type: 'integer', required: true } },
        garden_id: {
          ...options.gardenId,
          _db_settings: {
            type: 'foreign_key',
            ref_document: 'Garden',
            ref_column: 'garden.id',
            ref_column_type: 'id_field',
          },
        },
      },
    }),
  };
}
