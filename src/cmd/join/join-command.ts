/** The command line that joins a node, as `k8ts server` and `k8ts token create --print-join-command` print it. */
export interface JoinCommandOptions {
  readonly server: string;
  readonly token: string;
  readonly caCertHash: string;
}

export const formatJoinCommand = (o: JoinCommandOptions): string => `k8ts agent --server ${o.server} --token ${o.token} --ca-cert-hash ${o.caCertHash}`;

/** Reads a join command line back (tests and scripts): undefined if `line` holds none. */
export function parseJoinCommand(line: string): JoinCommandOptions | undefined {
  const match = /k8ts agent --server (\S+) --token (\S+) --ca-cert-hash (sha256:[0-9a-f]{64})/.exec(line);
  return match === null ? undefined : { server: match[1]!, token: match[2]!, caCertHash: match[3]! };
}
