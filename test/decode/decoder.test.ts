/** The real ffmpeg on real files of every accepted format, good and bad. */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';

import { analyzeStream, DEFAULT_SWITCHES } from '../../src/analysis/analyze-stream.js';
import { openDecoder } from '../../src/decode/decoder.js';
import { AppError } from '../../src/errors.js';
import { childFfmpegCount, ENCODINGS, ffmpeg, makeTempDir, musicSource } from '../helpers/media.js';

async function decodeAll(path: string): Promise<{ format: string; codec: string | null; rate: number; channels: number; frames: number }> {
  const d = await openDecoder(createReadStream(path));
  let samples = 0;
  for await (const chunk of d.frames()) samples += chunk.length;
  return { format: d.format, codec: d.codec, rate: d.sampleRate, channels: d.channels, frames: samples / d.channels };
}

const expectedFormat: Record<string, string> = {
  'mp3': 'mp3', 'm4a': 'mp4', 'm4a-moov-last': 'mp4', 'aac': 'aac', 'wav': 'wav', 'wav-float': 'wav',
  'flac': 'flac', 'ogg': 'ogg', 'ogg-opus': 'ogg', 'opus': 'ogg', 'webm': 'webm',
};

test('every accepted format decodes to PCM at its own rate and channel count', async (t) => {
  const dir = await makeTempDir(t);
  for (const [name, args] of Object.entries(ENCODINGS)) {
    const path = join(dir, `music.${name}`);
    await ffmpeg(...musicSource(6, 48000), ...args, path);
    const r = await decodeAll(path);
    assert.equal(r.format, expectedFormat[name], name);
    assert.equal(r.channels, 2, name);
    assert.equal(r.rate, 48000, name);
    // Lossy codecs add priming/padding; within 0.1 s is the whole file.
    assert.ok(Math.abs(r.frames / 48000 - 6) < 0.1, `${name}: ${r.frames / 48000} s`);
    assert.ok(r.codec, `${name}: codec`);
  }
  assert.equal(await childFfmpegCount(), 0);
});

test('finds the audio behind cover art and video streams', async (t) => {
  const dir = await makeTempDir(t);
  const art = join(dir, 'cover.png');
  await ffmpeg('-f', 'lavfi', '-i', 'color=red:s=64x64:d=1', '-frames:v', '1', art);
  const withArt = join(dir, 'with-art.mp3');
  await ffmpeg(...musicSource(3), '-i', art, '-map', '1:v', '-map', '0:a', '-c:v', 'png', '-disposition:v', 'attached_pic', '-c:a', 'libmp3lame', withArt);
  const videoFirst = join(dir, 'video-first.mp4');
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=160x120:d=3', ...musicSource(3), '-map', '0:v', '-map', '1:a', '-c:v', 'mpeg4', '-c:a', 'aac', videoFirst);
  for (const path of [withArt, videoFirst]) {
    const r = await decodeAll(path);
    assert.ok(Math.abs(r.frames / r.rate - 3) < 0.1, `${path}: ${r.frames / r.rate} s`);
  }
});

