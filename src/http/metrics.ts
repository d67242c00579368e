/**
 * Prometheus metrics (prom-client) at GET /metrics, in the text format.
 *
 * Settings (read from the environment once, when the app is built):
 *   TRACKSCAN_METRICS        on | off (default on). Off: /metrics does not
 *                            exist (404) and nothing is measured.
 *   TRACKSCAN_METRICS_TOKEN  optional; when set, /metrics wants
 *                            `Authorization: Bearer <token>` (401 otherwise).
 *                            At least 16 characters, no spaces.
 * The service listens on loopback by default; a deployment that exposes it
 * should set a token or turn metrics off.
 *
 * Labels are bounded sets: route templates (never raw paths), status classes,
 * audio formats, error codes. No key ids, URLs or addresses.
 *
 * Each app has its own registry, so several apps in one process (tests)
 * never mix their counts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

import { Router, type Request, type RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';
import type { MediaBody } from '../sources/download.js';
import type { AnalyzeFunction, AppContext } from './app.js';
import { WEB_FILES } from './web.js';

export interface MetricsSettings {
  enabled: boolean;
  /** Bearer token required to read /metrics; null: no token needed. */
  token: string | null;
}

/** The README rows of the two settings. */
export const METRICS_SETTINGS = [
  { env: 'TRACKSCAN_METRICS', default: 'on', meaning: 'on or off: Prometheus metrics at GET /metrics' },
  { env: 'TRACKSCAN_METRICS_TOKEN', default: '(unset)', meaning: 'When set (16+ characters), /metrics wants Authorization: Bearer <token>' },
] as const;

/** Reads and checks TRACKSCAN_METRICS and TRACKSCAN_METRICS_TOKEN; a bad value is a ConfigError naming it. */
export function metricsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsSettings {
  const raw = (env.TRACKSCAN_METRICS ?? 'on').trim().toLowerCase();
  let enabled: boolean;
  if (['on', '1', 'true', 'yes'].includes(raw)) enabled = true;
  else if (['off', '0', 'false', 'no'].includes(raw)) enabled = false;
  else throw new ConfigError(`TRACKSCAN_METRICS: expected on or off, got "${env.TRACKSCAN_METRICS}"`);
  const token = env.TRACKSCAN_METRICS_TOKEN;
  if (token === undefined || token === '') return { enabled, token: null };
  if (token.length < 16 || !/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError('TRACKSCAN_METRICS_TOKEN: expected at least 16 printable characters without spaces');
  }
  return { enabled, token };
}

/** Route templates used as labels; anything else is "unmatched". */
const API_ROUTES = ['/api/v1/analyze/url', '/api/v1/analyze/file', '/api/v1/usage', '/api/v1/health', '/api/v1/openapi.json'];
const KNOWN_ROUTES = new Set([...API_ROUTES, '/metrics', ...WEB_FILES.map((f) => f.route)]);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ANALYZE_SOURCES: Record<string, string> = { '/api/v1/analyze/url': 'url', '/api/v1/analyze/file': 'file' };

