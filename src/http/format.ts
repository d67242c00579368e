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
