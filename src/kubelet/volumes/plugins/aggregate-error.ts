/**
 * Several errors as one, worded as upstream's utilerrors.NewAggregate: one
 * error is its own message; several are `[a, b]` with repeats dropped.
 */
export function aggregateError(errors: readonly Error[]): Error {
  const messages = [...new Set(errors.map((e) => e.message))];
  const message = messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
  return errors.length === 1 ? (errors[0] as Error) : new AggregateError(errors, message);
}
