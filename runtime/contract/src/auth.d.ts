// src/auth.ts (templates/project/auth.ts.hbs): the API's authentication and x-ACLs.
import type { AuthSpec } from './lib/auth/context.js';

export declare const AUTH: AuthSpec;
