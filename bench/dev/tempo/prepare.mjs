// Decodes every labelled item of a manifest to mono float32 at 11025 Hz (the
// analysis rate) under $TMPDIR/trackscan-tempo-pcm, and writes a list file
// "pcm_path label_bpm group name" per line for tempo_eval (see eval.sh).
//   node bench/dev/tempo/prepare.mjs MANIFEST LIST_OUT
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';

const manifest = resolve(process.argv[2] ?? '../shared/eval/manifest.jsonl');
const out = process.argv[3] ?? join(tmpdir(), 'tempo-eval.list');
const cache = join(tmpdir(), 'trackscan-tempo-pcm');
mkdirSync(cache, { recursive: true });
const lines = [];
for (const l of readFileSync(manifest, 'utf8').trim().split('\n')) {
  const item = JSON.parse(l);
  const src = join(dirname(manifest), item.path);
  const pcm = join(cache, createHash('md5').update(src).digest('hex') + '.f32');
  if (!existsSync(pcm)) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', src, '-f', 'f32le', '-ac', '1', '-ar', '11025', pcm]);
  }
  lines.push(`${pcm} ${item.bpm ?? 0} ${item.group} ${basename(item.path)}`);
}
writeFileSync(out, lines.join('\n') + '\n');
console.log(`${lines.length} items -> ${out}`);
