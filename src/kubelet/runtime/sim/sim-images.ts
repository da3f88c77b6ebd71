/**
 * Images of the sim runtime: nothing is stored. By default every image is
 * present (a scale test needs no image step); with `present` only those names
 * are, so that tests can exercise ErrImageNeverPull. Names are normalised as
 * docker does (busybox:1.35 is docker.io/library/busybox:1.35). An image's id
 * is a hash of its normalised name, so it is the same in every runtime.
 */
import { createHash } from 'node:crypto';
import type { Image, ImageFsInfo, ImageService } from '../interface.js';
import { formatImageReference, parseImageReference } from '../process/images.js';

/** docker's normal form of an image name; names this cannot parse (digests) stay as they are. */
export function normalizeImageName(name: string): string {
  const ref = parseImageReference(name);
  return ref ? formatImageReference(ref) : name;
}

const imageId = (name: string): string => `sha256:${createHash('sha256').update(name).digest('hex')}`;

export class SimImageService implements ImageService {
  /** Undefined: every image is present, except those removed. */
  private readonly present: Set<string> | undefined;
  private readonly removed = new Set<string>();
  /** Images seen (used or asked about) while every image is present, for listImages. */
  private readonly seen = new Set<string>();

  constructor(present?: readonly string[]) {
    this.present = present ? new Set(present.map(normalizeImageName)) : undefined;
  }

  has(name: string): boolean {
    const n = normalizeImageName(name);
    if (this.present) return this.present.has(n);
    if (this.removed.has(n)) return false;
    this.seen.add(n);
    return true;
  }

  /** The image's id ('' when absent): a container's imageRef. */
  idOf(name: string): string {
    return this.has(name) ? imageId(normalizeImageName(name)) : '';
  }

  /** Makes an image present (a test's import step). */
  add(name: string): void {
    const n = normalizeImageName(name);
    this.removed.delete(n);
    if (this.present) this.present.add(n);
    else this.seen.add(n);
  }

  private image(name: string): Image {
    return { id: imageId(name), repoTags: [name], repoDigests: [], size: 0, pinned: false };
  }

  async listImages(): Promise<Image[]> {
    return [...(this.present ?? this.seen)].filter((n) => !this.removed.has(n)).sort().map((n) => this.image(n));
  }

  async imageStatus(image: string): Promise<Image | undefined> {
    return this.has(image) ? this.image(normalizeImageName(image)) : undefined;
  }

  async removeImage(image: string): Promise<void> {
    const n = normalizeImageName(image);
    this.present?.delete(n);
    this.seen.delete(n);
    if (!this.present) this.removed.add(n);
  }

  async imageFsInfo(): Promise<ImageFsInfo[]> {
    return [{ mountpoint: '/sim/images', usedBytes: 0, inodesUsed: (await this.listImages()).length }];
  }
}
