/**
 * `--controllers` as upstream's kube-controller-manager reads it: a list of
 * `*` (every controller on by default), `name` (on) and `-name` (off); the
 * first entry naming a controller decides, and without `*` only named ones
 * run. Every name must be a known controller.
 */
import type { ControllerDefinition } from './context.js';

/** Split a flag value (`*,-job` or repeated flags) into selectors. */
export function parseControllersFlag(values: string | readonly string[]): string[] {
  return (typeof values === 'string' ? [values] : values).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** Errors for selectors naming no known controller (empty when all are valid). */
export function validateControllerSelectors(selectors: readonly string[], definitions: readonly ControllerDefinition[]): string[] {
  const known = new Set(definitions.map((d) => d.name));
  const errors: string[] = [];
  for (const selector of selectors) {
    if (selector === '*') continue;
    const name = selector.startsWith('-') ? selector.slice(1) : selector;
    if (!known.has(name)) errors.push(`"${name}" is not in the list of known controllers`);
  }
  return errors;
}

export function isControllerEnabled(definition: ControllerDefinition, selectors: readonly string[]): boolean {
  let star = false;
  for (const selector of selectors) {
    if (selector === definition.name) return true;
    if (selector === `-${definition.name}`) return false;
    if (selector === '*') star = true;
  }
  return star && definition.enabledByDefault;
}

/** The definitions the selectors enable, in the order given; throws an Error naming the valid names for an unknown one. */
export function selectControllers(selectors: readonly string[], definitions: readonly ControllerDefinition[]): ControllerDefinition[] {
  const errors = validateControllerSelectors(selectors, definitions);
  if (errors.length > 0) {
    const names = definitions.map((d) => d.name).sort();
    throw new Error(`invalid --controllers: ${errors.join(', ')}; known controllers: ${names.length > 0 ? names.join(', ') : '(none)'}`);
  }
  return definitions.filter((d) => isControllerEnabled(d, selectors));
}
