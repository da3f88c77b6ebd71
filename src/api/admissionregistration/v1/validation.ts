/**
 * Validation of admissionregistration.k8s.io/v1 webhook configurations with
 * upstream's messages (pkg/apis/admissionregistration/validation): webhook
 * names fully qualified and unique, rules, client configuration (exactly one
 * of url or service; https only), failure/match/reinvocation policies,
 * sideEffects (None or NoneOnDryRun for new webhooks), timeouts of 1–30 s and
 * the AdmissionReview versions the webhook understands.
 */
import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  RuleWithOperations,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from './types.js';
import { duplicate, FieldPath, invalid, notSupported, required, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { validateLabelSelector } from '../../../machinery/validation/labels.js';
import { isDNS1035Label, isDNS1123Subdomain, isFullyQualifiedName } from '../../../machinery/validation/names.js';

type Webhook = ValidatingWebhook | MutatingWebhook;

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS_V1 = ['None', 'NoneOnDryRun'];
const SIDE_EFFECTS_ALL = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Go's %v of a string slice: `[a b]`. */
const goSlice = (values: readonly string[]): RawValue => new RawValue(`[${values.join(' ')}]`);

function noStarWithOthers(values: readonly string[], path: FieldPath, what: string): FieldError[] {
  return values.length > 1 && values.includes('*') ? [invalid(path, goSlice(values), `if '*' is present, must not specify other ${what}`)] : [];
}

function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  if (resources.length === 0) return [required(path, '')];
  const errs: FieldError[] = [];
  // */x means "every resource's x subresource"; * means every resource, so naming more is redundant.
  const all = resources.includes('*');
  const allWithSubresources = resources.includes('*/*');
  resources.forEach((resource, i) => {
    if (resource === '') {
      errs.push(required(path.index(i), ''));
      return;
    }
    const [main, sub] = splitResource(resource);
    if (all && resource !== '*' && sub === undefined) errs.push(invalid(path.index(i), resource, "if '*' is present, must not specify other resources without subresources"));
    if (allWithSubresources && resource !== '*/*' && sub !== undefined) {
      errs.push(invalid(path.index(i), resource, "if '*/*' is present, must not specify other resources"));
    }
    if (main !== '*' && sub !== undefined && resources.includes(`*/${sub}`)) {
      errs.push(invalid(path.index(i), resource, `if '*/${sub}' is present, must not specify ${resource}`));
    }
  });
  return errs;
}

function splitResource(resource: string): [string, string | undefined] {
  const slash = resource.indexOf('/');
  return slash < 0 ? [resource, undefined] : [resource.slice(0, slash), resource.slice(slash + 1)];
}

export function validateRuleWithOperations(rule: RuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const operations = rule.operations ?? [];
  if (operations.length === 0) errs.push(required(path.child('operations'), ''));
  errs.push(...noStarWithOthers(operations, path.child('operations'), 'operations'));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(path.child('operations').index(i), op, OPERATIONS));
  });
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errs.push(required(path.child('apiGroups'), ''));
  errs.push(...noStarWithOthers(groups, path.child('apiGroups'), 'API groups'));
  const versions = rule.apiVersions ?? [];
  if (versions.length === 0) errs.push(required(path.child('apiVersions'), ''));
  errs.push(...noStarWithOthers(versions, path.child('apiVersions'), 'API versions'));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(path.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(rule.resources ?? [], path.child('resources')));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) errs.push(notSupported(path.child('scope'), rule.scope, SCOPES));
  return errs;
}

