/**
 * What the node is made of, read from the machine as upstream's cadvisor-backed
 * MachineInfo and VersionInfo setters read it: CPUs, memory, the filesystem of
 * the kubelet's root directory (ephemeral-storage), the kernel, the OS image
 * (/etc/os-release PRETTY_NAME), machine and boot ids, and the Go names of the
 * OS and architecture (linux, amd64, arm64…).
 */
import { readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { arch, cpus, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  readonly cpus: number;
  readonly memoryBytes: number;
  /** Size of the filesystem holding the kubelet's root directory (0 when it cannot be read). */
  readonly ephemeralStorageBytes: number;
  readonly kernelVersion: string;
  readonly osImage: string;
  readonly operatingSystem: string;
  readonly architecture: string;
  readonly machineID: string;
  readonly bootID: string;
  readonly systemUUID: string;
}

/** Node's process.arch in Go's GOARCH spelling, as nodeInfo.architecture and kubernetes.io/arch carry it. */
export function goArch(nodeArch: string = arch()): string {
  const names: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64' };
  return names[nodeArch] ?? nodeArch;
}

/** Node's process.platform in Go's GOOS spelling. */
export function goOs(nodePlatform: string = platform()): string {
  return nodePlatform === 'win32' ? 'windows' : nodePlatform;
}

const readTrimmed = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

/** PRETTY_NAME of an os-release file's text, unquoted (upstream's osImage); "Linux" when absent, as cadvisor falls back. */
export function osImageOf(osRelease: string): string {
  for (const line of osRelease.split('\n')) {
    const m = /^PRETTY_NAME=(.*)$/.exec(line.trim());
    if (m !== null) return m[1]!.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return 'Linux';
}

export async function readMachineInfo(rootDir: string): Promise<MachineInfo> {
  let ephemeralStorageBytes = 0;
  try {
    const fs = await statfs(rootDir);
    ephemeralStorageBytes = Number(fs.blocks) * Number(fs.bsize);
  } catch {
    // Unknown: reported as 0, as a missing filesystem would be.
  }
  const osRelease = readTrimmed('/etc/os-release') || readTrimmed('/usr/lib/os-release');
  return {
    cpus: Math.max(1, cpus().length),
    memoryBytes: totalmem(),
    ephemeralStorageBytes,
    kernelVersion: release(),
    osImage: osImageOf(osRelease),
    operatingSystem: goOs(),
    architecture: goArch(),
    machineID: readTrimmed('/etc/machine-id'),
    bootID: readTrimmed('/proc/sys/kernel/random/boot_id'),
    systemUUID: readTrimmed('/sys/class/dmi/id/product_uuid'),
  };
}
