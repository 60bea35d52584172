// A port for a child that must be told one (a command line as a guide writes it, with only
// the port the test's own): the system picks a free one, which is released for the child.
import { createServer } from 'node:net';

export const freePort = () =>
  new Promise<number>((ok) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
