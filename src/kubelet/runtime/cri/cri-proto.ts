/**
 * The part of the CRI (k8s.io/cri-api, runtime/v1) that k8ts calls, as our own
 * minimal .proto text, and the loaded gRPC method definitions.
 *
 * Package, service, method and message names, field numbers and enum values
 * follow the public CRI API (the wire contract); every message and field the
 * cri runtime does not use is left out. KeyValue.value is `string` as in the
 * cri-api releases containerd 1.6 was built with (newer releases say `bytes`;
 * the wire format is the same). The text lives in this module, so nothing has
 * to be copied next to the compiled JavaScript.
 */
import protobuf from 'protobufjs';
import { fromJSON, type MethodDefinition, type Options, type PackageDefinition } from '@grpc/proto-loader';

export const CRI_PROTO = `
syntax = "proto3";
package runtime.v1;

service RuntimeService {
  rpc Version(VersionRequest) returns (VersionResponse) {}
  rpc RunPodSandbox(RunPodSandboxRequest) returns (RunPodSandboxResponse) {}
  rpc StopPodSandbox(StopPodSandboxRequest) returns (StopPodSandboxResponse) {}
  rpc RemovePodSandbox(RemovePodSandboxRequest) returns (RemovePodSandboxResponse) {}
  rpc PodSandboxStatus(PodSandboxStatusRequest) returns (PodSandboxStatusResponse) {}
  rpc ListPodSandbox(ListPodSandboxRequest) returns (ListPodSandboxResponse) {}
  rpc CreateContainer(CreateContainerRequest) returns (CreateContainerResponse) {}
  rpc StartContainer(StartContainerRequest) returns (StartContainerResponse) {}
  rpc StopContainer(StopContainerRequest) returns (StopContainerResponse) {}
  rpc RemoveContainer(RemoveContainerRequest) returns (RemoveContainerResponse) {}
  rpc ListContainers(ListContainersRequest) returns (ListContainersResponse) {}
  rpc ContainerStatus(ContainerStatusRequest) returns (ContainerStatusResponse) {}
  rpc ExecSync(ExecSyncRequest) returns (ExecSyncResponse) {}
  rpc Exec(ExecRequest) returns (ExecResponse) {}
  rpc Attach(AttachRequest) returns (AttachResponse) {}
  rpc PortForward(PortForwardRequest) returns (PortForwardResponse) {}
  rpc UpdateRuntimeConfig(UpdateRuntimeConfigRequest) returns (UpdateRuntimeConfigResponse) {}
  rpc Status(StatusRequest) returns (StatusResponse) {}
}

service ImageService {
  rpc ListImages(ListImagesRequest) returns (ListImagesResponse) {}
  rpc ImageStatus(ImageStatusRequest) returns (ImageStatusResponse) {}
  rpc RemoveImage(RemoveImageRequest) returns (RemoveImageResponse) {}
  rpc ImageFsInfo(ImageFsInfoRequest) returns (ImageFsInfoResponse) {}
}

enum Protocol {
  TCP = 0;
  UDP = 1;
  SCTP = 2;
}

enum NamespaceMode {
  POD = 0;
  CONTAINER = 1;
  NODE = 2;
  TARGET = 3;
}

enum PodSandboxState {
  SANDBOX_READY = 0;
  SANDBOX_NOTREADY = 1;
}

enum ContainerState {
  CONTAINER_CREATED = 0;
  CONTAINER_RUNNING = 1;
  CONTAINER_EXITED = 2;
  CONTAINER_UNKNOWN = 3;
}

message Int64Value { int64 value = 1; }
message UInt64Value { uint64 value = 1; }
message KeyValue {
  string key = 1;
  string value = 2;
}

message VersionRequest { string version = 1; }
message VersionResponse {
  string version = 1;
  string runtime_name = 2;
  string runtime_version = 3;
  string runtime_api_version = 4;
}

message DNSConfig {
  repeated string servers = 1;
  repeated string searches = 2;
  repeated string options = 3;
}

message PortMapping {
  Protocol protocol = 1;
  int32 container_port = 2;
  int32 host_port = 3;
  string host_ip = 4;
}

message NamespaceOption {
  NamespaceMode network = 1;
  NamespaceMode pid = 2;
  NamespaceMode ipc = 3;
  string target_id = 4;
}

message PodSandboxMetadata {
  string name = 1;
  string uid = 2;
  string namespace = 3;
  uint32 attempt = 4;
}

message LinuxSandboxSecurityContext {
  NamespaceOption namespace_options = 1;
}

message LinuxPodSandboxConfig {
  string cgroup_parent = 1;
  LinuxSandboxSecurityContext security_context = 2;
  map<string, string> sysctls = 3;
}

message PodSandboxConfig {
  PodSandboxMetadata metadata = 1;
  string hostname = 2;
  string log_directory = 3;
  DNSConfig dns_config = 4;
  repeated PortMapping port_mappings = 5;
  map<string, string> labels = 6;
  map<string, string> annotations = 7;
  LinuxPodSandboxConfig linux = 8;
}

message RunPodSandboxRequest {
  PodSandboxConfig config = 1;
  string runtime_handler = 2;
}
message RunPodSandboxResponse { string pod_sandbox_id = 1; }
message StopPodSandboxRequest { string pod_sandbox_id = 1; }
message StopPodSandboxResponse {}
message RemovePodSandboxRequest { string pod_sandbox_id = 1; }
message RemovePodSandboxResponse {}

message PodIP { string ip = 1; }
message PodSandboxNetworkStatus {
  string ip = 1;
  repeated PodIP additional_ips = 2;
}

message PodSandboxStatus {
  string id = 1;
  PodSandboxMetadata metadata = 2;
  PodSandboxState state = 3;
  int64 created_at = 4;
  PodSandboxNetworkStatus network = 5;
  map<string, string> labels = 7;
  map<string, string> annotations = 8;
}
message PodSandboxStatusRequest {
  string pod_sandbox_id = 1;
  bool verbose = 2;
}
message PodSandboxStatusResponse { PodSandboxStatus status = 1; }

message PodSandboxStateValue { PodSandboxState state = 1; }
message PodSandboxFilter {
  string id = 1;
  PodSandboxStateValue state = 2;
  map<string, string> label_selector = 3;
}
message ListPodSandboxRequest { PodSandboxFilter filter = 1; }
message PodSandbox {
  string id = 1;
  PodSandboxMetadata metadata = 2;
  PodSandboxState state = 3;
  int64 created_at = 4;
  map<string, string> labels = 5;
  map<string, string> annotations = 6;
}
message ListPodSandboxResponse { repeated PodSandbox items = 1; }

message ImageSpec { string image = 1; }

message LinuxContainerResources {
  int64 cpu_period = 1;
  int64 cpu_quota = 2;
  int64 cpu_shares = 3;
  int64 memory_limit_in_bytes = 4;
  int64 oom_score_adj = 5;
}

message LinuxContainerSecurityContext {
  bool privileged = 2;
  NamespaceOption namespace_options = 3;
  Int64Value run_as_user = 5;
  bool readonly_rootfs = 7;
  Int64Value run_as_group = 12;
}

message LinuxContainerConfig {
  LinuxContainerResources resources = 1;
  LinuxContainerSecurityContext security_context = 2;
}

message ContainerMetadata {
  string name = 1;
  uint32 attempt = 2;
}

message Mount {
  string container_path = 1;
  string host_path = 2;
  bool readonly = 3;
}

message ContainerConfig {
  ContainerMetadata metadata = 1;
  ImageSpec image = 2;
  repeated string command = 3;
  repeated string args = 4;
  string working_dir = 5;
  repeated KeyValue envs = 6;
  repeated Mount mounts = 7;
  map<string, string> labels = 9;
  map<string, string> annotations = 10;
  string log_path = 11;
  bool stdin = 12;
  bool stdin_once = 13;
  bool tty = 14;
  LinuxContainerConfig linux = 15;
}

message CreateContainerRequest {
  string pod_sandbox_id = 1;
  ContainerConfig config = 2;
  PodSandboxConfig sandbox_config = 3;
}
message CreateContainerResponse { string container_id = 1; }
message StartContainerRequest { string container_id = 1; }
message StartContainerResponse {}
message StopContainerRequest {
  string container_id = 1;
  int64 timeout = 2;
}
message StopContainerResponse {}
message RemoveContainerRequest { string container_id = 1; }
message RemoveContainerResponse {}

message ContainerStateValue { ContainerState state = 1; }
message ContainerFilter {
  string id = 1;
  ContainerStateValue state = 2;
  string pod_sandbox_id = 3;
  map<string, string> label_selector = 4;
}
message ListContainersRequest { ContainerFilter filter = 1; }
message Container {
  string id = 1;
  string pod_sandbox_id = 2;
  ContainerMetadata metadata = 3;
  ImageSpec image = 4;
  string image_ref = 5;
  ContainerState state = 6;
  int64 created_at = 7;
  map<string, string> labels = 8;
  map<string, string> annotations = 9;
}
message ListContainersResponse { repeated Container containers = 1; }

message ContainerStatusRequest {
  string container_id = 1;
  bool verbose = 2;
}
message ContainerStatus {
  string id = 1;
  ContainerMetadata metadata = 2;
  ContainerState state = 3;
  int64 created_at = 4;
  int64 started_at = 5;
  int64 finished_at = 6;
  int32 exit_code = 7;
  ImageSpec image = 8;
  string image_ref = 9;
  string reason = 10;
  string message = 11;
  map<string, string> labels = 12;
  map<string, string> annotations = 13;
  repeated Mount mounts = 14;
  string log_path = 15;
}
message ContainerStatusResponse { ContainerStatus status = 1; }

message ExecSyncRequest {
  string container_id = 1;
  repeated string cmd = 2;
  int64 timeout = 3;
}
message ExecSyncResponse {
  bytes stdout = 1;
  bytes stderr = 2;
  int32 exit_code = 3;
}

message ExecRequest {
  string container_id = 1;
  repeated string cmd = 2;
  bool tty = 3;
  bool stdin = 4;
  bool stdout = 5;
  bool stderr = 6;
}
message ExecResponse { string url = 1; }

message AttachRequest {
  string container_id = 1;
  bool stdin = 2;
  bool tty = 3;
  bool stdout = 4;
  bool stderr = 5;
}
message AttachResponse { string url = 1; }

message PortForwardRequest {
  string pod_sandbox_id = 1;
  repeated int32 port = 2;
}
message PortForwardResponse { string url = 1; }

message NetworkConfig { string pod_cidr = 1; }
message RuntimeConfig { NetworkConfig network_config = 1; }
message UpdateRuntimeConfigRequest { RuntimeConfig runtime_config = 1; }
message UpdateRuntimeConfigResponse {}

message RuntimeCondition {
  string type = 1;
  bool status = 2;
  string reason = 3;
  string message = 4;
}
message RuntimeStatus { repeated RuntimeCondition conditions = 1; }
message StatusRequest { bool verbose = 1; }
message StatusResponse { RuntimeStatus status = 1; }

message Image {
  string id = 1;
  repeated string repo_tags = 2;
  repeated string repo_digests = 3;
  uint64 size = 4;
  Int64Value uid = 5;
  string username = 6;
  bool pinned = 8;
}
message ImageFilter { ImageSpec image = 1; }
message ListImagesRequest { ImageFilter filter = 1; }
message ListImagesResponse { repeated Image images = 1; }
message ImageStatusRequest {
  ImageSpec image = 1;
  bool verbose = 2;
}
message ImageStatusResponse { Image image = 1; }
message RemoveImageRequest { ImageSpec image = 1; }
message RemoveImageResponse {}

message FilesystemIdentifier { string mountpoint = 1; }
message FilesystemUsage {
  int64 timestamp = 1;
  FilesystemIdentifier fs_id = 2;
  UInt64Value used_bytes = 3;
  UInt64Value inodes_used = 4;
}
message ImageFsInfoRequest {}
message ImageFsInfoResponse { repeated FilesystemUsage image_filesystems = 1; }
`;

/**
 * How messages become JavaScript objects: field names as in the .proto, int64
 * as decimal strings (nanosecond timestamps exceed 2^53; cri-convert.ts makes
 * bigints of them), enums as their names, scalars present with their
 * defaults, absent messages null. Bytes stay Buffers.
 */
export const CRI_LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
};

let loaded: PackageDefinition | undefined;

export function criPackageDefinition(): PackageDefinition {
  if (loaded === undefined) {
    const root = new protobuf.Root();
    protobuf.parse(CRI_PROTO, root, { keepCase: true });
    root.resolveAll();
    loaded = fromJSON(root.toJSON(), CRI_LOADER_OPTIONS);
  }
  return loaded;
}

export type CriServiceName = 'RuntimeService' | 'ImageService';

/** The definition (path, serializers) of one method, e.g. `criMethod('RuntimeService', 'Version')`. */
export function criMethod(service: CriServiceName, rpc: string): MethodDefinition<object, object> {
  const definition = criPackageDefinition()[`runtime.v1.${service}`];
  if (definition === undefined || 'format' in definition) throw new Error(`CRI proto has no service ${service}`);
  const method = definition[rpc];
  if (method === undefined) throw new Error(`CRI proto has no method ${service}.${rpc}`);
  return method;
}
