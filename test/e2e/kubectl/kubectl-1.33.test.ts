/** The kubectl end-to-end scenarios with kubectl 1.33 (see kubectl-suite.ts). */
import { kubectlSuite } from './kubectl-suite.js';

kubectlSuite('1.33');
