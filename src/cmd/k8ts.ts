/**
 * `k8ts`: one command for the whole cluster. Each subcommand lives in a file of
 * its own beside this one; this file only lists them.
 *
 * Subcommands load lazily: `k8ts kubelet` imports the kubelet's code and not
 * the API server's, so that each component process of `k8ts server` starts
 * with only the code it runs (loading every component cost each process about
 * a second of CPU). Without a known subcommand (`k8ts --help`), all load.
 */
import { Command, CommanderError } from 'commander';
import { exitWithParent } from './supervisor.js';

export const K8TS_VERSION = '0.1.0';

/** Each subcommand, in the order `k8ts --help` lists them. */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  server: async () => (await import('./server.js')).serverCommand(),
  agent: async () => (await import('./agent.js')).agentCommand(),
  apiserver: async () => (await import('./apiserver.js')).apiserverCommand(),
  'controller-manager': async () => (await import('./controller-manager.js')).controllerManagerCommand(),
  scheduler: async () => (await import('./scheduler.js')).schedulerCommand(),
  kubelet: async () => (await import('./kubelet.js')).kubeletCommand(),
  proxy: async () => (await import('./proxy.js')).proxyCommand(),
  dns: async () => (await import('./dns.js')).dnsCommand(),
  store: async () => (await import('./store.js')).storeCommand(),
  image: async () => (await import('./image.js')).imageCommand(),
  token: async () => (await import('./token.js')).tokenCommand(),
};

/** The subcommand argv names (argv as process.argv: node, script, then the arguments), if it is one of ours. */
export function subcommandOf(argv: readonly string[]): string | undefined {
  const first = argv[2];
  return first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? first : undefined;
}

/** The program with the subcommand `only` (every subcommand when undefined). */
export async function newProgram(only?: string): Promise<Command> {
  const program = new Command('k8ts')
    .description('A Kubernetes-compatible cluster in TypeScript')
    .version(K8TS_VERSION)
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: false });
  const names = only !== undefined ? [only] : Object.keys(SUBCOMMANDS);
  for (const name of names) program.addCommand(await SUBCOMMANDS[name]!());
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  exitWithParent(); // a component of `k8ts server` or `k8ts agent` ends with it, even when it is SIGKILLed
  const program = await newProgram(subcommandOf(argv));
  program.exitOverride();
  try {
    await program.parseAsync([...argv]);
  } catch (e: unknown) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode;
      return;
    }
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
