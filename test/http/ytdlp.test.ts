/**
 * Extractor sites through yt-dlp. yt-dlp is not installed here and the tests
 * have no network, so a stand-in executable plays its part: it writes a real
 * MP3 (made by ffmpeg) to standard output, or fails, or stalls, as yt-dlp
 * would. The names resolve through the test's own table.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import type { LookupFunction } from '../../src/sources/address-guard.js';
import { wantsYtDlp } from '../../src/sources/ytdlp.js';
import { makeTempDir } from '../helpers/media.js';
import { makeAudio } from './helpers/audio.js';
import { postUrl, problemOf, startHarness } from './helpers/harness.js';

const NAMES: Record<string, LookupAddress[]> = {
  'www.youtube.com': [{ address: '142.250.74.46', family: 4 }],
  'soundcloud.com': [{ address: '18.238.96.1', family: 4 }],
  'evil.youtube.com': [{ address: '10.0.0.9', family: 4 }],
};
const resolve: LookupFunction = (hostname, _options, callback) => {
  const known = NAMES[hostname];
  if (known) return callback(null, known);
  return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
};

async function stub(t: { after: (fn: () => Promise<void>) => void }, body: string): Promise<{ path: string; log: string }> {
  const dir = await makeTempDir(t);
  const path = join(dir, 'yt-dlp');
  const log = join(dir, 'calls.log');
  await writeFile(path, `#!/bin/sh\necho "$@" >> '${log}'\n${body}\n`);
  await chmod(path, 0o755);
  return { path, log };
}

test('an extractor URL is analysed from yt-dlp output, with its arguments', async (t) => {
  const dir = await makeTempDir(t);
  const mp3 = join(dir, 'song.mp3');
  await writeFile(mp3, await makeAudio(t, 'mp3', 3));
  const s = await stub(t, `cat '${mp3}'`);
  const h = await startHarness(t, { env: { TRACKSCAN_YTDLP: s.path }, deps: { resolve } });
  const res = await postUrl(h, { url: 'https://www.youtube.com/watch?v=abc123' });
  const body = (await res.json()) as { cached: boolean; lufs: number };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.cached, false);
  assert.equal(typeof body.lufs, 'number');
  const calls = await readFile(s.log, 'utf8');
  assert.match(calls, /-o - -- https:\/\/www\.youtube\.com\/watch\?v=abc123/);
  assert.match(calls, /--no-playlist/);
  assert.match(calls, /--max-filesize \d+/);
  // The second time it is a cache hit: yt-dlp does not run again.
  const again = (await (await postUrl(h, { url: 'https://www.youtube.com/watch?v=abc123' })).json()) as { cached: boolean };
  assert.equal(again.cached, true);
  assert.equal((await readFile(s.log, 'utf8')).trim().split('\n').length, 1);
});

test('an extractor host that resolves to a private address is refused before yt-dlp runs', async (t) => {
  const s = await stub(t, 'exit 0');
  const h = await startHarness(t, { env: { TRACKSCAN_YTDLP: s.path }, deps: { resolve } });
  const res = await postUrl(h, { url: 'https://evil.youtube.com/watch?v=x' });
  const problem = await problemOf(res);
  assert.equal(res.status, 400);
  assert.equal(problem.code, 'url_not_allowed');
  await assert.rejects(readFile(s.log, 'utf8'), /ENOENT/);
});

test('yt-dlp failing is 502 with its reason; over the byte cap is 413; stalling is 504', async (t) => {
  const failing = await stub(t, 'echo "ERROR: [youtube] abc: Video unavailable" >&2; exit 1');
  const h1 = await startHarness(t, { env: { TRACKSCAN_YTDLP: failing.path }, deps: { resolve } });
  const r1 = await postUrl(h1, { url: 'https://soundcloud.com/artist/track' });
  const p1 = await problemOf(r1);
  assert.equal(r1.status, 502);
  assert.equal(p1.code, 'upstream_failed');
  assert.match(p1.detail, /Video unavailable/);

  // A real MP3 followed by an endless stream: only the byte cap can stop it.
  const dir = await makeTempDir(t);
  const mp3 = join(dir, 'song.mp3');
  await writeFile(mp3, await makeAudio(t, 'mp3', 3));
  const endless = await stub(t, `cat '${mp3}'; exec cat /dev/zero`);
  const h2 = await startHarness(t, { env: { TRACKSCAN_YTDLP: endless.path, TRACKSCAN_MAX_DOWNLOAD_BYTES: '256K' }, deps: { resolve } });
  const r2 = await postUrl(h2, { url: 'https://soundcloud.com/artist/track' });
  assert.equal(r2.status, 413, (await problemOf(r2.clone())).detail);

  const stalling = await stub(t, 'exec sleep 30');
  const h3 = await startHarness(t, { env: { TRACKSCAN_YTDLP: stalling.path, TRACKSCAN_DOWNLOAD_TIMEOUT_MS: '500' }, deps: { resolve } });
  const started = performance.now();
  const r3 = await postUrl(h3, { url: 'https://soundcloud.com/artist/track' });
  assert.equal(r3.status, 504, (await problemOf(r3.clone())).detail);
  assert.ok(performance.now() - started < 5000);
});

test('only the configured hosts and their subdomains go to yt-dlp', () => {
  const options = { path: 'yt-dlp', hosts: ['youtube.com', 'soundcloud.com'] };
  assert.equal(wantsYtDlp(new URL('https://m.youtube.com/watch?v=1'), options), true);
  assert.equal(wantsYtDlp(new URL('https://YOUTUBE.COM./watch?v=1'), options), true);
  assert.equal(wantsYtDlp(new URL('https://notyoutube.com/x'), options), false);
  assert.equal(wantsYtDlp(new URL('https://youtube.com.evil.example/x'), options), false);
  assert.equal(wantsYtDlp(new URL('https://www.youtube.com/x'), null), false);
});
