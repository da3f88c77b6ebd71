/**
 * Why an allocator refused, with upstream's texts (pkg/registry/core/service
 * ipallocator and portallocator, 1.33), and the random source allocators draw
 * their starting points from.
 */
import { randomBytes, randomInt } from 'node:crypto';

export type AllocationErrorReason = 'Allocated' | 'NotInRange' | 'MismatchedNetwork' | 'Full';

export class AllocationError extends Error {
  override readonly name = 'AllocationError';
  constructor(
    readonly reason: AllocationErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export const ipAllocated = (): AllocationError => new AllocationError('Allocated', 'provided IP is already allocated');
/** 1.33's MetaAllocator: no service CIDR holds the address (outside the range, or its network or broadcast address). */
export const ipMismatchedNetwork = (): AllocationError =>
  new AllocationError('MismatchedNetwork', 'the provided network does not match the current range');
/** The dry-run allocator's range check. */
export const ipNotInRange = (ip: string, range: string): AllocationError =>
  new AllocationError('NotInRange', `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${range}`);
export const rangeFull = (): AllocationError => new AllocationError('Full', 'range is full');

export const portAllocated = (): AllocationError => new AllocationError('Allocated', 'provided port is already allocated');
export const portNotInRange = (range: string): AllocationError =>
  new AllocationError('NotInRange', `provided port is not in the valid range. The range of valid ports is ${range}`);

/** A uniform random integer in [0, n), for n ≥ 1. */
export type RandomSource = (n: bigint) => bigint;

export const cryptoRandom: RandomSource = (n) => {
  if (n <= 1n) return 0n;
  if (n <= 281474976710655n) return BigInt(randomInt(Number(n)));
  // Wide ranges (IPv6): 64 extra bits make the modulo bias negligible.
  const bytes = Math.ceil(n.toString(2).length / 8) + 8;
  return BigInt(`0x${randomBytes(bytes).toString('hex')}`) % n;
};
