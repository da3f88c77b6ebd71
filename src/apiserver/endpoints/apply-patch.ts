/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (YAML or JSON
 * body). The configuration is merged into the live object by the field
 * manager (src/apiserver/fieldmanager), inside the store's compare-and-swap
 * loop; an absent object is created. Conflicts are a 409 naming each field
 * and its manager, unless `force=true`.
 */
import { auditRequestObject, timeStage } from '../audit/request-audit.js';
import { admitMutating, validatingHook } from './admission.js';
import { deepCopy, isPlainObject, type KubeObject } from '../../machinery/meta.js';
import { badRequest, internalError, StatusError } from '../../machinery/status.js';
import { ApplyConflicts, conflictError } from '../fieldmanager/conflicts.js';
import { ApplyInputError } from '../fieldmanager/field-manager.js';
import { fieldManagerFor } from '../fieldmanager/for-resource.js';
import type { ManagerOptions } from '../fieldmanager/request-options.js';
import { TypedError } from '../fieldmanager/typed.js';
import type { JsonValue } from '../fieldmanager/field-set.js';
import { writeObject } from '../server/response.js';
import type { RequestContext } from '../server/context.js';
import { asKubeObject } from './decode-object.js';
import { addWarnings, type FieldValidationDirective } from './field-validation.js';
import { decodeYamlStrict } from './strict-json.js';
import type { OutputFormat } from './negotiation.js';
import { userOf, warnTo, type Target } from './target.js';

type JsonObject = { [key: string]: JsonValue };

export interface ApplyRequest {
  readonly body: Buffer;
  readonly format: OutputFormat;
  readonly dryRun: boolean;
  readonly directive: FieldValidationDirective;
  readonly options: ManagerOptions;
}

export async function handleApplyPatch(ctx: RequestContext, t: Target, request: ApplyRequest): Promise<void> {
  const { applied, duplicates } = decodeApplyConfiguration(request.body);
  const fm = fieldManagerFor(t.resource, t.subresource);
  if (fm === undefined) throw new StatusError({ code: 415, reason: 'UnsupportedMediaType', message: `apply is not supported on the ${t.subresource?.name ?? ''} subresource` });
  const expected = t.subresource?.kind ?? t.resource;
  let warnings: string[] = [];
  auditRequestObject(ctx, applied);
  const validateAdmission = validatingHook(ctx, t, request.dryRun);
  const { object, created } = await timeStage(ctx, 'etcd', () => t.store.update(
    t.namespace,
    t.name,
    async (current) => {
      let result: JsonObject;
      try {
        result = fm.apply(current as unknown as JsonObject | undefined, deepCopy(applied), request.options.manager, request.options.force);
      } catch (e: unknown) {
        throw applyError(e, t, applied);
      }
      warnings = strictWarnings(request.directive, duplicates);
      const next = asKubeObject(result, expected) as KubeObject;
      await admitMutating(ctx, t, current === undefined ? 'CREATE' : 'UPDATE', next, current, request.dryRun);
      return next;
    },
    { dryRun: request.dryRun, allowCreate: true, ...userOf(ctx), ...warnTo(ctx), ...(validateAdmission !== undefined ? { validateAdmission } : {}) },
  ));
  addWarnings(ctx, warnings);
  writeObject(ctx, created ? 201 : 200, object, request.format);
}

/**
 * The configuration as upstream's YAML decoder reads it into a map (the last
 * of duplicate keys wins), with goyaml's report of the duplicates.
 */
function decodeApplyConfiguration(body: Buffer): { applied: JsonObject; duplicates: string | undefined } {
  const text = body.toString('utf8');
  if (text.trim() === '') return { applied: {}, duplicates: undefined };
  let decoded: { value: unknown; duplicateKeyError: string | undefined };
  try {
    decoded = decodeYamlStrict(text);
  } catch (e: unknown) {
    if (e instanceof StatusError) throw badRequest(e.message.replace(/^error decoding the request body as YAML: /, 'error decoding YAML: '));
    throw e;
  }
  const value = decoded.value;
  if (value === null || value === undefined) return { applied: {}, duplicates: decoded.duplicateKeyError };
  if (!isPlainObject(value)) {
    const what = Array.isArray(value) ? 'array' : typeof value;
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  return { applied: value as JsonObject, duplicates: decoded.duplicateKeyError };
}

/**
 * Duplicate keys, checked after the merge (before storage) as upstream does: a 400 under
 * Strict, one warning per duplicate under Warn (the default).
 */
function strictWarnings(directive: FieldValidationDirective, duplicates: string | undefined): string[] {
  if (directive === 'Ignore' || duplicates === undefined) return [];
  if (directive === 'Strict') throw badRequest(`error strict decoding YAML: error converting YAML to JSON: ${duplicates}`);
  return duplicates.split('\n').slice(1).map((line) => line.trim());
}

function applyError(e: unknown, t: Target, applied: JsonObject): unknown {
  if (e instanceof StatusError) return e;
  if (e instanceof ApplyConflicts) return conflictError(e.conflicts);
  if (e instanceof ApplyInputError) return badRequest(e.message);
  if (e instanceof TypedError) {
    const gv = t.resource.group === '' ? `/${t.resource.version}` : `${t.resource.group}/${t.resource.version}`;
    const name = isPlainObject(applied.metadata) && typeof applied.metadata.name === 'string' ? applied.metadata.name : t.name;
    // Upstream returns the converter's plain error: a 500 with no reason, which kubectl prints as `Error from server: …`.
    return new StatusError({
      code: 500,
      message: `failed to create typed patch object (${t.namespace}/${name}; ${gv}, Kind=${t.resource.kind}): ${e.message}`,
    });
  }
  return internalError(e);
}
