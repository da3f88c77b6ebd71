/**
 * One CEL expression of a policy, compiled once (parse and type check) and
 * evaluated per request. Errors read as upstream's: a compile error is
 * `compilation failed: ERROR: <input>:LINE:COL: …` (the plugin prefixes
 * `compilation error: `), a wrong result type `must evaluate to bool but got
 * int`, a runtime error `expression '…' resulted in error: …`. Messages are
 * cel-js's, with the common ones worded as cel-go words them.
 */
import type { Environment, ParseResult } from '@marcbachmann/cel-js';

/** What an expression must evaluate to (upstream's ReturnTypes). */
export type ReturnTypes = 'bool' | 'string' | 'string or null' | 'any';

export type EvaluationResult = { readonly value: unknown; readonly error?: undefined } | { readonly value?: undefined; readonly error: string };

export interface CompiledExpression {
  readonly expression: string;
  /** Set when the expression does not compile; evaluation then always fails with it. */
  readonly compileError: string | undefined;
  evaluate(activation: Readonly<Record<string, unknown>>): EvaluationResult;
}

const ACCEPTED: Record<ReturnTypes, readonly string[]> = {
  bool: ['bool', 'dyn'],
  string: ['string', 'dyn'],
  'string or null': ['string', 'null', 'null_type', 'dyn'],
  any: [],
};

export function compileExpression(env: Environment, expression: string, returns: ReturnTypes): CompiledExpression {
  let program: ParseResult | undefined;
  let compileError: string | undefined;
  try {
    program = env.parse(expression);
    const checked = program.check();
    if (!checked.valid) compileError = compilationFailed(expression, checked.error);
    else if (returns !== 'any' && checked.type !== undefined && !ACCEPTED[returns].includes(baseType(checked.type))) {
      compileError = returns === 'string or null' ? `must evaluate to one of [string null_type] but got ${celTypeName(checked.type)}` : `must evaluate to ${returns} but got ${celTypeName(checked.type)}`;
    }
  } catch (e: unknown) {
    compileError = compilationFailed(expression, e);
  }
  return {
    expression,
    compileError,
    evaluate(activation) {
      if (compileError !== undefined || program === undefined) return { error: `compilation error: ${compileError ?? 'unexpected internal error compiling expression'}` };
      try {
        return { value: program(activation) as unknown };
      } catch (e: unknown) {
        return { error: `expression '${expression}' resulted in error: ${runtimeMessage(e)}` };
      }
    },
  };
}

const baseType = (type: string): string => type.replace(/<.*$/, '');
const celTypeName = (type: string): string => type.replace(/</g, '(').replace(/>/g, ')');

interface CelErrorShape {
  readonly summary?: string;
  readonly message?: string;
  readonly range?: { readonly start: number };
}

function compilationFailed(expression: string, error: unknown): string {
  const e = (error ?? {}) as CelErrorShape;
  let summary = firstLine(e.summary ?? e.message ?? String(error));
  const unknownVariable = /^Unknown variable: (.+)$/.exec(summary);
  if (unknownVariable !== null) summary = `undeclared reference to '${unknownVariable[1]}' (in container '')`;
  const at = position(expression, e.range?.start ?? 0);
  return `compilation failed: ERROR: <input>:${at.line}:${at.column}: ${summary}`;
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line += 1;
      column = 1;
    } else column += 1;
  }
  return { line, column };
}

const firstLine = (s: string): string => s.split('\n')[0]!.trim();

/** A runtime error in cel-go's words where they differ. */
export function runtimeMessage(error: unknown): string {
  const e = (error ?? {}) as CelErrorShape;
  const summary = firstLine(e.summary ?? e.message ?? String(error));
  const outOfBounds = /^No such key: index out of bounds, index (-?\d+)/.exec(summary);
  if (outOfBounds !== null) return `index out of bounds: ${outOfBounds[1]}`;
  const noKey = /^No such key: (.*)$/.exec(summary);
  if (noKey !== null) return `no such key: ${noKey[1]}`;
  return summary;
}
