/**
 * The admission chain: the enabled plugins in upstream's fixed order
 * (plugins/registry.ts), mutating ones first, then validating ones. A plugin's
 * StatusError is the answer; anything else it throws becomes a 500 naming
 * the plugin (its message, never its stack).
 */
import { StatusError } from '../../machinery/status.js';
import { isMutating, isValidating, type AdmissionAttributes, type AdmissionChain, type AdmissionPlugin, type Operation } from './interfaces.js';

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export function newAdmissionChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  // Which plugins handle an operation never changes: sorted out once, not per request.
  const mutating = byOperation(plugins.filter(isMutating));
  const validating = byOperation(plugins.filter(isValidating));
  return {
    names: plugins.map((p) => p.name),
    async admit(attributes) {
      for (const plugin of mutating.get(attributes.operation) ?? []) {
        try {
          const pending = plugin.admit(attributes);
          if (pending !== undefined) await pending;
        } catch (e: unknown) {
          throw asStatus(plugin, e);
        }
      }
    },
    async validate(attributes: AdmissionAttributes) {
      for (const plugin of validating.get(attributes.operation) ?? []) {
        try {
          const pending = plugin.validate(attributes);
          if (pending !== undefined) await pending;
        } catch (e: unknown) {
          throw asStatus(plugin, e);
        }
      }
    },
  };
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
