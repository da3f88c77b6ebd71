/**
 * The half of netns-link.ts that runs inside the network namespace (started
 * with `nsenter --net=…`, an IPC channel to its parent). It makes the
 * listeners of the outbound forwards here, in the namespace, and hands them
 * to the parent, which accepts on them and connects in the machine's own
 * namespace; for inbound forwards it receives listeners the parent made and
 * connects, from here, to the address inside the namespace.
 */
import { connect, createServer, type Server } from 'node:net';
import { splice, type LinkReply, type LinkRequest } from './netns-link.js';

const reply = (message: LinkReply, handle?: Server): void => {
  if (handle === undefined) process.send!(message);
  // The parent now owns a copy of the listening socket: close ours, or both would accept.
  else process.send!(message, handle, () => handle.close());
};

if (process.send !== undefined) {
  process.on('message', (request: LinkRequest, handle: unknown) => {
    if (request.kind === 'listen') {
      const server = createServer();
      server.once('error', (e) => reply({ kind: 'failed', id: request.id, message: e.message }));
      server.listen(request.port, request.host, () => reply({ kind: 'listening', id: request.id }, server));
    } else {
      const server = handle as Server;
      server.on('connection', (socket) => splice(socket, connect(request.port, request.host)));
      reply({ kind: 'accepting', id: request.id });
    }
  });
  // The parent's end of the channel closing (it stopped or died) ends this process.
  process.on('disconnect', () => process.exit(0));
}
