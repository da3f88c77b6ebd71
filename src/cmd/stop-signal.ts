/**
 * How `k8ts server` and `k8ts agent` learn they must stop: the first SIGINT
 * (Ctrl-C) or SIGTERM resolves `stopped` and sets `stopping()`; later ones are
 * ignored (the stop is already under way).
 */
export interface StopSignal {
  /** Resolves on the first SIGINT or SIGTERM. */
  readonly stopped: Promise<void>;
  /** True once a stop signal arrived. */
  stopping(): boolean;
}

export function onStopSignal(target: Pick<NodeJS.Process, 'on'> = process): StopSignal {
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      resolve();
    };
    target.on('SIGINT', stop);
    target.on('SIGTERM', stop);
  });
  return { stopped, stopping: () => stopping };
}
