// A server (a test's or the bench's) on a free loopback port, and its orderly close.
import type { AddressInfo, Server } from 'node:net';

/** Listens on 127.0.0.1 at a port the system picks, and returns that port. */
export async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

/** Stops accepting and waits for open connections to end. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((ok) => server.close(() => ok()));
}
