/** Test helpers: send one DNS query to a server on loopback over UDP or TCP and decode the reply. */
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import dnsPacket, { type DecodedPacket, type Packet, type RecordType } from 'dns-packet';

let nextId = 1;

export function queryMessage(name: string, type: RecordType | 'ANY', extra: Partial<Packet> = {}): Buffer {
  nextId = (nextId % 65535) + 1;
  return dnsPacket.encode({ id: nextId, type: 'query', flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: type as RecordType, class: 'IN' }], ...extra });
}

export function rawUdp(port: number, message: Buffer, host = '127.0.0.1', timeoutMs = 5000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no UDP reply from ${host}:${port}`));
    }, timeoutMs);
    socket.on('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(message, port, host);
  });
}

export function rawTcp(port: number, messages: readonly Buffer[], host = '127.0.0.1'): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let buffered: Buffer = Buffer.alloc(0);
    const replies: Buffer[] = [];
    socket.on('error', reject);
    socket.on('connect', () => {
      // All in one write, split across two chunks, to exercise the framing.
      const framed = Buffer.concat(messages.map((m) => Buffer.concat([Buffer.from([m.length >> 8, m.length & 0xff]), m])));
      socket.write(framed.subarray(0, 1));
      socket.write(framed.subarray(1));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        replies.push(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
        buffered = buffered.subarray(2 + buffered.readUInt16BE(0));
      }
      if (replies.length === messages.length) {
        socket.destroy();
        resolve(replies);
      }
    });
  });
}

export async function queryUdp(port: number, name: string, type: RecordType | 'ANY', host = '127.0.0.1'): Promise<DecodedPacket & { rcode?: string }> {
  return dnsPacket.decode(await rawUdp(port, queryMessage(name, type), host));
}

export async function queryTcp(port: number, name: string, type: RecordType | 'ANY', host = '127.0.0.1'): Promise<DecodedPacket & { rcode?: string }> {
  const [reply] = await rawTcp(port, [queryMessage(name, type)], host);
  return dnsPacket.decode(reply!);
}
