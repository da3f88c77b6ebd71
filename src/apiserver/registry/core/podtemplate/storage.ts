/** PodTemplates: pod template defaults and validation, a generation that moves with the template, no status. */
import type { PodTemplate } from 'kubernetes-types/core/v1.js';
import { defaultPodTemplate } from '../../../../api/core/v1/defaults.js';
import { validatePodTemplate, validatePodTemplateUpdate } from '../../../../api/core/v1/validation.js';
import { validatePodName } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { newWorkloadStrategy } from '../pod/workload-strategy.js';
import { podTemplateTable } from './table.js';

const { strategy } = newWorkloadStrategy<PodTemplate>({
  hasStatus: false,
  generation: true,
  validateName: validatePodName,
  defaults: defaultPodTemplate,
  validate: validatePodTemplate,
  validateUpdate: validatePodTemplateUpdate,
  table: podTemplateTable as never,
});

export const podTemplateDefinition: ResourceDefinition = { strategy, validateName: validatePodName };
