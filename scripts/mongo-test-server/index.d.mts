/** Types of scripts/mongo-test-server/index.mjs (a test-only MongoDB wire-protocol server). */
export interface MongoTestServer {
  readonly port: number;
  /** `mongodb://127.0.0.1:<port>/?directConnection=true` */
  readonly url: string;
  /** How often each command was received. */
  readonly commands: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** `replicaSet: null` poses as a standalone server (no transactions). */
export function startMongoTestServer(options?: {
  port?: number;
  host?: string;
  replicaSet?: string | null;
}): Promise<MongoTestServer>;
