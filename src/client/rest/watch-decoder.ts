/**
 * The body of a watch: one JSON event a line (`{"type":…,"object":…}\n`),
 * arriving in chunks cut anywhere, even inside a UTF-8 character.
 */
import { StringDecoder } from 'node:string_decoder';

export interface RawWatchEvent {
  readonly type: string;
  readonly object: unknown;
}

export class WatchDecoder {
  private readonly text = new StringDecoder('utf8');
  private pending = '';

  /** The complete events in this chunk (and the ones before it). */
  push(chunk: Buffer | string): RawWatchEvent[] {
    this.pending += typeof chunk === 'string' ? chunk : this.text.write(chunk);
    const lines = this.pending.split('\n');
    this.pending = lines.pop()!;
    return lines.filter((l) => l.trim() !== '').map(parseEvent);
  }

  /** The end of the body: a last line without its newline is still an event. */
  end(): RawWatchEvent[] {
    const rest = this.pending + this.text.end();
    this.pending = '';
    return rest.trim() === '' ? [] : [parseEvent(rest)];
  }
}

function parseEvent(line: string): RawWatchEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e: unknown) {
    throw new Error(`a watch sent a line that is not JSON: ${line.slice(0, 200)}`, { cause: e });
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new Error(`a watch sent a line that is not an event: ${line.slice(0, 200)}`);
  }
  return value as RawWatchEvent;
}
