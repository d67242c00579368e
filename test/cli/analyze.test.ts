/** `trackscan analyze` as a user runs it: the real command, real files. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import { ENCODINGS, ffmpeg, makeTempDir, musicSource, runCli } from '../helpers/media.js';

const ANALYSIS_KEYS = [
  'analysis_time', 'analyzer_version', 'bpm', 'bpm_confidence', 'cached', 'hz', 'hz_confidence', 'key',
  'key_confidence', 'loudness_detail', 'lufs',
].sort();

test('--json prints the analysis object of SPEC.md', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'music.mp3');
  await ffmpeg(...musicSource(8), ...ENCODINGS.mp3!, path);
  const r = await runCli(['analyze', path, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const a = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(a).sort(), ANALYSIS_KEYS);
  assert.equal(a.cached, false);
  assert.match(String(a.analyzer_version), /^\d+\.\d+\.\d+$/);
  assert.equal(typeof a.lufs, 'number');
  assert.deepEqual(Object.keys(a.loudness_detail as object).sort(), ['integrated_lufs', 'loudness_range', 'sample_peak_dbfs', 'true_peak_dbtp']);
});

test('--details adds the details object; --no-bpm/--no-key/--no-hz null their fields', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'music.flac');
  await ffmpeg(...musicSource(8, 44100), ...ENCODINGS.flac!, path);
  const r = await runCli(['analyze', path, '--json', '--details', '--no-bpm', '--no-key', '--no-hz']);
  assert.equal(r.code, 0, r.stderr);
  const a = JSON.parse(r.stdout) as { bpm: unknown; key: unknown; hz: unknown; bpm_confidence: unknown; details: Record<string, unknown> };
  assert.equal(a.bpm, null);
  assert.equal(a.bpm_confidence, null);
  assert.equal(a.key, null);
  assert.equal(a.hz, null);
  assert.equal(a.details.sample_rate, 44100);
  assert.equal(a.details.channels, 2);
  assert.equal(a.details.codec, 'flac');
  assert.equal(a.details.format, 'flac');
  assert.ok(Math.abs((a.details.duration_s as number) - 8) < 0.01);
  assert.equal((a.details.loudness_curve as unknown[]).length, 8);
});

test('reads standard input with "-"', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'music.ogg');
  await ffmpeg(...musicSource(5), ...ENCODINGS.ogg!, path);
  const r = await runCli(['analyze', '-', '--json'], await readFile(path));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(typeof (JSON.parse(r.stdout) as { lufs: unknown }).lufs, 'number');
});

test('a readable summary without --json', async (t) => {
  const dir = await makeTempDir(t);
  const path = join(dir, 'music.wav');
  await ffmpeg(...musicSource(5), ...ENCODINGS.wav!, path);
  const r = await runCli(['analyze', path]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /music\.wav\n\s+tempo .*\n\s+key .*\n\s+tuning .*\n\s+loudness\s+-?\d+\.\d LUFS/);
});

test('bad files: a clear message each, exit status 1, good files still analysed', async (t) => {
  const dir = await makeTempDir(t);
  const good = join(dir, 'good.flac');
  await ffmpeg(...musicSource(4), ...ENCODINGS.flac!, good);
  const r = await runCli(['analyze', '--json', good, join(dir, 'missing.mp3'), '/etc/hostname']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /missing\.mp3: no such file/);
  assert.match(r.stderr, /hostname: Not a supported audio format .*\[unsupported_media_type\]/);
  const out = JSON.parse(r.stdout) as { file: string; analysis?: unknown; error?: { code: string; status: number } }[];
  assert.equal(out.length, 3);
  assert.ok(out[0]!.analysis);
  assert.equal(out[2]!.error!.code, 'unsupported_media_type');
  assert.equal(out[2]!.error!.status, 415);
});

test('usage errors exit 2', async () => {
  assert.equal((await runCli(['analyze'])).code, 2);
  assert.equal((await runCli(['analyze', '--bogus', 'x'])).code, 2);
  assert.equal((await runCli(['frobnicate'])).code, 2);
  const help = await runCli(['analyze', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: trackscan analyze/);
});