export function validateClientConfig(config: WebhookClientConfig | undefined, path: FieldPath): FieldError[] {
  const url = config?.url;
  const service = config?.service;
  const hasURL = url !== undefined && url !== '';
  if (hasURL === (service !== undefined)) return [required(path, 'exactly one of url or service is required')];
  const errs: FieldError[] = [];
  if (hasURL) {
    const urlPath = path.child('url');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (e: unknown) {
      return [invalid(urlPath, url, `url must be a valid URL: ${e instanceof Error ? e.message : String(e)}`)];
    }
    if (parsed.protocol !== 'https:') errs.push(invalid(urlPath, url, "'https' is the only allowed URL scheme"));
    if (parsed.hostname === '') errs.push(invalid(urlPath, url, 'host must be specified'));
    if (parsed.username !== '' || parsed.password !== '') errs.push(invalid(urlPath, url, 'user information is not permitted in the URL'));
    if (parsed.hash !== '' || url.includes('#')) errs.push(invalid(urlPath, url, 'fragments are not permitted in the URL'));
    if (parsed.search !== '' || url.includes('?')) errs.push(invalid(urlPath, url, 'query parameters are not permitted in the URL'));
    return errs;
  }
  const svc = service!;
  const svcPath = path.child('service');
  if (svc.name === undefined || svc.name === '') errs.push(required(svcPath.child('name'), 'service name is required'));
  if (svc.namespace === undefined || svc.namespace === '') errs.push(required(svcPath.child('namespace'), 'service namespace is required'));
  if (svc.port !== undefined && (svc.port < 1 || svc.port > 65535)) {
    errs.push(invalid(svcPath.child('port'), svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (svc.path !== undefined && svc.path !== '') errs.push(...validateServicePath(svc.path, svcPath.child('path')));
  return errs;
}

function validateServicePath(path: string, fieldPath: FieldPath): FieldError[] {
  if (!path.startsWith('/')) return [invalid(fieldPath, path, "must start with a '/'")];
  if (path === '/') return [];
  const steps = path.slice(1).replace(/\/$/, '').split('/');
  const errs: FieldError[] = [];
  steps.forEach((step, i) => {
    if (step === '') errs.push(invalid(fieldPath, path, `segment[${i}] may not be empty`));
    for (const msg of isDNS1123Subdomain(step === '' ? 'x' : step)) errs.push(invalid(fieldPath, path, `segment[${i}]: ${msg}`));
  });
  return errs;
}

function validateReviewVersions(versions: readonly string[] | null | undefined, path: FieldPath): FieldError[] {
  if (versions === undefined || versions === null || versions.length === 0) return [required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) errs.push(duplicate(path.index(i), v));
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(path.index(i), v, msg));
  });
  if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(path, goSlice(versions), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

export interface WebhookValidationOptions {
  /** Accept sideEffects Some/Unknown: only when the stored object already had them (upstream keeps old objects valid). */
  readonly allowLegacySideEffects?: boolean;
}

function validateWebhook(hook: Webhook, path: FieldPath, options: WebhookValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const name = hook.name ?? '';
  if (name === '') errs.push(required(path.child('name'), ''));
  else errs.push(...isFullyQualifiedName(path.child('name'), name));
  (hook.rules ?? []).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule, path.child('rules').index(i))));
  if (hook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(hook.failurePolicy)) {
    errs.push(notSupported(path.child('failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  }
  if (hook.matchPolicy !== undefined && !MATCH_POLICIES.includes(hook.matchPolicy)) {
    errs.push(notSupported(path.child('matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  }
  // A protobuf body gives an absent pointer as null.
  const sideEffects = (hook.sideEffects as string | null | undefined) ?? undefined;
  const allowed = options.allowLegacySideEffects === true ? SIDE_EFFECTS_ALL : SIDE_EFFECTS_V1;
  if (sideEffects === undefined || sideEffects === '') errs.push(required(path.child('sideEffects'), `must specify one of ${SIDE_EFFECTS_V1.join(', ')}`));
  else if (!allowed.includes(sideEffects)) errs.push(notSupported(path.child('sideEffects'), sideEffects, allowed));
  const timeout = hook.timeoutSeconds;
  if (timeout !== undefined && (timeout < 1 || timeout > 30)) errs.push(invalid(path.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  errs.push(...validateLabelSelector(hook.namespaceSelector, {}, path.child('namespaceSelector')));
  errs.push(...validateLabelSelector(hook.objectSelector, {}, path.child('objectSelector')));
  errs.push(...validateReviewVersions(hook.admissionReviewVersions, path.child('admissionReviewVersions')));
  errs.push(...validateClientConfig(hook.clientConfig, path.child('clientConfig')));
  return errs;
}

function validateWebhooks(hooks: readonly Webhook[], options: WebhookValidationOptions, extra?: (hook: Webhook, path: FieldPath) => FieldError[]): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  hooks.forEach((hook, i) => {
    const path = FieldPath.root('webhooks').index(i);
    errs.push(...validateWebhook(hook, path, options));
    if (extra !== undefined) errs.push(...extra(hook, path));
    if (hook.name !== undefined && hook.name !== '') {
      if (names.has(hook.name)) errs.push(duplicate(path.child('name'), hook.name));
      names.add(hook.name);
    }
  });
  return errs;
}

const hadLegacySideEffects = (old: { webhooks?: Webhook[] } | undefined): boolean =>
  (old?.webhooks ?? []).some((h) => h.sideEffects === 'Some' || h.sideEffects === 'Unknown');

export function validateValidatingWebhookConfiguration(config: ValidatingWebhookConfiguration, old?: ValidatingWebhookConfiguration): FieldError[] {
  return validateWebhooks(config.webhooks ?? [], { allowLegacySideEffects: hadLegacySideEffects(old) });
}

export function validateMutatingWebhookConfiguration(config: MutatingWebhookConfiguration, old?: MutatingWebhookConfiguration): FieldError[] {
  return validateWebhooks(config.webhooks ?? [], { allowLegacySideEffects: hadLegacySideEffects(old) }, (hook, path) => {
    const policy = (hook as MutatingWebhook).reinvocationPolicy;
    return policy !== undefined && !REINVOCATION_POLICIES.includes(policy) ? [notSupported(path.child('reinvocationPolicy'), policy, REINVOCATION_POLICIES)] : [];
  });
}

