/** Event reasons of the pod lifecycle, byte for byte upstream's (pkg/kubelet/events). */
export const EVENT = {
  created: 'Created',
  started: 'Started',
  failed: 'Failed',
  killing: 'Killing',
  backOff: 'BackOff',
  pulled: 'Pulled',
  errImageNeverPull: 'ErrImageNeverPull',
  failedMount: 'FailedMount',
  failedCreatePodSandBox: 'FailedCreatePodSandBox',
  sandboxChanged: 'SandboxChanged',
  failedPostStartHook: 'FailedPostStartHook',
  failedPreStopHook: 'FailedPreStopHook',
  /** Not upstream's: the process runtime ran a container whose image is absent with the host's executables. */
  imageNotPresent: 'ImageNotPresent',
} as const;

/** Waiting reasons of containers that could not start (upstream's kubecontainer errors). */
export const WAITING = {
  crashLoopBackOff: 'CrashLoopBackOff',
  createContainerConfigError: 'CreateContainerConfigError',
  createContainerError: 'CreateContainerError',
  runContainerError: 'RunContainerError',
  errImageNeverPull: 'ErrImageNeverPull',
  postStartHookError: 'PostStartHookError',
} as const;
