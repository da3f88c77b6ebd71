/**
 * Runs the README's walkthrough, so the README cannot drift from the truth:
 * every command of the shell blocks under "## Walkthrough" runs here as
 * written, with the data directory moved to a temporary one and the server on
 * a free port. `npx k8ts server` starts and stays up (a terminal of its own)
 * until a `k8ts store` command, which reads the store after the server stopped.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHECKOUT, runK8ts, startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { killNodeContainers } from './kubelet/testing/agent-containers.js';

/** The commands of the walkthrough section, comments stripped. */
export function walkthroughCommands(readme: string): string[] {
  const section = readme.split(/^## Walkthrough$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('README.md has no "## Walkthrough" section');
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line.length > 0) commands.push(line);
    }
  }
  return commands;
}

/** Split a command line into words, honouring single quotes. */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function runShell(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { env, cwd: CHECKOUT });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('README walkthrough', () => {
  let dir: string;
  let server: K8tsProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-walkthrough-'));
  });
  after(async () => {
    await server?.stop();
    // The walkthrough's pods are deleted by its own commands; if it failed halfway, end what its node still runs.
    await killNodeContainers(join(dir, 'data', 'kubelet'));
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every command of the walkthrough', async () => {
    const commands = walkthroughCommands(readFileSync(join(CHECKOUT, 'README.md'), 'utf8'));
    assert.ok(commands.length >= 5, `found the walkthrough's commands: ${JSON.stringify(commands)}`);
    const dataDir = join(dir, 'data');
    // A HOME of its own: the kubectl dispatcher caches its choice of binary there.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir };
    const outputs: string[] = [];
    for (const command of commands) {
      const localized = command.replaceAll('$PWD/.k8ts', dataDir).replaceAll('.k8ts', dataDir);
      const argv = words(localized);
      if (argv[0] === 'npx' && argv[1] === 'k8ts' && argv[2] === 'server') {
        server = startK8ts([...argv.slice(2), '--secure-port', '0']);
        await server.waitForLine(/^export KUBECONFIG=/, 60_000);
      } else if (argv[0] === 'export') {
        const [name, value] = argv[1]!.split('=') as [string, string];
        env[name] = value;
      } else if (argv[0] === 'npx' && argv[1] === 'k8ts') {
        // `k8ts store` reads the store of a stopped server (Ctrl-C in the walkthrough); `k8ts image` runs beside it.
        if (argv[2] === 'store' && server !== undefined) {
          assert.equal(await server.stop(), 0);
          server = undefined;
        }
        const { code, output } = await runK8ts(argv.slice(2));
        assert.equal(code, 0, `${command} exited ${code}:\n${output}`);
        outputs.push(output);
      } else {
        const { code, output } = await runShell(localized, env);
        assert.equal(code, 0, `${command} exited ${code}:\n${output}`);
        outputs.push(output);
      }
    }
    const all = outputs.join('\n');
    assert.match(all, /kube-system\s+Active/);
    assert.match(all, /configmap\/greeting created/);
    assert.match(all, /hello/);
    assert.match(all, /configmaps: [1-6]\b/, "greeting, kube-public's cluster-info, and the kube-root-ca.crt of each namespace the publisher reached");
    assert.match(all, /"message":"hello"/);
    // The kubelet registered the node and ran the pod: its log came back through the API server.
    assert.match(all, /control-plane/);
    assert.match(all, /hello +1\/1 +Running +0 .* 127\.244\.\d+\.\d+ /);
    assert.match(all, /hello from k8ts/);
    assert.match(all, /pod "hello" deleted/);
    // The example app: its image, the controllers' ReplicaSet and pods (run by the kubelet), the Service's endpoints and proxy,
    // a readiness probe failed on purpose taking one pod out of the endpoints, and the garbage collector's cascade.
    assert.match(all, /^localhost\/hello:1\.0$/m);
    assert.match(all, /deployment\.apps\/hello created/);
    assert.match(all, /service\/hello created/);
    assert.match(all, /deployment "hello" successfully rolled out/);
    assert.match(all, /replicaset\.apps\/hello-[a-z0-9]+ +3 +3 +3 /);
    assert.match(all, /pod\/hello-[a-z0-9]+-[a-z0-9]{5} +1\/1 +Running +0 .* 127\.244\.\d+\.\d+ /);
    assert.match(all, /^endpoints\/hello +127\.244\.\d+\.\d+:8080,127\.244\.\d+\.\d+:8080,127\.244\.\d+\.\d+:8080 /m, 'three ready endpoints');
    assert.match(all, /^hello from hello-[a-z0-9]+-[a-z0-9]{5}$/m, 'the Service answered through its cluster IP');
    assert.match(all, /^readiness failed$/m);
    assert.match(all, /pod\/hello-[a-z0-9]+-[a-z0-9]{5} +0\/1 +Running +0 /);
    assert.match(all, /^endpoints\/hello +127\.244\.\d+\.\d+:8080,127\.244\.\d+\.\d+:8080 /m, 'two endpoints left');
    assert.match(all, /deployment\.apps "hello" deleted/);
    assert.match(all, /service "hello" deleted/);
  });
});
