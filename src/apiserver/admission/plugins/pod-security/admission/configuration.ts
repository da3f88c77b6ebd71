/**
 * PodSecurity's configuration (upstream's PodSecurityConfiguration,
 * pod-security.admission.config.k8s.io/v1): the policy of namespaces without
 * labels (privileged:latest for every mode by default) and the exemptions.
 */
import { LATEST, parseLevel, parseVersion, type LevelVersion } from '../api/level-version.js';
import type { Policy } from '../api/policy.js';

export interface PodSecurityDefaults {
  readonly enforce?: string;
  readonly 'enforce-version'?: string;
  readonly audit?: string;
  readonly 'audit-version'?: string;
  readonly warn?: string;
  readonly 'warn-version'?: string;
}

export interface PodSecurityExemptions {
  readonly usernames?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly runtimeClasses?: readonly string[];
}

export interface PodSecurityConfiguration {
  readonly defaults?: PodSecurityDefaults;
  readonly exemptions?: PodSecurityExemptions;
}

export interface CompletedConfiguration {
  readonly defaultPolicy: Policy;
  readonly exemptUsernames: ReadonlySet<string>;
  readonly exemptNamespaces: ReadonlySet<string>;
  readonly exemptRuntimeClasses: ReadonlySet<string>;
}

const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', version: LATEST };

/** Validate and complete a configuration; throws Error naming the bad field. */
export function completeConfiguration(config: PodSecurityConfiguration = {}): CompletedConfiguration {
  const d = config.defaults ?? {};
  const mode = (levelField: keyof PodSecurityDefaults, versionField: keyof PodSecurityDefaults): LevelVersion => {
    const levelText = d[levelField];
    const versionText = d[versionField];
    let lv = PRIVILEGED_LATEST;
    if (levelText !== undefined) {
      const r = parseLevel(levelText);
      if (r.error !== undefined) throw new Error(`PodSecurity configuration: defaults.${levelField}: Invalid value: "${levelText}": ${r.error}`);
      lv = { ...lv, level: r.level };
    }
    if (versionText !== undefined) {
      const r = parseVersion(versionText);
      if (r.error !== undefined) throw new Error(`PodSecurity configuration: defaults.${versionField}: Invalid value: "${versionText}": ${r.error}`);
      lv = { ...lv, version: r.version };
    }
    return lv;
  };
  const e = config.exemptions ?? {};
  const set = (field: keyof PodSecurityExemptions): ReadonlySet<string> => {
    const values = e[field] ?? [];
    values.forEach((v, i) => {
      if (v === '') throw new Error(`PodSecurity configuration: exemptions.${field}[${i}]: Invalid value: "": must not be empty`);
    });
    return new Set(values);
  };
  return {
    defaultPolicy: { enforce: mode('enforce', 'enforce-version'), audit: mode('audit', 'audit-version'), warn: mode('warn', 'warn-version') },
    exemptUsernames: set('usernames'),
    exemptNamespaces: set('namespaces'),
    exemptRuntimeClasses: set('runtimeClasses'),
  };
}
