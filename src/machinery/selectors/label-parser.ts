/**
 * The label selector parser: upstream's recursive descent over the lexer's
 * tokens, with its error messages byte for byte.
 *
 * Grammar (upstream's):
 *
 *     selector    ::= requirement | requirement "," selector
 *     requirement ::= [!] KEY [ set-based | exact-match ]
 *     set-based   ::= ("in" | "notin") "(" VALUE { "," VALUE } ")"
 *     exact-match ::= ("=" | "==" | "!=" | ">" | "<") VALUE
 *
 * `in` and `notin` are keywords only where an operator may stand, so
 * `in in (notin)` is a valid requirement on the key `in`.
 */
import { badRequest } from '../status.js';
import { invalidValueText } from './field-error-text.js';
import { compareGoStrings, goQuote } from './go-format.js';
import { lexLabelSelector, type LabelToken } from './label-lexer.js';
import { BINARY_LABEL_OPERATORS, labelRequirementError, type LabelOperator, type LabelRequirement } from './label-requirement.js';
import { labelKeyProblems } from './label-syntax.js';

type Context = 'keyAndOperator' | 'values';

/** A failure inside one requirement; the parser prefixes it with "unable to parse requirement: ". */
class RequirementFailure extends Error {}

const fail = (message: string): never => {
  throw new RequirementFailure(message);
};

const OPERATOR_OF_TOKEN: Readonly<Partial<Record<LabelToken['kind'], LabelOperator>>> = {
  in: 'in',
  notIn: 'notin',
  equals: '=',
  doubleEquals: '==',
  notEquals: '!=',
  greaterThan: 'gt',
  lessThan: 'lt',
};

class Parser {
  private position = 0;

  constructor(private readonly tokens: readonly LabelToken[]) {}

  private tokenAt(index: number): LabelToken {
    return this.tokens[Math.min(index, this.tokens.length - 1)] ?? { kind: 'end', literal: '' };
  }

  /** In a values context the keywords `in` and `notin` are plain identifiers. */
  private inContext(token: LabelToken, context: Context): LabelToken {
    if (context === 'values' && (token.kind === 'in' || token.kind === 'notIn')) return { kind: 'identifier', literal: token.literal };
    return token;
  }

  private lookahead(context: Context): LabelToken {
    return this.inContext(this.tokenAt(this.position), context);
  }

  private consume(context: Context): LabelToken {
    return this.inContext(this.tokenAt(this.position++), context);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.lookahead('values');
      if (token.kind === 'end') return requirements;
      if (token.kind !== 'identifier' && token.kind !== 'doesNotExist') {
        throw badRequest(`found '${token.literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirement());
      const after = this.consume('values');
      if (after.kind === 'end') return requirements;
      if (after.kind !== 'comma') throw badRequest(`found '${after.literal}', expected: ',' or 'end of string'`);
      const next = this.lookahead('values');
      if (next.kind !== 'identifier' && next.kind !== 'doesNotExist') throw badRequest(`found '${next.literal}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    try {
      return this.parseRequirement();
    } catch (e: unknown) {
      if (e instanceof RequirementFailure) throw badRequest(`unable to parse requirement: ${e.message}`);
      throw e;
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.keyAndInferredOperator();
    if (inferred !== undefined) return build(key, inferred, []);
    const operator = this.operator();
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
    return build(key, operator, [...values].sort(compareGoStrings));
  }

  /** The key, and `exists` or `!` when no binary operator follows. */
  private keyAndInferredOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let token = this.consume('values');
    if (token.kind === 'doesNotExist') {
      operator = '!';
      token = this.consume('values');
    }
    if (token.kind !== 'identifier') fail(`found '${token.literal}', expected: identifier`);
    const problems = labelKeyProblems(token.literal);
    // The parser validates the key against a nil field path, which upstream prints as "<nil>".
    if (problems.length > 0) fail(invalidValueText(undefined, goQuote(token.literal), problems.join('; ')));
    const next = this.lookahead('values');
    if ((next.kind === 'end' || next.kind === 'comma') && operator === undefined) operator = 'exists';
    return { key: token.literal, operator };
  }

  private operator(): LabelOperator {
    const token = this.consume('keyAndOperator');
    const operator = OPERATOR_OF_TOKEN[token.kind];
    if (operator === undefined) return fail(`found '${token.literal}', expected: ${BINARY_LABEL_OPERATORS.join(', ')}`);
    return operator;
  }

  /** `( a, b )`: `()` is the one empty value; empty items are empty values. */
  private valueSet(): Set<string> {
    const open = this.consume('values');
    if (open.kind !== 'openPar') fail(`found '${open.literal}' expected: '('`);
    const first = this.lookahead('values');
    switch (first.kind) {
      case 'identifier':
      case 'comma': {
        const values = this.identifierList();
        if (this.consume('values').kind !== 'closePar') fail(`found '${first.literal}', expected: ')'`);
        return values;
      }
      case 'closePar':
        this.consume('values');
        return new Set(['']);
      default:
        return fail(`found '${first.literal}', expected: ',', ')' or identifier`);
    }
  }

  private identifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const token = this.consume('values');
      if (token.kind === 'identifier') {
        values.add(token.literal);
        const next = this.lookahead('values');
        if (next.kind === 'comma') continue;
        if (next.kind === 'closePar') return values;
        fail(`found '${next.literal}', expected: ',' or ')'`);
      } else if (token.kind === 'comma') {
        if (values.size === 0) values.add(''); // "(,"
        const next = this.lookahead('values');
        if (next.kind === 'closePar') {
          values.add(''); // ",)"
          return values;
        }
        if (next.kind === 'comma') values.add(''); // ",,"
      } else {
        fail(`found '${token.literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end is the empty value. */
  private exactValue(): Set<string> {
    const next = this.lookahead('values');
    if (next.kind === 'end' || next.kind === 'comma') return new Set(['']);
    const token = this.consume('values');
    if (token.kind !== 'identifier') fail(`found '${token.literal}', expected: identifier`);
    return new Set([token.literal]);
  }
}

function build(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const error = labelRequirementError(key, operator, values);
  if (error !== undefined) fail(error);
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

/**
 * Sorts requirements by key, keeping the order of equal keys (upstream sorts
 * by key so that parsing is deterministic).
 */
export function sortRequirementsByKey(requirements: readonly LabelRequirement[]): LabelRequirement[] {
  return [...requirements].sort((a, b) => compareGoStrings(a.key, b.key));
}

/**
 * Parses selector text into requirements sorted by key (upstream's
 * `labels.ParseToRequirements`); throws a BadRequest StatusError with
 * upstream's message.
 *
 * @example
 * parseLabelRequirements('tier in (web,db),!canary');
 * // => [{ key: 'canary', operator: '!', values: [] }, { key: 'tier', operator: 'in', values: ['db', 'web'] }]
 */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return sortRequirementsByKey(new Parser(lexLabelSelector(text)).parse());
}