function routeOf(req: Request): string {
  const path = req.originalUrl.split('?', 1)[0] ?? '';
  return KNOWN_ROUTES.has(path) ? path : 'unmatched';
}

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/** Audio formats come from the sniffer's short names; anything odd is "other". */
function formatLabel(format: unknown): string {
  return typeof format === 'string' && /^[a-z0-9_-]{1,16}$/.test(format) ? format : 'other';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export interface Metrics {
  registry: Registry;
  /** Counts every request; mount first. */
  middleware: RequestHandler;
  /** GET /metrics. */
  router: Router;
}

/**
 * Builds the registry and instruments `ctx` in place: its analyze function
 * (analyses, their duration and audio seconds by format) and its downloader
 * (media bytes downloaded). Returns null when metrics are off.
 */
export function createMetrics(ctx: AppContext, settings: MetricsSettings): Metrics | null {
  if (!settings.enabled) return null;
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'trackscan_' });

  const requests = new Counter({
    name: 'trackscan_http_requests_total',
    help: 'HTTP requests by method, route template and status class ("aborted" when the client left first)',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'trackscan_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, from arrival to the end of the answer',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const problems = new Counter({
    name: 'trackscan_http_problems_total',
    help: 'Problem (error) answers by route template and error code',
    labelNames: ['route', 'code'] as const,
    registers,
  });
  const refusals = new Counter({
    name: 'trackscan_rate_limit_refusals_total',
    help: 'Requests refused with 429, by reason: rate_limited (per-minute limit) or quota_exceeded (monthly quota)',
    labelNames: ['reason'] as const,
    registers,
  });
  const rejections = new Counter({
    name: 'trackscan_queue_rejections_total',
    help: 'Analyses refused with 503 overloaded because every slot and queue place was taken',
    registers,
  });
  const cache = new Counter({
    name: 'trackscan_cache_requests_total',
    help: 'Successful analysis answers by source (file, url) and result: hit (served from the result cache) or miss (freshly analysed)',
    labelNames: ['source', 'result'] as const,
    registers,
  });
  const analyses = new Counter({
    name: 'trackscan_analyses_total',
    help: 'Analyses run (decode + analysis), by audio format and outcome (ok, or the error code)',
    labelNames: ['format', 'outcome'] as const,
    registers,
  });
  const analysisSeconds = new Histogram({
    name: 'trackscan_analysis_duration_seconds',
    help: 'Wall-clock seconds of successful analyses (decoding and analysis run together, streamed), by audio format',
    labelNames: ['format'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
    registers,
  });
  const audioSeconds = new Counter({
    name: 'trackscan_analyzed_audio_seconds_total',
    help: 'Seconds of audio analysed successfully, by audio format',
    labelNames: ['format'] as const,
    registers,
  });
  const downloaded = new Counter({
    name: 'trackscan_download_bytes_total',
    help: 'Media bytes downloaded from URLs (pages read to find the media not included)',
    registers,
  });
  const pool = ctx.pool;
  new Gauge({
    name: 'trackscan_pool_active',
    help: 'Analyses running now',
    registers,
    collect() {
      this.set(pool.stats().active);
    },
  });
  new Gauge({
    name: 'trackscan_pool_queued',
    help: 'Analyses waiting for a slot (the queue depth)',
    registers,
    collect() {
      this.set(pool.stats().queued);
    },
  });
  new Gauge({ name: 'trackscan_pool_concurrency', help: 'Analysis slots', registers }).set(pool.concurrency);
  new Gauge({ name: 'trackscan_pool_queue_length', help: 'Queue places before 503 overloaded', registers }).set(pool.queueLength);

  // Analyses: the analyze function always computes the details (cheap: the
  // native side has them anyway) to learn the format and duration, and hands
  // them on only when they were asked for.
  const analyze: AnalyzeFunction = ctx.analyze;
  ctx.analyze = async (source, options) => {
    const started = performance.now();
    try {
      const result = await analyze(source, { ...options, details: true });
      const format = formatLabel(result.details?.format);
      analyses.inc({ format, outcome: 'ok' });
      analysisSeconds.observe({ format }, (performance.now() - started) / 1000);
      if (result.details) audioSeconds.inc({ format }, result.details.duration_s);
      if (!options.details) delete result.details;
      return result;
    } catch (err) {
      const outcome = options.signal?.aborted ? 'aborted' : err instanceof AppError ? err.code : 'internal_error';
      analyses.inc({ format: 'unknown', outcome });
      throw err;
    }
  };

  const downloader = ctx.downloader;
  const fetchMedia = downloader.fetchMedia.bind(downloader);
  downloader.fetchMedia = (url, signal, consume) =>
    fetchMedia(url, signal, (media: MediaBody) =>
      consume({
        ...media,
        body: (async function* counted() {
          for await (const chunk of media.body) {
            downloaded.inc(chunk.length);
            yield chunk;
          }
        })(),
      }),
    );

  const middleware: RequestHandler = (req, res, next) => {
    const started = performance.now();
    const route = routeOf(req);
    const source = ANALYZE_SOURCES[route];
    if (source) {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        if (res.statusCode < 300 && typeof body === 'object' && body !== null) {
          const record = body as { cached?: unknown; trackscan?: { cached?: unknown } };
          const cached = record.cached ?? record.trackscan?.cached;
          if (typeof cached === 'boolean') cache.inc({ source, result: cached ? 'hit' : 'miss' });
        }
        return json(body);
      };
    }
    res.once('close', () => {
      const labels = {
        method: METHODS.has(req.method) ? req.method : 'other',
        route,
        status_class: res.writableFinished ? statusClass(res.statusCode) : 'aborted',
      };
      requests.inc(labels);
      latency.observe(labels, (performance.now() - started) / 1000);
      const code = res.locals.problemCode as string | undefined;
      if (code) {
        problems.inc({ route, code });
        if (code === 'rate_limited' || code === 'quota_exceeded') refusals.inc({ reason: code });
        if (code === 'overloaded') rejections.inc();
      }
    });
    next();
  };

  const router = Router();
  const expected = settings.token === null ? null : digest(settings.token);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const offered = /^Bearer (\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!offered || !timingSafeEqual(digest(offered), expected)) {
        res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="trackscan metrics"');
        res.type('text/plain').send('401: /metrics wants Authorization: Bearer <TRACKSCAN_METRICS_TOKEN>\n');
        return;
      }
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type(registry.contentType).send(await registry.metrics());
  });
  return { registry, middleware, router };
}
