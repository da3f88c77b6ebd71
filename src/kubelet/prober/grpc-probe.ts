/**
 * The grpc handler (upstream pkg/probe/grpc): within one timeout, connect
 * (plaintext) to host:port and call grpc.health.v1.Health/Check with the
 * probe's service name. SERVING is success; any other answer, a failed
 * connection, an unimplemented health service or an RPC error is a failure,
 * with upstream's output text.
 */
import { Client, credentials, Metadata, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { goDuration, goQuote, grpcCodeName, joinHostPort } from './go-format.js';
import { healthCheckMethod, type HealthCheckResponse } from './grpc-health-proto.js';
import { PROBE_USER_AGENT } from './http-probe-request.js';
import { failure, success, type ProbeOutcome } from './probe-outcome.js';

export interface GrpcProbeOptions {
  readonly host: string;
  readonly port: number;
  /** The HealthCheckRequest's service ('' asks about the server as a whole). */
  readonly service: string;
  readonly timeoutMs: number;
}

const CHANNEL_OPTIONS = {
  'grpc.primary_user_agent': PROBE_USER_AGENT,
  // A fresh connection per probe, as upstream dials one per probe.
  'grpc.use_local_subchannel_pool': 1,
  'grpc.enable_retries': 0,
};

const isServiceError = (e: unknown): e is ServiceError => e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number';

export async function grpcProbe({ host, port, service, timeoutMs }: GrpcProbeOptions): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  const timeout = goDuration(timeoutMs);
  const deadline = Date.now() + timeoutMs;
  const client = new Client(address, credentials.createInsecure(), CHANNEL_OPTIONS);
  try {
    try {
      await new Promise<void>((resolve, reject) => client.waitForReady(deadline, (e?: Error) => (e === undefined ? resolve() : reject(e))));
    } catch {
      return failure(`timeout: failed to connect service ${goQuote(address)} within ${timeout}: context deadline exceeded`);
    }
    const method = healthCheckMethod();
    let response: HealthCheckResponse;
    try {
      response = await new Promise<HealthCheckResponse>((resolve, reject) => {
        client.makeUnaryRequest<{ service: string }, HealthCheckResponse>(
          method.path,
          (value) => method.requestSerialize(value),
          (bytes) => method.responseDeserialize(bytes),
          { service },
          new Metadata(),
          { deadline },
          (error: ServiceError | null, value?: HealthCheckResponse) => {
            if (error !== null) reject(error);
            else if (value === undefined) reject(new Error('health rpc returned no response'));
            else resolve(value);
          },
        );
      });
    } catch (e: unknown) {
      if (isServiceError(e)) {
        if (e.code === grpcStatus.UNIMPLEMENTED) {
          return failure(`error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${e.details}`);
        }
        if (e.code === grpcStatus.DEADLINE_EXCEEDED) return failure(`timeout: health rpc did not complete within ${timeout}`);
        return failure(`error: health rpc probe failed: rpc error: code = ${grpcCodeName(e.code)} desc = ${e.details}`);
      }
      return failure(`error: health rpc probe failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (response.status !== 'SERVING') return failure(`service unhealthy (responded with ${goQuote(response.status)})`);
    return success('service is healthy');
  } finally {
    client.close();
  }
}
