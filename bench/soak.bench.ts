/**
 * Soak (issue 5): a mixed load against a real `trackscan serve` on loopback
 * for a fixed time, bounded in requests in flight. It reports answers by
 * status and code, latency percentiles per kind, and the server's RSS and
 * open file descriptors over time: both must level off.
 *
 *   node dist/bench/soak.bench.js [--seconds 600] [--concurrency 6]
 *
 * The mix: fresh uploads (a new file each time), cached uploads (one file
 * again), URL analyses (fresh and cached, from a local origin), usage, bad
 * requests (not audio, no key, malformed JSON), and an over-limit key.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import { cli, ENCODINGS, ffmpeg, musicSource } from '../test/helpers/media.js';
import { systemLine } from './system.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '600' }, concurrency: { type: 'string', default: '6' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const dir = await mkdtemp(join(tmpdir(), 'trackscan-soak-'));
const base = join(dir, 'base.flac');
await ffmpeg(...musicSource(20), ...ENCODINGS.flac!, base);
const baseBytes = await readFile(base);
const mp3 = join(dir, 'url.mp3');
await ffmpeg(...musicSource(20), ...ENCODINGS.mp3!, mp3);
const mp3Bytes = await readFile(mp3);

// The origin for URL analyses: /fixed.mp3 (cached after the first time) and
// /fresh/N.mp3 (a new URL, so a fresh analysis, each time).
const origin = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': mp3Bytes.length });
  res.end(mp3Bytes);
  void req;
});
origin.listen(0, '127.0.0.1');
await once(origin, 'listening');
const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

const server = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', join(dir, 'data')], {
  env: { ...process.env, TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_LOG_LEVEL: 'warn', TRACKSCAN_QUEUE_LENGTH: '64' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
server.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
server.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
let api = '';
for (let i = 0; i < 200 && !api; i++) {
  const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
  if (m) api = `${m[1]}/api/v1`;
  else await sleep(50);
}
if (!api) throw new Error(`server did not start: ${out}`);
const firstKey = /X-API-Key: (tsk_\w+)/.exec(out)?.[1];
if (!firstKey) throw new Error('no first key printed');

async function createKey(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [cli, 'keys', 'create', ...args, '--data', join(dir, 'data')]);
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
  await once(child, 'close');
  const key = /tsk_\w+/.exec(text)?.[0];
  if (!key) throw new Error(`keys create: ${text}`);
  return key;
}
const key = await createKey(['--name', 'soak', '--rate-limit', '1000000', '--monthly-limit', '1000000']);
const limited = await createKey(['--name', 'limited', '--rate-limit', '5', '--monthly-limit', '1']);

let freshCounter = 0;
function freshUpload(): Buffer {
  // A new file each time: flip one bit in the last audio frames (FLAC frames
  // carry CRCs, so pick bytes the decoder will only see as slightly other audio
  // at worst; the answer may be 200 or 422, both are counted).
  const bytes = Buffer.from(baseBytes);
  const at = bytes.length - 1000 - (freshCounter++ % 500);
  bytes[at] = bytes[at]! ^ 1;
  return bytes;
}

type Kind = 'upload-fresh' | 'upload-cached' | 'url-fresh' | 'url-cached' | 'usage' | 'bad-not-audio' | 'bad-no-key' | 'bad-json' | 'over-limit';
const KINDS: [Kind, number][] = [
  ['upload-fresh', 2], ['upload-cached', 3], ['url-fresh', 1], ['url-cached', 3], ['usage', 4],
  ['bad-not-audio', 1], ['bad-no-key', 1], ['bad-json', 1], ['over-limit', 1],
];
const weighted = KINDS.flatMap(([k, w]) => Array<Kind>(w).fill(k));

function form(bytes: Buffer): FormData {
  const f = new FormData();
  f.append('file', new Blob([bytes]), 'a.bin');
  return f;
}

async function one(kind: Kind): Promise<string> {
  const headers = { 'x-api-key': key };
  let res: Response;
  switch (kind) {
    case 'upload-fresh': res = await fetch(`${api}/analyze/file`, { method: 'POST', headers, body: form(freshUpload()) }); break;
    case 'upload-cached': res = await fetch(`${api}/analyze/file`, { method: 'POST', headers, body: form(baseBytes) }); break;
    case 'url-fresh': res = await fetch(`${api}/analyze/url`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${originUrl}/fresh/${freshCounter++}.mp3` }) }); break;
    case 'url-cached': res = await fetch(`${api}/analyze/url`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${originUrl}/fixed.mp3` }) }); break;
    case 'usage': res = await fetch(`${api}/usage`, { headers }); break;
    case 'bad-not-audio': res = await fetch(`${api}/analyze/file`, { method: 'POST', headers, body: form(Buffer.from('not audio at all, just text'.repeat(100))) }); break;
    case 'bad-no-key': res = await fetch(`${api}/usage`); break;
    case 'bad-json': res = await fetch(`${api}/analyze/url`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"url":' }); break;
    case 'over-limit': res = await fetch(`${api}/usage`, { headers: { 'x-api-key': limited } }); break;
  }
  const text = await res.text();
  if (res.ok) return `${res.status}`;
  try {
    return `${res.status} ${(JSON.parse(text) as { code: string }).code}`;
  } catch {
    return `${res.status} (not JSON)`;
  }
}

function serverStats(): { rssMiB: number; fds: number } {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  return { rssMiB: rss, fds: readdirSync(`/proc/${server.pid}/fd`).length };
}

const answers = new Map<string, number>();
const latencies = new Map<Kind, number[]>();
const samples: { t: number; rssMiB: number; fds: number; done: number }[] = [];
const started = performance.now();
const deadline = started + seconds * 1000;
let done = 0;
let failures = 0;

async function worker(w: number): Promise<void> {
  let i = w;
  while (performance.now() < deadline) {
    const kind = weighted[(i * 7 + w) % weighted.length]!;
    i++;
    const t0 = performance.now();
    try {
      const answer = await one(kind);
      answers.set(`${kind}: ${answer}`, (answers.get(`${kind}: ${answer}`) ?? 0) + 1);
    } catch (err) {
      failures++;
      answers.set(`${kind}: ${(err as Error).message}`, (answers.get(`${kind}: ${(err as Error).message}`) ?? 0) + 1);
    }
    const list = latencies.get(kind) ?? [];
    list.push(performance.now() - t0);
    latencies.set(kind, list);
    done++;
  }
}

const sampler = setInterval(() => samples.push({ t: (performance.now() - started) / 1000, ...serverStats(), done }), Math.max(1000, (seconds * 1000) / 20));
samples.push({ t: 0, ...serverStats(), done: 0 });
await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
clearInterval(sampler);
await sleep(1000);
samples.push({ t: (performance.now() - started) / 1000, ...serverStats(), done });

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
console.log(`# soak bench\n\n${systemLine()}\n\n${seconds} s, ${concurrency} requests in flight, ${done} requests, ${failures} transport failures.\n`);
console.log('| kind: answer | count |\n|---|---|');
for (const [k, n] of [...answers].sort()) console.log(`| ${k} | ${n} |`);
console.log('\n| kind | p50 ms | p99 ms |\n|---|---|---|');
for (const [kind, xs] of latencies) console.log(`| ${kind} | ${pct(xs, 50).toFixed(0)} | ${pct(xs, 99).toFixed(0)} |`);
console.log('\n| t (s) | server RSS MiB | open fds | requests done |\n|---|---|---|---|');
for (const s of samples) console.log(`| ${s.t.toFixed(0)} | ${s.rssMiB.toFixed(0)} | ${s.fds} | ${s.done} |`);

server.kill('SIGTERM');
await once(server, 'exit');
origin.close();
await rm(dir, { recursive: true, force: true });
