/**
 * HTTP figures of issue 4, against `trackscan serve` processes on loopback:
 *  1. requests/s and p50/p99 latency of cached URL analyses and of /usage,
 *     beside a bare Express route in its own process, same run (ratio);
 *  2. fresh URL analyses per second at client concurrency 1, 2 and 4 with a
 *     3-minute MP3 (every request a new URL, so every one is a cache miss);
 *  3. peak RSS (VmHWM) of a server running 8 uploads of a 10-minute MP3 at once.
 * Bounded in time and count; prints a Markdown section for bench/RESULTS.md.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/http-api.bench.js [--seconds 5]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { Agent, request } from 'undici';

import { cli, ffmpeg, musicSource, root } from '../test/helpers/media.js';
import { systemLine } from './system.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const SECONDS = Number(values.seconds);
const work = mkdtempSync(join(tmpdir(), 'trackscan-http-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

async function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer): void => {
      text += d.toString();
      const match = ready.exec(text);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
  });
}

async function startTrackscan(dataDir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const { child, match } = await startProcess([cli, 'serve', '--port', '0', '--data', dataDir], { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', ...env }, /listening on (http:\/\/\S+) /);
  return { child, url: match[1]! };
}

function benchKey(dataDir: string): string {
  const out = execFileSync(process.execPath, [cli, 'keys', 'create', '--name', 'bench', '--rate-limit', '100000000', '--monthly-limit', '100000000', '--data', dataDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const key = /tsk_\w+/.exec(out)?.[0];
  if (!key) throw new Error(`no key in ${out}`);
  return key;
}

const agent = new Agent({ connections: 64, pipelining: 1 });

interface Load {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

/** `concurrency` workers send `make()` requests for `seconds` (or `limit` requests). */
async function load(make: () => Parameters<typeof request>, concurrency: number, seconds: number, limit = Infinity): Promise<Load> {
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end && sent < limit) {
        sent += 1;
        const [url, options] = make();
        const t0 = performance.now();
        try {
          const res = await request(url, { dispatcher: agent, ...options });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const row = (name: string, l: Load): string =>
  `| ${name} | ${l.requests} | ${l.errors} | ${l.rps.toFixed(0)} | ${l.p50.toFixed(2)} | ${l.p99.toFixed(2)} |`;

async function main(): Promise<void> {
  const lines: string[] = [];
  const say = (text = ''): void => {
    lines.push(text);
    console.log(text);
  };
  say(`## HTTP API (issue 4)\n\n${systemLine()}. Command: \`npx tsc -p tsconfig.json && node dist/bench/http-api.bench.js --seconds ${SECONDS}\``);

  const three = join(work, 'three-minutes.mp3');
  const ten = join(work, 'ten-minutes.mp3');
  await ffmpeg(...musicSource(180), '-c:a', 'libmp3lame', '-b:a', '192k', three);
  await ffmpeg(...musicSource(600), '-c:a', 'libmp3lame', '-b:a', '192k', ten);
  const threeBytes = readFileSync(three);
  const tenBytes = readFileSync(ten);

  const origin = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(threeBytes.length) }).end(threeBytes);
  });
  origin.listen(0, '127.0.0.1');
  await once(origin, 'listening');
  const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

  // 1. Cached URL analyses and usage, beside a bare Express route.
  const dataDir = join(work, 'data');
  const key = benchKey(dataDir);
  const server = await startTrackscan(dataDir);
  const bare = await startProcess(
    ['--input-type=module', '-e', "import express from 'express'; const app = express(); app.get('/ping', (_q, r) => { r.json({ ok: true }); }); const s = app.listen(0, '127.0.0.1', () => console.log('port ' + s.address().port));"],
    {},
    /port (\d+)/,
  );
  const bareUrl = `http://127.0.0.1:${bare.match[1]}/ping`;
  const cachedBody = JSON.stringify({ url: `${originUrl}/cached.mp3` });
  const post = (body: string) => ({ method: 'POST' as const, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
  const warm = await request(`${server.url}/api/v1/analyze/url`, { dispatcher: agent, ...post(cachedBody) });
  await warm.body.text();

  const concurrency = 32;
  // Warm-up (JIT, connections, SQLite pages) so the measured runs compare steady states.
  await load(() => [bareUrl, { method: 'GET' }], concurrency, 2);
  await load(() => [`${server.url}/api/v1/usage`, { method: 'GET', headers: { 'x-api-key': key } }], concurrency, 2);
  await load(() => [`${server.url}/api/v1/analyze/url`, post(cachedBody)], concurrency, 2);
  const bareLoad = await load(() => [bareUrl, { method: 'GET' }], concurrency, SECONDS);
  const usageLoad = await load(() => [`${server.url}/api/v1/usage`, { method: 'GET', headers: { 'x-api-key': key } }], concurrency, SECONDS);
  const cachedLoad = await load(() => [`${server.url}/api/v1/analyze/url`, post(cachedBody)], concurrency, SECONDS);
  say(`\n### Cached answers and usage against a bare Express route (client concurrency ${concurrency}, ${SECONDS} s each after 2 s of warm-up; server logs at info)\n`);
  say('| route | requests | errors | req/s | p50 ms | p99 ms |');
  say('|---|---|---|---|---|---|');
  say(row('bare Express GET /ping', bareLoad));
  say(row('GET /api/v1/usage', usageLoad));
  say(row('POST /api/v1/analyze/url (cached)', cachedLoad));
  say(`\nRatio to the bare route: usage ${(usageLoad.rps / bareLoad.rps).toFixed(2)}, cached URL ${(cachedLoad.rps / bareLoad.rps).toFixed(2)} (req/s).`);
  bare.child.kill('SIGTERM');

  // 2. Fresh analyses: each request a URL never seen, so a download and an analysis.
  say(`\n### Fresh URL analyses of a 3-minute MP3 (${(threeBytes.length / 2 ** 20).toFixed(1)} MiB), server concurrency = cores\n`);
  say('| client concurrency | analyses | errors | analyses/s | p50 s | p99 s |');
  say('|---|---|---|---|---|---|');
  let n = 0;
  let single = 0;
  for (const c of [1, 2, 4]) {
    const fresh = await load(() => [`${server.url}/api/v1/analyze/url`, post(JSON.stringify({ url: `${originUrl}/fresh.mp3?n=${n++}` }))], c, 600, 3 * c);
    if (c === 1) single = fresh.rps;
    say(`| ${c} | ${fresh.requests} | ${fresh.errors} | ${fresh.rps.toFixed(3)} | ${(fresh.p50 / 1000).toFixed(2)} | ${(fresh.p99 / 1000).toFixed(2)} |`);
    if (c > 1) say(`| (scaling vs 1) | | | ${(fresh.rps / single).toFixed(2)}x | | |`);
  }
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');

  // 3. Peak RSS with 8 concurrent uploads of a 10-minute MP3, all 8 analysed at once.
  const rssDir = join(work, 'rss');
  const rssKey = benchKey(rssDir);
  const rssServer = await startTrackscan(rssDir, { TRACKSCAN_CONCURRENCY: '8', TRACKSCAN_LOG_LEVEL: 'warn' });
  const idle = peakRssMiB(rssServer.child.pid!);
  const boundary = 'bench-boundary';
  const upload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ten.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
    tenBytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const started = performance.now();
  const uploads = await load(
    () => [`${rssServer.url}/api/v1/analyze/file`, { method: 'POST', headers: { 'x-api-key': rssKey, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: upload }],
    8,
    600,
    8,
  );
  const wall = (performance.now() - started) / 1000;
  const peak = peakRssMiB(rssServer.child.pid!);
  say(`\n### Memory: 8 concurrent uploads of a 10-minute MP3 (${(tenBytes.length / 2 ** 20).toFixed(1)} MiB each), TRACKSCAN_CONCURRENCY=8\n`);
  say('| uploads | errors | wall s | server peak RSS (VmHWM) after start | peak RSS after the uploads |');
  say('|---|---|---|---|---|');
  say(`| ${uploads.requests} | ${uploads.errors} | ${wall.toFixed(1)} | ${idle.toFixed(0)} MiB | ${peak.toFixed(0)} MiB |`);
  say('\nffmpeg runs in its own processes (one per analysis); their memory is not in the server figure.');
  rssServer.child.kill('SIGTERM');
  await once(rssServer.child, 'exit');
  origin.close();
  await agent.close();
}

await main();
