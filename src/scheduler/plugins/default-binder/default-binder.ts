/**
 * DefaultBinder (upstream's defaultbinder plugin): binds a pod by POSTing a
 * Binding to pods/NAME/binding, which sets spec.nodeName (and the
 * PodScheduled condition) on the API server.
 */
import { PODS } from '../../../client/rest/resources.js';
import type { BindPlugin, Handle, PluginFactory } from '../../framework/interfaces.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { errorStatus, type PluginStatus } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';

export const NAME = 'DefaultBinder';

export class DefaultBinder implements BindPlugin {
  readonly name = NAME;

  constructor(private readonly handle: Handle) {}

  async bind(_state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus> {
    const { namespace, name, uid } = pod.metadata;
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { namespace, name, ...(uid === undefined ? {} : { uid }) },
      target: { kind: 'Node', name: nodeName },
    };
    try {
      await this.handle.client.resource(PODS).createSubresource(name ?? '', 'binding', binding, namespace === undefined ? {} : { namespace });
      return undefined;
    } catch (e: unknown) {
      return errorStatus(e);
    }
  }
}

export const newDefaultBinder: PluginFactory = (_args, handle) => new DefaultBinder(handle);
