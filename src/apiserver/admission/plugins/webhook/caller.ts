/**
 * Everything the two webhook plugins share: which webhooks a request goes to
 * (rules, then object and namespace selectors; never for the admission
 * configuration kinds themselves), where a webhook lives (its url, or its
 * Service's cluster IP with the service's DNS name for TLS), and one call:
 * POST the AdmissionReview with the webhook's timeout and CA, check the answer.
 */
import type { Webhook } from '../../../../api/admissionregistration/v1/types.js';
import { isNotFound } from '../../../../machinery/status.js';
import type { StoreLookup } from '../../../endpoints/target.js';
import type { AdmissionAttributes } from '../../interfaces.js';
import { newAdmissionReview, verifyAdmissionResponse, type AdmissionResponse } from './admission-review.js';
import { ErrCallingWebhook } from './errors.js';
import { HttpsPoster } from './https-client.js';
import { anyRuleMatches } from './rules.js';
import { namespaceSelectorMatches, objectSelectorMatches, selectorOf, type NamespaceLabels } from './selectors.js';

/** Upstream never sends requests about admission configuration to webhooks (they could lock themselves out). */
const EXEMPT_RESOURCES = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

export function isExemptResource(attributes: Pick<AdmissionAttributes, 'resource'>): boolean {
  return attributes.resource.group === 'admissionregistration.k8s.io' && EXEMPT_RESOURCES.has(attributes.resource.resource);
}

export interface WebhookCallerOptions {
  readonly stores: StoreLookup;
}

export class WebhookCaller {
  private readonly poster = new HttpsPoster();
  readonly namespaceLabels: NamespaceLabels;

  constructor(private readonly options: WebhookCallerOptions) {
    this.namespaceLabels = async (name) => {
      const store = options.stores('', 'v1', 'namespaces');
      if (store === undefined || name === '') return undefined;
      try {
        const ns = await store.get(undefined, name);
        return (ns.metadata.labels ?? {}) as Record<string, string>;
      } catch (e: unknown) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    };
  }

  /** Whether the webhook wants this request (upstream's ShouldCallHook). Throws (→ 500) when the namespace cannot be read. */
  async shouldCall(webhook: Webhook, attributes: AdmissionAttributes): Promise<boolean> {
    if (!anyRuleMatches(webhook.rules, attributes)) return false;
    if (!objectSelectorMatches(selectorOf(webhook.objectSelector), attributes)) return false;
    return namespaceSelectorMatches(selectorOf(webhook.namespaceSelector), attributes, this.namespaceLabels);
  }

  /** Call the webhook; every failure to get a valid answer is an ErrCallingWebhook (its failurePolicy decides). */
  async call(webhook: Webhook, attributes: AdmissionAttributes, mutating: boolean): Promise<AdmissionResponse> {
    const review = newAdmissionReview(attributes);
    const timeoutSeconds = webhook.timeoutSeconds ?? 10;
    const target = await this.resolve(webhook);
    target.url.searchParams.set('timeout', `${timeoutSeconds}s`);
    let result;
    try {
      result = await this.poster.post({
        url: target.url,
        ca: caBundle(webhook),
        servername: target.servername,
        timeoutMs: timeoutSeconds * 1000,
        body: JSON.stringify(review),
      });
    } catch (e: unknown) {
      throw new ErrCallingWebhook(webhook.name, `failed to call webhook: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (result.statusCode < 200 || result.statusCode >= 300) {
      throw new ErrCallingWebhook(webhook.name, `failed to call webhook: ${httpStatusText(result.statusCode, result.body)}`);
    }
    try {
      return verifyAdmissionResponse(result.body, { uid: review.request.uid, mutating });
    } catch (e: unknown) {
      throw new ErrCallingWebhook(webhook.name, `received invalid webhook response: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }

  private async resolve(webhook: Webhook): Promise<{ url: URL; servername?: string }> {
    const config = webhook.clientConfig;
    if (config.url !== undefined && config.url !== '') {
      try {
        return { url: new URL(config.url) };
      } catch (e: unknown) {
        throw new ErrCallingWebhook(webhook.name, `failed to parse url "${config.url}"`, { cause: e });
      }
    }
    const service = config.service;
    if (service === undefined) throw new ErrCallingWebhook(webhook.name, 'failed to call webhook: clientConfig has neither url nor service');
    const dnsName = `${service.name}.${service.namespace}.svc`;
    // No cluster DNS: the Service's cluster IP stands for its DNS name; TLS still checks the DNS name.
    const store = this.options.stores('', 'v1', 'services');
    let clusterIP = '';
    try {
      const svc = store === undefined ? undefined : await store.get(service.namespace, service.name);
      clusterIP = String((svc as { spec?: { clusterIP?: unknown } } | undefined)?.spec?.clusterIP ?? '');
    } catch (e: unknown) {
      throw new ErrCallingWebhook(webhook.name, `failed to resolve service ${dnsName}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (clusterIP === '' || clusterIP === 'None') throw new ErrCallingWebhook(webhook.name, `failed to resolve service ${dnsName}: it has no cluster IP`);
    const host = clusterIP.includes(':') ? `[${clusterIP}]` : clusterIP;
    const path = service.path ?? '';
    return { url: new URL(`https://${host}:${service.port ?? 443}${path.startsWith('/') ? path : `/${path}`}`), servername: dnsName };
  }

  close(): void {
    this.poster.close();
  }
}

function caBundle(webhook: Webhook): string | undefined {
  const bundle = webhook.clientConfig.caBundle;
  return bundle === undefined || bundle === '' ? undefined : Buffer.from(bundle, 'base64').toString('utf8');
}

function httpStatusText(code: number, body: unknown): string {
  const message = typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : '';
  return message !== '' ? `an error on the server ("${message}") has prevented the request from succeeding` : `the server responded with the status code ${code} but did not return more information`;
}
