/**
 * Starting and stopping the HTTP server. Shutdown is graceful: stop
 * accepting, let in-flight requests finish within a bound, then abort what
 * is left (which ends their ffmpeg processes), close connections, the
 * download agent and the store.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { Express } from 'express';
import { pino, type Logger } from 'pino';

import type { Config } from './config.js';
import { AppError } from './errors.js';
import { contextOf, createApp, type AppDeps } from './http/app.js';
import { packageRoot } from './native/binding.js';
import { DEFAULT_MONTHLY_LIMIT, DEFAULT_RATE_LIMIT } from './store/api-keys.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

export interface StartOptions {
  /** Use this store instead of opening the configured one (closed on stop all the same). */
  store?: Store;
  logger?: Logger;
  /** Overrides for createApp's dependencies (tests). */
  deps?: Partial<AppDeps>;
  /** Where the first-start key is printed; default stdout. */
  print?: (text: string) => void;
}

export interface RunningServer {
  server: Server;
  app: Express;
  store: Store;
  logger: Logger;
  /** http://host:port of the listening socket. */
  url: string;
  port: number;
  /** Graceful stop; resolves when everything is closed. Safe to call twice. */
  close(): Promise<void>;
}

/** The package version (for health and the OpenAPI document). */
export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** A JSON logger that never writes a key, even if one ends up in a logged object. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'trackscan' },
    redact: { paths: ['secret', '*.secret', 'apiKey', 'headers["x-api-key"]', '*.headers["x-api-key"]'], censor: '[redacted]' },
  });
}

/**
 * On a store without keys, creates one and prints it: the only time it is
 * ever shown. The store creates it only if it is still empty, atomically,
 * so two servers starting at once on one empty shared store make one key.
 */
async function ensureFirstKey(store: Store, print: (text: string) => void): Promise<void> {
  if ((await store.countKeys()) > 0) return;
  const input = { name: 'default', rateLimit: DEFAULT_RATE_LIMIT, monthlyLimit: DEFAULT_MONTHLY_LIMIT };
  const created = store.createFirstKey ? await store.createFirstKey(input) : await store.createKey(input);
  if (!created) return; // another instance made the first key a moment ago
  const { record, secret } = created;
  print(
    `No API key existed, so one was created (id ${record.id}, name "${record.name}").\n` +
      `  X-API-Key: ${secret}\n` +
      'It is shown only this once; store it now. Manage keys with "trackscan keys".\n',
  );
}

/** Opens the store, builds the app and listens on config.host:config.port. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const store =
    options.store ??
    (await openStore({ dataDir: config.dataDir, ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}), cacheTtlSeconds: config.cacheTtlSeconds }));
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  try {
    await ensureFirstKey(store, print);
  } catch (err) {
    await store.close();
    throw err;
  }
  const state = { draining: false };
  const app = createApp({ config, store, logger, state, version: packageVersion(), ...options.deps });
  const ctx = contextOf(app);
  const server = createServer({ requestTimeout: 15 * 60_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 }, app);

  let inFlight = 0;
  let idle: (() => void) | null = null;
  server.on('request', (_req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ url, store: config.redisUrl ? 'redis' : 'sqlite', concurrency: ctx.pool.concurrency, queueLength: ctx.pool.queueLength }, 'listening');

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      state.draining = true;
      logger.info({ inFlight }, 'shutting down');
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, config.shutdownTimeoutMs))),
        ]);
        clearTimeout(timer);
      }
      // Whatever is still running is ended: its ffmpeg is killed by the abort.
      ctx.pool.close(new AppError('unavailable', 'The server is shutting down', { retryAfterSeconds: 5 }));
      // Give aborted requests a moment to send their 503 before the sockets go.
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise<void>((resolve) => (idle = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
        clearTimeout(timer);
      }
      server.closeAllConnections();
      await stopped;
      await ctx.downloader.close().catch(() => undefined);
      await store.close();
      logger.info('stopped');
    })();
    return closing;
  };

  return { server, app, store, logger, url, port: address.port, close };
}
