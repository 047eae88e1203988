// client/src/index.ts (templates/project/client.ts.hbs): the API's typed client.
import type { ClientOptions } from './http.js';

export declare function createClient(options: ClientOptions): object;