async function expectError(bytes: Buffer | string, code: string, pattern?: RegExp): Promise<void> {
  const source = typeof bytes === 'string' ? createReadStream(bytes) : Readable.from([bytes]);
  await assert.rejects(analyzeStream(source, DEFAULT_SWITCHES), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

test('what is not audio is 415, whatever its bytes', async () => {
  await expectError(Buffer.alloc(0), 'unsupported_media_type', /empty/);
  await expectError(Buffer.from('<!doctype html><html><body>hello</body></html>'), 'unsupported_media_type');
  await expectError(Buffer.from('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj'), 'unsupported_media_type');
  for (let seed = 1; seed <= 5; seed++) {
    const random = Buffer.from(Buffer.alloc(4096, 0).map((_, i) => (Math.imul(i + 1, 2654435761 * seed) >>> 13) & 0xff));
    random[0] = 0x00; // random data that happens to start like no known format
    await expectError(random, 'unsupported_media_type');
  }
  assert.equal(await childFfmpegCount(), 0);
});

test('truncated, damaged or audio-less files are 422 and leave no ffmpeg behind', async (t) => {
  const dir = await makeTempDir(t);
  const cases: [string, (b: Buffer) => Buffer][] = [
    ['flac', (b) => b.subarray(0, Math.floor(b.length / 2))],
    ['m4a-moov-last', (b) => b.subarray(0, Math.floor(b.length / 2))],
    ['m4a', (b) => b.subarray(0, Math.floor(b.length / 3))],
    ['wav', (b) => b.subarray(0, Math.floor(b.length / 2))],
    ['ogg', (b) => Buffer.concat([b.subarray(0, 200), Buffer.alloc(b.length - 200, 0x55)])],
    ['mp3', (b) => Buffer.concat([b.subarray(0, 4), Buffer.alloc(4096, 0xaa)])],
  ];
  for (const [name, damage] of cases) {
    const path = join(dir, `music.${name}`);
    await ffmpeg(...musicSource(8), ...ENCODINGS[name]!, path);
    await expectError(damage(await readFile(path)), 'undecodable_audio');
  }
  const videoOnly = join(dir, 'video-only.mp4');
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=160x120:d=1', '-c:v', 'mpeg4', videoOnly);
  await expectError(videoOnly, 'undecodable_audio', /no audio stream/);
  assert.equal(await childFfmpegCount(), 0);
});

test('an abort mid-decode ends ffmpeg at once', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'long.flac');
  await ffmpeg(...musicSource(120), ...ENCODINGS.flac!, path);
  const controller = new AbortController();
  const slow = Readable.from(
    (async function* trickle() {
      const bytes = await readFile(path);
      for (let i = 0; i < bytes.length; i += 16384) {
        yield bytes.subarray(i, i + 16384);
        await sleep(5);
      }
    })(),
  );
  const running = analyzeStream(slow, { ...DEFAULT_SWITCHES, signal: controller.signal });
  await sleep(300);
  assert.equal(await childFfmpegCount(), 1);
  controller.abort(new Error('client went away'));
  await assert.rejects(running, /client went away/);
  assert.equal(await childFfmpegCount(), 0);
});

test('ffmpeg killed mid-decode: 503 unavailable (not the file\'s fault), nothing left behind', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'long.flac');
  await ffmpeg(...musicSource(60), ...ENCODINGS.flac!, path);
  const slow = Readable.from(
    (async function* trickle() {
      const bytes = await readFile(path);
      for (let i = 0; i < bytes.length; i += 16384) {
        yield bytes.subarray(i, i + 16384);
        await sleep(5);
      }
    })(),
  );
  const running = analyzeStream(slow, DEFAULT_SWITCHES);
  await sleep(300);
  const { execFileSync } = await import('node:child_process');
  const pid = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .find((l) => /ffmpeg/.test(l))
    ?.trim()
    .split(/\s+/)[0];
  assert.ok(pid, 'ffmpeg is running');
  process.kill(Number(pid), 'SIGKILL');
  await assert.rejects(running, (err: unknown) => err instanceof AppError && err.code === 'unavailable' && err.status === 503);
  assert.equal(await childFfmpegCount(), 0);
});

test('the duration limit is 413, enforced while decoding', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'ten-seconds.flac');
  await ffmpeg(...musicSource(10), ...ENCODINGS.flac!, path);
  await assert.rejects(analyzeStream(createReadStream(path), { ...DEFAULT_SWITCHES, maxDurationSeconds: 5 }), (err: unknown) => {
    assert.ok(err instanceof AppError && err.code === 'payload_too_large');
    return true;
  });
  assert.equal(await childFfmpegCount(), 0);
  // A file that decodes to hours from a few kilobytes is stopped early as well.
  const tiny = join(dir, 'silence.flac');
  await ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '600', '-c:a', 'flac', tiny);
  await writeFile(join(dir, 'marker'), '');
  await assert.rejects(analyzeStream(createReadStream(tiny), { ...DEFAULT_SWITCHES, maxDurationSeconds: 60 }), /longer than the limit/);
});
