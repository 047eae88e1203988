// src/models/index.ts (templates/project/models-index.ts.hbs): every model of the service.
import type { ModelRegistry } from '../lib/model.js';

export declare const models: ModelRegistry;
