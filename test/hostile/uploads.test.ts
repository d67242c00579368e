/**
 * Hostile uploads against a real server (issue 5): each gets SPEC.md's status
 * and code, the server stays up, no ffmpeg is left behind, and memory comes
 * back to its baseline.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import { childFfmpegCount, ENCODINGS, ffmpeg, makeTempDir, musicSource } from '../helpers/media.js';
import { multipart, postFile, postUrl, problemOf, startHarness, type Harness } from '../http/helpers/harness.js';

interface Outcome {
  name: string;
  status: number;
  code: string | null;
}

async function outcome(name: string, res: Response): Promise<Outcome> {
  if (res.ok) {
    const body = (await res.json()) as { lufs: unknown; analyzer_version: unknown };
    assert.equal(typeof body.analyzer_version, 'string', name);
    return { name, status: res.status, code: null };
  }
  return { name, status: res.status, code: (await problemOf(res)).code };
}

/** Deterministic noise that starts like no known format. */
function noise(bytes: number, seed: number): Buffer {
  const out = Buffer.alloc(bytes);
  let x = seed * 2654435761;
  for (let i = 0; i < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  out[0] = 0x00;
  return out;
}

function floatWav(samples: Float32Array, rate: number, channels: number, declaredDataBytes?: number): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(3, 20); // IEEE float
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * channels * 4, 28);
  header.writeUInt16LE(channels * 4, 32);
  header.writeUInt16LE(32, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(declaredDataBytes ?? data.length, 40);
  return Buffer.concat([header, data]);
}

function tone(seconds: number, rate: number, channels: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate) * channels);
  for (let i = 0; i < out.length; i++) out[i] = 0.25 * Math.sin((2 * Math.PI * 440 * Math.floor(i / channels)) / rate);
  return out;
}

/** Sends raw bytes as the body of a POST, with the given headers. */
async function rawPost(h: Harness, path: string, body: Buffer, headers: Record<string, string>): Promise<Response> {
  return h.call(path, { method: 'POST', body, headers });
}

