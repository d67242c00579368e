/**
 * Integrated loudness agrees with ffmpeg's own EBU R128 meter within 0.1 LU
 * on real music (../shared/eval, when present beside the repository) and on
 * generated music in every accepted format.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ENCODINGS, ffmpeg, ffmpegIntegratedLufs, makeTempDir, musicSource, root, runCli } from '../helpers/media.js';

async function compare(files: string[]): Promise<{ file: string; ours: number; theirs: number }[]> {
  const r = await runCli(['analyze', '--json', '--no-bpm', '--no-key', '--no-hz', ...files]);
  assert.equal(r.code, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as { analysis: { lufs: number } } | { analysis: { lufs: number } }[];
  const out = Array.isArray(parsed) ? parsed : [parsed];
  return Promise.all(files.map(async (file, i) => ({ file, ours: out[i]!.analysis.lufs, theirs: await ffmpegIntegratedLufs(file) })));
}

test('generated music in every accepted format: within 0.1 LU of ffmpeg ebur128', async (t) => {
  const dir = await makeTempDir(t);
  const files = await Promise.all(
    Object.entries(ENCODINGS).map(async ([name, args]) => {
      const path = join(dir, `music.${name}`);
      await ffmpeg(...musicSource(12, 44100), ...args, path);
      return path;
    }),
  );
  for (const { file, ours, theirs } of await compare(files)) {
    assert.ok(Math.abs(ours - theirs) <= 0.1, `${file}: ours ${ours}, ffmpeg ${theirs}`);
  }
});

const evalDir = join(root, '..', 'shared', 'eval');
test('real recordings of ../shared/eval: within 0.1 LU of ffmpeg ebur128', { skip: !existsSync(evalDir) && 'no ../shared/eval beside the repository' }, async () => {
  const files = readFileSync(join(evalDir, 'manifest.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => join(evalDir, (JSON.parse(line) as { path: string }).path));
  const results = await compare(files);
  const worst = results.reduce((w, r) => (Math.abs(r.ours - r.theirs) > Math.abs(w.ours - w.theirs) ? r : w));
  for (const { file, ours, theirs } of results) {
    assert.ok(Math.abs(ours - theirs) <= 0.1, `${file}: ours ${ours}, ffmpeg ${theirs}`);
  }
  assert.equal(results.length, files.length);
  assert.ok(Math.abs(worst.ours - worst.theirs) <= 0.1);
});
