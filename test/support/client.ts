// An HTTP client for tests: every response it returns has been checked against openapi.yaml.

import { checkResponse } from './contract.js';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  /** A value to send as JSON, or a string/Buffer sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Skip the contract check (only for raw protocol tests that send what no client should). */
  unchecked?: boolean;
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let body: string | Buffer | undefined;
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    const parsed = isJson && text ? (JSON.parse(text) as T) : (text as T);
    if (!options.unchecked) checkResponse(method, path, response.status, response.headers, parsed);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** A binary download (an export file): the body as bytes; an error envelope is checked against openapi.yaml. */
  async download(path: string, options: RequestOptions = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    const response = await fetch(`${this.baseUrl}${path}`, { headers, redirect: 'manual' });
    const body = Buffer.from(await response.arrayBuffer());
    if ((response.headers.get('content-type') ?? '').includes('json')) checkResponse('GET', path, response.status, response.headers, JSON.parse(body.toString('utf8')));
    return { status: response.status, headers: response.headers, body };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = unknown>(path: string, body: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = unknown>(path: string, body: unknown, options: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...options, body });
  }
}
