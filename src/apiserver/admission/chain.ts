/**
 * The admission chain: the enabled plugins in upstream's fixed order
 * (plugins/order.ts), mutating ones first, then validating ones. A plugin's
 * StatusError is the answer; anything else it throws becomes a 500 naming
 * the plugin (its message, never its stack).
 */
import { StatusError } from '../../machinery/status.js';
import { isMutating, isValidating, type AdmissionAttributes, type AdmissionChain, type AdmissionPlugin } from './interfaces.js';

export function newAdmissionChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  const mutating = plugins.filter(isMutating);
  const validating = plugins.filter(isValidating);
  return {
    names: plugins.map((p) => p.name),
    async admit(attributes) {
      for (const plugin of mutating) if (plugin.handles(attributes.operation)) await guarded(plugin, () => plugin.admit(attributes));
    },
    async validate(attributes: AdmissionAttributes) {
      for (const plugin of validating) if (plugin.handles(attributes.operation)) await guarded(plugin, () => plugin.validate(attributes));
    },
  };
}

async function guarded(plugin: AdmissionPlugin, run: () => Promise<void> | void): Promise<void> {
  try {
    await run();
  } catch (e: unknown) {
    if (e instanceof StatusError) throw e;
    const message = `admission plugin "${plugin.name}" failed: ${e instanceof Error ? e.message : String(e)}`;
    throw new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } }, { cause: e });
  }
}
