/**
 * The admission chain: the enabled plugins in upstream's fixed order
 * (plugins/registry.ts), mutating ones first, then validating ones. A plugin's
 * StatusError is the answer; anything else it throws becomes a 500 naming
 * the plugin (its message, never its stack).
 */
import { StatusError } from '../../machinery/status.js';
import { isMutating, isValidating, type AdmissionChain, type AdmissionPlugin, type Operation } from './interfaces.js';

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export function newAdmissionChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  // Which plugins handle an operation never changes: sorted out once, not per request.
  const mutating = byOperation(plugins.filter(isMutating));
  const validating = byOperation(plugins.filter(isValidating));
  return {
    names: plugins.map((p) => p.name),
    admit: (attributes) => run(mutating.get(attributes.operation) ?? [], (p) => p.admit(attributes)),
    validate: (attributes) => run(validating.get(attributes.operation) ?? [], (p) => p.validate(attributes)),
  };
}

const DONE = Promise.resolve();

/**
 * Run `step` for each plugin in order. Most plugins answer synchronously
 * (they return nothing): those run without an async step; from the first
 * plugin that returns a promise on, the rest run in an async loop.
 */
function run<P extends AdmissionPlugin>(plugins: readonly P[], step: (plugin: P) => Promise<void> | void): Promise<void> {
  for (let i = 0; i < plugins.length; i++) {
    const plugin = plugins[i]!;
    let pending: Promise<void> | void;
    try {
      pending = step(plugin);
    } catch (e: unknown) {
      return Promise.reject(asStatus(plugin, e));
    }
    if (pending !== undefined) return runRest(plugins, i, pending, step);
  }
  return DONE;
}

/** run from plugin `i` on, whose answer `first` is not in yet. */
async function runRest<P extends AdmissionPlugin>(plugins: readonly P[], i: number, first: Promise<void> | void, step: (plugin: P) => Promise<void> | void): Promise<void> {
  let answer = first;
  for (;;) {
    try {
      await answer;
    } catch (e: unknown) {
      throw asStatus(plugins[i]!, e);
    }
    do {
      if (++i >= plugins.length) return;
      try {
        answer = step(plugins[i]!);
      } catch (e: unknown) {
        throw asStatus(plugins[i]!, e);
      }
    } while (answer === undefined);
  }
}

function byOperation<P extends AdmissionPlugin>(plugins: readonly P[]): Map<Operation, readonly P[]> {
  return new Map(OPERATIONS.map((operation) => [operation, plugins.filter((p) => p.handles(operation))]));
}

/** A plugin's refusal as it is; anything else a 500 naming the plugin. */
function asStatus(plugin: AdmissionPlugin, e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  const message = `admission plugin "${plugin.name}" failed: ${e instanceof Error ? e.message : String(e)}`;
  return new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } }, { cause: e });
}
