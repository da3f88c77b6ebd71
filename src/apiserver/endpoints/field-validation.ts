/**
 * Field validation (`?fieldValidation=Strict|Warn|Ignore`): a request body
 * decoded against its kind's schema as upstream's typed decoder
 * (sigs.k8s.io/json into the Go struct) decodes it.
 *
 * - An unknown field is dropped from the object, whatever the directive: the
 *   Go struct has nowhere to keep it. Strict fails the request with it, Warn
 *   (the default) returns it as a warning, Ignore says nothing.
 * - A duplicate field is a strict error too; of the duplicates the last wins.
 * - A value of the wrong type (a string where the schema says integer) fails
 *   the request whatever the directive, with Go's text:
 *   `json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32`.
 *
 * Strict errors are reported as the Go decoder meets them: in document order
 * for a JSON body, in key order for YAML and for a patched object (both reach
 * the decoder through a Go map), each path once, at most 100. A field that is
 * unknown is not looked into, so nothing below it is reported.
 *
 * The messages, as upstream words them (create.go, update.go, patch.go):
 * - create/update, 400: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo", duplicate field "spec.paused"`
 * - patch, 422: ` "" is invalid: patch: Invalid value: "{…patched object…}": strict decoding error: unknown field "spec.foo"`
 * - warnings: one per error, `unknown field "spec.foo"`.
 *
 * Schemas come from the committed OpenAPI data (openapi/data/schemas.json);
 * a kind without one is decoded with only its metadata typed.
 */
import type { GroupVersionKind } from '../../api/scheme.js';
import { invalid as invalidField, notSupported } from '../../machinery/field-errors.js';
import { isPlainObject } from '../../machinery/meta.js';
import { badRequest, invalid, StatusError } from '../../machinery/status.js';
import { loadOpenApiData, type JsonObject } from '../openapi/openapi-data.js';
import type { RequestContext } from '../server/context.js';
import { decodeJsonText } from './body.js';
import { scanJsonText, type JsonTextFacts } from './json-text-scan.js';
import { decodeYamlStrict, nodeFromValue, nodeToValue, parseJsonNodes, setOwn, splitYamlWarnings, strictFieldError, type JsonNode } from './strict-json.js';

export type FieldValidationDirective = 'Strict' | 'Warn' | 'Ignore';

/** The options kind whose `fieldValidation` is being read: it names the kind in the error. */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * The `fieldValidation` parameter; absent or empty means Warn. A bad value is
 * upstream's 422: `CreateOptions.meta.k8s.io "" is invalid: fieldValidation:
 * Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"`.
 */
export function parseFieldValidationParam(query: URLSearchParams, optionsKind: WriteOptionsKind): FieldValidationDirective {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [notSupported('fieldValidation', value, ['', 'Ignore', 'Strict', 'Warn'])]);
}

// ---------------------------------------------------------------------------
// Go types, compiled from the OpenAPI schemas.

/** What the Go decoder decodes into, and the Go type name its errors print. */
export type GoType =
  | { readonly kind: 'struct'; readonly goType: string; readonly structName: string; readonly fields: ReadonlyMap<string, GoType>; readonly keepUnknown: boolean }
  | { readonly kind: 'map' | 'slice'; readonly goType: string; readonly elem: GoType }
  | { readonly kind: 'int'; readonly goType: string; readonly bits: 32 | 64 }
  /** time: metav1.Time/MicroTime, whose UnmarshalJSON wants a JSON string. */
  | { readonly kind: 'string' | 'bool' | 'float' | 'bytes' | 'time' | 'int-or-string' | 'quantity' | 'raw' | 'any'; readonly goType: string };

const ANY: GoType = { kind: 'any', goType: 'interface {}' };
const REF_PREFIX = '#/components/schemas/';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * Fields whose Go type is a named type the schema does not name (an enum
 * string, a ResourceList): Go's type errors print the name.
 */
