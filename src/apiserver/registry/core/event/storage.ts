/**
 * core/v1 Events: stored as core/v1 under /registry/events, shared with
 * events.k8s.io/v1 (registry/events/event), converted through the internal form.
 */
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { coreV1EventFields, eventStrategy } from './strategy.js';

export const eventDefinition: ResourceDefinition = {
  strategy: eventStrategy({ group: '', version: 'v1' }, coreV1EventFields),
  validateName: nameIsDNSSubdomain,
};
