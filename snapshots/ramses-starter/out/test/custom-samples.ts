// Created by svcgen from api.raml; this file is yours: svcgen never changes it. Your changes to the data the tests send, for your processors and handlers.
import type { SampleOverrides } from './sample-overrides.js';

/**
 * Your changes to the data the generated tests send (test/samples.ts), merged over it. The tests
 * create each model from its sample and expect it back as sent, and change it with its change:
 * where your field processors rewrite a value, give one they keep as it is; where your handlers
 * need a value, give it. For example:
 *
 *   export const overrides: SampleOverrides = {
 *     samples: { Item: (n) => ({ name: `NAME-${n}` }) },
 *     changes: { Item: { name: 'CHANGED' } },
 *   };
 */
export const overrides: SampleOverrides = {};
