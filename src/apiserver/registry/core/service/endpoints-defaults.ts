/**
 * Endpoints defaults (upstream's SetDefaults_Endpoints): every port of every
 * subset without a protocol is TCP. Endpoints live beside Services in storage
 * (`/registry/services/endpoints`), and their defaults beside the Service's.
 */
import type { KubeObject } from '../../../../machinery/meta.js';

interface EndpointsLike {
  subsets?: { ports?: { protocol?: string | null }[] | null }[] | null;
}

export function setEndpointsDefaults(object: KubeObject): void {
  for (const subset of (object as EndpointsLike).subsets ?? []) {
    for (const port of subset?.ports ?? []) {
      if (port !== null && typeof port === 'object' && (port.protocol === undefined || port.protocol === null || port.protocol === '')) port.protocol = 'TCP';
    }
  }
}
