/**
 * The label selector lexer, token for token as upstream's: identifiers run
 * until whitespace or a special character (`= ! ( ) , > <`); a run of special
 * characters yields the longest operator it starts with; a NUL character
 * ends the input, as Go's byte-wise lexer treats byte 0.
 */

export type LabelTokenKind =
  | 'error'
  | 'end'
  | 'closePar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

export interface LabelToken {
  readonly kind: LabelTokenKind;
  /** The text scanned; empty for the end of input. */
  readonly literal: string;
}

const LITERALS: ReadonlyMap<string, LabelTokenKind> = new Map<string, LabelTokenKind>([
  [')', 'closePar'],
  [',', 'comma'],
  ['!', 'doesNotExist'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'greaterThan'],
  ['in', 'in'],
  ['<', 'lessThan'],
  ['!=', 'notEquals'],
  ['notin', 'notIn'],
  ['(', 'openPar'],
]);

const END = '\0';
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const isSpecial = (ch: string): boolean => SPECIAL.has(ch);

class Lexer {
  private pos = 0;

  constructor(private readonly text: string) {}

  /** The next character, or NUL at the end (without moving past the end). */
  private read(): string {
    if (this.pos >= this.text.length) return END;
    return this.text[this.pos++] ?? END;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdentifierOrKeyword(): LabelToken {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    return { kind: LITERALS.get(buffer) ?? 'identifier', literal: buffer };
  }

  private scanSpecial(): LabelToken {
    let buffer = '';
    let last: LabelToken | undefined;
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (!isSpecial(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
      const kind = LITERALS.get(buffer);
      if (kind !== undefined) {
        last = { kind, literal: buffer };
      } else if (last !== undefined) {
        this.unread();
        break;
      }
    }
    return last ?? { kind: 'error', literal: `error expected: keyword found '${buffer}'` };
  }

  next(): LabelToken {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { kind: 'end', literal: '' };
    this.unread();
    return isSpecial(ch) ? this.scanSpecial() : this.scanIdentifierOrKeyword();
  }
}

/**
 * All tokens of a selector, ending with one `end` token.
 *
 * @example
 * lexLabelSelector('x!=a').map((t) => t.kind); // => ['identifier', 'notEquals', 'identifier', 'end']
 */
export function lexLabelSelector(text: string): LabelToken[] {
  const lexer = new Lexer(text);
  const tokens: LabelToken[] = [];
  for (;;) {
    const token = lexer.next();
    tokens.push(token);
    if (token.kind === 'end') return tokens;
  }
}
