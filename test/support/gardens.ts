/**
 * Community gardens and their plots, for the end-to-end tests of creates below a parent: a garden
 * has a coordinator (a username) and plots, made below it by `POST /gardens/{id}/plots` (and, with
 * `flat`, by `POST /plots` naming the garden). The plots' x-ACL and schema are the test's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { securedRaml, type AclRules } from './files.js';
import type { Api } from './http.js';
import { rootAuthEnv } from './library.js';
import { memberTokens, servedApi } from './served.js';

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
  /** The gardens' x-ACL: GARDEN_ACL (every member views every garden) unless given. */
  readonly gardenAcl?: AclRules;
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
    'api.raml': securedRaml(
      'Gardens',
      { garden_acl: options.gardenAcl ?? GARDEN_ACL, plot_acl: options.plotAcl },
      resources,
    ),
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

/** The gardens API served (auth on), with `code` written into the project at `file`, and cora's and ben's gardens made. */
export interface GardenService {
  readonly api: Api;
  /** The headers of `name`'s API token: `root` (an admin), `cora` or `ben`. */
  as(name: string): { headers: Record<string, string> };
  /** The keys of the gardens cora and ben coordinate. */
  readonly coras: number;
  readonly bens: number;
  stop(): Promise<void>;
}

export async function gardenService(
  files: Record<string, string>,
  area: string,
  code: { readonly file: string; readonly text: string },
): Promise<GardenService> {
  const served = await servedApi(files, area, {
    env: rootAuthEnv(),
    prepare: (dir) => writeFileSync(join(dir, code.file), code.text),
  });
  const tokens = await memberTokens(served.api, ['cora', 'ben']);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
  const garden = async (coordinator: string) =>
    (await served.api('POST', '/gardens', { coordinator }, as('root'))).body.id as number;
  return { api: served.api, as, coras: await garden('cora'), bens: await garden('ben'), stop: () => served.stop() };
}
