import { STATUS_CODES } from 'node:http';

/** One problem with one field of a request, listed in the `errors` of a 400 body. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/**
 * An error that becomes an HTTP response with the service's one error shape. Handlers and
 * processors throw it to answer with a status of their choosing: `throw new HttpError(403, '…')`.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: readonly FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, errors?: readonly FieldError[]) => new HttpError(400, message, errors);

/** The message of fields a body may not write: each with why (`username cannot be ".": …`), not only its name. */
export function fieldsRefused(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field} ${e.message}`).join('; ');
}
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string, errors?: readonly FieldError[]) => new HttpError(409, message, errors);

/** Explanations of the status codes, as the body's `explanation` (Pyramid's wording, as in Ramses). */
const EXPLANATIONS: Readonly<Record<number, string>> = {
  200: '',
  201: '',
  400: 'The server could not comply with the request since it is either malformed or otherwise incorrect.',
  401: 'This server could not verify that you are authorized to access the document you requested.',
  402: 'Payment is required to complete the request.',
  403: 'Access was denied to this resource.',
  404: 'The resource could not be found.',
  405: 'The method is not allowed for this resource.',
  406: 'The resource is not available in a form the request accepts.',
  408: 'The server timed out waiting for the request.',
  409: 'There was a conflict when trying to complete your request.',
  410: 'The resource is gone, and will not be back.',
  411: 'The request must say its Content-Length.',
  412: 'A precondition of the request (If-Match or If-None-Match) is not met.',
  413: 'The request body is larger than the server accepts.',
  414: 'The request URI is longer than the server accepts.',
  415: 'The request media type is not supported; send application/json.',
  422: 'The request is well formed, but its content cannot be processed.',
  423: 'The resource is locked.',
  424: 'The request failed because a request it depends on failed.',
  428: 'The request must be conditional (If-Match).',
  429: 'Too many requests.',
  431: 'The request headers are larger than the server accepts.',
  451: 'The resource is unavailable for legal reasons.',
  500: 'The server has either erred or is incapable of performing the requested operation.',
  501: 'The server does not support the functionality required to fulfil the request.',
  502: 'The server received an invalid response from a server it relies on.',
  503: 'The server is currently unavailable.',
  504: 'The server did not receive a timely response from a server it relies on.',
};

/** The body of every error and status response. */
export interface StatusBody {
  status_code: number;
  title: string;
  explanation: string;
  message: string | null;
  timestamp: string;
  request_url: string;
  errors?: readonly FieldError[];
  request_id?: string;
  count?: number;
}

export function statusBody(
  statusCode: number,
  message: string | null,
  requestUrl: string,
  extra: Partial<StatusBody> = {},
): StatusBody {
  return {
    status_code: statusCode,
    title: STATUS_CODES[statusCode] ?? 'Error',
    explanation: EXPLANATIONS[statusCode] ?? '',
    message,
    timestamp: formatTimestamp(new Date()),
    request_url: requestUrl,
    ...extra,
  };
}

/** `YYYY-MM-DDTHH:MM:SSZ`, the service's one way of writing a moment. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
