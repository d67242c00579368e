// Tempo Acc1/Acc2 through the whole native analyzer (front end included):
// decodes each manifest item at its own rate and channel count, pipes it to
// analyze_pcm from a CMake build dir, and scores bpm against the label.
//   node bench/dev/tempo/eval_analyzer.mjs [MANIFEST] [BUILD_DIR]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';

const manifest = resolve(process.argv[2] ?? '../shared/eval/manifest.jsonl');
const build = resolve(process.argv[3] ?? 'build-tempo');
const items = readFileSync(manifest, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((i) => i.bpm);

function run(item) {
  return new Promise((res, rej) => {
    const src = join(dirname(manifest), item.path);
    const dec = spawn('ffmpeg', ['-v', 'error', '-i', src, '-f', 'f32le', '-ac', String(item.channels), '-ar', String(item.sample_rate), '-']);
    const an = spawn(join(build, 'analyze_pcm'), [String(item.sample_rate), String(item.channels)]);
    dec.stdout.pipe(an.stdin);
    let out = '';
    an.stdout.on('data', (d) => (out += d));
    an.on('close', (code) => (code === 0 ? res(JSON.parse(out)) : rej(new Error(`${item.path}: exit ${code}`))));
  });
}
const acc1 = (e, l) => e != null && Math.abs(e - l) <= 0.04 * l;
const acc2 = (e, l) => [1, 2, 0.5, 3, 1 / 3].some((m) => acc1(e, l * m));
const rows = new Array(items.length);
let next = 0;
async function worker() {
  while (next < items.length) {
    const i = next++;
    rows[i] = { item: items[i], r: await run(items[i]) };
  }
}
await Promise.all([worker(), worker()]);
let a1 = 0, a2 = 0;
for (const { item, r } of rows) {
  a1 += acc1(r.bpm, item.bpm);
  a2 += acc2(r.bpm, item.bpm);
  console.log(`${basename(item.path).padEnd(44)} ${String(item.bpm).padStart(7)} ${String(r.bpm?.toFixed(2)).padStart(7)} ${r.bpm_confidence?.toFixed(3)}`);
}
const sorted = rows.map(({ item, r }) => ({ c: r.bpm_confidence ?? 0, ok: acc1(r.bpm, item.bpm) })).sort((x, y) => y.c - x.c);
const h = Math.floor(sorted.length / 2);
const top = sorted.slice(0, h).filter((x) => x.ok).length, bot = sorted.slice(sorted.length - h).filter((x) => x.ok).length;
console.log(`N=${rows.length} Acc1=${((100 * a1) / rows.length).toFixed(1)}% Acc2=${((100 * a2) / rows.length).toFixed(1)}% confident half ${((100 * top) / h).toFixed(1)}% vs ${((100 * bot) / h).toFixed(1)}%`);
