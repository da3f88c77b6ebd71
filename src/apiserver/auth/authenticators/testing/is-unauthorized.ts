import { StatusError } from '../../../../machinery/status.js';

/** For assert.rejects: a 401 Unauthorized StatusError. */
export function isUnauthorized(e: unknown): boolean {
  return e instanceof StatusError && e.code === 401 && e.reason === 'Unauthorized';
}
