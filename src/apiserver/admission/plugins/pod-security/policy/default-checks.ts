/** Every check of the baseline and restricted levels, as upstream 1.33 ships them. */
import type { Check } from './check.js';
import { CHECK_ALLOW_PRIVILEGE_ESCALATION } from './checks/allow-privilege-escalation.js';
import { CHECK_APP_ARMOR_PROFILE } from './checks/app-armor-profile.js';
import { CHECK_CAPABILITIES_BASELINE } from './checks/capabilities-baseline.js';
import { CHECK_CAPABILITIES_RESTRICTED } from './checks/capabilities-restricted.js';
import { CHECK_HOST_NAMESPACES } from './checks/host-namespaces.js';
import { CHECK_HOST_PATH_VOLUMES } from './checks/host-path-volumes.js';
import { CHECK_HOST_PORTS } from './checks/host-ports.js';
import { CHECK_PRIVILEGED } from './checks/privileged.js';
import { CHECK_PROC_MOUNT } from './checks/proc-mount.js';
import { CHECK_RESTRICTED_VOLUMES } from './checks/restricted-volumes.js';
import { CHECK_RUN_AS_NON_ROOT } from './checks/run-as-non-root.js';
import { CHECK_RUN_AS_USER } from './checks/run-as-user.js';
import { CHECK_SE_LINUX_OPTIONS } from './checks/se-linux-options.js';
import { CHECK_SECCOMP_PROFILE_BASELINE } from './checks/seccomp-profile-baseline.js';
import { CHECK_SECCOMP_PROFILE_RESTRICTED } from './checks/seccomp-profile-restricted.js';
import { CHECK_SYSCTLS } from './checks/sysctls.js';
import { CHECK_WINDOWS_HOST_PROCESS } from './checks/windows-host-process.js';

export const DEFAULT_CHECKS: readonly Check[] = [
  CHECK_ALLOW_PRIVILEGE_ESCALATION,
  CHECK_APP_ARMOR_PROFILE,
  CHECK_CAPABILITIES_BASELINE,
  CHECK_CAPABILITIES_RESTRICTED,
  CHECK_HOST_NAMESPACES,
  CHECK_HOST_PATH_VOLUMES,
  CHECK_HOST_PORTS,
  CHECK_PRIVILEGED,
  CHECK_PROC_MOUNT,
  CHECK_RESTRICTED_VOLUMES,
  CHECK_RUN_AS_NON_ROOT,
  CHECK_RUN_AS_USER,
  CHECK_SE_LINUX_OPTIONS,
  CHECK_SECCOMP_PROFILE_BASELINE,
  CHECK_SECCOMP_PROFILE_RESTRICTED,
  CHECK_SYSCTLS,
  CHECK_WINDOWS_HOST_PROCESS,
];
