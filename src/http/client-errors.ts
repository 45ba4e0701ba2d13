// What Node's HTTP parser refuses before Express sees a request (malformed HTTP, a request line or headers
// over 16 KB, a bad chunk size) and requests that do not arrive within the request timeout: answered
// on the raw socket with the error envelope, a request id and Connection: close, then the connection ends.

import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ApiError, errorBody, invalidRequest, type ErrorCode } from '../errors.js';
import { newRequestId } from '../shared/ids.js';
import { LineBudget } from './request-log.js';

/** Node's limit on the request line and headers together (--max-http-header-size). */
export const HEAD_LIMIT_BYTES = 16_384;

/** How long the connection keeps reading (and dropping) what the client still sends, so its reset cannot overtake the answer. */
const LINGER_MS = 1_000;

interface ParserError extends Error {
  code?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

const answered = new WeakSet<Duplex>();

/** True once this module has answered on the socket: the request on it (if any) must not be read further. */
export function wasAnsweredByClientError(socket: Duplex): boolean {
  return answered.has(socket);
}

/** What llhttp could not parse, in words. */
const PARSE_ERRORS: Record<string, string> = {
  HPE_INVALID_METHOD: 'the request line does not start with an HTTP method such as GET or POST',
  HPE_INVALID_URL: 'the request target is not a path such as /v1/jobs?limit=10',
  HPE_INVALID_VERSION: 'the HTTP version in the request line is not HTTP/1.1 or HTTP/1.0',
  HPE_INVALID_HEADER_TOKEN: 'a header name contains a character header names cannot have (a space, a colon, a control character)',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the chunked body is not a hexadecimal number such as 1a',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'the chunk extensions of the chunked body are too large',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a single whole number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length was sent together with Transfer-Encoding: chunked',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked',
  HPE_LF_EXPECTED: 'a line of the request does not end with CRLF',
  HPE_CR_EXPECTED: 'a line of the request does not end with CRLF',
  HPE_STRICT: 'a line of the request does not end with CRLF',
  HPE_INVALID_CONSTANT: 'the request does not follow HTTP/1.1 syntax',
};

/**
 * Which part of the head overflowed: Node reports HPE_HEADER_OVERFLOW at the end of the field that
 * crossed the limit, in the chunk being parsed (`rawPacket`, parsed up to `bytesParsed`). A request line
 * still open there (no CRLF since the message began) overflowed; otherwise the headers did.
 */
export function overflowed(error: ParserError): 'request line' | 'headers' {
  const packet = error.rawPacket;
  if (!packet) return 'headers';
  const seen = packet.subarray(0, error.bytesParsed ?? packet.length).toString('latin1');
  const message = seen.slice(seen.lastIndexOf('\r\n\r\n') + 1);
  if (message.includes('\r\n')) return 'headers';
  const startsMessage = seen.includes('\r\n\r\n') || /^[A-Z]+ /.test(message);
  const endsRequestLine = packet.toString('latin1', error.bytesParsed ?? 0, (error.bytesParsed ?? 0) + 6) === ' HTTP/';
  // A chunk in the middle of one long field: a URL has no space, colon or tab; a header line usually has.
  return startsMessage || endsRequestLine || !/[ :\t]/.test(message) ? 'request line' : 'headers';
}

function toApiError(error: ParserError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowed(error) === 'request line' ? new ApiError('uri_too_long') : new ApiError('headers_too_large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout');
    default: {
      const what =
        PARSE_ERRORS[error.code ?? ''] ??
        'the request could not be parsed (check the request line, the headers and the framing of the body)';
      return invalidRequest(`The request is not valid HTTP/1.1: ${what}.`);
    }
  }
}

function response(code: ErrorCode, body: string, requestId: string, status: number): string {
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? code}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

function answer(error: ParserError, socket: Duplex, logger: Logger, budget: LineBudget): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  // A request already being answered (or a client already gone) gets nothing more: end the connection.
  // Express's response object is Node's, with its locals (where request-id.ts keeps the id).
  const inFlight = (socket as Duplex & { _httpMessage?: (ServerResponse & { locals?: { requestId?: string } }) | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const apiError = toApiError(error);
  // The request Express already has under way keeps its id, so the answer, its log line and its ledger row agree.
  const requestId = inFlight?.locals?.requestId ?? newRequestId();
  const body = JSON.stringify(errorBody(apiError, requestId));
  if (budget.allow())
    logger.info({ request_id: requestId, status: apiError.status, parser_code: error.code }, 'request refused before routing');
  socket.end(response(apiError.code, body, requestId, apiError.status));
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
  socket.once('end', () => socket.destroy());
}

/** Installs the handler on the server: Node's own writes a bare status line without a body or request id. */
export function answerClientErrors(server: Server, logger: Logger): void {
  const budget = new LineBudget(logger, 'requests refused before routing');
  server.on('clientError', (error: ParserError, socket: Duplex) => answer(error, socket, logger, budget));
}
