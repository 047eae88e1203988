/** The project's own tests: every route the RAML lists, with valid sample data for each model. */
import { planned, type Artifact } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { customSamplesView, sampleOverridesView, samplesView } from './samples-view.js';
import { testsView } from './views.js';

export const tests: Artifact = {
  name: 'tests',
  files: ({ ir }) => [
    planned(
      'test/api.test.ts',
      'Tests of every route the RAML lists, on an in-memory SQLite database.',
      template('api.test.ts', testsView(ir)),
    ),
    planned('test/samples.ts', 'Valid data for each model, for the tests.', template('samples.ts', samplesView(ir))),
    planned(
      'test/sample-overrides.ts',
      'The shape of test/custom-samples.ts: what it may give for each model.',
      template('sample-overrides.ts', sampleOverridesView(ir)),
    ),
    planned(
      'test/custom-samples.ts',
      'Your changes to the data the tests send, for your processors and handlers.',
      template('custom-samples-stub.ts', customSamplesView(ir)),
      'user',
    ),
  ],
};
