/** authentication.k8s.io UserInfo as upstream writes it in JSON (empty fields left out). */
import type { UserInfo } from '../../server/context.js';

export interface UserInfoJson {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export function userInfoJson(user: UserInfo): UserInfoJson {
  const extra = user.extra ?? {};
  return {
    ...(user.name !== '' ? { username: user.name } : {}),
    ...(user.uid !== undefined && user.uid !== '' ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(Object.keys(extra).length > 0 ? { extra: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}
