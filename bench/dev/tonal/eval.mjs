// Quick key/tuning check over a manifest (default ../shared/eval/manifest.jsonl)
// with native/tools/analyze_pcm from a CMake build dir (default build-tonal).
//   node bench/dev/tonal/eval.mjs [MANIFEST] [BUILD_DIR]
// Decoded PCM is cached under $TMPDIR/trackscan-tonal-pcm (never in the repo).
// Env passes through to analyze_pcm (for trying settings).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, createReadStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';

const manifest = resolve(process.argv[2] ?? '../shared/eval/manifest.jsonl');
const build = resolve(process.argv[3] ?? 'build-tonal');
const cache = join(tmpdir(), 'trackscan-tonal-pcm');
mkdirSync(cache, { recursive: true });
const NAMES = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'];
const PC = { C: 0, 'C#': 1, Db: 1, D: 2, 'D#': 3, Eb: 3, E: 4, F: 5, 'F#': 6, Gb: 6, G: 7, 'G#': 8, Ab: 8, A: 9, 'A#': 10, Bb: 10, B: 11 };

function parseKey(s) {
  const [t, m] = s.split(' ');
  return { tonic: PC[t], minor: m === 'minor' };
}
// MIREX weighted score of estimate e against reference r.
function mirex(e, r) {
  if (e.minor === r.minor && e.tonic === r.tonic) return 1;
  if (e.minor === r.minor && ((e.tonic - r.tonic + 12) % 12 === 7 || (r.tonic - e.tonic + 12) % 12 === 7)) return 0.5;
  if (!r.minor && e.minor && e.tonic === (r.tonic + 9) % 12) return 0.3;
  if (r.minor && !e.minor && e.tonic === (r.tonic + 3) % 12) return 0.3;
  if (e.minor !== r.minor && e.tonic === r.tonic) return 0.2;
  return 0;
}

function run(item) {
  const src = join(dirname(manifest), item.path);
  const id = createHash('md5').update(src).digest('hex');
  const pcm = join(cache, `${id}.f32`);
  const rate = item.sample_rate, ch = item.channels;
  if (!existsSync(pcm)) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', src, '-f', 'f32le', '-ac', String(ch), '-ar', String(rate), pcm]);
  }
  return new Promise((res, rej) => {
    const p = spawn(join(build, 'analyze_pcm'), [String(rate), String(ch)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? res({ ...JSON.parse(out), debug: err.trim() }) : rej(new Error(err))));
    createReadStream(pcm).pipe(p.stdin);
  });
}

const items = readFileSync(manifest, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const results = new Array(items.length);
let next = 0;
async function worker() {
  while (next < items.length) {
    const i = next++;
    results[i] = await run(items[i]);
  }
}
await Promise.all([worker(), worker()]);

let n = 0, sum = 0, exact = 0;
const conf = [];
const cents = [];
const speed = [];
for (let i = 0; i < items.length; i++) {
  const it = items[i], r = results[i];
  speed.push((r.analysis_s / r.duration_s) * 60);
  const est = r.key_tonic === null ? null : { tonic: r.key_tonic, minor: r.key_minor };
  let line = `${it.path.padEnd(48)} `;
  if (it.key) {
    const ref = parseKey(it.key);
    const s = est ? mirex(est, ref) : 0;
    n++; sum += s; if (s === 1) exact++;
    conf.push([r.key_confidence ?? 0, s === 1 ? 1 : 0]);
    line += `ref ${it.key.padEnd(9)} `;
    line += `est ${est ? `${NAMES[est.tonic]} ${est.minor ? 'minor' : 'major'}` : 'none'}`.padEnd(15) + ` ${s.toFixed(1)}`;
  } else {
    line += `ref -         est ${est ? `${NAMES[est.tonic]} ${est.minor ? 'minor' : 'major'}` : 'none'}`.padEnd(34);
  }
  line += ` kc ${(r.key_confidence ?? 0).toFixed(2)} hz ${r.hz?.toFixed(2)} hc ${(r.hz_confidence ?? 0).toFixed(2)}`;
  if (it.hz) {
    let c = 1200 * Math.log2(r.hz / it.hz);
    c -= 100 * Math.round(c / 100);
    cents.push(Math.abs(c));
    line += ` tuning err ${c.toFixed(2)} c`;
  }
  if (r.debug) line += `  [${r.debug}]`;
  console.log(line);
}
// The harness's split (ties across the cut shared, odd middle left out), so
// the figures here and in bench/RESULTS.md agree; needs `npm run build:ts`.
const { confidenceInformativeness } = await import(resolve('dist/bench/accuracy/metrics.js'));
const split = confidenceInformativeness(conf.map(([confidence, score]) => ({ confidence, score })));
speed.sort((a, b) => a - b);
console.log(`key: n=${n} MIREX ${(100 * sum / n).toFixed(1)} % exact ${(100 * exact / n).toFixed(1)} %; ` +
  `confidence split (confident half exact minus the other half) ${split === null ? '-' : `${split >= 0 ? '+' : ''}${split.toFixed(1)}`} points`);
if (cents.length) console.log(`tuning |err| cents: ${cents.map((c) => c.toFixed(2)).join(' ')}`);
console.log(`speed: median ${speed[Math.floor(speed.length / 2)].toFixed(4)} s per minute (whole analyzer)`);
