/**
 * `k8ts server` audits by default: on first start it writes the built-in
 * policy to <data-dir>/audit-policy.yaml (later starts keep the file, so a
 * person may edit it) and passes it to the API server with the log path.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultServerPolicy } from '../apiserver/audit/policy.js';

const HEADER = `# The audit policy of this k8ts server (audit.k8s.io/v1), written on first start.
# The first rule that matches a request decides its level: None, Metadata (who, what,
# when, the answer), Request (+ the request body) or RequestResponse (+ the response body).
# Edit and restart the server to change what logs/audit.log records.
`;

/** The policy file's path; written with the built-in policy when absent. */
export function ensureAuditPolicyFile(dataDir: string): string {
  const path = join(dataDir, 'audit-policy.yaml');
  if (!existsSync(path)) writeFileSync(path, HEADER + stringify(defaultServerPolicy()), { mode: 0o644 });
  return path;
}
