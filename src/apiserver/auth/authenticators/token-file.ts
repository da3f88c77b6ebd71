/**
 * The static token file (--token-auth-file), upstream's CSV format, one token
 * a line:
 *
 *   token,user,uid,"group1,group2"
 *
 * At least three columns; the fourth, optional, is a comma-separated list of
 * groups (quoted when it holds commas). Read once at start: a file that
 * cannot be read or parsed stops the API server with a message naming the
 * file and line. A line with an empty token is skipped; of two lines with one
 * token, the later wins (upstream warns about both).
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../server/context.js';
import type { AuthenticationResult, TokenAuthenticator } from './interface.js';

export interface TokenFileWarning {
  readonly line: number;
  readonly message: string;
}

/** Parse the file's text; `source` names it in errors. */
export function parseTokenFile(text: string, source: string, onWarning: (w: TokenFileWarning) => void = () => {}): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  const records = parseCsv(text, source);
  for (const { line, fields } of records) {
    if (fields.length === 1 && fields[0] === '') continue;
    if (fields.length < 3) {
      throw new Error(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`);
    }
    const [token, name, uid, groupList] = fields as [string, string, string, string | undefined];
    if (token === '') {
      onWarning({ line, message: `empty token has been found in token file '${source}', line ${line}` });
      continue;
    }
    if (users.has(token)) onWarning({ line, message: `duplicate token has been found in token file '${source}', line ${line}` });
    const groups = (groupList ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
    users.set(token, { name, groups, ...(uid !== '' ? { uid } : {}) });
  }
  return users;
}

export function newTokenFileAuthenticator(users: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  // The file is never read again: a token's user, and so its answer, stays the same object request after request.
  const answers = new WeakMap<UserInfo, AuthenticationResult>();
  return {
    authenticateToken(token: string) {
      const user = users.get(token);
      if (user === undefined) return undefined;
      let answer = answers.get(user);
      if (answer === undefined) answers.set(user, (answer = { user }));
      return answer;
    },
  };
}

/** Read --token-auth-file; errors say which file and why. */
export function loadTokenFile(path: string, onWarning?: (w: TokenFileWarning) => void): TokenAuthenticator {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e: unknown) {
    throw new Error(`reading the token file '${path}' (--token-auth-file) failed: ${(e as Error).message}`, { cause: e });
  }
  return newTokenFileAuthenticator(parseTokenFile(text, path, onWarning));
}

interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/** RFC 4180 CSV as Go's encoding/csv reads it (leading spaces of a field trimmed). */
function parseCsv(text: string, source: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      while (text[i] === ' ' || text[i] === '\t') i++;
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error(`token file '${source}': line ${startLine}: extraneous or missing " in quoted-field`);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw new Error(`token file '${source}': line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw new Error(`token file '${source}': line ${line}: bare " in non-quoted-field`);
          field += text[i];
          i++;
        }
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: startLine, fields });
  }
  return records;
}
