/**
 * The audit policy: an ordered list of rules; the first rule that matches a
 * request decides its level (and which stages are left out). No rule
 * matching means level None: the request is not logged. Matching follows
 * upstream's policy checker (users, userGroups, verbs, then resources with
 * namespaces, or nonResourceURLs with a trailing `*` as prefix).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { LEVELS, STAGES, type GroupResources, type Level, type Policy, type PolicyRule, type Stage } from './types.js';

/** What the policy says about one request. */
export interface RequestAttributes {
  readonly user: string;
  readonly groups: readonly string[];
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export interface PolicyDecision {
  readonly level: Level;
  readonly omitStages: ReadonlySet<Stage>;
  readonly omitManagedFields: boolean;
}

export interface PolicyEvaluator {
  evaluate(attributes: RequestAttributes): PolicyDecision;
}

const NOT_LOGGED: PolicyDecision = { level: 'None', omitStages: new Set(), omitManagedFields: false };

export function newPolicyEvaluator(policy: Policy): PolicyEvaluator {
  // Decisions are few (one per rule): build them once.
  const decisions = policy.rules.map<PolicyDecision>((rule) => ({
    level: rule.level,
    omitStages: new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]),
    omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
  }));
  return {
    evaluate(attributes) {
      for (let i = 0; i < policy.rules.length; i++) if (ruleMatches(policy.rules[i]!, attributes)) return decisions[i]!;
      return NOT_LOGGED;
    },
  };
}

function ruleMatches(rule: PolicyRule, a: RequestAttributes): boolean {
  if (rule.users !== undefined && rule.users.length > 0 && !rule.users.includes(a.user)) return false;
  if (rule.userGroups !== undefined && rule.userGroups.length > 0 && !rule.userGroups.some((g) => a.groups.includes(g))) return false;
  if (rule.verbs !== undefined && rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) return false;
  if ((rule.namespaces?.length ?? 0) > 0 || (rule.resources?.length ?? 0) > 0) return resourceMatches(rule, a);
  if ((rule.nonResourceURLs?.length ?? 0) > 0) return nonResourceMatches(rule.nonResourceURLs ?? [], a);
  return true;
}

function resourceMatches(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!a.isResourceRequest) return false;
  if (rule.namespaces !== undefined && rule.namespaces.length > 0 && !rule.namespaces.includes(a.namespace)) return false;
  if (rule.resources === undefined || rule.resources.length === 0) return true;
  return rule.resources.some((gr) => groupResourceMatches(gr, a));
}

function groupResourceMatches(gr: GroupResources, a: RequestAttributes): boolean {
  if ((gr.group ?? '') !== a.apiGroup) return false;
  if (gr.resources === undefined || gr.resources.length === 0) return true;
  if (gr.resourceNames !== undefined && gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return gr.resources.some(
    (r) =>
      r === combined ||
      r === '*' ||
      (a.subresource !== '' && r.startsWith('*/') && r.slice(2) === a.subresource) ||
      (r.endsWith('/*') && r.slice(0, -2) === a.resource),
  );
}

function nonResourceMatches(urls: readonly string[], a: RequestAttributes): boolean {
  if (a.isResourceRequest) return false;
  return urls.some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
}

/**
 * k8ts server's built-in policy: every request at Metadata level (who, what,
 * when, the answer), except the health, version and metrics probes and the
 * lease renewals of the control-plane components (two a second, which would
 * drown the story of the objects), and without the RequestReceived stage
 * (each request appears once, when complete; watches also when they start).
 */
export function defaultServerPolicy(): Policy {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [
      { level: 'None', nonResourceURLs: ['/healthz*', '/livez*', '/readyz*', '/version', '/metrics'] },
      {
        level: 'None',
        users: ['system:kube-controller-manager', 'system:kube-scheduler'],
        verbs: ['get', 'update'],
        resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }],
      },
      { level: 'None', userGroups: ['system:nodes'], verbs: ['get', 'update'], resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }] },
      { level: 'Metadata' },
    ],
  };
}

/** Read and check a policy file (YAML or JSON, audit.k8s.io/v1 Policy). Errors name the file and the field. */
export async function loadAuditPolicy(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e: unknown) {
    throw new Error(`reading audit policy file "${path}": ${(e as Error).message}`, { cause: e });
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (e: unknown) {
    throw new Error(`audit policy file "${path}" is not valid YAML or JSON: ${(e as Error).message}`, { cause: e });
  }
  return checkPolicy(document, path);
}

