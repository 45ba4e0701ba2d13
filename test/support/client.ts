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
  /** Return a full request window's 429 as it is, rather than waiting it out (metering tests). */
  noWait?: boolean;
}

export class ApiClient {
  /**
   * `waitWindow`, when given, is called with Retry-After when the request window is full (429
   * rate_limited, at most 60 s); the request is then sent again. The test app moves its clock by that
   * much, as a well-behaved client would wait, so suites of many requests need no sleeping.
   */
  constructor(
    readonly baseUrl: string,
    private readonly waitWindow?: (seconds: number) => void,
  ) {}

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
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status === 429 && this.waitWindow && !options.noWait && text.includes('"rate_limited"') && retryAfter <= 60) {
      this.waitWindow(retryAfter);
      return this.request<T>(method, path, options);
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** A binary download (an export file): the body as bytes; an error envelope is checked against openapi.yaml. */
  async download(path: string, options: RequestOptions = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    const response = await fetch(`${this.baseUrl}${path}`, { headers, redirect: 'manual' });
    const body = Buffer.from(await response.arrayBuffer());
    if ((response.headers.get('content-type') ?? '').includes('json'))
      checkResponse('GET', path, response.status, response.headers, JSON.parse(body.toString('utf8')));
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status === 429 && this.waitWindow && !options.noWait && body.includes('"rate_limited"') && retryAfter <= 60) {
      this.waitWindow(retryAfter);
      return this.download(path, options);
    }
    return { status: response.status, headers: response.headers, body };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  /** The GET of `path` without its body: status and headers (checked against the GET operation). */
  head(path: string, options?: RequestOptions) {
    return this.request<string>('HEAD', path, options);
  }
  post<T = unknown>(path: string, body: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = unknown>(path: string, body: unknown, options: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...options, body });
  }
}
