/**
 * pods/ephemeralcontainers (get, update, patch): the whole Pod, through which
 * only spec.ephemeralContainers may change — `kubectl debug` adds a container
 * here to a running pod. As upstream's podEphemeralContainersStrategy: every
 * other change of the body is dropped (spec and status are the stored pod's,
 * metadata is reset as for a status write), and the update is valid when the
 * new pod is and the ephemeral containers it had are all still there,
 * unchanged. The kubelet then starts each new one, once.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { validatePodEphemeralContainersUpdate } from '../../../../api/core/v1/validation.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { statusStrategy, type Strategy } from '../../generic/strategy.js';

export function podEphemeralContainersStrategy(pod: Strategy): Strategy {
  // statusStrategy's reset keeps the old metadata fields and every top-level field but status; the
  // stored status and spec come back from `old`, and only the sent ephemeral containers are kept.
  const metadataReset = statusStrategy(pod);
  return {
    ...pod,
    prepareForUpdate: (object, old) => {
      const sent = (object as KubeObject & Pod).spec?.ephemeralContainers;
      metadataReset.prepareForUpdate(object, old);
      const spec = structuredClone((old as KubeObject & Pod).spec ?? { containers: [] });
      if (sent === undefined) delete spec.ephemeralContainers;
      else spec.ephemeralContainers = sent;
      (object as KubeObject & Pod).spec = spec;
      if (old.status === undefined) delete object.status;
      else object.status = old.status;
    },
    validateUpdate: (object, old) => validatePodEphemeralContainersUpdate(object as KubeObject & Pod, old as KubeObject & Pod),
  };
}