test('hostile uploads and bodies: the right status and code for each, the server stays whole', async (t) => {
  const h = await startHarness(t, { env: { TRACKSCAN_MAX_DURATION_SECONDS: '600', TRACKSCAN_MAX_UPLOAD_BYTES: '20MiB' } });
  const dir = await makeTempDir(t);
  const expected: { name: string; status: number | number[]; code: string | null | (string | null)[] }[] = [];
  const outcomes: Outcome[] = [];
  const expect = async (name: string, res: Promise<Response>, status: number | number[], code: string | null | (string | null)[]): Promise<void> => {
    expected.push({ name, status, code });
    outcomes.push(await outcome(name, await res));
  };

  // Warm up (addon loaded, pool started) before the memory baseline.
  const good = join(dir, 'good.flac');
  await ffmpeg(...musicSource(10), ...ENCODINGS.flac!, good);
  await expect('a good file', postFile(h, await readFile(good)), 200, null);
  global.gc?.();
  const baseline = process.memoryUsage().rss;

  await expect('empty file', postFile(h, Buffer.alloc(0)), 415, 'unsupported_media_type');
  for (const ext of ['mp3', 'm4a', 'wav', 'flac', 'ogg', 'aac', 'webm', 'opus']) {
    const form = new FormData();
    form.append('file', new Blob([noise(50_000, ext.length)], { type: `audio/${ext}` }), `random.${ext}`);
    await expect(`random bytes named .${ext}`, h.call('/analyze/file', { method: 'POST', body: form }), 415, 'unsupported_media_type');
  }

  for (const name of ['mp3', 'flac', 'ogg', 'm4a', 'wav']) {
    const path = join(dir, `music.${name}`);
    await ffmpeg(...musicSource(8), ...ENCODINGS[name]!, path);
    const bytes = await readFile(path);
    // Cut in the middle of the media. MP3 and Ogg declare no length: cut
    // anywhere they still decode to whole frames or pages without an error
    // (README: decoding choices), so they are analysed as the shorter file.
    const streamable = name === 'mp3' || name === 'ogg';
    await expect(`truncated ${name}`, postFile(h, bytes.subarray(0, Math.floor(bytes.length * 0.6))), streamable ? 200 : 422, streamable ? null : 'undecodable_audio');
    // Flipped bits: some damage is decodable, some is not; never a crash or a 5xx.
    const flipped = Buffer.from(bytes);
    for (let i = 1000; i < flipped.length; i += 997) flipped[i]! ^= 1 << i % 8;
    await expect(`bit-flipped ${name}`, postFile(h, flipped), [200, 415, 422], [null, 'undecodable_audio', 'unsupported_media_type']);
  }

  await expect('WAV header claiming 4 GB', postFile(h, floatWav(tone(1, 44100, 2), 44100, 2, 0xfffffff0)), 422, 'undecodable_audio');
  const hours = join(dir, 'hours-of-silence.flac');
  await ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '7200', '-c:a', 'flac', '-compression_level', '8', hours);
  await expect('a small file that decodes to two hours', postFile(h, await readFile(hours)), 413, 'payload_too_large');
  await expect('1 ms of audio', postFile(h, floatWav(tone(0.001, 48000, 2), 48000, 2)), 200, null);
  const nan = tone(3, 44100, 2);
  nan.fill(NaN, 1000, 2000);
  nan.fill(Infinity, 5000, 5100);
  nan.fill(-Infinity, 9000, 9100);
  await expect('NaN and Inf samples', postFile(h, floatWav(nan, 44100, 2)), 200, null);
  await expect('1 channel', postFile(h, floatWav(tone(3, 44100, 1), 44100, 1)), 200, null);
  await expect('8 channels', postFile(h, floatWav(tone(3, 48000, 8), 48000, 8)), 200, null);
  await expect('8 kHz', postFile(h, floatWav(tone(3, 8000, 1), 8000, 1)), 200, null);
  await expect('192 kHz', postFile(h, floatWav(tone(3, 192000, 2), 192000, 2)), 200, null);

  const wav = floatWav(tone(1, 44100, 1), 44100, 1);
  const noFile = multipart([{ name: 'detect_bpm', body: 'true' }]);
  await expect('multipart without a file', rawPost(h, '/analyze/file', noFile.body, { 'content-type': noFile.contentType }), 400, 'invalid_request');
  const twoFiles = multipart([{ name: 'file', filename: 'a.wav', body: wav }, { name: 'file', filename: 'b.wav', body: wav }]);
  await expect('two files', rawPost(h, '/analyze/file', twoFiles.body, { 'content-type': twoFiles.contentType }), 400, 'invalid_request');
  const hugeField = multipart([{ name: 'detect_bpm', body: 'x'.repeat(2_000_000) }, { name: 'file', filename: 'a.wav', body: wav }]);
  await expect('a huge text field', rawPost(h, '/analyze/file', hugeField.body, { 'content-type': hugeField.contentType }), [400, 413], ['invalid_request', 'payload_too_large']);
  const good1 = multipart([{ name: 'file', filename: 'a.wav', body: wav }], 'right-boundary');
  await expect('a wrong boundary', rawPost(h, '/analyze/file', good1.body, { 'content-type': 'multipart/form-data; boundary=wrong-boundary' }), 400, 'invalid_request');
  await expect('no boundary', rawPost(h, '/analyze/file', good1.body, { 'content-type': 'multipart/form-data' }), 400, 'invalid_request');
  const unterminated = Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n'), wav]);
  await expect('a file part that never ends', rawPost(h, '/analyze/file', unterminated, { 'content-type': 'multipart/form-data; boundary=b' }), [400, 422], ['invalid_request', 'undecodable_audio']);
  await expect('not multipart at all', rawPost(h, '/analyze/file', wav, { 'content-type': 'audio/wav' }), [400, 415], ['invalid_request', 'unsupported_media_type']);

  await expect('malformed JSON', postUrl(h, '{"url": "http://example.com/a.mp3"'), 400, 'invalid_request');
  await expect('huge JSON', postUrl(h, JSON.stringify({ url: 'http://example.com/a.mp3', pad: 'x'.repeat(5_000_000) })), [400, 413], ['invalid_request', 'payload_too_large']);
  await expect('deeply nested JSON', postUrl(h, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`), [400, 413], ['invalid_request', 'payload_too_large']);
  await expect('url of the wrong type', postUrl(h, { url: 42 }), 400, 'invalid_request');
  await expect('detect_bpm of the wrong type', postUrl(h, { url: 'http://example.com/a.mp3', detect_bpm: 'yes' }), 400, 'invalid_request');
  await expect('an array body', postUrl(h, [1, 2, 3]), 400, 'invalid_request');

  // Every case as expected.
  const wrong = outcomes.filter((o, i) => {
    const e = expected[i]!;
    const statuses = Array.isArray(e.status) ? e.status : [e.status];
    const codes = Array.isArray(e.code) ? e.code : [e.code];
    return !statuses.includes(o.status) || !codes.includes(o.code);
  });
  assert.deepEqual(wrong, [], `answered unlike SPEC.md:\n${wrong.map((o) => `${o.name}: ${o.status} ${o.code}`).join('\n')}`);
  t.diagnostic(`${outcomes.length} hostile cases, all answered as SPEC.md says`);

  // The server is still up and healthy, and nothing is left running.
  const health = await h.call('/health', { key: null });
  assert.equal(health.status, 200);
  assert.equal(await childFfmpegCount(), 0);
  global.gc?.();
  const grown = (process.memoryUsage().rss - baseline) / 2 ** 20;
  assert.ok(grown < 150, `RSS grew by ${grown.toFixed(0)} MiB over the hostile cases`);
});
