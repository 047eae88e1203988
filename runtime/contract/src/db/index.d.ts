// src/db/index.ts (templates/project/db.ts.hbs): opens the database, with every model's repository.
import type { Config } from '../lib/config.js';
import type { ServiceDatabase } from '../lib/database.js';

export type Database = ServiceDatabase;

export interface OpenOptions {
  readonly onQuery?: (statement: string) => void;
  readonly onWarning?: (message: string) => void;
  readonly onMigrated?: (names: readonly string[]) => void;
}

export declare function openDatabase(config: Config, options?: OpenOptions): Promise<Database>;
