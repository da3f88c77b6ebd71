/**
 * The parts of a pod (or pod template) that the Pod Security checks read, as
 * the JSON the API server holds. A field may be absent or null; both mean
 * "not set" (a nil pointer upstream).
 */

type Maybe<T> = T | null | undefined;

export interface SecurityContextView {
  readonly privileged?: Maybe<boolean>;
  readonly allowPrivilegeEscalation?: Maybe<boolean>;
  readonly capabilities?: Maybe<{ readonly add?: Maybe<readonly string[]>; readonly drop?: Maybe<readonly string[]> }>;
  readonly runAsNonRoot?: Maybe<boolean>;
  readonly runAsUser?: Maybe<number>;
  readonly seccompProfile?: Maybe<{ readonly type?: Maybe<string> }>;
  readonly appArmorProfile?: Maybe<{ readonly type?: Maybe<string> }>;
  readonly seLinuxOptions?: Maybe<SELinuxOptionsView>;
  readonly procMount?: Maybe<string>;
  readonly windowsOptions?: Maybe<{ readonly hostProcess?: Maybe<boolean> }>;
}

export interface SELinuxOptionsView {
  readonly type?: Maybe<string>;
  readonly user?: Maybe<string>;
  readonly role?: Maybe<string>;
  readonly level?: Maybe<string>;
}

export interface PodSecurityContextView extends SecurityContextView {
  readonly sysctls?: Maybe<readonly { readonly name: string; readonly value?: string }[]>;
}

export interface ContainerView {
  readonly name: string;
  readonly image?: Maybe<string>;
  readonly securityContext?: Maybe<SecurityContextView>;
  readonly ports?: Maybe<readonly { readonly hostPort?: Maybe<number>; readonly containerPort?: number }[]>;
}

/** A volume: its name and exactly one source field (hostPath, configMap, …). */
export interface VolumeView {
  readonly name: string;
  readonly [source: string]: unknown;
}

export interface PodSpecView {
  readonly hostNetwork?: Maybe<boolean>;
  readonly hostPID?: Maybe<boolean>;
  readonly hostIPC?: Maybe<boolean>;
  readonly hostUsers?: Maybe<boolean>;
  readonly os?: Maybe<{ readonly name?: Maybe<string> }>;
  readonly runtimeClassName?: Maybe<string>;
  readonly securityContext?: Maybe<PodSecurityContextView>;
  readonly volumes?: Maybe<readonly VolumeView[]>;
  readonly initContainers?: Maybe<readonly ContainerView[]>;
  readonly containers?: Maybe<readonly ContainerView[]>;
  readonly ephemeralContainers?: Maybe<readonly ContainerView[]>;
}

export interface PodMetaView {
  readonly name?: Maybe<string>;
  readonly annotations?: Maybe<Readonly<Record<string, string>>>;
}

/** Init containers, then containers, then ephemeral containers: the order every check reports them in. */
export function allContainers(spec: PodSpecView): ContainerView[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export const isWindowsPod = (spec: PodSpecView): boolean => spec.os?.name === 'windows';
