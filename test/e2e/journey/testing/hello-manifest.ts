/**
 * The journey's copy of examples/hello.yaml: the same Deployment and Service,
 * with short tolerations of the node failure taints (upstream's
 * DefaultTolerationSeconds admission would give 300 s) so that a dead node's
 * pods are evicted within seconds, and optionally another replica count (the
 * bench runs 30).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { CHECKOUT } from '../../testing/k8ts-process.js';

export const HELLO_MANIFEST = join(CHECKOUT, 'examples', 'hello.yaml');
export const NODE_FAILURE_TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'] as const;

export interface HelloCopyOptions {
  /** Where to write the copy. */
  readonly path: string;
  /** tolerationSeconds of the not-ready and unreachable NoExecute taints (default: the manifest's own tolerations). */
  readonly tolerationSeconds?: number;
  readonly replicas?: number;
  /**
   * Let the liveness probe fail this many times in a row before a restart (the bench: 30 pods starting at once on a
   * loaded machine may take longer to listen than the manifest's 2 × 2 s, and each restart would make it worse).
   */
  readonly livenessFailureThreshold?: number;
}

interface Manifest {
  kind?: string;
  metadata?: { name?: string };
  spec?: { replicas?: number; template?: { spec?: { tolerations?: unknown[]; containers?: Array<{ livenessProbe?: { failureThreshold?: number } }> } } };
}

/** Write the copy; resolves with its Deployment's and Service's names. */
export async function writeHelloCopy(options: HelloCopyOptions): Promise<{ deployment: string; service: string; replicas: number }> {
  const docs = parseAllDocuments(await readFile(HELLO_MANIFEST, 'utf8')).map((d) => d.toJSON() as Manifest | null).filter((d): d is Manifest => d !== null);
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const service = docs.find((d) => d.kind === 'Service');
  if (deployment?.spec?.template?.spec === undefined || service?.metadata?.name === undefined) throw new Error(`${HELLO_MANIFEST} has no Deployment with a pod template, or no Service`);
  const podSpec = deployment.spec.template.spec;
  const seconds = options.tolerationSeconds;
  if (seconds !== undefined) {
    podSpec.tolerations = [...(podSpec.tolerations ?? []), ...NODE_FAILURE_TAINTS.map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }))];
  }
  if (options.replicas !== undefined) deployment.spec.replicas = options.replicas;
  if (options.livenessFailureThreshold !== undefined) {
    for (const c of podSpec.containers ?? []) if (c.livenessProbe !== undefined) c.livenessProbe.failureThreshold = options.livenessFailureThreshold;
  }
  await writeFile(options.path, docs.map((d) => stringify(d)).join('---\n'));
  return { deployment: deployment.metadata?.name ?? 'hello', service: service.metadata.name, replicas: deployment.spec.replicas ?? 1 };
}
