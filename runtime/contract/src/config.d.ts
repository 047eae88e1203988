// src/config.ts (templates/project/config.ts.hbs): the settings of service.ini and the environment.
import type { Config } from './lib/config.js';

export declare function loadServiceConfig(env?: NodeJS.ProcessEnv): Config;
