/**
 * The Express application of the API: routes, authentication, logging and
 * the problem+json edge. No listen(): src/server.ts (or a test) does that.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';

import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';

import { analyzeStream, type AnalyzeOptions } from '../analysis/analyze-stream.js';
import type { AnalysisObject } from '../analysis/types.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { analyzerVersion as nativeAnalyzerVersion } from '../native/analyzer.js';
import { addressPolicy, type AddressPolicy, type LookupFunction } from '../sources/address-guard.js';
import { Downloader } from '../sources/download.js';
import type { Store } from '../store/store.js';
import { authenticate } from './auth.js';
import { errorMiddleware, notFound } from './error-middleware.js';
import { responseFormat } from './format.js';
import { createMetrics, metricsSettingsFromEnv, type MetricsSettings } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { AnalysisPool } from './pool.js';
import { analyzeRoutes } from './routes/analyze.js';
import { ffmpegAvailable, healthRoutes } from './routes/health.js';
import { usageRoutes } from './routes/usage.js';
import { webRoutes } from './web.js';

export type AnalyzeFunction = (source: Readable | AsyncIterable<Buffer>, options: AnalyzeOptions) => Promise<AnalysisObject>;

/** What createApp needs; everything but config, store and logger has a working default. */
export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  pool?: AnalysisPool;
  downloader?: Downloader;
  /** Address policy of URL fetches (default: from config.allowPrivateUrls). */
  addressPolicy?: AddressPolicy;
  /** DNS for URL fetches (default: the system resolver). */
  resolve?: LookupFunction;
  analyze?: AnalyzeFunction;
  analyzerVersion?: () => string;
  checkDecoder?: () => Promise<boolean>;
  now?: () => Date;
  /** Shared with the server: draining makes health answer 503. */
  state?: { draining: boolean };
  version?: string;
  /** Prometheus metrics (default: TRACKSCAN_METRICS / TRACKSCAN_METRICS_TOKEN, see metrics.ts). */
  metrics?: MetricsSettings;
}

/** The resolved dependencies, as routes see them. */
export interface AppContext {
  config: Config;
  store: Store;
  logger: Logger;
  pool: AnalysisPool;
  downloader: Downloader;
  analyze: AnalyzeFunction;
  analyzerVersion: () => string;
  checkDecoder: () => Promise<boolean>;
  now: () => Date;
  state: { draining: boolean };
  version: string;
  /** URL analyses in progress by cache key: identical requests share one download and analysis. */
  inflight: Map<string, Promise<AnalysisObject>>;
}

/** Fills in the defaults of `deps`. */
export function createContext(deps: AppDeps): AppContext {
  const { config } = deps;
  return {
    config,
    store: deps.store,
    logger: deps.logger,
    pool: deps.pool ?? new AnalysisPool({ concurrency: config.concurrency, queueLength: config.queueLength }),
    downloader:
      deps.downloader ??
      new Downloader({
        policy: deps.addressPolicy ?? addressPolicy(config.allowPrivateUrls),
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
        maxBytes: config.maxDownloadBytes,
        maxPageBytes: config.maxPageBytes,
        connectTimeoutMs: config.connectTimeoutMs,
        firstByteTimeoutMs: config.firstByteTimeoutMs,
        downloadTimeoutMs: config.downloadTimeoutMs,
        maxRedirects: config.maxRedirects,
        ytdlp: config.ytdlpPath ? { path: config.ytdlpPath, hosts: config.ytdlpHosts } : null,
      }),
    analyze: deps.analyze ?? analyzeStream,
    analyzerVersion: deps.analyzerVersion ?? nativeAnalyzerVersion,
    checkDecoder: deps.checkDecoder ?? (() => ffmpegAvailable()),
    now: deps.now ?? (() => new Date()),
    state: deps.state ?? { draining: false },
    version: deps.version ?? '0.0.0',
    inflight: new Map(),
  };
}

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/** Gives each request an id (the client's X-Request-Id if sane) and logs its outcome without secrets. */
function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const requestId = offered && REQUEST_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const log = logger.child({ reqId: requestId });
    res.locals.log = log;
    const started = performance.now();
    res.once('close', () => {
      const entry = {
        method: req.method,
        // The path only: our routes carry no secrets, but query strings of strangers might.
        path: req.path,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
        keyId: (res.locals.apiKey as { id?: string } | undefined)?.id,
        target: res.locals.target as string | undefined,
        aborted: !res.writableFinished,
      };
      (res.locals.log as Logger).info(entry, 'request');
    });
    next();
  };
}

function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Allow', allow);
    next(new AppError('method_not_allowed', `Use ${allow} on this path`));
  };
}

/**
 * Builds the Express app. `app.locals.context` holds the resolved
 * dependencies (the server closes the pool and downloader through it).
 */
export function createApp(deps: AppDeps): Express {
  const ctx = createContext(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.locals.context = ctx;
  app.locals.logger = ctx.logger;
  app.use(requestLog(ctx.logger));
  const metrics = createMetrics(ctx, deps.metrics ?? metricsSettingsFromEnv());
  if (metrics) app.use(metrics.middleware);

  const api = express.Router();
  const document = openApiDocument(ctx.version);
  api.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  api.use(healthRoutes(ctx));

  const auth = authenticate(ctx.store, ctx.now);
  api.use('/usage', auth);
  api.use('/analyze', auth);
  api.use(express.json({ limit: '16kb', strict: false, type: ['application/json', 'application/*+json'] }));
  api.use(usageRoutes(ctx));
  api.use('/analyze', responseFormat());
  api.use(analyzeRoutes(ctx));

  api.all('/openapi.json', methodNotAllowed('GET'));
  api.all('/health', methodNotAllowed('GET'));
  api.all('/usage', methodNotAllowed('GET'));
  api.all('/analyze/url', methodNotAllowed('POST'));
  api.all('/analyze/file', methodNotAllowed('POST'));

  app.use('/api/v1', api);
  if (metrics) app.use(metrics.router);
  app.use(webRoutes());
  app.use(notFound());
  app.use(errorMiddleware());
  return app;
}

/** The context of an app made by createApp. */
export function contextOf(app: Express): AppContext {
  return app.locals.context as AppContext;
}
