// The object store of a deployment with several nodes: an S3-compatible bucket (ObjectStore in
// object-store.ts). Its own module, loaded only when --object-store names a bucket: the AWS SDK takes a
// third of a second of CPU to load, which a node without a bucket never needs.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ByteRange, ObjectStore, StoredObject } from './object-store.js';

/** Objects bigger than this go up in parts, several at once. */
const PART_BYTES = 16 * 2 ** 20;
/** Keys deleted per request (the S3 API takes at most 1,000). */
const DELETE_BATCH = 1000;

/**
 * An S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, ...). Endpoint, region and credentials come from
 * the usual AWS environment (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, ...); with an endpoint
 * other than AWS's, keys are addressed by path (https://host/bucket/key), which every compatible server
 * takes. The SDK retries what fails for a passing reason.
 */
export class S3Store implements ObjectStore {
  readonly folder = null;
  readonly location: string;
  private readonly client: S3Client;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    config: S3ClientConfig = {},
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.location = `s3://${bucket}/${prefix}`;
    const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    this.client = new S3Client({
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      maxAttempts: 5,
      ...config,
    });
  }

  private key(key: string): string {
    return `${this.prefix}${key}`;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      return missing(error);
    }
  }

  async put(key: string, body: string | Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: body }));
  }

  async putFile(key: string, path: string): Promise<void> {
    const { size } = await stat(path);
    if (size < PART_BYTES) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: await readFile(path) }));
      return;
    }
    // A multipart upload that fails is aborted by the library; one whose process dies is left to the
    // bucket's lifecycle rule (docs/deployment.md) and to cleanup by the next publish.
    await new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.key(key), Body: createReadStream(path) },
      partSize: PART_BYTES,
      queueSize: 4,
    }).done();
  }

  async getFile(key: string, path: string): Promise<boolean> {
    const body = await this.read(key);
    if (!body) return false;
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.tmp-${process.pid}-x${randomBytes(4).toString('hex')}`;
    try {
      await pipeline(body, createWriteStream(temporary));
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return true;
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      return head.ContentLength ?? 0;
    } catch (error) {
      return missing(error);
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return answer.Body as Readable;
    } catch (error) {
      return missing(error);
    }
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const found: StoredObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.key(prefix), ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) found.push({ key: object.Key!.slice(this.prefix.length), size: object.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += DELETE_BATCH) {
      const batch = keys.slice(at, at + DELETE_BATCH);
      await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((k) => ({ Key: this.key(k) })), Quiet: true } }),
      );
    }
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.client.destroy();
  }
}

function missing(error: unknown): null {
  const name = (error as { name?: string }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return null;
  throw error;
}
