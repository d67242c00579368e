/**
 * POST /analyze/url and POST /analyze/file: validate, look in the cache,
 * reserve a monthly analysis, run the analysis in the pool, store the
 * result. The order matters: a cache hit never reserves quota nor waits for
 * a pool slot, and a reservation is given back whenever no fresh analysis
 * succeeds (failure, refusal, or an upload that turned out to be cached).
 */
import { Router, type Request, type Response } from 'express';

import type { AnalysisObject, AnalysisSwitches } from '../../analysis/types.js';
import { AppError } from '../../errors.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { receiveUpload } from '../../sources/upload.js';
import type { AppContext } from '../app.js';
import { apiKeyOf, guardStore, secondsToNextMonth } from '../auth.js';
import { uploadCacheKey, urlCacheKey } from '../cache-key.js';
import { responseFormatOf } from '../format.js';

const DEFAULTS: AnalysisSwitches = { detectBpm: true, detectKey: true, detectHz: true, details: false };
const JSON_FIELDS: Record<string, keyof AnalysisSwitches> = {
  detect_bpm: 'detectBpm',
  detect_key: 'detectKey',
  detect_hz: 'detectHz',
  details: 'details',
};
const MAX_URL_LENGTH = 4096;

/** Validates the JSON body of /analyze/url. */
export function parseUrlRequest(body: unknown): { url: string; switches: AnalysisSwitches } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('invalid_request', 'The body must be a JSON object such as {"url": "https://..."}');
  }
  const record = body as Record<string, unknown>;
  const switches = { ...DEFAULTS };
  for (const [name, value] of Object.entries(record)) {
    if (name === 'url') continue;
    const key = JSON_FIELDS[name];
    if (!key) throw new AppError('invalid_request', `Unknown field "${name.slice(0, 40)}"; the fields are url, ${Object.keys(JSON_FIELDS).join(', ')}`);
    if (typeof value !== 'boolean') throw new AppError('invalid_request', `The field ${name} must be a boolean (true or false), got ${value === null ? 'null' : typeof value}`);
    switches[key] = value;
  }
  const url = record.url;
  if (url === undefined) throw new AppError('invalid_request', 'The field url is required');
  if (typeof url !== 'string') throw new AppError('invalid_request', `The field url must be a string, got ${url === null ? 'null' : typeof url}`);
  if (url.length === 0 || url.length > MAX_URL_LENGTH) throw new AppError('invalid_request', `The field url must hold 1 to ${MAX_URL_LENGTH} characters`);
  return { url, switches };
}

function secondsSince(started: number): number {
  return Number(((performance.now() - started) / 1000).toFixed(3));
}

async function cacheGet(ctx: AppContext, key: string, res: Response): Promise<AnalysisObject | undefined> {
  try {
    return (await ctx.store.cache.get<AnalysisObject>(key)) ?? undefined;
  } catch (err) {
    // A cache that fails is a miss, not an outage: the analysis can still run.
    res.locals.log?.warn({ err }, 'cache read failed');
    return undefined;
  }
}

async function cacheSet(ctx: AppContext, key: string, value: AnalysisObject, res: Response): Promise<void> {
  try {
    await ctx.store.cache.set(key, { ...value, cached: false }, ctx.config.cacheTtlSeconds * 1000);
  } catch (err) {
    res.locals.log?.warn({ err }, 'cache write failed');
  }
}

/** Reserves one monthly analysis; 429 quota_exceeded when none is left. */
async function reserve(ctx: AppContext, key: ApiKeyRecord): Promise<Date> {
  const at = ctx.now();
  const ok = await guardStore(() => ctx.store.reserveAnalysis(key.id, key.monthlyLimit, at));
  if (!ok) {
    throw new AppError('quota_exceeded', `This key allows ${key.monthlyLimit} analyses per month; the quota renews at the start of the next UTC month`, {
      retryAfterSeconds: secondsToNextMonth(at),
    });
  }
  return at;
}

async function release(ctx: AppContext, key: ApiKeyRecord, at: Date, res: Response): Promise<void> {
  try {
    await ctx.store.releaseAnalysis(key.id, at);
  } catch (err) {
    res.locals.log?.error({ err }, 'could not give back a monthly analysis reservation');
  }
}

/** The request's own abort signal: aborts when the client goes away before the answer is complete. */
function clientSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new AppError('invalid_request', 'The client closed the connection'));
  });
  return controller.signal;
}

function hit(entry: AnalysisObject, started: number): AnalysisObject {
  return { ...entry, cached: true, analysis_time: secondsSince(started) };
}

