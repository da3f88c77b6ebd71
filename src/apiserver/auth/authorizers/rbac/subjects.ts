/**
 * Whether a binding's subject is the user: a User by name, a Group among the
 * user's groups, a ServiceAccount by its user name
 * `system:serviceaccount:NAMESPACE:NAME` (the subject's namespace, or the
 * binding's when the subject has none), as upstream's appliesToUser.
 */
import type { Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../server/context.js';

export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

export function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return namespace !== '' && user.name === serviceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}

/** How upstream names a subject in "allowed by" reasons. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const namespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return `${subject.kind} "${subject.name}/${namespace}"`;
  }
  return `${subject.kind} "${subject.name}"`;
}
