/** Printing's canonical quantity text lives in machinery: the Go JSON shape of writes needs it too. */
export { canonicalQuantity } from '../../../machinery/quantity.js';
