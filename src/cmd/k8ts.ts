/**
 * `k8ts`: one command for the whole cluster. Each subcommand lives in a file of
 * its own beside this one; this file only lists them.
 */
import { Command, CommanderError } from 'commander';
import { apiserverCommand } from './apiserver.js';
import { controllerManagerCommand } from './controller-manager.js';
import { dnsCommand } from './dns.js';
import { imageCommand } from './image.js';
import { kubeletCommand } from './kubelet.js';
import { schedulerCommand } from './scheduler.js';
import { serverCommand } from './server.js';
import { storeCommand } from './store.js';

export const K8TS_VERSION = '0.1.0';

export function newProgram(): Command {
  const program = new Command('k8ts')
    .description('A Kubernetes-compatible cluster in TypeScript')
    .version(K8TS_VERSION)
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: false });
  program.addCommand(serverCommand());
  program.addCommand(apiserverCommand());
  program.addCommand(controllerManagerCommand());
  program.addCommand(schedulerCommand());
  program.addCommand(kubeletCommand());
  program.addCommand(dnsCommand());
  program.addCommand(storeCommand());
  program.addCommand(imageCommand());
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  const program = newProgram();
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