async function analyzeUrl(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const started = performance.now();
  if (!req.is('application/json')) throw new AppError('invalid_request', 'Send a JSON body with Content-Type: application/json');
  const { url: raw, switches } = parseUrlRequest(req.body);
  // A Spotify answer carries duration_ms, which comes with the details.
  if (responseFormatOf(res) === 'spotify') switches.details = true;
  const url = ctx.downloader.checkUserUrl(raw);
  // Logged with the request line; origin and path only (queries may hold tokens).
  res.locals.target = `${url.origin}${url.pathname}`;
  const version = ctx.analyzerVersion();
  const cacheKey = urlCacheKey(url, switches, version);
  const cached = await cacheGet(ctx, cacheKey, res);
  if (cached) {
    res.json(hit(cached, started));
    return;
  }
  // The same URL with the same switches already being analysed: share its result
  // (as a cache hit) instead of downloading it again. If it fails, try on our own.
  const pending = ctx.inflight.get(cacheKey);
  if (pending) {
    const shared = await pending.catch(() => undefined);
    if (shared) {
      res.json(hit(shared, started));
      return;
    }
  }
  const key = apiKeyOf(res);
  const reservedAt = await reserve(ctx, key);
  const signal = clientSignal(res);
  const job = ctx.pool.run(
    (jobSignal) =>
      ctx.downloader.fetchMedia(url, jobSignal, (media) =>
        ctx.analyze(media.body, { ...switches, signal: AbortSignal.any([jobSignal, media.signal]), maxDurationSeconds: ctx.config.maxDurationSeconds }),
      ),
    signal,
  );
  const leading = !ctx.inflight.has(cacheKey);
  if (leading) {
    ctx.inflight.set(cacheKey, job);
    // Followers read the outcome; this only keeps a rejection from being unhandled.
    job.catch(() => undefined);
  }
  let analysis: AnalysisObject;
  try {
    analysis = await job;
  } catch (err) {
    if (leading) ctx.inflight.delete(cacheKey);
    await release(ctx, key, reservedAt, res);
    throw err;
  }
  await cacheSet(ctx, cacheKey, analysis, res);
  // Only now: a request arriving in between finds the cache entry, not a gap.
  if (leading) ctx.inflight.delete(cacheKey);
  res.json(analysis);
}

/** Marks an analysis aborted because the upload turned out to be cached. */
class CacheHit extends Error {
  constructor(readonly entry: AnalysisObject) {
    super('served from the cache');
  }
}

async function analyzeFile(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const started = performance.now();
  const key = apiKeyOf(res);
  const version = ctx.analyzerVersion();
  // Written inside the upload callback, read after it.
  const outcome: { reservedAt: Date | null; fresh: boolean } = { reservedAt: null, fresh: false };
  try {
    const answer = await receiveUpload(req, res, { maxBytes: ctx.config.maxUploadBytes, idleTimeoutMs: ctx.config.uploadIdleTimeoutMs, defaults: DEFAULTS }, async (file) => {
      if (responseFormatOf(res) === 'spotify') file.switches.details = true;
      // Only the bytes tell whether this upload is cached, and they are read
      // as they are analysed: the quota is reserved now and given back on a hit.
      outcome.reservedAt = await reserve(ctx, key);
      return ctx.pool.run(async (jobSignal) => {
        const hitController = new AbortController();
        let cacheKey: string | null = null;
        let found: AnalysisObject | undefined;
        const lookup = file.digest.then(async (hex) => {
          if (!hex) return;
          cacheKey = uploadCacheKey(hex, file.switches, version);
          found = await cacheGet(ctx, cacheKey, res);
          if (found) hitController.abort(new CacheHit(found));
        });
        let analysis: AnalysisObject;
        try {
          analysis = await ctx.analyze(file.stream, {
            ...file.switches,
            signal: AbortSignal.any([jobSignal, file.signal, hitController.signal]),
            maxDurationSeconds: ctx.config.maxDurationSeconds,
          });
        } catch (err) {
          if (hitController.signal.aborted && found) return hit(found, started);
          throw err;
        }
        await lookup;
        if (found) return hit(found, started);
        outcome.fresh = true;
        if (cacheKey) await cacheSet(ctx, cacheKey, analysis, res);
        return analysis;
      }, file.signal);
    });
    if (!outcome.fresh && outcome.reservedAt) await release(ctx, key, outcome.reservedAt, res);
    res.json(answer);
  } catch (err) {
    if (outcome.reservedAt) await release(ctx, key, outcome.reservedAt, res);
    throw err;
  }
}

/** The two analysis endpoints, mounted under /api/v1 behind authentication. */
export function analyzeRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post('/analyze/url', (req, res) => analyzeUrl(ctx, req, res));
  router.post('/analyze/file', (req, res) => analyzeFile(ctx, req, res));
  return router;
}
