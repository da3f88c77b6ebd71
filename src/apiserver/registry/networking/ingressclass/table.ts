/** `kubectl get ingressclasses`: CONTROLLER, PARAMETERS (`Kind[.group]/name`, or `<none>`), as upstream's printIngressClass. */
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn } from '../../printing/columns.js';
import { NONE } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

export const ingressClassTable: TableConvertor<IngressClass> = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'The controller that implements this class.'),
    column('Parameters', 'string', 'The resource holding further parameters of this class.'),
    ageColumn(),
  ],
  cells(ic, now) {
    const params = ic.spec?.parameters;
    let parameters = NONE;
    if (params !== undefined && params !== null) {
      const group = params.apiGroup !== undefined && params.apiGroup !== null ? `.${params.apiGroup}` : '';
      parameters = `${params.kind}${group}/${params.name}`;
    }
    return [ic.metadata?.name ?? '', ic.spec?.controller ?? '', parameters, age(ic, now)];
  },
};
