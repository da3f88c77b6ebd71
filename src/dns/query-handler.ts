/**
 * One DNS message in, one out: decodes the query (dns-packet), answers it
 * from the cluster zone (resolver.ts), refuses names outside the cluster
 * domain (REFUSED) unless a forwarder is configured, and encodes the reply,
 * truncated (TC, no records) when it does not fit a UDP payload (512 bytes,
 * or the client's EDNS size). Malformed queries get FORMERR, other opcodes
 * NOTIMP, as CoreDNS does; a message too short to carry an id is dropped.
 */
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';
import type { DnsMetrics } from './metrics.js';
import { resolveQuestion, type ZoneLookup } from './resolver.js';

export type Transport = 'udp' | 'tcp';

/** Sends a query to an upstream resolver and resolves with its reply (forwarder.ts). */
export type Forwarder = (query: Buffer, transport: Transport) => Promise<Buffer>;

export interface QueryHandlerOptions {
  readonly zone: ZoneLookup;
  readonly domain: string;
  readonly ttl: number;
  readonly forward?: Forwarder;
  readonly metrics?: DnsMetrics;
}

export interface QueryContext {
  readonly transport: Transport;
  readonly family: '1' | '2';
}

export type QueryHandler = (message: Buffer, context: QueryContext) => Promise<Buffer | undefined>;

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODE;

/** The largest UDP reply without EDNS (RFC 1035 §4.2.1); with EDNS, what the client offers, at most this. */
const PLAIN_UDP_SIZE = 512;
const MAX_EDNS_UDP_SIZE = 4096;
/** The EDNS buffer size we advertise (the DNS flag day 2020 value). */
const OUR_EDNS_SIZE = 1232;

function opcodeOf(message: Buffer): number {
  return (message.readUInt16BE(2) >> 11) & 0xf;
}

function clientOpt(query: DecodedPacket): { udpPayloadSize: number } | undefined {
  const opt = query.additionals?.find((a) => a.type === 'OPT');
  return opt?.type === 'OPT' ? { udpPayloadSize: opt.udpPayloadSize } : undefined;
}

interface ReplyParts {
  readonly rcode: Rcode;
  readonly authoritative: boolean;
  readonly answers?: readonly Answer[];
  readonly authorities?: readonly Answer[];
  readonly additionals?: readonly Answer[];
}

/** A reply to `id`, copying the question and the RD bit; EDNS answered with EDNS. */
function encodeReply(id: number, query: Pick<DecodedPacket, 'questions' | 'flag_rd'> | undefined, parts: ReplyParts, opt: { udpPayloadSize: number } | undefined, transport: Transport): Buffer {
  let flags = RCODE[parts.rcode];
  if (parts.authoritative) flags |= dnsPacket.AUTHORITATIVE_ANSWER;
  if (query?.flag_rd === true) flags |= dnsPacket.RECURSION_DESIRED;
  const optRecord: Answer[] = opt === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: OUR_EDNS_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }];
  const packet: Packet = {
    id,
    type: 'response',
    flags,
    questions: query?.questions ?? [],
    answers: [...(parts.answers ?? [])],
    authorities: [...(parts.authorities ?? [])],
    additionals: [...(parts.additionals ?? []), ...optRecord],
  };
  const full = dnsPacket.encode(packet);
  const limit = opt === undefined ? PLAIN_UDP_SIZE : Math.min(MAX_EDNS_UDP_SIZE, Math.max(PLAIN_UDP_SIZE, opt.udpPayloadSize));
  if (transport === 'tcp' || full.length <= limit) return full;
  return dnsPacket.encode({ ...packet, flags: flags | dnsPacket.TRUNCATED_RESPONSE, answers: [], authorities: [], additionals: optRecord });
}

export function newQueryHandler(options: QueryHandlerOptions): QueryHandler {
  return async (message, context) => {
    const started = process.hrtime.bigint();
    if (message.length < 12) return undefined;
    const id = message.readUInt16BE(0);
    let query: DecodedPacket | undefined;
    try {
      query = dnsPacket.decode(message);
    } catch {
      query = undefined;
    }
    const question = query?.questions?.[0];
    const type: string = question?.type ?? 'other';
    options.metrics?.request({ proto: context.transport, family: context.family, type });
    const done = (reply: Buffer, rcode: string, plugin: string): Buffer => {
      options.metrics?.response({ rcode, plugin, type, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      return reply;
    };
    if (query === undefined || query.type !== 'query') {
      return done(encodeReply(id, undefined, { rcode: 'FORMERR', authoritative: false }, undefined, context.transport), 'FORMERR', '');
    }
    const opt = clientOpt(query);
    if (opcodeOf(message) !== 0) return done(encodeReply(id, query, { rcode: 'NOTIMP', authoritative: false }, opt, context.transport), 'NOTIMP', '');
    if (question === undefined || query.questions?.length !== 1) {
      return done(encodeReply(id, query, { rcode: 'FORMERR', authoritative: false }, opt, context.transport), 'FORMERR', '');
    }
    const resolution = resolveQuestion({ name: question.name, type: question.type as RecordType | 'ANY' }, options.zone, { domain: options.domain, ttl: options.ttl });
    if (resolution.kind === 'answer') {
      return done(encodeReply(id, query, { ...resolution, authoritative: true }, opt, context.transport), resolution.rcode, 'kubernetes');
    }
    if (options.forward === undefined) {
      return done(encodeReply(id, query, { rcode: 'REFUSED', authoritative: false }, opt, context.transport), 'REFUSED', '');
    }
    try {
      const reply = await options.forward(message, context.transport);
      return done(reply, reply.length >= 4 ? rcodeName(reply.readUInt16BE(2) & 0xf) : 'SERVFAIL', 'forward');
    } catch {
      return done(encodeReply(id, query, { rcode: 'SERVFAIL', authoritative: false }, opt, context.transport), 'SERVFAIL', 'forward');
    }
  };
}

function rcodeName(code: number): string {
  return (Object.entries(RCODE).find(([, value]) => value === code)?.[0]) ?? `RCODE${code}`;
}
