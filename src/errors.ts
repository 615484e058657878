// The one error type every layer throws. The HTTP error middleware renders it as
// the spec's envelope: {"errors": {"params": {...}, "request": [...], "system": [...]}}.

export type ParamErrors = { [field: string]: string[] | ParamErrors };

export interface ErrorBody {
  params?: ParamErrors;
  request?: string[];
  system?: string[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Extra headers to send with the error (e.g. Retry-After). */
  readonly headers: Record<string, string>;
  /** The rejection's label in gaugeway_http_rejected_requests_total, where the status alone says too little. */
  readonly reason: string | undefined;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}, reason?: string) {
    super(describe(body));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.reason = reason;
  }
}

function describe(body: ErrorBody): string {
  const parts: string[] = [];
  if (body.params) parts.push(`params: ${JSON.stringify(body.params)}`);
  if (body.request) parts.push(...body.request);
  if (body.system) parts.push(...body.system);
  return parts.join('; ') || 'error';
}

/** 400 with messages keyed by field name (`measurements[3].tags`). */
export function paramError(field: string, ...messages: string[]): ApiError {
  return new ApiError(400, { params: { [field]: messages } });
}

export function paramErrors(params: ParamErrors, status = 400): ApiError {
  return new ApiError(status, { params });
}

export function requestError(status: number, message: string): ApiError {
  return new ApiError(status, { request: [message] });
}

export function notFound(what = 'Resource'): ApiError {
  return requestError(404, `${what} not found`);
}

export function alreadyExists(field: string, message = 'has already been taken'): ApiError {
  return new ApiError(422, { params: { [field]: [message] } });
}


/** Stable codes for failures outside HTTP (CLI, startup), so callers can branch on them. */
export type GaugewayErrorCode = 'E_CONFIG_INVALID' | 'E_STORE_LOCKED' | 'E_STORE_CORRUPT' | 'E_USAGE' | 'E_NOT_RUNNING' | 'E_LISTEN' | 'E_DATA_DIR' | 'E_HELP' | 'E_DISK_FULL' | 'E_BACKUP' | 'E_RESTORE_INCOMPLETE' | 'E_PLUGIN';

export class GaugewayError extends Error {
  readonly code: GaugewayErrorCode;
  constructor(code: GaugewayErrorCode, message: string) {
    super(message);
    this.name = 'GaugewayError';
    this.code = code;
  }
}

/**
 * An empty map of field errors without a prototype: a body field may be named
 * `hasOwnProperty` or `toString`, and must find no inherited member under its name.
 */
export function fieldErrors(): Record<string, string[]> {
  return Object.create(null) as Record<string, string[]>;
}
