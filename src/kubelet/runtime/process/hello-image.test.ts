import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildHelloImage, findHelloAppSource, helloLauncher, shellQuote } from './hello-image.js';
import { ProcessImageService } from './images.js';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('hello image (process runtime)', () => {
  // A quote in the path: the launcher must quote what it names.
  const root = mkdtempSync(join(tmpdir(), "k8ts-hello-image-it's-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds examples/hello/hello.js of the checkout, and says so when there is none', async () => {
    assert.match(await findHelloAppSource(), /\/examples\/hello\/hello\.js$/);
    await assert.rejects(findHelloAppSource(root), /no examples\/hello\/hello\.js above .*: build the hello image from a k8ts checkout/);
  });

  it('quotes the launcher\'s words for sh', async () => {
    assert.equal(shellQuote("a b'c"), "'a b'\\''c'");
    const { stdout } = await promisify(execFile)('sh', ['-c', `printf %s ${shellQuote("x'$HOME y")}`]);
    assert.equal(stdout, "x'$HOME y");
    assert.match(helloLauncher('/usr/bin/node', '/i/app/hello.cjs'), /^#!\/bin\/sh\n(#.*\n)?exec '\/usr\/bin\/node' '\/i\/app\/hello\.cjs' "\$@"\n$/);
  });

  it('makes localhost/hello:1.0 whose bin/hello serves the app and flips it', async () => {
    const imagesDir = join(root, 'images');
    const built = await buildHelloImage({ imagesDir, names: ['localhost/hello:1.0', 'localhost/hello:latest'] });
    assert.deepEqual(built.names, ['localhost/hello:1.0', 'localhost/hello:latest']);
    assert.equal(built.nodePath, process.execPath);
    assert.equal(readFileSync(join(built.dir, 'app', 'hello.cjs'), 'utf8'), readFileSync(await findHelloAppSource(), 'utf8'));
    assert.equal(statSync(join(built.dir, 'bin', 'hello')).mode & 0o111, 0o111);
    assert.ok(lstatSync(join(imagesDir, 'localhost', 'hello', 'latest')).isSymbolicLink());

    const images = new ProcessImageService(imagesDir);
    const resolved = await images.resolve('localhost/hello:1.0');
    assert.deepEqual(resolved?.config, { entrypoint: ['hello'] });
    assert.deepEqual([...((await images.imageStatus('localhost/hello:1.0'))?.repoTags ?? [])].sort(), ['localhost/hello:1.0', 'localhost/hello:latest']);

    // As the runtime runs it: the entrypoint found on a PATH that starts with the image's bin/.
    const env = { ...process.env, PATH: `${resolved!.binDir}:/usr/bin:/bin`, POD_IP: '127.0.0.1', PORT: '0', POD_NAME: 'hello-1' };
    const app = spawn('hello', [], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => app.on('exit', (code) => resolve(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let text = '';
        app.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          const m = /listening on 127\.0\.0\.1:(\d+)/.exec(text);
          if (m) resolve(Number(m[1]));
        });
        app.on('exit', () => reject(new Error(`hello exited: ${text}`)));
      });
      assert.deepEqual(await get(port, '/'), { status: 200, body: 'hello from hello-1\n' });
      const { stdout } = await promisify(execFile)('hello', ['readiness', 'fail'], { env: { ...env, PORT: String(port) } });
      assert.equal(stdout, 'readiness failed\n');
      assert.equal((await get(port, '/readyz')).status, 503);
      app.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      app.kill('SIGKILL');
    }

    // Building again replaces it in place.
    await buildHelloImage({ imagesDir });
    assert.deepEqual((await images.resolve('localhost/hello:1.0'))?.config, { entrypoint: ['hello'] });
  });

  it('refuses bad names and a missing app', async () => {
    await assert.rejects(buildHelloImage({ imagesDir: join(root, 'x'), names: ['bad@sha256:00'] }), /invalid image name "bad@sha256:00"/);
    await assert.rejects(buildHelloImage({ imagesDir: join(root, 'x'), names: [] }), /no image names/);
    await assert.rejects(buildHelloImage({ imagesDir: join(root, 'x'), appSource: join(root, 'none.js') }), /ENOENT/);
  });
});
