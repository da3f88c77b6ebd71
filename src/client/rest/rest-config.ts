/**
 * What the HTTP client needs to reach and authenticate to an API server,
 * whatever it was read from (a kubeconfig, flags, a test).
 */

/** An exec credential plugin (client.authentication.k8s.io/v1): a command that prints an ExecCredential. */
export interface ExecPluginConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  /** client.authentication.k8s.io/v1 (v1beta1 is read alike). */
  readonly apiVersion: string;
  /** Directory the command runs in (the kubeconfig's, so relative commands resolve as kubectl resolves them). */
  readonly cwd?: string;
}

export interface RestConfig {
  /** `https://127.0.0.1:6443` (http: is accepted for tests). */
  readonly server: string;
  /** PEM of the CA(s) to trust for the server; absent: the system's. */
  readonly ca?: string;
  /** PEM client certificate and key (mutual TLS). */
  readonly clientCert?: string;
  readonly clientKey?: string;
  /** Bearer token, or a file to read it from (read again when it changes, as projected tokens do). */
  readonly token?: string;
  readonly tokenFile?: string;
  readonly exec?: ExecPluginConfig;
  readonly insecureSkipTlsVerify?: boolean;
  /** Default `k8ts/<version> (<component>)`; the server derives the field manager from it. */
  readonly userAgent?: string;
  /** Requests per second, sustained (default 50); ≤ 0 disables the limiter. */
  readonly qps?: number;
  /** Requests allowed at once above qps (default 100). */
  readonly burst?: number;
  /** Retries of a throttled (429/503 with Retry-After) or unreachable request (default 10). */
  readonly maxRetries?: number;
  /** First backoff between connection retries (default 200 ms), doubled up to maxRetryDelayMs (default 5 s). */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
}

export const K8TS_CLIENT_VERSION = '0.1.0';
export const DEFAULT_QPS = 50;
export const DEFAULT_BURST = 100;
export const DEFAULT_MAX_RETRIES = 10;

/** `k8ts/0.1.0 (controller-manager)`. */
export function defaultUserAgent(component = 'client'): string {
  return `k8ts/${K8TS_CLIENT_VERSION} (${component})`;
}
