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

/**
 * Make sure `default` exists in the namespace now: create it unless the
 * ServiceAccount controller already has (its own create then meets ours as
 * AlreadyExists, which it accepts). Faster than waiting for the controller
 * manager to start, for suites that do not test the controller itself.
 */
export async function ensureDefaultServiceAccount(kubectl: Kubectl, namespace: string): Promise<void> {
  const result = await kubectl('create', 'serviceaccount', 'default', '-n', namespace);
  if (result.code !== 0 && !/AlreadyExists|already exists/.test(result.stderr)) {
    throw new Error(`could not create serviceaccount default in namespace ${namespace}: ${result.stderr}`);
  }
}
