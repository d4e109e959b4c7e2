// Request shapes the daemon refuses before routing: oversized header blocks and any request body.
// Every operation is a GET whose input is in the path, so a body is a client mistake or a smuggling
// attempt. Bodies over the server's max_body_length (1 KiB) never reach the handler: hyper-express
// closes those connections at once; smaller ones, and chunked bodies, get this 400 and the connection
// is closed after the answer, so unread body bytes can never be parsed as a next request.
import { LookupError } from './errors.js';

/** Sum of header names and values, as sent (uWS also drops requests with more than ~50 headers). */
export const MAX_HEADER_BYTES = 16_384;

export function requestShapeError(headers: Readonly<Record<string, string>>): LookupError | null {
  let bytes = 0;
  for (const k in headers) bytes += k.length + headers[k]!.length + 4;
  if (bytes > MAX_HEADER_BYTES) {
    return new LookupError('invalid_parameter', `Request headers too large: at most ${MAX_HEADER_BYTES} bytes of headers are accepted`);
  }
  const length = headers['content-length'];
  if ((length !== undefined && !/^0+$/.test(length.trim())) || headers['transfer-encoding'] !== undefined) {
    return new LookupError('invalid_parameter', 'Request bodies are not accepted: every operation is a GET with its input in the path and query');
  }
  return null;
}
