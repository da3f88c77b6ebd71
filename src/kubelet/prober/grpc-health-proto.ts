/**
 * The gRPC health checking protocol (grpc.health.v1, as published in
 * grpc/grpc's doc/health-checking.md and grpc-proto's health.proto) as our
 * own .proto text: the Check call the grpc probe makes, and Watch for
 * completeness of the service definition. Tests serve it with grpc-js.
 */
import protobuf from 'protobufjs';
import { fromJSON, type MethodDefinition, type PackageDefinition, type ServiceDefinition } from '@grpc/proto-loader';

export const HEALTH_PROTO = `
syntax = "proto3";
package grpc.health.v1;

message HealthCheckRequest {
  string service = 1;
}

message HealthCheckResponse {
  enum ServingStatus {
    UNKNOWN = 0;
    SERVING = 1;
    NOT_SERVING = 2;
    SERVICE_UNKNOWN = 3;
  }
  ServingStatus status = 1;
}

service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}
`;

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: ServingStatus;
}

let loaded: PackageDefinition | undefined;

function healthPackage(): PackageDefinition {
  if (loaded === undefined) {
    const root = new protobuf.Root();
    protobuf.parse(HEALTH_PROTO, root, { keepCase: true });
    root.resolveAll();
    loaded = fromJSON(root.toJSON(), { keepCase: true, enums: String, defaults: true });
  }
  return loaded;
}

/** The grpc.health.v1.Health service definition (for a grpc-js Server in tests). */
export function healthService(): ServiceDefinition {
  const service = healthPackage()['grpc.health.v1.Health'];
  if (service === undefined || 'format' in service) throw new Error('health proto has no service grpc.health.v1.Health');
  return service;
}

/** The Check method: path `/grpc.health.v1.Health/Check` and its (de)serializers. */
export function healthCheckMethod(): MethodDefinition<HealthCheckRequest, HealthCheckResponse> {
  const method = healthService()['Check'];
  if (method === undefined) throw new Error('health proto has no method Check');
  return method as MethodDefinition<HealthCheckRequest, HealthCheckResponse>;
}
