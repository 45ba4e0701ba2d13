// An S3-compatible server from npm (s3rver), started by a test on a free port, with one bucket. The
// service reaches it as it reaches AWS S3: through the usual AWS environment (endpoint and credentials).

import { rm } from 'node:fs/promises';
// @ts-expect-error s3rver ships no types
import S3rverModule from 's3rver';
import { tempDir } from './app.js';
import { S3Store } from '../../src/storage/s3-store.js';

export interface TestS3 {
  /** The AWS environment a process needs to reach it (AWS_ENDPOINT_URL, credentials, region). */
  env: Record<string, string>;
  /** `--object-store` for a fresh prefix of the bucket (each test its own). */
  url(prefix: string): string;
  /** A client of the store under `prefix`, to look at what the service wrote. */
  store(prefix: string): S3Store;
  stop(): Promise<void>;
}

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const S3rver = S3rverModule as new (options: Record<string, unknown>) => S3rverServer;

const BUCKET = 'jps-test';
// Node 20 is supported until the SDK releases of January 2027: the notice is not news in a test run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export async function startS3(): Promise<TestS3> {
  const directory = await tempDir('s3');
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  const env = {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  };
  const stores: S3Store[] = [];
  return {
    env,
    url: (prefix) => `s3://${BUCKET}/${prefix}`,
    store(prefix) {
      const store = new S3Store(BUCKET, `${prefix}/`, { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }, env);
      stores.push(store);
      return store;
    },
    async stop() {
      for (const store of stores) store.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Points this process's AWS SDK at `s3` (the service reads the usual environment) until the returned
 * function is called.
 */
export function useS3Environment(s3: TestS3): () => void {
  const before = Object.fromEntries(Object.keys(s3.env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, s3.env);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
