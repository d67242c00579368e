/**
 * The OpenAPI 3.1 document of the API, served at /api/v1/openapi.json.
 * test/http/openapi.test.ts validates real answers against these schemas,
 * so a change in the code that is not made here fails a test.
 */
import { ERRORS } from '../errors.js';
import { formatParameterDoc, spotifySchemaDoc } from './format.js';

const nullableNumber = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['number', 'null'], description, ...extra });
const confidence = (of: string) => nullableNumber(`Confidence of ${of}, 0..1; null when ${of} is null`, { minimum: 0, maximum: 1 });

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

const problem = (description: string, codes: string[], headers: Record<string, unknown> = {}) => ({
  description: `${description} Codes: ${codes.join(', ')}.`,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...headers },
  content: {
    'application/problem+json': {
      schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { enum: codes } } }] },
    },
  },
});

const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

const authErrors = {
  '401': problem('The X-API-Key header is missing, or the key is unknown or revoked.', ['missing_api_key', 'invalid_api_key']),
  '429': problem('The per-minute rate limit or the monthly analysis quota of the key is used up.', ['rate_limited', 'quota_exceeded'], { ...rateLimitHeaders, ...retryAfter }),
};

const analysisErrors = (extra400: string[]) => ({
  '400': problem('The request is malformed (bad JSON or multipart, wrong field types, missing url or file part, fields after the file part, an upload that stalls), or the URL (or a redirect) is refused.', ['invalid_request', ...extra400], rateLimitHeaders),
  ...authErrors,
  '413': problem('The upload or download exceeds the byte limit, or the audio exceeds the duration limit.', ['payload_too_large'], rateLimitHeaders),
  '415': problem('The bytes are not one of the accepted formats (detected from the content, not the name).', ['unsupported_media_type'], rateLimitHeaders),
  '422': problem('The file claims an accepted format but cannot be decoded, or holds no audio stream.', ['undecodable_audio'], rateLimitHeaders),
  '500': problem('An unexpected error; the detail quotes the request id.', ['internal_error'], rateLimitHeaders),
  '503': problem('The analysis queue is full (retry later), or the store is unreachable, or the server is shutting down.', ['overloaded', 'unavailable'], { ...rateLimitHeaders, ...retryAfter }),
});

const okAnalysis = {
  description: 'The analysis object (or, with format=spotify, SpotifyAudioFeatures). `cached` tells whether it came from the result cache.',
  headers: rateLimitHeaders,
  content: {
    'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Analysis' }, { $ref: '#/components/schemas/SpotifyAudioFeatures' }] } },
  },
};

