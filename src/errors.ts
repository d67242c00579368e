/**
 * The error registry: every error a user can see is declared here once, with
 * its stable machine `code` (SPEC.md), HTTP status and title. Codes are an
 * API; titles and details may change. README's error table is checked against
 * this list by test/unit/errors.test.ts.
 */

export const ERRORS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  url_not_allowed: { status: 400, title: 'URL not allowed' },
  missing_api_key: { status: 401, title: 'Missing API key' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  undecodable_audio: { status: 422, title: 'Undecodable audio' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  quota_exceeded: { status: 429, title: 'Monthly quota exceeded' },
  internal_error: { status: 500, title: 'Internal server error' },
  upstream_failed: { status: 502, title: 'Upstream fetch failed' },
  overloaded: { status: 503, title: 'Service overloaded' },
  unavailable: { status: 503, title: 'Service unavailable' },
  upstream_timeout: { status: 504, title: 'Upstream timeout' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** An error meant for the user: becomes an application/problem+json answer. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  /** Seconds, for 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.title = ERRORS[code].title;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The RFC 9457 problem document for this error. */
  toProblem(): { type: string; title: string; status: number; detail: string; code: ErrorCode } {
    return {
      type: `urn:trackscan:problem:${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
  }
}

/**
 * A failure inside the native analyzer. The addon creates instances of this
 * class (src/native/binding.ts hands it over at load time) with codes
 * `ERR_ANALYZER_*`; they are internal errors for HTTP.
 */
export class AnalysisError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'AnalysisError';
    this.code = code;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
