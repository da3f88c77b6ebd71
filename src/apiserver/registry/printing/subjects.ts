/** The subjects of a role binding, split as upstream's wide USERS / GROUPS / SERVICEACCOUNTS columns show them. */
import type { Subject } from 'kubernetes-types/rbac/v1.js';

export interface SubjectCells {
  users: string;
  groups: string;
  serviceAccounts: string;
}

/** Users and groups by name, service accounts as `namespace/name`, each list joined with `, `. */
export function subjectCells(subjects: readonly Subject[] | undefined): SubjectCells {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') serviceAccounts.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return { users: users.join(', '), groups: groups.join(', '), serviceAccounts: serviceAccounts.join(', ') };
}
