import type { Filter } from '../context.js';
import { writeError, type ErrorLogger } from '../response.js';

/**
 * The outermost filter: whatever goes wrong below becomes a Status response
 * (a 500 without detail when it is not a StatusError) and a log line; the
 * process and the connection survive, and no stack trace reaches the client.
 */
export function withPanicRecovery(log: ErrorLogger): Filter {
  return (next) => async (ctx) => {
    try {
      await next(ctx);
    } catch (e: unknown) {
      writeError(ctx, e, log);
    }
  };
}
