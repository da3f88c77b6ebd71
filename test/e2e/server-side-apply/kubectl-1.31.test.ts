/** Server-side apply with kubectl 1.31 (see ssa-suite.ts). */
import { serverSideApplySuite } from './ssa-suite.js';

serverSideApplySuite('1.31');
