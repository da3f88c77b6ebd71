/**
 * meta.k8s.io/v1 Table: the server-side printing kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Each resource gives
 * its column definitions and a function from object to cells; the API server
 * wraps them into a Table with rows carrying the object (or its
 * PartialObjectMetadata).
 */

export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** OpenAPI format: name (the NAME column), … or ''. */
  format: string;
  description: string;
  /** 0: always shown; 1 and more: only with -o wide. */
  priority: number;
}

/** One cell: upstream prints strings, integers and booleans; `<none>` etc. are strings. */
export type TableCell = string | number | boolean | null;

/** What a resource contributes to server-side printing. */
export interface TableConvertor<T = unknown> {
  readonly columns: readonly TableColumnDefinition[];
  /** The cells of one object's row, one per column, at time `now` (for AGE). */
  cells(object: T, now: Date): TableCell[];
}

export interface TableRow {
  cells: TableCell[];
  object?: unknown;
  conditions?: { type: string; status: string }[];
}

export interface Table {
  kind: 'Table';
  /** meta.k8s.io/v1, or meta.k8s.io/v1beta1 when the client asked for that version. */
  apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}