/** The document; `version` is the package version. */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'trackscan',
      version,
      description:
        'Tempo (BPM), key, tuning (A4 Hz) and EBU R128 loudness of music, each with a confidence. ' +
        'Every failure is an RFC 9457 problem document (application/problem+json) with a stable `code`. ' +
        'Authenticated answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds to the end of the current UTC minute).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/api/v1' }],
    security: [{ apiKey: [] }],
    paths: {
      '/analyze/url': {
        post: {
          operationId: 'analyzeUrl',
          summary: 'Analyse the audio behind a URL (a media link or a page that hosts audio)',
          description:
            'Web pages are resolved through og:audio, og:video, <audio>, <video>, <source> and JSON-LD contentUrl. ' +
            'Redirects are followed up to a limit; every hop must reach a public address unless the server allows private ones. ' +
            'A cached result is answered without downloading and does not count against the monthly quota. ' +
            'When the server enables yt-dlp (TRACKSCAN_YTDLP), URLs of extractor sites (YouTube, SoundCloud, ... as configured) are fetched with it, under the same byte cap and timeout.',
          parameters: [formatParameterDoc],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/UrlRequest' } } },
          },
          responses: {
            '200': okAnalysis,
            ...analysisErrors(['url_not_allowed']),
            '502': problem('The URL could not be fetched, or the page holds no playable media.', ['upstream_failed'], rateLimitHeaders),
            '504': problem('The URL did not answer, or the download did not finish, in time.', ['upstream_timeout'], rateLimitHeaders),
          },
        },
      },
      '/analyze/file': {
        post: {
          operationId: 'analyzeFile',
          summary: 'Analyse an uploaded audio file',
          description:
            'multipart/form-data with exactly one file part named `file`. The optional text fields come before the file part ' +
            '(the analysis starts while the file arrives). The file is streamed, never stored; an upload over the byte limit ' +
            'is refused as soon as the limit is crossed.',
          parameters: [formatParameterDoc],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { $ref: '#/components/schemas/FileRequest' },
                encoding: { file: { contentType: 'application/octet-stream, audio/*, video/*' } },
              },
            },
          },
          responses: { '200': okAnalysis, ...analysisErrors([]) },
        },
      },
      '/usage': {
        get: {
          operationId: 'usage',
          summary: "The calling key's requests this UTC minute and analyses this UTC month",
          responses: {
            '200': { description: 'The usage object; this request is counted in it.', headers: rateLimitHeaders, content: { 'application/json': { schema: { $ref: '#/components/schemas/Usage' } } } },
            ...authErrors,
            '503': problem('The store is unreachable.', ['unavailable'], retryAfter),
          },
        },
      },
      '/health': {
        get: {
          operationId: 'health',
          summary: 'Readiness: decoder, store and analysis pool',
          security: [{}, { apiKey: [] }],
          description: 'No key needed; a key is accepted and ignored. "degraded" means fresh analyses would fail or wait (no decoder, full queue).',
          responses: {
            '200': { description: 'Ready: ok or degraded.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
            '503': {
              description: 'Not ready (store unreachable, or shutting down): a problem document whose `health` member is the health object.',
              headers: retryAfter,
              content: {
                'application/problem+json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Problem' },
                      { type: 'object', required: ['health'], properties: { code: { const: 'unavailable' }, health: { $ref: '#/components/schemas/Health' } } },
                    ],
                  },
                },
              },
            },
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key made with `trackscan keys create`; it starts with a recognisable prefix.' },
      },
      headers: {
        'RateLimit-Limit': { description: 'Requests allowed per UTC minute for this key.', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Remaining': { description: 'Requests left in the current UTC minute.', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Reset': { description: 'Seconds until the current UTC minute ends (1..60).', schema: { type: 'integer', minimum: 1, maximum: 60 } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
        'X-Request-Id': { description: 'The id of this request in the server log (the client may send its own).', schema: { type: 'string' } },
      },
      schemas: {
        UrlRequest: {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', minLength: 1, maxLength: 4096, description: 'http(s) URL of the media or of a page hosting it; no user name or password.' },
            detect_bpm: { type: 'boolean', default: true },
            detect_key: { type: 'boolean', default: true },
            detect_hz: { type: 'boolean', default: true },
            details: { type: 'boolean', default: false, description: 'Include the `details` object.' },
          },
        },
        FileRequest: {
          type: 'object',
          required: ['file'],
          additionalProperties: false,
          properties: {
            detect_bpm: { type: 'string', enum: ['true', 'false'], default: 'true' },
            detect_key: { type: 'string', enum: ['true', 'false'], default: 'true' },
            detect_hz: { type: 'string', enum: ['true', 'false'], default: 'true' },
            details: { type: 'string', enum: ['true', 'false'], default: 'false' },
            file: {
              type: 'string',
              contentMediaType: 'application/octet-stream',
              description: 'MP3, M4A, WAV, FLAC, OGG (Vorbis, Opus), AAC (ADTS), WebM or Opus; the format is detected from the bytes.',
            },
          },
        },
        LoudnessDetail: {
          type: 'object',
          required: ['integrated_lufs', 'loudness_range', 'true_peak_dbtp', 'sample_peak_dbfs'],
          additionalProperties: false,
          properties: {
            integrated_lufs: nullableNumber('Integrated loudness (LUFS); null on digital silence'),
            loudness_range: nullableNumber('Loudness range (LU)'),
            true_peak_dbtp: nullableNumber('True peak (dBTP)'),
            sample_peak_dbfs: nullableNumber('Sample peak (dBFS)'),
          },
        },
        Details: {
          type: 'object',
          description: 'Only with details=true.',
          required: ['duration_s', 'sample_rate', 'channels', 'codec', 'beats', 'tempo_candidates', 'key_candidates', 'key_camelot', 'loudness_curve'],
          properties: {
            duration_s: { type: 'number', minimum: 0 },
            sample_rate: { type: 'integer', minimum: 1 },
            channels: { type: 'integer', minimum: 1 },
            codec: { type: ['string', 'null'] },
            format: { type: 'string' },
            beats: { type: 'array', items: { type: 'number' }, description: 'Beat times in seconds' },
            tempo_candidates: { type: 'array', items: { type: 'object', required: ['bpm', 'score'], properties: { bpm: { type: 'number' }, score: { type: 'number' } } } },
            key_candidates: { type: 'array', maxItems: 3, items: { type: 'object', required: ['key', 'score'], properties: { key: { type: 'string' }, score: { type: 'number' } } } },
            key_camelot: { type: ['string', 'null'] },
            key_open_key: { type: ['string', 'null'] },
            tuning_cents: { type: ['number', 'null'] },
            loudness_curve: { type: 'array', items: { type: ['number', 'null'] }, description: 'Short-term loudness (LUFS), one value a second' },
            warnings: { type: 'array', items: { type: 'string' } },
          },
        },
        Analysis: {
          type: 'object',
          required: ['bpm', 'bpm_confidence', 'key', 'key_confidence', 'hz', 'hz_confidence', 'lufs', 'loudness_detail', 'analysis_time', 'cached', 'analyzer_version'],
          additionalProperties: false,
          properties: {
            bpm: nullableNumber('Tempo (BPM); null if not asked (detect_bpm=false) or no steady pulse', { exclusiveMinimum: 0 }),
            bpm_confidence: confidence('bpm'),
            key: {
              type: ['string', 'null'],
              pattern: '^(C|C#|D|Eb|E|F|F#|G|Ab|A|Bb|B) (major|minor)$',
              description: '"<Tonic> <major|minor>"; null if not asked or no clear key',
            },
            key_confidence: confidence('key'),
            hz: nullableNumber('Tuning reference: the frequency of A4 (Hz)', { exclusiveMinimum: 0 }),
            hz_confidence: confidence('hz'),
            lufs: nullableNumber('Integrated loudness, EBU R128 / ITU-R BS.1770-4 (LUFS); null on digital silence'),
            loudness_detail: { $ref: '#/components/schemas/LoudnessDetail' },
            analysis_time: { type: 'number', minimum: 0, description: 'Seconds the server spent on this request (for a cache hit: the lookup).' },
            cached: { type: 'boolean', description: 'true when served from the result cache (or shared from an identical URL analysis that was already running); such answers do not count against the monthly quota' },
            analyzer_version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
            details: { $ref: '#/components/schemas/Details' },
          },
        },
        SpotifyAudioFeatures: spotifySchemaDoc,
        Usage: {
          type: 'object',
          required: ['api_key_name', 'requests_this_minute', 'rate_limit', 'analyses_this_month', 'monthly_limit'],
          additionalProperties: false,
          properties: {
            api_key_name: { type: 'string' },
            requests_this_minute: { type: 'integer', minimum: 0, description: 'Requests of this key in the current UTC minute, this one included' },
            rate_limit: { type: 'integer', minimum: 0, description: 'Requests allowed per UTC minute' },
            analyses_this_month: { type: 'integer', minimum: 0, description: 'Fresh analyses in the current UTC month (cache hits and failures not counted)' },
            monthly_limit: { type: 'integer', minimum: 0 },
          },
        },
        Health: {
          type: 'object',
          required: ['status', 'version', 'analyzer_version', 'checks'],
          properties: {
            status: { enum: ['ok', 'degraded', 'unavailable'] },
            version: { type: 'string' },
            analyzer_version: { type: 'string' },
            uptime_s: { type: 'integer', minimum: 0 },
            checks: {
              type: 'object',
              required: ['decoder', 'store', 'analysis_pool'],
              properties: {
                decoder: { type: 'object', required: ['status'], properties: { status: { enum: ['ok', 'fail'] }, detail: { type: 'string' } } },
                store: { type: 'object', required: ['status', 'backend'], properties: { status: { enum: ['ok', 'fail'] }, backend: { enum: ['sqlite', 'redis'] } } },
                analysis_pool: {
                  type: 'object',
                  required: ['status', 'active', 'queued', 'concurrency', 'queue_length'],
                  properties: {
                    status: { enum: ['ok', 'full'] },
                    active: { type: 'integer', minimum: 0 },
                    queued: { type: 'integer', minimum: 0 },
                    concurrency: { type: 'integer', minimum: 1 },
                    queue_length: { type: 'integer', minimum: 0 },
                  },
                },
              },
            },
          },
        },
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details with a stable machine code.',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string', description: 'urn:trackscan:problem:<code>' },
            title: { type: 'string' },
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: { type: 'string' },
            code: { enum: Object.keys(ERRORS) },
          },
        },
      },
    },
  };
}
