/** The kubectl end-to-end scenarios with kubectl 1.31 (see kubectl-suite.ts). */
import { kubectlSuite } from './kubectl-suite.js';

kubectlSuite('1.31');
