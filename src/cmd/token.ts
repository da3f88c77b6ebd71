/**
 * `k8ts token create|list|delete`: the bootstrap tokens with which nodes join
 * (`k8ts agent --token`), as `kubeadm token` manages them: Secrets
 * kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token.
 */
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { caCertHash, formatBootstrapToken } from '../machinery/bootstrap-token.js';
import { newHttpClient, type HttpClient } from '../client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../client/rest/kubeconfig.js';
import type { RestConfig } from '../client/rest/rest-config.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { formatJoinCommand } from './join/join-command.js';
import { createJoinToken, deleteJoinToken, listJoinTokens, type JoinTokenInfo } from './join/join-token.js';

interface CommonFlags {
  kubeconfig?: string;
  dataDir: string;
}

interface CreateFlags extends CommonFlags {
  ttl: number;
  description?: string;
  printJoinCommand: boolean;
}

const duration = (value: string): number => {
  try {
    return durationFlag(value);
  } catch (e: unknown) {
    throw new InvalidArgumentError((e as Error).message);
  }
};

function withCommonFlags(command: Command): Command {
  return command
    .addOption(new Option('--kubeconfig <path>', 'the admin kubeconfig (default <data-dir>/admin.kubeconfig)'))
    .addOption(new Option('--data-dir <dir>', "k8ts server's data directory").default('.k8ts'));
}

const kubeconfigOf = (flags: CommonFlags): string => flags.kubeconfig ?? join(flags.dataDir, 'admin.kubeconfig');

async function withClient<T>(flags: CommonFlags, run: (client: HttpClient, config: RestConfig) => Promise<T>): Promise<T> {
  const config = restConfigFromKubeconfig(kubeconfigOf(flags), { userAgent: 'k8ts-token', maxRetries: 2 });
  const client = newHttpClient(config);
  try {
    return await run(client, config);
  } finally {
    client.close();
  }
}

export function tokenCommand(): Command {
  const token = new Command('token').description('manage the bootstrap tokens with which nodes join (k8ts agent --token)');
  token.addCommand(
    withCommonFlags(new Command('create').description('make a bootstrap token'))
      .addOption(new Option('--ttl <duration>', 'how long the token works (0: for ever)').default(24 * 3600_000, '24h').argParser(duration))
      .addOption(new Option('--description <text>', 'a note on what the token is for'))
      .addOption(new Option('--print-join-command', 'print the whole `k8ts agent` command line, not only the token').default(false))
      .action(async (flags: CreateFlags) => {
        await withClient(flags, async (client, config) => {
          const info = await createJoinToken(client, { ttlMs: flags.ttl, ...(flags.description !== undefined ? { description: flags.description } : {}) });
          if (!flags.printJoinCommand) return void process.stdout.write(`${formatBootstrapToken(info.token)}\n`);
          if (config.ca === undefined) throw new Error(`${kubeconfigOf(flags)} names no certificate-authority: the join command needs the cluster CA's hash`);
          process.stdout.write(`${formatJoinCommand({ server: config.server, token: formatBootstrapToken(info.token), caCertHash: caCertHash(config.ca) })}\n`);
        });
      }),
  );
  token.addCommand(
    withCommonFlags(new Command('list').description('list the bootstrap tokens')).action(async (flags: CommonFlags) => {
      await withClient(flags, async (client) => void process.stdout.write(formatTokenTable(await listJoinTokens(client), new Date())));
    }),
  );
  token.addCommand(
    withCommonFlags(new Command('delete').description('delete bootstrap tokens (by id or whole token)'))
      .argument('<tokens...>')
      .action(async (tokens: string[], flags: CommonFlags) => {
        await withClient(flags, async (client) => {
          for (const t of tokens) process.stdout.write(`bootstrap token "${await deleteJoinToken(client, t)}" deleted\n`);
        });
      }),
  );
  return token;
}

/** `kubeadm token list`'s table: TOKEN TTL EXPIRES USAGES DESCRIPTION EXTRA GROUPS. */
export function formatTokenTable(tokens: readonly JoinTokenInfo[], now: Date): string {
  const rows = [
    ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'],
    ...tokens.map((t) => {
      const left = t.expires === undefined ? undefined : t.expires.getTime() - now.getTime();
      return [
        formatBootstrapToken(t.token),
        left === undefined ? '<forever>' : left <= 0 ? '<invalid>' : formatDurationMs(Math.floor(left / 1000) * 1000),
        t.expires === undefined ? '<never>' : t.expires.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        t.usages.join(','),
        t.description ?? '<none>',
        t.extraGroups.join(','),
      ];
    }),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]! + 3))).join('')).join('\n') + '\n';
}
