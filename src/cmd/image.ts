/**
 * `k8ts image`: the images the kubelet's runtimes need, made on this machine
 * since no registry is reachable.
 *
 * - Process runtime: images are local directories of executables
 *   (src/kubelet/runtime/process/images.ts). `k8ts image build busybox` makes
 *   docker.io/library/busybox:1.35 and :latest from the host's busybox
 *   (Debian's busybox-static) in --images-dir, by default <data-dir>/images;
 *   `k8ts image build hello` makes localhost/hello:1.0, the example app
 *   (examples/hello/hello.js) run by this machine's node.
 * - cri runtime (containerd): `k8ts image import --containerd-address SOCK
 *   busybox pause` builds OCI images (busybox as above; registry.k8s.io/pause:3.6
 *   from a tiny static C program; localhost/hello:1.0, the example app with this
 *   machine's node and its shared libraries) with umoci and skopeo and imports them into
 *   containerd's k8s.io namespace with ctr (src/kubelet/runtime/cri/oci-images.ts).
 *   The archives are kept in <images-dir>/oci and reused (--rebuild to redo).
 */
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { buildBusyboxImage } from '../kubelet/runtime/process/busybox-image.js';
import { buildHelloImage } from '../kubelet/runtime/process/hello-image.js';
import { ProcessImageService } from '../kubelet/runtime/process/images.js';
import { buildAndImportImages, OCI_IMAGE_NAMES, type OciImageName } from '../kubelet/runtime/cri/oci-images.js';

interface ImageFlags {
  dataDir: string;
  imagesDir?: string;
}

export const defaultImagesDir = (dataDir: string): string => join(dataDir, 'images');
const imagesDirOf = (flags: ImageFlags): string => flags.imagesDir ?? defaultImagesDir(flags.dataDir);

function addImageFlags(command: Command): Command {
  return command
    .addOption(new Option('--data-dir <dir>', 'the data directory').default('.k8ts'))
    .addOption(new Option('--images-dir <dir>', 'where image directories live (default: <data-dir>/images)'));
}

/** Where the command writes (the test passes its own). */
export interface ImageCommandOutput {
  readonly out: { write(s: string): unknown };
  readonly err: { write(s: string): unknown };
}

export function imageCommand(io: ImageCommandOutput = { out: process.stdout, err: process.stderr }): Command {
  const image = new Command('image').description('build the images of the process runtime (directories of executables) and import those of containerd');
  image.addCommand(
    addImageFlags(new Command('build'))
      .description('build an image from the host: busybox (docker.io/library/busybox:1.35 and :latest) or hello (localhost/hello:1.0, the example app)')
      .addArgument(new Command().createArgument('<image>', 'what to build').choices(['busybox', 'hello']))
      .addOption(new Option('--busybox <path>', 'busybox: the busybox binary to use (default: the host\'s)'))
      .addOption(new Option('--tag <name...>', 'image names to give it (default: docker.io/library/busybox:1.35 and :latest; localhost/hello:1.0)'))
      .action(async (what: 'busybox' | 'hello', flags: ImageFlags & { busybox?: string; tag?: string[] }) => {
        const names = flags.tag !== undefined ? { names: flags.tag } : {};
        if (what === 'hello') {
          const built = await buildHelloImage({ imagesDir: imagesDirOf(flags), ...names });
          for (const name of built.names) io.out.write(`${name}\n`);
          io.err.write(`built ${built.dir} (examples/hello/hello.js on ${built.nodePath})\n`);
          return;
        }
        const built = await buildBusyboxImage({
          imagesDir: imagesDirOf(flags),
          ...(flags.busybox !== undefined ? { busyboxPath: flags.busybox } : {}),
          ...names,
        });
        for (const name of built.names) io.out.write(`${name}\n`);
        io.err.write(`built ${built.dir} (${built.applets} applets)\n`);
      }),
  );
  image.addCommand(
    addImageFlags(new Command('import'))
      .description('build OCI images (busybox: docker.io/library/busybox:1.35 and :latest; pause: registry.k8s.io/pause:3.6; hello: localhost/hello:1.0, the example app on this machine\'s node) and import them into containerd')
      .addArgument(new Command().createArgument('<image...>', 'what to import').choices([...OCI_IMAGE_NAMES]))
      .addOption(new Option('--containerd-address <socket>', 'containerd\'s socket (its grpc address)').makeOptionMandatory())
      .addOption(new Option('--busybox <path>', 'the busybox binary to use (default: the host\'s)'))
      .addOption(new Option('--rebuild', 'build the archives again even when <images-dir>/oci has them'))
      .addOption(new Option('--ctr <path>', 'the ctr binary').default('ctr').hideHelp())
      .action(async (what: OciImageName[], flags: ImageFlags & { containerdAddress: string; busybox?: string; rebuild?: boolean; ctr: string }) => {
        const names = await buildAndImportImages({
          images: [...new Set(what)],
          containerdAddress: flags.containerdAddress,
          workDir: join(imagesDirOf(flags), 'oci'),
          ctrPath: flags.ctr,
          ...(flags.busybox !== undefined ? { busyboxPath: flags.busybox } : {}),
          ...(flags.rebuild ? { rebuild: true } : {}),
        });
        for (const name of names) io.out.write(`${name}\n`);
        io.err.write(`imported into containerd at ${flags.containerdAddress} (namespace k8s.io)\n`);
      }),
  );
  image.addCommand(
    addImageFlags(new Command('list'))
      .description('list the images, as crictl images does')
      .action(async (flags: ImageFlags) => {
        const images = await new ProcessImageService(imagesDirOf(flags)).listImages();
        const rows = [['IMAGE', 'TAG', 'IMAGE ID', 'SIZE']];
        for (const i of images) {
          for (const tag of i.repoTags) {
            const colon = tag.lastIndexOf(':');
            rows.push([tag.slice(0, colon), tag.slice(colon + 1), i.id.replace(/^sha256:/, '').slice(0, 13), `${(i.size / 1024 / 1024).toFixed(1)}MB`]);
          }
        }
        const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
        for (const r of rows) io.out.write(`${r.map((v, c) => v.padEnd(widths[c]!)).join('   ').trimEnd()}\n`);
      }),
  );
  image.addCommand(
    addImageFlags(new Command('rm'))
      .description('remove an image name (a directory or a tag link)')
      .argument('<name>', 'e.g. busybox:1.35')
      .action(async (name: string, flags: ImageFlags) => {
        await new ProcessImageService(imagesDirOf(flags)).removeImage(name);
      }),
  );
  return image;
}
