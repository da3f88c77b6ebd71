/**
 * The syntax of label keys and values, with upstream's explanations
 * (apimachinery's `content.IsLabelKey` and `content.IsLabelValue`): each
 * function returns the list of problems, empty when the text is valid.
 */
import { goByteLength } from './go-format.js';

/** A label value's, and a label key's name part's, maximum length in bytes. */
export const LABEL_VALUE_MAX_LENGTH = 63;
const LABEL_KEY_NAME_MAX_LENGTH = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const LABEL_KEY_NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FORMAT = `(${LABEL_KEY_NAME_FORMAT})?`;
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FORMAT = `${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*`;
const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const whole = (format: string): RegExp => new RegExp(`^(?:${format})$`);
const LABEL_KEY_NAME = whole(LABEL_KEY_NAME_FORMAT);
const LABEL_VALUE = whole(LABEL_VALUE_FORMAT);
const DNS1123_SUBDOMAIN = whole(DNS1123_SUBDOMAIN_FORMAT);

const EMPTY = 'must be non-empty';
const maxLength = (n: number): string => `must be no more than ${n} bytes`;

/** Upstream's explanation of a regular-expression failure, with examples. */
function regexProblem(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (goByteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) problems.push(maxLength(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN.test(value)) problems.push(regexProblem(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FORMAT, 'example.com'));
  return problems;
}

/**
 * Problems with a label key: an optional DNS-subdomain prefix and `/`, then
 * a name of at most 63 bytes.
 *
 * @example
 * labelKeyProblems('example.com/app'); // => []
 * labelKeyProblems('-app');            // => ["name part must consist of alphanumeric characters, …"]
 */
export function labelKeyProblems(key: string): string[] {
  const parts = key.split('/');
  const problems: string[] = [];
  let name: string;
  if (parts.length === 1) {
    name = key;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) problems.push(`prefix part ${EMPTY}`);
    else problems.push(...dns1123SubdomainProblems(prefix).map((p) => `prefix part ${p}`));
  } else {
    return [
      `a valid label key ${regexProblem(LABEL_KEY_NAME_MESSAGE, LABEL_KEY_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) problems.push(`name part ${EMPTY}`);
  else if (goByteLength(name) > LABEL_KEY_NAME_MAX_LENGTH) problems.push(`name part ${maxLength(LABEL_KEY_NAME_MAX_LENGTH)}`);
  if (!LABEL_KEY_NAME.test(name)) problems.push(`name part ${regexProblem(LABEL_KEY_NAME_MESSAGE, LABEL_KEY_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}`);
  return problems;
}

/**
 * Problems with a label value: empty, or at most 63 bytes of alphanumerics
 * with `-`, `_` and `.` inside.
 *
 * @example
 * labelValueProblems('v1.2');  // => []
 * labelValueProblems('v1.2-'); // => ["a valid label must be an empty string or …"]
 */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (goByteLength(value) > LABEL_VALUE_MAX_LENGTH) problems.push(maxLength(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE.test(value)) problems.push(regexProblem(LABEL_VALUE_MESSAGE, LABEL_VALUE_FORMAT, 'MyValue', 'my_value', '12345'));
  return problems;
}
