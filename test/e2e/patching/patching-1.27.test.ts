/** Strategic merge patch end to end with kubectl 1.27 (see patching-suite.ts). */
import { patchingSuite } from './patching-suite.js';

patchingSuite('1.27');
