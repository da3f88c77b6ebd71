/**
 * Waiting for a namespace's `default` ServiceAccount: the ServiceAccount
 * controller creates it just after the namespace, and until then the
 * ServiceAccount admission plugin refuses pods there (as upstream, where
 * kubectl users retry). Tests that create pods in a new namespace wait here.
 */
import type { Kubectl } from './kubectl.js';

export async function waitForDefaultServiceAccount(kubectl: Kubectl, namespace: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await kubectl('get', 'serviceaccount', 'default', '-n', namespace, '-o', 'name');
    if (result.code === 0) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for serviceaccount default in namespace ${namespace}: ${result.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
