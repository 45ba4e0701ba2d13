// The error catalogue: every code the API can answer, its status and default message, and the envelope.

export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_api_key: { status: 401, message: 'A valid API key is required: send it as "Authorization: Bearer <API_KEY>".' },
  upgrade_required: { status: 403, message: 'Overage needs a paid plan; upgrade the account first.' },
  no_active_subscription: { status: 403, message: 'Overage needs an active subscription.' },
  job_not_found: { status: 404, message: 'No job has this job_id.' },
  company_not_found: { status: 404, message: 'No company has this company_id.' },
  export_not_found: { status: 404, message: 'No export with this export_id belongs to this account.' },
  file_not_found: { status: 404, message: 'This export file does not exist, is not ready, or has expired.' },
  route_not_found: { status: 404, message: 'No route matches this path.' },
  method_not_allowed: { status: 405, message: 'This route does not accept this method.' },
  request_timeout: { status: 408, message: 'The request did not arrive whole within the time limit; send it again in one go.' },
  export_in_progress: { status: 409, message: 'The account already has a queued or running export.' },
  overage_item_conflict: { status: 409, message: 'The subscription already carries a different overage price.' },
  job_withdrawn: { status: 410, message: 'This job was withdrawn and is no longer published.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was used in the last 24 hours for another request; send a new key for a new request.',
  },
  uri_too_long: {
    status: 414,
    message: 'The request line is longer than 16,384 bytes; send long filters in the JSON body of a POST search.',
  },
  range_not_satisfiable: { status: 416, message: 'The Range header lies outside the file; Content-Range gives its size.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the number of seconds in Retry-After.' },
  data_limit_exceeded: {
    status: 429,
    message: 'The response would exceed the records allowance or the overage limit; no data was returned.',
  },
  headers_too_large: { status: 431, message: 'The request headers are larger than 16,384 bytes in all.' },
  internal_error: { status: 500, message: 'The server failed to answer this request; quote the request_id to support.' },
  catalog_unavailable: { status: 503, message: 'No jobs catalog is published yet; retry shortly.' },
  registry_unavailable: { status: 503, message: 'No company registry release is active yet; retry shortly.' },
  export_unavailable: { status: 503, message: 'The export service is unavailable; retry shortly.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable; retry shortly.' },
  trends_unavailable: {
    status: 503,
    message: 'The latest publication carries no history for trends (it was published before them); the next publication will.',
  },
  format_unavailable: { status: 503, message: 'description_format=html is not available: HTML descriptions are not published.' },
  query_timeout: { status: 504, message: 'The search ran longer than the time limit and was stopped; no records were used.' },
  // Retired codes stay here, commented out, so they are never reused with another meaning.
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Whole seconds of a wait of `ms` milliseconds, as Retry-After says them: rounded up, at least 1. */
export const retrySeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** The Retry-After header of a wait of `ms` milliseconds (every 429 and 503 that asks to come back says it so). */
export const retryAfter = (ms: number): { 'Retry-After': string } => ({ 'Retry-After': String(retrySeconds(ms)) });

/** An error the API answers on purpose: a catalogued code, a message, and optional extra envelope fields. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }
}

/** What was thrown, as the API answers it: an ApiError as it is, anything else an internal error. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('internal_error');
}

export function invalidRequest(message: string): ApiError {
  return new ApiError('invalid_request', message);
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; request_id: string } & Record<string, unknown>;
}

/** The one function that writes every error body. */
export function errorBody(error: ApiError, requestId: string): ErrorEnvelope {
  return { error: { code: error.code, message: error.message, request_id: requestId, ...error.extra } };
}