/** Check a decoded policy document; throws an Error naming the field that is wrong. */
export function checkPolicy(document: unknown, source = 'policy'): Policy {
  const fail = (message: string): never => {
    throw new Error(`audit policy ${source}: ${message}`);
  };
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return fail('must be an object');
  const doc = document as Record<string, unknown>;
  if (doc.kind !== 'Policy') fail(`kind must be "Policy", not ${JSON.stringify(doc.kind)}`);
  if (doc.apiVersion !== 'audit.k8s.io/v1') fail(`apiVersion must be "audit.k8s.io/v1", not ${JSON.stringify(doc.apiVersion)}`);
  if (!Array.isArray(doc.rules) || doc.rules.length === 0) fail('rules: at least one rule is required');
  const stages = (value: unknown, field: string): Stage[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) return fail(`${field}: must be a list`);
    for (const s of value) if (!STAGES.includes(s as Stage)) fail(`${field}: unknown stage ${JSON.stringify(s)} (one of ${STAGES.join(', ')})`);
    return value as Stage[];
  };
  const strings = (value: unknown, field: string): string[] | undefined => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return fail(`${field}: must be a list of strings`);
    return value as string[];
  };
  const rules = (doc.rules as unknown[]).map((raw, i): PolicyRule => {
    const field = `rules[${i}]`;
    if (typeof raw !== 'object' || raw === null) return fail(`${field}: must be an object`);
    const r = raw as Record<string, unknown>;
    if (!LEVELS.includes(r.level as Level)) fail(`${field}.level: must be one of ${LEVELS.join(', ')}, not ${JSON.stringify(r.level)}`);
    const nonResourceURLs = strings(r.nonResourceURLs, `${field}.nonResourceURLs`);
    const resources = r.resources === undefined ? undefined : groupResources(r.resources, `${field}.resources`, fail);
    const namespaces = strings(r.namespaces, `${field}.namespaces`);
    if (nonResourceURLs !== undefined && nonResourceURLs.length > 0 && ((resources?.length ?? 0) > 0 || (namespaces?.length ?? 0) > 0)) {
      fail(`${field}: rules cannot apply to both regular resources and non-resource URLs`);
    }
    for (const url of nonResourceURLs ?? []) {
      if (!url.startsWith('/') && url !== '*') fail(`${field}.nonResourceURLs: non-resource URL "${url}" must start with "/"`);
    }
    const rule: Record<string, unknown> = { level: r.level };
    const users = strings(r.users, `${field}.users`);
    const userGroups = strings(r.userGroups, `${field}.userGroups`);
    const verbs = strings(r.verbs, `${field}.verbs`);
    if (users !== undefined) rule.users = users;
    if (userGroups !== undefined) rule.userGroups = userGroups;
    if (verbs !== undefined) rule.verbs = verbs;
    if (resources !== undefined) rule.resources = resources;
    if (namespaces !== undefined) rule.namespaces = namespaces;
    if (nonResourceURLs !== undefined) rule.nonResourceURLs = nonResourceURLs;
    if (r.omitStages !== undefined) rule.omitStages = stages(r.omitStages, `${field}.omitStages`);
    if (r.omitManagedFields !== undefined) rule.omitManagedFields = r.omitManagedFields === true;
    return rule as unknown as PolicyRule;
  });
  const policy: Record<string, unknown> = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules };
  if (doc.omitStages !== undefined) policy.omitStages = stages(doc.omitStages, 'omitStages');
  if (doc.omitManagedFields !== undefined) policy.omitManagedFields = doc.omitManagedFields === true;
  return policy as unknown as Policy;
}

function groupResources(value: unknown, field: string, fail: (m: string) => never): GroupResources[] {
  if (!Array.isArray(value)) return fail(`${field}: must be a list`);
  return value.map((raw, i): GroupResources => {
    if (typeof raw !== 'object' || raw === null) return fail(`${field}[${i}]: must be an object`);
    const gr = raw as Record<string, unknown>;
    if (gr.group !== undefined && typeof gr.group !== 'string') fail(`${field}[${i}].group: must be a string`);
    const resources = gr.resources;
    if (resources !== undefined && (!Array.isArray(resources) || resources.some((r) => typeof r !== 'string'))) fail(`${field}[${i}].resources: must be a list of strings`);
    for (const r of (resources ?? []) as string[]) {
      if (r.includes('/') && !r.startsWith('*/') && !r.endsWith('/*') && r.split('/').length !== 2) fail(`${field}[${i}].resources: invalid resource "${r}"`);
    }
    const names = gr.resourceNames;
    if (names !== undefined && (!Array.isArray(names) || names.some((r) => typeof r !== 'string'))) fail(`${field}[${i}].resourceNames: must be a list of strings`);
    const out: Record<string, unknown> = {};
    if (gr.group !== undefined) out.group = gr.group;
    if (resources !== undefined) out.resources = resources;
    if (names !== undefined) out.resourceNames = names;
    return out as GroupResources;
  });
}
