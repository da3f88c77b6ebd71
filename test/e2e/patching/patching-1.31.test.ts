/** Client-side apply round trip with kubectl 1.31 (see patching-suite.ts); 1.33 and 1.27 run every scenario. */
import { patchingSuite } from './patching-suite.js';

patchingSuite('1.31', { applyOnly: true });
