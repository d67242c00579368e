/**
 * A real trackscan server on loopback (port 0) over a SQLite store in a
 * temporary directory, plus small helpers for requests and multipart bodies.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig, type Config } from '../../../src/config.js';
import type { AppDeps } from '../../../src/http/app.js';
import { startServer, type RunningServer } from '../../../src/server.js';

export interface TestContextLike {
  after: (fn: () => unknown) => void;
}

export interface Harness {
  running: RunningServer;
  config: Config;
  /** Base of the API: http://127.0.0.1:PORT/api/v1 */
  api: string;
  /** A key with generous limits, so tests that are not about limits never hit them. */
  key: string;
  /** The key the server created and printed on its first start (SPEC defaults: 20/min, 1000/month). */
  firstKey: string;
  dataDir: string;
  /** fetch relative to the API base, with the key unless `key: null`. */
  call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
}

/** Starts a server; it and its data directory go away after the test. */
export async function startHarness(
  t: TestContextLike,
  options: { env?: Record<string, string>; deps?: Partial<AppDeps> } = {},
): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trackscan-http-'));
  const config = loadConfig([], {
    TRACKSCAN_PORT: '0',
    TRACKSCAN_HOST: '127.0.0.1',
    TRACKSCAN_DATA_DIR: dataDir,
    TRACKSCAN_LOG_LEVEL: process.env.TRACKSCAN_TEST_LOG_LEVEL ?? 'silent',
    TRACKSCAN_CONCURRENCY: '2',
    ...options.env,
  });
  let printed = '';
  const running = await startServer(config, { print: (text) => (printed += text), ...(options.deps ? { deps: options.deps } : {}) });
  t.after(async () => {
    await running.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const firstKey = /X-API-Key: (tsk_\w+)/.exec(printed)?.[1];
  if (!firstKey) throw new Error(`no first-start key printed: ${printed}`);
  const { secret: key } = await running.store.createKey({ name: 'tests', rateLimit: 100_000, monthlyLimit: 100_000 });
  const api = `${running.url}/api/v1`;
  return {
    running,
    config,
    api,
    key,
    firstKey,
    dataDir,
    call(path, init = {}) {
      const { key: useKey = key, headers, ...rest } = init;
      const h = new Headers(headers);
      if (useKey !== null) h.set('X-API-Key', useKey);
      return fetch(`${api}${path}`, { ...rest, headers: h });
    },
  };
}

/** POST /analyze/url with a JSON body. */
export function postUrl(h: Harness, body: unknown, key?: string | null): Promise<Response> {
  return h.call('/analyze/url', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(key !== undefined ? { key } : {}),
  });
}

/** POST /analyze/file with the fields (sent first) and one file part. */
export function postFile(h: Harness, file: Uint8Array, fields: Record<string, string> = {}, key?: string | null): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([file]), 'audio.bin');
  return h.call('/analyze/file', { method: 'POST', body: form, ...(key !== undefined ? { key } : {}) });
}

/** Reads a problem answer and checks its envelope; returns the body. */
export async function problemOf(res: Response): Promise<{ type: string; title: string; status: number; detail: string; code: string }> {
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (!type.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${res.status} ${type}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { type: string; title: string; status: number; detail: string; code: string };
}

/** A multipart body built by hand (for orders and shapes FormData will not make). */
export function multipart(parts: { name: string; filename?: string; body: Uint8Array | string }[], boundary = 'trackscan-test-boundary'): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename ? 'Content-Type: application/octet-stream\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.from(part.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A plain HTTP server on 127.0.0.1 for URL tests; counts requests per path. */
export async function startOrigin(t: TestContextLike, handler: Handler): Promise<{ url: string; port: number; server: Server; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, server, hits };
}
