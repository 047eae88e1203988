/**
 * The views of the generated `Dockerfile` and `compose.yaml`: the port, the health route below the
 * base path, and the database names agree with the rest of the project (test/generate/docker.test.ts).
 */
import type { ServiceIR } from '../../ir/types.js';

/** The port the service listens on by default (lib/config.ts; `PORT` overrides it). */
export const DEFAULT_PORT = 3000;

export function containerView(ir: ServiceIR) {
  const secret = ir.auth?.ticket?.secretSetting;
  return {
    port: DEFAULT_PORT,
    healthPath: `${ir.basePath}/health`,
    database: ir.name,
    secretEnv: secret ? settingEnv(secret) : null,
    auth: Boolean(ir.auth),
  };
}

/** The environment variable that sets `key`: `SVC_` + the key upper-cased, dots and dashes as underscores (lib/config.ts). */
export function settingEnv(key: string): string {
  return `SVC_${key.toUpperCase().replace(/[.-]/g, '_')}`;
}
