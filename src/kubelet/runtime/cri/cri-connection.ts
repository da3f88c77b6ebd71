/**
 * One gRPC channel to a CRI endpoint (containerd's unix socket) and unary
 * calls on it with a deadline, their failures turned into RuntimeErrors by
 * gRPC status: NOT_FOUND → NotFound, DEADLINE_EXCEEDED → DeadlineExceeded,
 * UNAVAILABLE → Unavailable, INVALID_ARGUMENT → InvalidArgument, else Unknown.
 */
import { Client, credentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { RuntimeError, type RuntimeErrorCode } from '../interface.js';
import { criMethod, type CriServiceName } from './cri-proto.js';

const CHANNEL_OPTIONS = {
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** `unix:///abs/path.sock` from an endpoint given as that or as a plain absolute path. */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith('unix://')) return endpoint;
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  throw new RuntimeError('InvalidArgument', `CRI endpoint ${JSON.stringify(endpoint)}: want unix:///path/to.sock or an absolute socket path`);
}

export function runtimeErrorCode(code: number | undefined): RuntimeErrorCode {
  switch (code) {
    case GrpcStatus.NOT_FOUND:
      return 'NotFound';
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'DeadlineExceeded';
    case GrpcStatus.UNAVAILABLE:
      return 'Unavailable';
    case GrpcStatus.INVALID_ARGUMENT:
      return 'InvalidArgument';
    default:
      return 'Unknown';
  }
}

export class CriConnection {
  private readonly client: Client;

  constructor(
    readonly endpoint: string,
    private readonly timeoutMs: number,
  ) {
    this.client = new Client(grpcTarget(endpoint), credentials.createInsecure(), CHANNEL_OPTIONS);
  }

  /** One RPC; `extraMs` lengthens the deadline for calls that wait on purpose (StopContainer, ExecSync). */
  call<Res>(service: CriServiceName, rpc: string, request: object, extraMs = 0): Promise<Res> {
    const method = criMethod(service, rpc);
    const deadline = Date.now() + this.timeoutMs + extraMs;
    return new Promise<Res>((resolve, reject) => {
      this.client.makeUnaryRequest<object, object>(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        new Metadata(),
        { deadline },
        (error: ServiceError | null, response?: object) => {
          if (error) {
            const message = `${service}.${rpc}: ${error.details || error.message}`;
            reject(new RuntimeError(runtimeErrorCode(error.code), message, { cause: error }));
          } else {
            resolve(response as Res);
          }
        },
      );
    });
  }

  close(): void {
    this.client.close();
  }
}
