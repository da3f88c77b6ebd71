/** A runtime error a library function raises: evaluation turns it into upstream's `expression '…' resulted in error: …`. */
export class CelFunctionError extends Error {
  override readonly name = 'CelFunctionError';
}
