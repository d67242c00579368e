/**
 * The `format` query parameter of the analyze endpoints: `native` (the
 * default, SPEC.md's analysis object) or `spotify` (src/analysis/spotify.ts).
 * Mounted in front of the analyze routes: it checks the value (400 for
 * anything else), tells the routes through `res.locals.responseFormat` (a
 * Spotify answer needs the duration, so the route computes the details), and
 * projects the successful JSON answer on its way out. Errors stay
 * problem+json whatever the format.
 */
import type { RequestHandler, Response } from 'express';

import { RESPONSE_FORMATS, toSpotify, type ResponseFormat } from '../analysis/spotify.js';
import type { AnalysisObject } from '../analysis/types.js';
import { AppError } from '../errors.js';

/** The format this request asked for (set by `responseFormat`). */
export function responseFormatOf(res: Response): ResponseFormat {
  return (res.locals.responseFormat as ResponseFormat | undefined) ?? 'native';
}

function isAnalysis(body: unknown): body is AnalysisObject {
  return typeof body === 'object' && body !== null && 'analyzer_version' in body && 'loudness_detail' in body;
}

export function responseFormat(): RequestHandler {
  return (req, res, next) => {
    const raw = req.query.format;
    if (raw === undefined) return next();
    if (typeof raw !== 'string' || !(RESPONSE_FORMATS as readonly string[]).includes(raw)) {
      throw new AppError('invalid_request', `The query parameter format must be one of ${RESPONSE_FORMATS.join(', ')}`);
    }
    const format = raw as ResponseFormat;
    res.locals.responseFormat = format;
    if (format === 'spotify') {
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(res.statusCode < 300 && isAnalysis(body) ? toSpotify(body) : body);
    }
    next();
  };
}

/** OpenAPI: the `format` query parameter of both analyze operations. */
export const formatParameterDoc = {
  name: 'format',
  in: 'query',
  required: false,
  description:
    'Shape of a successful answer: `native` (the analysis object) or `spotify` (the field names and conventions of ' +
    "Spotify's former audio-features object, see the SpotifyAudioFeatures schema). Errors are problem documents either way.",
  schema: { type: 'string', enum: [...RESPONSE_FORMATS], default: 'native' },
} as const;

const nullable = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['number', 'null'], description, ...extra });
const unit = (of: string) => nullable(`Confidence of ${of}, 0..1; null when there is no ${of}`, { minimum: 0, maximum: 1 });

/** OpenAPI: the answer of format=spotify (src/analysis/spotify.ts; field table in src/analysis/spotify.md). */
export const spotifySchemaDoc = {
  type: 'object',
  description:
    "format=spotify: Spotify's former audio-features field names and value conventions where trackscan measures an equivalent; " +
    'what has no Spotify field is under `trackscan`. Spotify fields with no trackscan equivalent (danceability, energy, valence, ...) are absent.',
  required: ['type', 'tempo', 'tempo_confidence', 'key', 'key_confidence', 'mode', 'mode_confidence', 'loudness', 'duration_ms', 'time_signature', 'trackscan'],
  additionalProperties: false,
  properties: {
    type: { const: 'audio_features' },
    tempo: nullable('Tempo in BPM (native `bpm`); null when not asked or no steady pulse', { exclusiveMinimum: 0 }),
    tempo_confidence: unit('tempo'),
    key: { type: 'integer', minimum: -1, maximum: 11, description: 'Pitch class of the tonic (0 = C, 1 = C#/Db, ... 11 = B); -1 when no key' },
    key_confidence: unit('key'),
    mode: { type: 'integer', enum: [-1, 0, 1], description: '1 major, 0 minor; -1 when no key (never read as minor)' },
    mode_confidence: unit('mode (the key confidence: tonic and mode both right, a lower bound for the mode alone)'),
    loudness: nullable('Integrated loudness, EBU R128 (LUFS), the closest equivalent of Spotify\'s dB figure; null on digital silence'),
    duration_ms: { type: ['integer', 'null'], minimum: 0, description: 'Duration in whole milliseconds' },
    time_signature: { type: 'null', description: 'Not estimated by trackscan: always null' },
    trackscan: {
      type: 'object',
      additionalProperties: false,
      required: ['key_name', 'key_camelot', 'key_open_key', 'hz', 'hz_confidence', 'tuning_cents', 'loudness_detail', 'analysis_time', 'cached', 'analyzer_version'],
      properties: {
        key_name: { type: ['string', 'null'], description: 'Native `key`, e.g. "A minor"' },
        key_camelot: { type: ['string', 'null'] },
        key_open_key: { type: ['string', 'null'] },
        hz: nullable('Tuning reference, A4 in Hz (native `hz`)'),
        hz_confidence: unit('hz'),
        tuning_cents: nullable('Cents from A4 = 440 Hz'),
        loudness_detail: { $ref: '#/components/schemas/LoudnessDetail' },
        analysis_time: { type: 'number', minimum: 0 },
        cached: { type: 'boolean' },
        analyzer_version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
      },
    },
  },
} as const;
