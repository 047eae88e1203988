/** Every case of the differential suite, by topic. */
import type { DifferentialCase } from './case.js';
import { includeCases } from './includes.js';
import { namedParameterCases } from './named-parameters.js';
import { securityAndUriCases } from './security-and-uris.js';
import { shapeCases } from './shape.js';
import { structureCases } from './structure.js';
import { templateCases } from './templates.js';

export const differentialCases: readonly DifferentialCase[] = [
  ...namedParameterCases,
  ...structureCases,
  ...templateCases,
  ...shapeCases,
  ...includeCases,
  ...securityAndUriCases,
];
