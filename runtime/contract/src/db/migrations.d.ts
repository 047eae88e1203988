// src/db/migrations.ts (templates/project/migrations.ts.hbs): every migration, in order.
import type { Migration } from '../lib/migrate.js';

export declare const migrations: readonly Migration[];
