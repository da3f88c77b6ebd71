/** `kubectl get validatingwebhookconfigurations` (and mutating): NAME, WEBHOOKS, AGE, as upstream prints them. */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { age } from '../../printing/timestamps.js';

export const webhookConfigurationTable: TableConvertor<KubeObject> = {
  columns: [nameColumn(), column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration.'), ageColumn()],
  cells(config, now) {
    const hooks = (config as { webhooks?: unknown }).webhooks;
    return [config.metadata.name ?? '', Array.isArray(hooks) ? hooks.length : 0, age({ metadata: { creationTimestamp: config.metadata.creationTimestamp ?? '' } }, now)];
  },
};
