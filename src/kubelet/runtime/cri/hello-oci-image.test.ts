import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findHelloAppSource } from '../process/hello-image.js';
import { buildHelloRootfs, helloInputsDigest, helloLauncherC, parseLddOutput, type ToolRunner } from './hello-oci-image.js';
import { buildOciArchive } from './oci-images.js';

const run = promisify(execFile);

/** The real tools, as oci-images.ts runs them (gcc reads the program on stdin). */
const realTool: ToolRunner = async (file, args, options = {}) => {
  if (options.input === undefined) return (await run(file, [...args], { maxBuffer: 1 << 20 })).stdout;
  return new Promise((resolve, reject) => {
    const child = execFile(file, [...args], (e, stdout) => (e ? reject(e) : resolve(stdout)));
    child.stdin!.end(options.input);
  });
};

const LDD_NODE = `\tlinux-vdso.so.1 (0x00007ffd5a1f2000)
\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f0c1a5b0000)
\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f0c1a200000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0c1a01e000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f0c1a5c8000)
`;

describe('hello OCI image (cri runtime)', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-hello-oci-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reads the libraries and the loader from ldd, and refuses a missing or unreadable one', () => {
    assert.deepEqual(parseLddOutput(LDD_NODE), [
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
    assert.deepEqual(parseLddOutput('\tstatically linked\n'), []);
    assert.throws(() => parseLddOutput('\tlibuv.so.1 => not found\n'), /ldd: libuv\.so\.1 not found/);
    assert.throws(() => parseLddOutput('\tsomething odd\n'), /ldd: unexpected line "something odd"/);
  });

  it('launches node on the app with the arguments after it', () => {
    const c = helloLauncherC('/opt/node/bin/node');
    assert.match(c, /execv\("\/opt\/node\/bin\/node", args\)/);
    assert.match(c, /args\[1\] = "\/app\/hello\.cjs"/);
  });

  it('refuses a relative node path and a node whose libraries ldd cannot find', async () => {
    await assert.rejects(buildHelloRootfs(join(root, 'r1'), realTool, { nodePath: 'node' }), /the node binary must be an absolute path, not "node"/);
    const missing: ToolRunner = async (file) => (file === 'ldd' ? '\tlibnode.so.115 => not found\n' : '');
    await assert.rejects(buildHelloRootfs(join(root, 'r2'), missing), /ldd: libnode\.so\.115 not found/);
  });

  it('names its archive after the app and the node binary', async () => {
    const app = join(root, 'app.js');
    writeFileSync(app, 'one');
    const first = await helloInputsDigest({ appSource: app });
    assert.match(first, /^[0-9a-f]{12}$/);
    assert.equal(await helloInputsDigest({ appSource: app }), first);
    assert.notEqual(await helloInputsDigest({ appSource: app, nodePath: '/other/node' }), first);
    writeFileSync(app, 'two');
    assert.notEqual(await helloInputsDigest({ appSource: app }), first);
  });

  it('lays out node, its libraries, the app and a static launcher that runs it with no other file', async (t) => {
    const rootfs = join(root, 'rootfs');
    const config = await buildHelloRootfs(rootfs, realTool);
    assert.deepEqual(config, ['--config.entrypoint', 'hello', '--config.env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']);
    assert.equal(statSync(join(rootfs, process.execPath)).size, statSync(process.execPath).size);
    for (const lib of parseLddOutput(await realTool('ldd', [process.execPath]))) assert.ok(statSync(join(rootfs, lib)).isFile(), lib);
    assert.equal(readFileSync(join(rootfs, 'app', 'hello.cjs'), 'utf8'), readFileSync(await findHelloAppSource(), 'utf8'));
    assert.equal(statSync(join(rootfs, 'tmp')).mode & 0o7777, 0o1777);
    assert.match((await run('file', [join(rootfs, 'usr/local/bin/hello')]).catch(() => ({ stdout: 'statically linked (file not installed)' }))).stdout, /statically linked/);
    if (process.getuid?.() !== 0) return t.skip('running it in the root filesystem needs chroot (root)');
    // In the image's files alone: the launcher starts node, which runs the app's client mode (no server: exit 1, saying why).
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', POD_IP: '127.0.0.1', PORT: '1' };
    await assert.rejects(run('chroot', [rootfs, 'hello', 'readiness', 'fail'], { env }), (e: { code?: number; stderr?: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr ?? '', /^POST http:\/\/127\.0\.0\.1:1\/readiness\/fail: connect ECONNREFUSED/m);
      return true;
    });
  });

  it('builds localhost/hello:1.0 as a docker archive with entrypoint hello, and reuses it', async () => {
    const workDir = join(root, 'oci');
    // A small dynamically linked binary stands in for node (100 MB to compress): the layout is what this checks.
    const hello = { nodePath: '/usr/bin/env' };
    const built = await buildOciArchive({ image: 'hello', workDir, hello });
    assert.equal(built.archive, join(workDir, `hello-${await helloInputsDigest(hello)}.tar`));
    assert.deepEqual(built.tags, ['localhost/hello:1.0']);
    const manifest = JSON.parse((await run('tar', ['-xOf', built.archive, 'manifest.json'])).stdout) as { RepoTags: string[]; Config: string; Layers: string[] }[];
    assert.deepEqual(manifest[0]?.RepoTags, ['localhost/hello:1.0']);
    const config = JSON.parse((await run('tar', ['-xOf', built.archive, manifest[0]!.Config])).stdout) as { config: { Entrypoint: string[]; Env: string[] } };
    assert.deepEqual(config.config.Entrypoint, ['hello']);
    assert.ok(config.config.Env.includes('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'));
    // umoci 0.4.7 ends a layer without tar's end-of-archive padding (containerd does not mind; GNU tar lists it, then complains).
    const listing = 'tar -xOf "$0" "$1" | tar -tf - 2>/dev/null; true';
    const files = (await run('bash', ['-c', listing, built.archive, manifest[0]!.Layers[0]!], { maxBuffer: 1 << 20 })).stdout.split('\n');
    const libraries = parseLddOutput(await realTool('ldd', [hello.nodePath]));
    assert.ok(libraries.length > 0);
    for (const f of ['app/hello.cjs', 'usr/local/bin/hello', ...[hello.nodePath, ...libraries].map((p) => p.slice(1))]) assert.ok(files.includes(f), `${f} in ${files.join(' ')}`);
    const before = statSync(built.archive).mtimeMs;
    assert.equal((await buildOciArchive({ image: 'hello', workDir, hello })).archive, built.archive);
    assert.equal(statSync(built.archive).mtimeMs, before);
  });
});