const NAMED_FIELD_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'io.k8s.api.core.v1.Container': { imagePullPolicy: 'v1.PullPolicy', terminationMessagePolicy: 'v1.TerminationMessagePolicy', restartPolicy: 'v1.ContainerRestartPolicy' },
  'io.k8s.api.core.v1.EphemeralContainer': { imagePullPolicy: 'v1.PullPolicy', terminationMessagePolicy: 'v1.TerminationMessagePolicy', restartPolicy: 'v1.ContainerRestartPolicy' },
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'v1.Protocol' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'v1.Protocol' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'v1.Protocol' },
  'io.k8s.api.core.v1.PortStatus': { protocol: 'v1.Protocol' },
  'io.k8s.api.discovery.v1.EndpointPort': { protocol: 'v1.Protocol' },
  'io.k8s.api.discovery.v1.EndpointSlice': { addressType: 'v1.AddressType' },
  'io.k8s.api.core.v1.PodSpec': { restartPolicy: 'v1.RestartPolicy', dnsPolicy: 'v1.DNSPolicy', preemptionPolicy: 'v1.PreemptionPolicy', overhead: 'v1.ResourceList' },
  'io.k8s.api.core.v1.PodStatus': { phase: 'v1.PodPhase', qosClass: 'v1.PodQOSClass' },
  'io.k8s.api.core.v1.PodCondition': { type: 'v1.PodConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.core.v1.PodReadinessGate': { conditionType: 'v1.PodConditionType' },
  'io.k8s.api.core.v1.PodOS': { name: 'v1.OSName' },
  'io.k8s.api.core.v1.ContainerStatus': { allocatedResources: 'v1.ResourceList' },
  'io.k8s.api.core.v1.ContainerResizePolicy': { resourceName: 'v1.ResourceName', restartPolicy: 'v1.ResourceResizeRestartPolicy' },
  'io.k8s.api.core.v1.NodeCondition': { type: 'v1.NodeConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.core.v1.NodeAddress': { type: 'v1.NodeAddressType' },
  'io.k8s.api.core.v1.NodeStatus': { phase: 'v1.NodePhase', capacity: 'v1.ResourceList', allocatable: 'v1.ResourceList' },
  'io.k8s.api.core.v1.NamespaceSpec': { finalizers: '[]v1.FinalizerName' },
  'io.k8s.api.core.v1.NamespaceStatus': { phase: 'v1.NamespacePhase' },
  'io.k8s.api.core.v1.NamespaceCondition': { type: 'v1.NamespaceConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.core.v1.Taint': { effect: 'v1.TaintEffect' },
  'io.k8s.api.core.v1.Toleration': { effect: 'v1.TaintEffect', operator: 'v1.TolerationOperator' },
  'io.k8s.api.core.v1.NodeSelectorRequirement': { operator: 'v1.NodeSelectorOperator' },
  'io.k8s.api.core.v1.TopologySpreadConstraint': {
    whenUnsatisfiable: 'v1.UnsatisfiableConstraintAction',
    nodeAffinityPolicy: 'v1.NodeInclusionPolicy',
    nodeTaintsPolicy: 'v1.NodeInclusionPolicy',
  },
  'io.k8s.api.core.v1.Secret': { type: 'v1.SecretType', data: 'map[string][]uint8' },
  'io.k8s.api.core.v1.ConfigMap': { binaryData: 'map[string][]uint8' },
  'io.k8s.api.core.v1.ServiceSpec': {
    type: 'v1.ServiceType',
    sessionAffinity: 'v1.ServiceAffinity',
    ipFamilies: '[]v1.IPFamily',
    ipFamilyPolicy: 'v1.IPFamilyPolicy',
    externalTrafficPolicy: 'v1.ServiceExternalTrafficPolicy',
    internalTrafficPolicy: 'v1.ServiceInternalTrafficPolicy',
  },
  'io.k8s.api.core.v1.ResourceRequirements': { limits: 'v1.ResourceList', requests: 'v1.ResourceList' },
  'io.k8s.api.core.v1.VolumeResourceRequirements': { limits: 'v1.ResourceList', requests: 'v1.ResourceList' },
  'io.k8s.api.core.v1.LimitRangeItem': {
    type: 'v1.LimitType',
    max: 'v1.ResourceList',
    min: 'v1.ResourceList',
    default: 'v1.ResourceList',
    defaultRequest: 'v1.ResourceList',
    maxLimitRequestRatio: 'v1.ResourceList',
  },
  'io.k8s.api.core.v1.ResourceQuotaSpec': { hard: 'v1.ResourceList', scopes: '[]v1.ResourceQuotaScope' },
  'io.k8s.api.core.v1.ResourceQuotaStatus': { hard: 'v1.ResourceList', used: 'v1.ResourceList' },
  'io.k8s.api.core.v1.ScopedResourceSelectorRequirement': { scopeName: 'v1.ResourceQuotaScope', operator: 'v1.ScopeSelectorOperator' },
  'io.k8s.api.core.v1.PersistentVolumeClaimSpec': { accessModes: '[]v1.PersistentVolumeAccessMode', volumeMode: 'v1.PersistentVolumeMode' },
  'io.k8s.api.core.v1.PersistentVolumeClaimStatus': {
    phase: 'v1.PersistentVolumeClaimPhase',
    accessModes: '[]v1.PersistentVolumeAccessMode',
    capacity: 'v1.ResourceList',
    allocatedResources: 'v1.ResourceList',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimCondition': { type: 'v1.PersistentVolumeClaimConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.core.v1.Capabilities': { add: '[]v1.Capability', drop: '[]v1.Capability' },
  'io.k8s.api.core.v1.HostPathVolumeSource': { type: 'v1.HostPathType' },
  'io.k8s.api.core.v1.EmptyDirVolumeSource': { medium: 'v1.StorageMedium' },
  'io.k8s.api.core.v1.VolumeMount': { mountPropagation: 'v1.MountPropagationMode', recursiveReadOnly: 'v1.RecursiveReadOnlyMode' },
  'io.k8s.api.core.v1.SeccompProfile': { type: 'v1.SeccompProfileType' },
  'io.k8s.api.core.v1.AppArmorProfile': { type: 'v1.AppArmorProfileType' },
  'io.k8s.api.core.v1.SecurityContext': { procMount: 'v1.ProcMountType' },
  'io.k8s.api.core.v1.PodSecurityContext': { fsGroupChangePolicy: 'v1.PodFSGroupChangePolicy', supplementalGroupsPolicy: 'v1.SupplementalGroupsPolicy' },
  'io.k8s.api.core.v1.ObjectReference': { uid: 'types.UID' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { uid: 'types.UID' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': { uid: 'types.UID' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': { operation: 'v1.ManagedFieldsOperationType' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement': { operator: 'v1.LabelSelectorOperator' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Condition': { status: 'v1.ConditionStatus' },
  'io.k8s.api.apps.v1.DeploymentStrategy': { type: 'v1.DeploymentStrategyType' },
  'io.k8s.api.apps.v1.DeploymentCondition': { type: 'v1.DeploymentConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.apps.v1.ReplicaSetCondition': { type: 'v1.ReplicaSetConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.apps.v1.DaemonSetCondition': { type: 'v1.DaemonSetConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.apps.v1.StatefulSetCondition': { type: 'v1.StatefulSetConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.apps.v1.DaemonSetUpdateStrategy': { type: 'v1.DaemonSetUpdateStrategyType' },
  'io.k8s.api.apps.v1.StatefulSetUpdateStrategy': { type: 'v1.StatefulSetUpdateStrategyType' },
  'io.k8s.api.apps.v1.StatefulSetSpec': { podManagementPolicy: 'v1.PodManagementPolicyType' },
  'io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy': {
    whenDeleted: 'v1.PersistentVolumeClaimRetentionPolicyType',
    whenScaled: 'v1.PersistentVolumeClaimRetentionPolicyType',
  },
  'io.k8s.api.batch.v1.JobSpec': { completionMode: 'v1.CompletionMode', podReplacementPolicy: 'v1.PodReplacementPolicy' },
  'io.k8s.api.batch.v1.JobCondition': { type: 'v1.JobConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.batch.v1.CronJobSpec': { concurrencyPolicy: 'v1.ConcurrencyPolicy' },
  'io.k8s.api.batch.v1.PodFailurePolicyRule': { action: 'v1.PodFailurePolicyAction' },
  'io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement': { operator: 'v1.PodFailurePolicyOnExitCodesOperator' },
  'io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern': { type: 'v1.PodConditionType', status: 'v1.ConditionStatus' },
  'io.k8s.api.batch.v1.UncountedTerminatedPods': { succeeded: '[]types.UID', failed: '[]types.UID' },
};

/** Go type names of the definitions that decode through their own UnmarshalJSON. */
const SPECIAL_DEFINITIONS: Readonly<Record<string, GoType>> = {
  [QUANTITY]: { kind: 'quantity', goType: 'resource.Quantity' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { kind: 'int-or-string', goType: 'intstr.IntOrString' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { kind: 'time', goType: 'v1.Time' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { kind: 'time', goType: 'v1.MicroTime' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { kind: 'raw', goType: 'runtime.RawExtension' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { kind: 'raw', goType: 'v1.FieldsV1' },
};

/** Compiles schemas into Go types, each definition once. */
export class GoTypes {
  private readonly definitions = new Map<string, GoType>();
  private byKind: Map<string, string> | undefined;
  private readonly untyped = new Map<string, GoType>();

  constructor(private readonly schemas: Readonly<Record<string, JsonObject>>) {}

  /** The type of a kind (`apps/v1` Deployment), or undefined when the data has no schema for it. */
  ofKind(gvk: GroupVersionKind): GoType | undefined {
    if (this.byKind === undefined) {
      this.byKind = new Map();
      for (const [name, schema] of Object.entries(this.schemas)) {
        const gvks = schema['x-kubernetes-group-version-kind'];
        if (!Array.isArray(gvks)) continue;
        for (const g of gvks) {
          if (g === null || typeof g !== 'object' || Array.isArray(g)) continue;
          const key = `${String(g.group ?? '')}/${String(g.version ?? '')}/${String(g.kind ?? '')}`;
          if (!this.byKind.has(key)) this.byKind.set(key, name);
        }
      }
    }
    const name = this.byKind.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    return name === undefined ? undefined : this.definition(name);
  }

  /** The type a body of the kind decodes into: its schema's, or else an untyped kind's. */
  typeOf(gvk: GroupVersionKind): GoType {
    return this.ofKind(gvk) ?? this.untypedKind(gvk.kind);
  }

  /** A kind with no schema: its metadata is an ObjectMeta, everything else is kept as sent. Compiled once per kind. */
  untypedKind(kind: string): GoType {
    let type = this.untyped.get(kind);
    if (type === undefined) {
      type = this.compileUntyped(kind);
      this.untyped.set(kind, type);
    }
    return type;
  }

  private compileUntyped(kind: string): GoType {
    const fields = new Map<string, GoType>([
      ['apiVersion', { kind: 'string', goType: 'string' }],
      ['kind', { kind: 'string', goType: 'string' }],
      ['metadata', this.definition(OBJECT_META)],
    ]);
    return { kind: 'struct', goType: `unstructured.${kind}`, structName: kind, fields, keepUnknown: true };
  }

  definition(name: string): GoType {
    const cached = this.definitions.get(name);
    if (cached !== undefined) return cached;
    const special = SPECIAL_DEFINITIONS[name];
    if (special !== undefined) {
      this.definitions.set(name, special);
      return special;
    }
    const schema = this.schemas[name];
    if (schema === undefined) return ANY;
    if (isStructSchema(schema)) {
      // Registered before its fields are compiled, so that a recursive schema ends.
      const fields = new Map<string, GoType>();
      const segments = name.split('.');
      const structName = segments.at(-1) ?? name;
      const type: GoType = {
        kind: 'struct',
        goType: `${segments.at(-2) ?? ''}.${structName}`,
        structName,
        fields,
        keepUnknown: schema['x-kubernetes-preserve-unknown-fields'] === true,
      };
      this.definitions.set(name, type);
      const named = NAMED_FIELD_TYPES[name] ?? {};
      for (const [field, fieldSchema] of Object.entries(schema.properties as JsonObject)) {
        if (!isObject(fieldSchema)) continue;
        const compiled = this.compile(fieldSchema);
        const goName = named[field];
        fields.set(field, goName === undefined ? compiled : renamed(compiled, goName));
      }
      return type;
    }
    const type = this.compile(schema, name);
    this.definitions.set(name, type);
    return type;
  }

  private compile(schema: JsonObject, definitionName?: string): GoType {
    const ref = schema.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) return this.definition(ref.slice(REF_PREFIX.length));
    const allOf = schema.allOf;
    if (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0])) return this.compile(allOf[0]);
    if (schema['x-kubernetes-int-or-string'] === true || schema.format === 'int-or-string') return SPECIAL_DEFINITIONS['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!;
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    if (Array.isArray(schema.oneOf)) {
      const types = schema.oneOf.map((s) => (isObject(s) ? s.type : undefined));
      if (types.includes('string') && types.includes('number')) return SPECIAL_DEFINITIONS[QUANTITY]!;
      return ANY;
    }
    switch (schema.type) {
      case 'object': {
        if (isStructSchema(schema)) {
          const fields = new Map<string, GoType>();
          for (const [field, fieldSchema] of Object.entries(schema.properties as JsonObject)) {
            if (isObject(fieldSchema)) fields.set(field, this.compile(fieldSchema));
          }
          return { kind: 'struct', goType: 'struct', structName: '', fields, keepUnknown: preserve };
        }
        const additional = schema.additionalProperties;
        if (isObject(additional)) {
          const elem = this.compile(additional);
          return { kind: 'map', goType: `map[string]${elem.goType}`, elem };
        }
        if (additional === true || preserve) return { kind: 'map', goType: 'map[string]interface {}', elem: ANY };
        // An object without properties: an embedded raw object (RawExtension), kept as sent.
        return { kind: 'raw', goType: definitionName === undefined ? 'interface {}' : goTypeName(definitionName) };
      }
      case 'array': {
        const elem = isObject(schema.items) ? this.compile(schema.items) : ANY;
        return { kind: 'slice', goType: `[]${elem.goType}`, elem };
      }
      case 'string':
        if (schema.format === 'byte') return { kind: 'bytes', goType: '[]uint8' };
        return { kind: 'string', goType: 'string' };
      case 'integer':
        return schema.format === 'int32' ? { kind: 'int', goType: 'int32', bits: 32 } : { kind: 'int', goType: 'int64', bits: 64 };
      case 'number':
        return { kind: 'float', goType: 'float64' };
      case 'boolean':
        return { kind: 'bool', goType: 'bool' };
      default:
        return ANY;
    }
  }
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStructSchema(schema: JsonObject): boolean {
  return isObject(schema.properties);
}

const goTypeName = (definition: string): string => definition.split('.').slice(-2).join('.');

/** The same type under a Go name of its own (`v1.PullPolicy`), passed down to elements (`[]v1.Capability`). */
function renamed(type: GoType, goType: string): GoType {
  if (type.kind === 'slice' && goType.startsWith('[]')) return { ...type, goType, elem: renamed(type.elem, goType.slice(2)) };
  if (type.kind === 'map' && goType.startsWith('map[')) {
    const close = goType.indexOf(']');
    return { ...type, goType, elem: renamed(type.elem, goType.slice(close + 1)) };
  }
  if (type.kind === 'string' || type.kind === 'int' || type.kind === 'bool' || type.kind === 'float' || type.kind === 'map') return { ...type, goType };
  return type;
}

let builtIn: GoTypes | undefined;

/** The Go types of the built-in kinds, from the committed OpenAPI data. */
export function builtInTypes(): GoTypes {
  builtIn ??= new GoTypes(loadOpenApiData().schemas);
  return builtIn;
}

// ---------------------------------------------------------------------------
// The decoder.

export interface TypedDecodeOptions {
  /** Report unknown and duplicate fields (fieldValidation Strict or Warn). */
  readonly strict: boolean;
  /** Walk object keys in sorted order, as a Go map hands them over (YAML bodies, patched objects). */
  readonly sortKeys?: boolean;
  /**
   * Decode as apimachinery's unstructured converter (FromUnstructured) does,
   * not as encoding/json: the strategic merge patch handler turns its patched
   * map into the typed object that way. Its type errors have their own words
   * (`cannot restore slice from string`, `cannot convert int64 to string`,
   * or json's `… into Go value of type int32` without a struct field), and
   * the first one ends the decoding.
   */
  readonly converter?: boolean;
}

export interface TypedDecodeResult {
  /** The decoded value: unknown fields dropped, the last of duplicates kept. */
  readonly value: unknown;
  /** `unknown field "spec.foo"`, `duplicate field "a"`: in the decoder's order. */
  readonly strictErrors: readonly string[];
  /** The error that fails the decoding (a type mismatch), in Go's words; it wins over strict errors. */
  readonly error: string | undefined;
}

/** Decode a document into a Go type as sigs.k8s.io/json's UnmarshalStrict (or, not strict, UnmarshalCaseSensitive) does. */
export function decodeTyped(node: JsonNode, type: GoType, options: TypedDecodeOptions): TypedDecodeResult {
  const decoder = new TypedDecoder(options);
  const value = decoder.decode(node, type, undefined);
  return { value, strictErrors: decoder.strictErrors, error: decoder.fatalError ?? decoder.savedError };
}

const MAX_STRICT_ERRORS = 100;
const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const INT_LITERAL = /^-?\d+$/;
const INT_RANGE = { 32: [-(2n ** 31n), 2n ** 31n - 1n], 64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

class TypedDecoder {
  readonly strictErrors: string[] = [];
  private readonly seenStrict = new Set<string>();
  /** The first type error: Go keeps decoding after it, and reports it at the end. */
  savedError: string | undefined;
  /** An error from a type's own UnmarshalJSON: Go stops decoding there. */
  fatalError: string | undefined;
  // Go's errorContext: the struct whose field is being decoded, and the field names down to it.
  private structName: string | undefined;
  private readonly fieldStack: string[] = [];
  /** The strict path: `spec.containers[0]`. */
  private path = '';

  constructor(private readonly options: TypedDecodeOptions) {}

  decode(node: JsonNode, type: GoType, existing: unknown): unknown {
    if (this.fatalError !== undefined) return existing;
    if (node.type === 'null') return null;
    switch (type.kind) {
      case 'struct':
        return this.struct(node, type, existing);
      case 'map':
        return this.map(node, type, existing);
      case 'slice':
        return this.slice(node, type, existing);
      case 'any':
        return this.any(node);
      case 'raw':
        return nodeToValue(node);
      case 'string':
        return node.type === 'string' ? node.value : this.mismatch(node, type, existing);
      case 'bool':
        return node.type === 'boolean' ? node.value : this.mismatch(node, type, existing);
      case 'bytes': {
        // Go decodes a string as base64, and an array of numbers element by element.
        if (node.type === 'array') return nodeToValue(node);
        if (node.type !== 'string') return this.mismatch(node, type, existing);
        const bad = base64ErrorOffset(node.value);
        if (bad !== undefined && this.options.converter === true) this.fatal(`error decoding from json: illegal base64 data at input byte ${bad}`);
        else if (bad !== undefined) this.savedError ??= `illegal base64 data at input byte ${bad}`;
        return node.value;
      }
      case 'int':
        if (node.type !== 'number') return this.mismatch(node, type, existing);
        // The converter narrows an integer with reflect's Convert, which never fails.
        if (this.options.converter === true && INT_LITERAL.test(node.literal)) return node.value;
        if (!fitsInt(node.literal, type.bits)) return this.mismatch(node, type, existing, `number ${node.literal}`);
        return node.value;
      case 'float':
        if (node.type !== 'number') return this.mismatch(node, type, existing);
        if (!Number.isFinite(node.value)) return this.mismatch(node, type, existing, `number ${node.literal}`);
        return node.value;
      case 'time':
        // metav1.Time's UnmarshalJSON decodes a string first.
        if (node.type !== 'string') this.fatal(this.typeErrorText(valueName(node), 'string'));
        return nodeToValue(node);
      case 'int-or-string':
        // intstr's UnmarshalJSON: a string, or else an int32.
        if (node.type === 'string') return node.value;
        if (node.type !== 'number') this.fatal(this.typeErrorText(valueName(node), 'int32'));
        else if (!fitsInt(node.literal, 32)) this.fatal(this.typeErrorText(`number ${node.literal}`, 'int32'));
        return nodeToValue(node);
      case 'quantity':
        if (node.type !== 'string' && node.type !== 'number') this.fatal(QUANTITY_FORMAT_ERROR);
        return nodeToValue(node);
    }
  }

  private struct(node: JsonNode, type: GoType & { kind: 'struct' }, existing: unknown): unknown {
    if (node.type !== 'object') return this.mismatch(node, type, existing);
    // A duplicated struct field decodes into the value the first one left.
    const out: Record<string, unknown> = isPlainObject(existing) ? existing : {};
    const seen = this.options.strict ? new Set<string>() : undefined;
    const decoded = this.ordered(node.entries, out, (key, child) => {
      const field = type.fields.get(key);
      if (field === undefined) {
        if (type.keepUnknown) return this.child(key, () => this.any(child));
        if (this.options.strict) this.strictError('unknown', key);
        return SKIP;
      }
      if (seen !== undefined) {
        if (seen.has(key)) this.strictError('duplicate', key);
        else seen.add(key);
      }
      const savedStruct = this.structName;
      this.structName = type.structName;
      this.fieldStack.push(key);
      try {
        return this.child(key, () => this.decode(child, field, Object.hasOwn(out, key) ? out[key] : undefined));
      } finally {
        this.fieldStack.pop();
        this.structName = savedStruct;
      }
    });
    return decoded;
  }

  private map(node: JsonNode, type: { readonly goType: string; readonly elem: GoType }, existing: unknown): unknown {
    if (node.type !== 'object') return this.mismatch(node, { kind: 'map', ...type }, existing);
    // A duplicated map field adds to the map the first one made; its values are decoded afresh.
    const out: Record<string, unknown> = isPlainObject(existing) ? existing : {};
    const seen = this.options.strict ? new Set<string>() : undefined;
    return this.ordered(node.entries, out, (key, child) => {
      if (seen !== undefined) {
        if (seen.has(key)) this.strictError('duplicate', key);
        else seen.add(key);
      }
      return this.child(key, () => this.decode(child, type.elem, undefined));
    });
  }

  private slice(node: JsonNode, type: { readonly goType: string; readonly elem: GoType }, existing: unknown): unknown {
    if (node.type !== 'array') return this.mismatch(node, { kind: 'slice', ...type }, existing);
    // Go decodes into the elements a duplicated field left, index by index.
    const previous = Array.isArray(existing) ? (existing as unknown[]) : [];
    const out: unknown[] = [];
    node.items.forEach((item, i) => {
      if (this.fatalError !== undefined) return;
      const saved = this.path;
      this.path = `${saved}[${i}]`;
      try {
        out.push(this.decode(item, type.elem, previous[i]));
      } finally {
        this.path = saved;
      }
    });
    return out;
  }

  /** interface{}: anything goes; an object's duplicate keys are still reported. */
  private any(node: JsonNode): unknown {
    if (node.type === 'array') {
      return node.items.map((item, i) => {
        const saved = this.path;
        this.path = `${saved}[${i}]`;
        try {
          return this.any(item);
        } finally {
          this.path = saved;
        }
      });
    }
    if (node.type !== 'object') return nodeToValue(node);
    const out: Record<string, unknown> = {};
    const seen = this.options.strict ? new Set<string>() : undefined;
    return this.ordered(node.entries, out, (key, child) => {
      if (seen !== undefined) {
        if (seen.has(key)) this.strictError('duplicate', key);
        else seen.add(key);
      }
      return this.child(key, () => this.any(child));
    });
  }

  /**
   * Decode an object's entries in the decoder's order (sorted when the keys
   * come through a Go map) into `out`, keeping the document's order in `out`.
   */
  private ordered(
    entries: ReadonlyArray<readonly [string, JsonNode]>,
    out: Record<string, unknown>,
    decodeEntry: (key: string, child: JsonNode) => unknown,
  ): Record<string, unknown> {
    if (this.options.sortKeys !== true) {
      for (const [key, child] of entries) {
        if (this.fatalError !== undefined) break;
        const v = decodeEntry(key, child);
        if (v !== SKIP) setOwn(out, key, v);
      }
      return out;
    }
    const results = new Map<string, unknown>();
    for (const [key, child] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (this.fatalError !== undefined) break;
      const v = decodeEntry(key, child);
      if (v !== SKIP) results.set(key, v);
    }
    for (const [key] of entries) if (results.has(key)) setOwn(out, key, results.get(key));
    return out;
  }

  private child(key: string, decodeValue: () => unknown): unknown {
    const saved = this.path;
    this.path = saved === '' ? key : `${saved}.${key}`;
    try {
      return decodeValue();
    } finally {
      this.path = saved;
    }
  }

  private strictError(kind: 'unknown' | 'duplicate', key: string): void {
    if (this.strictErrors.length >= MAX_STRICT_ERRORS) return;
    const path = this.path === '' ? key : `${this.path}.${key}`;
    const identity = `${kind}\0${path}`;
    if (this.seenStrict.has(identity)) return;
    this.seenStrict.add(identity);
    this.strictErrors.push(strictFieldError(kind, path));
  }

  /** A value of the wrong JSON type: Go saves the first such error and leaves the field alone. */
  private mismatch(node: JsonNode, type: GoType, existing: unknown, value = valueName(node)): unknown {
    if (this.options.converter === true) this.fatal(converterTypeError(node, type));
    else this.savedError ??= this.typeErrorText(value, type.goType);
    return existing;
  }

  private fatal(message: string): void {
    this.fatalError ??= message;
  }

  /** Go's UnmarshalTypeError text, with the decoder's error context. */
  private typeErrorText(value: string, goType: string): string {
    // The converter hands each value to json.Unmarshal alone: no struct field to name.
    if (this.options.converter !== true && (this.structName !== undefined || this.fieldStack.length > 0)) {
      return `json: cannot unmarshal ${value} into Go struct field ${this.structName ?? ''}.${this.fieldStack.join('.')} of type ${goType}`;
    }
    return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  }
}

const SKIP = Symbol('skip');

/**
 * runtime.DefaultUnstructuredConverter's error for a value that does not fit
 * its Go type: a struct, map or slice wants a map or a slice; a scalar takes
 * reflect's conversions between integers and floats (and an integer into a
 * string type, which it refuses in its own words); anything else goes through
 * json.Unmarshal on its own.
 */
function converterTypeError(node: JsonNode, type: GoType): string {
  const kind = reflectKind(node);
  switch (type.kind) {
    case 'struct':
      return `cannot restore struct from: ${kind}`;
    case 'map':
      return `cannot restore map from ${kind}`;
    case 'slice':
    case 'bytes':
      return `cannot restore slice from ${kind}`;
    default:
      if (kind === 'int64' && type.kind === 'string') return `cannot convert int64 to ${type.goType}`;
      if (kind === 'float64' && type.kind === 'int') return `cannot convert float64 to ${type.goType}`;
      return `json: cannot unmarshal ${valueName(node)} into Go value of type ${type.goType}`;
  }
}

/** The reflect.Kind of a value in an unstructured map: JSON integers are int64, other numbers float64. */
function reflectKind(node: JsonNode): string {
  switch (node.type) {
    case 'number':
      return INT_LITERAL.test(node.literal) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'slice';
    case 'object':
      return 'map';
    default:
      return node.type;
  }
}

/** How Go's decoder names a JSON value in a type error. */
function valueName(node: JsonNode): string {
  switch (node.type) {
    case 'boolean':
      return 'bool';
    default:
      return node.type;
  }
}

const BASE64_ALPHABET = /^[A-Za-z0-9+/]$/;

/**
 * Where Go's base64.StdEncoding.Decode finds `s` corrupt (the byte offset its
 * CorruptInputError names), or undefined when it decodes. Padding is
 * required; CR and LF are skipped anywhere.
 */
export function base64ErrorOffset(s: string): number | undefined {
  const src = Buffer.from(s, 'utf8');
  const isNewline = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;
  const isAlphabet = (b: number): boolean => BASE64_ALPHABET.test(String.fromCharCode(b));
  let si = 0;
  while (si < src.length) {
    // One quantum of four characters.
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = src[si++]!;
      if (isAlphabet(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d /* = */) return si - 1;
      // Padding: only in the third or fourth place, and then the input ends.
      if (j === 0 || j === 1) return si - 1;
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== 0x3d) return si - 1;
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : undefined;
    }
  }
  return undefined;
}

/** Whether a number literal is an integer Go's strconv.ParseInt accepts into intN. */
function fitsInt(literal: string, bits: 32 | 64): boolean {
  if (!INT_LITERAL.test(literal)) return false;
  const n = BigInt(literal);
  const [min, max] = INT_RANGE[bits];
  return n >= min && n <= max;
}

// ---------------------------------------------------------------------------
// Requests.

/** A write's body, ready for typed decoding. */
export interface StrictDocument {
  /** The value as body.ts decodes it (for the apiVersion/kind checks that come first). */
  readonly value: unknown;
  /** The node tree (of a JSON body: parsed when first read). */
  readonly node: JsonNode;
  /** Of a JSON body: what its text says beyond `value` (json-text-scan.ts), for the typed decoder's fast path. */
  readonly jsonFacts?: JsonTextFacts;
  /** YAML reaches upstream's typed decoder through a Go map: keys sorted. */
  readonly sortedKeys: boolean;
  /** goyaml's strict error for duplicate YAML keys. */
  readonly yamlError: string | undefined;
}

/** Decode a create/update body: the same errors as body.ts for malformed input. */
export function decodeStrictDocument(body: Buffer, encoding: 'json' | 'yaml'): StrictDocument {
  if (encoding === 'json') {
    const text = body.toString('utf8');
    const value = decodeJsonText(text);
    const jsonFacts = scanJsonText(text);
    if (jsonFacts.depth > LAZY_NODE_MAX_DEPTH) {
      // A deep document meets the node parser's depth limit here, before any other check, as it always has.
      return { value, node: withinDepth(() => parseJsonNodes(text)), sortedKeys: false, yamlError: undefined };
    }
    return new LazyJsonDocument(text, value, jsonFacts);
  }
  const yaml = withinDepth(() => decodeYamlStrict(body.toString('utf8')), 'YAML');
  return { value: yaml.value, node: withinDepth(() => nodeFromValue(yaml.value), 'YAML'), sortedKeys: true, yamlError: yaml.duplicateKeyError };
}

/**
 * A JSON body whose node tree is only built when the fast path of
 * validateObjectFields does not apply. A class rather than an object literal
 * with a getter: such a literal is built by a slow runtime call each time.
 */
class LazyJsonDocument implements StrictDocument {
  readonly sortedKeys = false;
  readonly yamlError = undefined;
  private parsed: JsonNode | undefined;

  constructor(
    private readonly text: string,
    readonly value: unknown,
    readonly jsonFacts: JsonTextFacts,
  ) {}

  get node(): JsonNode {
    return (this.parsed ??= withinDepth(() => parseJsonNodes(this.text)));
  }
}

/**
 * Run a recursive walk of a request's document: a document nested deeper
 * than the stack allows is the client's error (Go's decoder stops at 10000
 * levels), never a 500.
 */
function withinDepth<T>(walk: () => T, format: 'JSON' | 'YAML' = 'JSON'): T {
  try {
    return walk();
  } catch (e: unknown) {
    if (e instanceof RangeError || (e instanceof SyntaxError && e.message.startsWith('JSON nested too deeply'))) {
      throw badRequest(`error decoding the request body as ${format}: exceeded max depth`);
    }
    throw e;
  }
}

/** Nesting up to which a JSON body's node tree can be left for later: the node parser's limit is far beyond it. */
const LAZY_NODE_MAX_DEPTH = 1000;

/**
 * The typed decoder's fast path: whether decoding the JSON body into `type`
 * would give back JSON.parse's `value` unchanged, with no error and no strict
 * error, so that the node tree need not be built nor walked. It holds when
 * no key is duplicated (the text writes as many keys as the value holds),
 * every number is a plain integer (the value's numbers are the text's), and
 * every field is known and of its Go type. Anything else (an unknown field,
 * a type mismatch, bad base64) takes the full decoder, which reports it.
 */
function decodesToItself(value: unknown, facts: JsonTextFacts, type: GoType): boolean {
  if (!facts.plainIntegers) return false;
  const counter = { keys: 0 };
  try {
    return cleanValue(value, type, counter, 0) && counter.keys === facts.keys;
  } catch (e: unknown) {
    if (e instanceof RangeError) return false;
    throw e;
  }
}

const MAX_FAST_DEPTH = LAZY_NODE_MAX_DEPTH + 1;

/** One value of the fast path; counts the object keys it walks into `counter`. */
function cleanValue(v: unknown, type: GoType, counter: { keys: number }, depth: number): boolean {
  if (v === null) return true;
  if (depth > MAX_FAST_DEPTH) return false;
  switch (type.kind) {
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) return false;
      const o = v as Record<string, unknown>;
      for (const key in o) {
        counter.keys++;
        const field = type.fields.get(key);
        if (field === undefined) {
          if (!type.keepUnknown) return false;
          countKeys(o[key], counter, depth + 1);
        } else if (!cleanValue(o[key], field, counter, depth + 1)) return false;
      }
      return true;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return false;
      const o = v as Record<string, unknown>;
      for (const key in o) {
        counter.keys++;
        if (!cleanValue(o[key], type.elem, counter, depth + 1)) return false;
      }
      return true;
    }
    case 'slice': {
      if (!Array.isArray(v)) return false;
      for (const item of v as unknown[]) if (!cleanValue(item, type.elem, counter, depth + 1)) return false;
      return true;
    }
    case 'any':
    case 'raw':
      countKeys(v, counter, depth);
      return true;
    case 'string':
    case 'time':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'bytes':
      if (Array.isArray(v)) {
        countKeys(v, counter, depth);
        return true;
      }
      return typeof v === 'string' && base64ErrorOffset(v) === undefined;
    // The text's numbers are plain integers of at most 15 digits: exact, and within int64.
    case 'int':
      return typeof v === 'number' && (type.bits === 64 || fitsInt32(v));
    case 'float':
      return typeof v === 'number' && Number.isFinite(v);
    case 'int-or-string':
      return typeof v === 'string' || (typeof v === 'number' && fitsInt32(v));
    case 'quantity':
      return typeof v === 'string' || typeof v === 'number';
  }
}

const fitsInt32 = (v: number): boolean => v >= -2147483648 && v <= 2147483647;

/** Count the object keys of a JSON value (where any value is accepted). */
function countKeys(v: unknown, counter: { keys: number }, depth: number): void {
  if (v === null || typeof v !== 'object') return;
  if (depth > MAX_FAST_DEPTH) throw new RangeError('too deep for the fast path');
  if (Array.isArray(v)) {
    for (const item of v as unknown[]) countKeys(item, counter, depth + 1);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const key in o) {
    counter.keys++;
    countKeys(o[key], counter, depth + 1);
  }
}

/** The object of a create or update with its unknown fields dropped, and the warnings to send. */
export interface ValidatedObject {
  readonly value: unknown;
  readonly warnings: readonly string[];
}

/**
 * Typed decoding of a create or update body (create.go, update.go): a type
 * mismatch, or any strict error under Strict, is a 400 that reads
 * `Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo"`.
 */
export function validateObjectFields(document: StrictDocument, expected: GroupVersionKind, directive: FieldValidationDirective, types = builtInTypes()): ValidatedObject {
  const type = types.typeOf(expected);
  if (document.jsonFacts !== undefined && decodesToItself(document.value, document.jsonFacts, type)) return { value: document.value, warnings: [] };
  const strict = directive !== 'Ignore';
  const result = withinDepth(() => decodeTyped(document.node, type, { strict, sortKeys: document.sortedKeys }));
  if (result.error !== undefined) throw cannotBeHandled(document.value, expected, result.error);
  const strictErrors = strict ? [...(document.yamlError === undefined ? [] : [document.yamlError]), ...result.strictErrors] : [];
  if (strictErrors.length > 0 && directive === 'Strict') {
    throw cannotBeHandled(document.value, expected, `strict decoding error: ${strictErrors.join(', ')}`);
  }
  return { value: result.value, warnings: strictErrors.flatMap(splitYamlWarnings) };
}

/** transformDecodeError: the kind and version are the body's (defaulted from the URL's). */
function cannotBeHandled(body: unknown, expected: GroupVersionKind, message: string): StatusError {
  let kind = expected.kind;
  let version = expected.version;
  if (isPlainObject(body)) {
    if (typeof body.kind === 'string' && body.kind !== '') kind = body.kind;
    if (typeof body.apiVersion === 'string' && body.apiVersion !== '') version = body.apiVersion.slice(body.apiVersion.indexOf('/') + 1);
  }
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${expected.kind}: ${message}`);
}

const MERGE_PATCH_TYPE: GoType = { kind: 'map', goType: 'map[string]interface {}', elem: ANY };
const JSON_PATCH_TYPE: GoType = {
  kind: 'slice',
  goType: '[]handlers.jsonPatchOp',
  elem: {
    kind: 'struct',
    goType: 'handlers.jsonPatchOp',
    structName: 'jsonPatchOp',
    keepUnknown: false,
    fields: new Map<string, GoType>([
      ['op', { kind: 'string', goType: 'string' }],
      ['path', { kind: 'string', goType: 'string' }],
      ['from', { kind: 'string', goType: 'string' }],
      ['value', ANY],
    ]),
  },
};

/**
 * The strict errors of a patch body itself (patch.go, with Strict or Warn):
 * a merge patch's duplicate keys; a JSON patch's unknown or duplicate fields
 * in its operations, as `json patch unknown field "[0].foo"`. A body that does
 * not decode at all is a 400 `error decoding patch: …`.
 */
export function patchBodyStrictErrors(type: 'json-patch' | 'merge-patch', body: Buffer): string[] {
  const result = withinDepth(() => decodeTyped(parseJsonNodes(body.toString('utf8')), type === 'json-patch' ? JSON_PATCH_TYPE : MERGE_PATCH_TYPE, { strict: true }));
  if (result.error !== undefined) throw badRequest(`error decoding patch: ${result.error}`);
  return type === 'json-patch' ? result.strictErrors.map((e) => `json patch ${e}`) : [...result.strictErrors];
}

/**
 * Typed decoding of a patched object (patch.go's jsonPatcher): a type
 * mismatch, or any strict error (the patch body's first) under Strict, is a
 * 422 on the field `patch` whose value is the patched object as Go writes it.
 */
export function validatePatchedFields(
  patched: unknown,
  expected: GroupVersionKind,
  directive: FieldValidationDirective,
  patchErrors: readonly string[],
  types = builtInTypes(),
): ValidatedObject {
  const type = types.typeOf(expected);
  const strict = directive !== 'Ignore';
  const result = withinDepth(() => decodeTyped(nodeFromValue(patched), type, { strict, sortKeys: true }));
  if (result.error !== undefined) throw invalidPatch(patched, result.error);
  const strictErrors = strict ? [...patchErrors, ...result.strictErrors] : [];
  if (strictErrors.length > 0 && directive === 'Strict') throw invalidPatch(patched, `strict decoding error: ${strictErrors.join(', ')}`);
  return { value: result.value, warnings: strictErrors.flatMap(splitYamlWarnings) };
}

function invalidPatch(patched: unknown, message: string): StatusError {
  return invalid({ group: '', kind: '' }, '', [invalidField('patch', goJson(patched), message)]);
}

/**
 * A value as Go's json.Marshal writes a map: compact, keys sorted, and `<`,
 * `>`, `&`, U+2028 and U+2029 escaped.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(out, key, sortKeys(value[key]));
  return out;
}

/** Add warnings to the response once each (upstream's recorder drops repeats). */
export function addWarnings(ctx: RequestContext, warnings: readonly string[]): void {
  for (const w of warnings) if (!ctx.warnings.includes(w)) ctx.warnings.push(w);
}
