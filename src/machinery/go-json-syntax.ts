/**
 * The syntax error Go's encoding/json reports for a document, worded as its
 * scanner words it (`invalid character 'x' after object key:value pair`,
 * `unexpected end of JSON input`), for messages that quote it, such as a
 * dockercfg Secret's. Returns undefined for well-formed JSON.
 *
 * @example goJsonSyntaxError('{"a" 1}') // "invalid character '1' after object key"
 */
export function goJsonSyntaxError(text: string): string | undefined {
  try {
    new Scanner(text).document();
    return undefined;
  } catch (e: unknown) {
    if (e instanceof GoSyntaxError) return e.message;
    throw e;
  }
}

class GoSyntaxError extends Error {}

const EOF = 'unexpected end of JSON input';

/** Go's quoteChar: `'\''`, `'"'`, else the character as strconv.Quote writes it, in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

class Scanner {
  private i = 0;

  constructor(private readonly s: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.i < this.s.length) this.fail('after top-level value');
  }

  private fail(context: string): never {
    if (this.i >= this.s.length) throw new GoSyntaxError(EOF);
    throw new GoSyntaxError(`invalid character ${quoteChar(this.s[this.i]!)} ${context}`);
  }

  private space(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i]!)) this.i++;
  }

  private value(): void {
    this.space();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const literal of ['true', 'false', 'null']) {
      if (c === literal[0]) return this.literal(literal);
    }
    this.fail('looking for beginning of value');
  }

  private object(): void {
    this.i++;
    this.space();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (this.s[this.i] !== '"') this.fail('looking for beginning of object key string');
      this.string();
      this.space();
      if (this.s[this.i] !== ':') this.fail('after object key');
      this.i++;
      this.value();
      this.space();
      const c = this.s[this.i];
      this.i++;
      if (c === '}') return;
      if (c !== ',') {
        this.i--;
        this.fail('after object key:value pair');
      }
    }
  }

  private array(): void {
    this.i++;
    this.space();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.space();
      const c = this.s[this.i];
      this.i++;
      if (c === ']') return;
      if (c !== ',') {
        this.i--;
        this.fail('after array element');
      }
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) this.fail('');
      if (c === '"') {
        this.i++;
        return;
      }
      if (c < ' ') this.fail('in string literal');
      this.i++;
      if (c !== '\\') continue;
      const e = this.s[this.i];
      if (e === 'u') {
        this.i++;
        for (let k = 0; k < 4; k++, this.i++) {
          if (!/[0-9a-fA-F]/.test(this.s[this.i] ?? '')) this.fail('in \\u hexadecimal character escape');
        }
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.i++;
      else this.fail('in string escape code');
    }
  }

  private digits(): number {
    const start = this.i;
    while (this.i < this.s.length && this.s[this.i]! >= '0' && this.s[this.i]! <= '9') this.i++;
    return this.i - start;
  }

  private number(): void {
    if (this.s[this.i] === '-') this.i++;
    // A leading 0 ends the integer part; a digit after it is the caller's to reject.
    if (this.s[this.i] === '0') this.i++;
    else if (this.digits() === 0) this.fail('in numeric literal');
    if (this.s[this.i] === '.') {
      this.i++;
      if (this.digits() === 0) this.fail('after decimal point in numeric literal');
    }
    if (this.s[this.i] === 'e' || this.s[this.i] === 'E') {
      this.i++;
      if (this.s[this.i] === '+' || this.s[this.i] === '-') this.i++;
      if (this.digits() === 0) this.fail('in exponent of numeric literal');
    }
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.fail(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
  }
}
