/**
 * Pod Security levels and versions (upstream's k8s.io/pod-security-admission/api):
 * a namespace names a level (privileged < baseline < restricted) and the
 * version of the checks to apply (`latest` or `v1.X`), per mode.
 */

export type Level = 'privileged' | 'baseline' | 'restricted';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** `latest`, or v<major>.<minor>; `latest` is newer than every numbered version. */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly latest: boolean;
}

export const LATEST: Version = { major: 0, minor: 0, latest: true };

export const majorMinor = (major: number, minor: number): Version => ({ major, minor, latest: false });

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v${v.major}.${v.minor}`;
}

/** Whether `a` is strictly older than `b`. */
export function olderThan(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.major !== b.major ? a.major < b.major : a.minor < b.minor;
}

export const sameVersion = (a: Version, b: Version): boolean => a.latest === b.latest && a.major === b.major && a.minor === b.minor;

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

/** `restricted:latest`, `baseline:v1.30`. */
export const levelVersionString = (lv: LevelVersion): string => `${lv.level}:${versionString(lv.version)}`;

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean => a.level === b.level && sameVersion(a.version, b.version);

/** Equivalent policies: same level and version, or both privileged (the version does not matter then). */
export const equivalentLevelVersion = (a: LevelVersion, b: LevelVersion): boolean =>
  (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);

export function parseLevel(text: string): { level: Level; error?: string } {
  if ((LEVELS as readonly string[]).includes(text)) return { level: text as Level };
  return { level: 'restricted', error: `must be one of ${LEVELS.join(', ')}` };
}

const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

export function parseVersion(text: string): { version: Version; error?: string } {
  if (text === 'latest') return { version: LATEST };
  const match = VERSION_PATTERN.exec(text);
  const minor = match === null ? NaN : Number(match[1]);
  if (!Number.isSafeInteger(minor)) return { version: LATEST, error: 'must be "latest" or "v1.x"' };
  return { version: majorMinor(1, minor) };
}

/** -1, 0 or 1 as `a` is less, as or more restrictive than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}
