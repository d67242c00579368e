/**
 * GET /health, no key needed. "ok": everything works. "degraded": the
 * service answers but fresh analyses would fail or wait (no decoder, or the
 * analysis queue is full); cached results and usage still work. Not ready
 * (the store is unreachable, or the server is shutting down): 503 as a
 * problem document carrying the same health object in its `health` member,
 * so load balancers take the instance out and people can see why.
 */
import { spawn } from 'node:child_process';

import { Router } from 'express';

import { AppError } from '../../errors.js';
import type { AppContext } from '../app.js';
import { sendProblem } from '../error-middleware.js';

/** How long a decoder check result is reused: health is polled often, ffmpeg -version costs a process. */
const DECODER_CHECK_TTL_MS = 30_000;
const STORE_PING_TIMEOUT_MS = 2000;

/** Resolves true when `ffmpeg -version` runs. */
export function ffmpegAvailable(ffmpegPath = 'ffmpeg'): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(ffmpegPath, ['-hide_banner', '-version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

async function withTimeout(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([check.catch(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(ctx: AppContext): Router {
  const router = Router();
  // Checked at start and then refreshed in the background when stale, so a
  // health request never waits for a process to start (except the very first,
  // if it comes before the first check is done).
  let decoder: { ok: boolean; at: number } | null = null;
  let pending: Promise<boolean> | null = null;
  const refresh = (): Promise<boolean> => {
    pending ??= ctx
      .checkDecoder()
      .catch(() => false)
      .then((ok) => {
        decoder = { ok, at: Date.now() };
        pending = null;
        return ok;
      });
    return pending;
  };
  void refresh();
  const decoderOk = async (): Promise<boolean> => {
    if (!decoder) return refresh();
    if (Date.now() - decoder.at >= DECODER_CHECK_TTL_MS) void refresh();
    return decoder.ok;
  };

  router.get('/health', async (req, res) => {
    const [decoderReady, storeReady] = await Promise.all([decoderOk(), withTimeout(ctx.store.ping(), STORE_PING_TIMEOUT_MS)]);
    const pool = ctx.pool.stats();
    const draining = ctx.state.draining;
    const status = draining || !storeReady ? 'unavailable' : !decoderReady || ctx.pool.saturated ? 'degraded' : 'ok';
    const health = {
      status,
      version: ctx.version,
      analyzer_version: ctx.analyzerVersion(),
      uptime_s: Math.round(process.uptime()),
      checks: {
        decoder: { status: decoderReady ? 'ok' : 'fail', detail: decoderReady ? 'ffmpeg runs' : 'ffmpeg is missing or does not run' },
        store: { status: storeReady ? 'ok' : 'fail', backend: ctx.config.redisUrl ? 'redis' : 'sqlite' },
        analysis_pool: { status: ctx.pool.saturated ? 'full' : 'ok', active: pool.active, queued: pool.queued, concurrency: pool.concurrency, queue_length: pool.queueLength },
      },
    };
    res.setHeader('Cache-Control', 'no-store');
    if (status === 'unavailable') {
      const why = draining ? 'The server is shutting down' : 'The key and usage store is not reachable';
      sendProblem(req, res, new AppError('unavailable', why, { retryAfterSeconds: 5 }), { health });
      return;
    }
    res.json(health);
  });
  return router;
}
