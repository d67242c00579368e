import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { writeWav } from '../fixtures/wav.js';
import { makeTempDir, root } from '../helpers/media.js';

const execFileAsync = promisify(execFile);
const RATE = 8000;

/** A ramp from 0 at t = 0 to 0.5 at the end: a sample's value tells where in the piece it was. */
function ramp(seconds: number): Float32Array {
  const n = seconds * RATE;
  return Float32Array.from({ length: n }, (_, i) => (0.5 * i) / n);
}

async function excerpts(manifest: string, out: string, seed: string): Promise<Record<string, unknown>[]> {
  await execFileAsync(process.execPath, [join(root, 'dist/bench/accuracy/excerpts.js'), manifest, '--out', out, '--seconds', '4', '--seed', seed]);
  return readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('excerpts keep the labels, skip short and unlabelled pieces, and cut where the manifest says', async (t) => {
  const dir = await makeTempDir(t);
  writeWav(join(dir, 'long.wav'), ramp(20), RATE, 1, 'pcm16');
  writeWav(join(dir, 'short.wav'), ramp(3), RATE, 1, 'pcm16');
  writeWav(join(dir, 'unlabelled.wav'), ramp(20), RATE, 1, 'pcm16');
  const line = (path: string, seconds: number, labelled: boolean) => JSON.stringify({
    path, bpm: labelled ? 120 : null, key: labelled ? 'F# minor' : null, hz: labelled ? 440 : null, lufs: -14,
    duration_s: seconds, sample_rate: RATE, channels: 1, group: 'g',
  });
  writeFileSync(join(dir, 'manifest.jsonl'), [line('long.wav', 20, true), line('short.wav', 3, true), line('unlabelled.wav', 20, false)].join('\n'));

  const first = await excerpts(join(dir, 'manifest.jsonl'), join(dir, 'a'), '1');
  assert.equal(first.length, 1);
  const e = first[0]!;
  assert.equal(e.bpm, 120);
  assert.equal(e.key, 'F# minor');
  assert.equal(e.hz, 440);
  assert.equal(e.lufs, null);
  assert.equal(e.duration_s, 4);
  assert.equal(e.group, 'g-x4');
  const offset = Number(/excerpt at ([\d.]+) s of long\.wav/.exec(String(e.notes))?.[1]);
  assert.ok(offset >= 0 && offset <= 16, `offset ${offset}`);

  // The excerpt is 4 s long and starts where the note says: the ramp's value there.
  const { stdout } = await execFileAsync('ffmpeg', ['-v', 'error', '-i', join(dir, 'a', String(e.path)), '-f', 'f32le', '-ac', '1', '-'], { encoding: 'buffer', maxBuffer: 1 << 24 });
  const pcm = new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
  assert.equal(pcm.length, 4 * RATE);
  assert.ok(Math.abs(pcm[0]! - (0.5 * offset) / 20) < 0.001, `first sample ${pcm[0]} for offset ${offset}`);

  // The same seed gives the same cut; another seed moves it.
  const again = await excerpts(join(dir, 'manifest.jsonl'), join(dir, 'b'), '1');
  assert.equal(again[0]!.notes, e.notes);
  assert.equal(again[0]!.md5, e.md5);
  const other = await excerpts(join(dir, 'manifest.jsonl'), join(dir, 'c'), '2');
  assert.notEqual(other[0]!.notes, e.notes);
});
