/**
 * Poll a condition until it holds or a deadline passes: the one way tests of
 * controllers wait (no sleeps). The condition may be async; its last error,
 * if any, is the cause of the timeout error.
 *
 * @example
 *   await waitFor(() => client.actionsOf('create', 'pods').length === 3, { timeoutMs: 2000 });
 */
export interface WaitForOptions {
  /** Default 5 s. */
  readonly timeoutMs?: number;
  /** Default 5 ms. */
  readonly intervalMs?: number;
  /** For the timeout message. */
  readonly description?: string;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitForOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 5;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
      lastError = undefined;
    } catch (e: unknown) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? 'the condition';
      throw new Error(`waitFor: ${what} did not hold within ${timeoutMs} ms`, lastError === undefined ? undefined : { cause: lastError });
    }
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}
