/** `trackscan analyze FILE...`: the analysis object per file, as JSON or a summary. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { analyzeStream } from '../analysis/analyze-stream.js';
import { camelot, openKey, TONICS } from '../analysis/key-names.js';
import type { AnalysisObject } from '../analysis/types.js';
import { AppError } from '../errors.js';

const HELP = `Usage: trackscan analyze FILE... [options]

Analyse audio files: tempo, key, tuning and EBU R128 loudness. "-" reads
standard input. Accepted: MP3, M4A/MP4, AAC, WAV, FLAC, OGG Vorbis/Opus, WebM.

Options:
  --json       Print the analysis object of the API (one file: an object;
               several: an array of {file, analysis} or {file, error})
  --details    Include details (beats, candidates, loudness curve, ...)
  --no-bpm     Skip tempo       --no-key   Skip key       --no-hz   Skip tuning
  -h, --help   Show this help

Exit status: 0 when every file was analysed, 1 when any failed, 2 on bad usage.`;

type Outcome = { file: string; analysis: AnalysisObject } | { file: string; error: AppError | Error };

async function analyzeOne(file: string, switches: { detectBpm: boolean; detectKey: boolean; detectHz: boolean; details: boolean }): Promise<Outcome> {
  try {
    let source: NodeJS.ReadableStream;
    if (file === '-') {
      source = process.stdin;
    } else {
      const info = await stat(file);
      if (!info.isFile()) throw new AppError('invalid_request', `${file} is not a file`);
      source = createReadStream(file);
    }
    const analysis = await analyzeStream(source as unknown as AsyncIterable<Buffer>, switches);
    return { file, analysis };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, error: new AppError('invalid_request', 'no such file') };
    if (code === 'EACCES') return { file, error: new AppError('invalid_request', 'permission denied') };
    return { file, error: err as Error };
  }
}

const fixed = (v: number | null, digits: number, unit: string): string => (v === null ? 'n/a' : `${v.toFixed(digits)}${unit}`);
const conf = (v: number | null): string => (v === null ? '' : `  (confidence ${v.toFixed(2)})`);

function summary(file: string, a: AnalysisObject): string {
  const lines = [file];
  lines.push(`  tempo     ${a.bpm === null ? 'no steady pulse found' : `${a.bpm.toFixed(1)} BPM`}${conf(a.bpm_confidence)}`);
  let key = 'no clear key';
  if (a.key !== null) {
    const [tonic, mode] = a.key.split(' ');
    const pc = TONICS.indexOf(tonic as (typeof TONICS)[number]);
    key = `${a.key} (${camelot(pc, mode === 'minor')}, ${openKey(pc, mode === 'minor')})`;
  }
  lines.push(`  key       ${key}${conf(a.key_confidence)}`);
  const cents = a.hz === null ? '' : ` (${(1200 * Math.log2(a.hz / 440)).toFixed(1)} cents from 440)`;
  lines.push(`  tuning    ${a.hz === null ? 'n/a' : `A4 = ${a.hz.toFixed(1)} Hz${cents}`}${conf(a.hz_confidence)}`);
  const d = a.loudness_detail;
  lines.push(
    `  loudness  ${a.lufs === null ? 'silent (no loudness)' : `${a.lufs.toFixed(1)} LUFS`}, range ${fixed(d.loudness_range, 1, ' LU')}, ` +
      `true peak ${fixed(d.true_peak_dbtp, 1, ' dBTP')}, sample peak ${fixed(d.sample_peak_dbfs, 1, ' dBFS')}`,
  );
  if (a.details) {
    const s = a.details.duration_s;
    const dur = `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
    lines.push(`  audio     ${dur}, ${a.details.sample_rate} Hz, ${a.details.channels} ch, ${a.details.codec ?? a.details.format}`);
  }
  lines.push(`  analysed in ${a.analysis_time.toFixed(2)} s (analyzer ${a.analyzer_version})`);
  return lines.join('\n');
}

function describeError(file: string, err: Error): string {
  if (err instanceof AppError) return `trackscan: ${file}: ${err.message} [${err.code}]`;
  return `trackscan: ${file}: ${err.message}`;
}

export async function runAnalyze(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        details: { type: 'boolean', default: false },
        'no-bpm': { type: 'boolean', default: false },
        'no-key': { type: 'boolean', default: false },
        'no-hz': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`trackscan analyze: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (positionals.length === 0) {
    process.stderr.write(`trackscan analyze: no file given\n\n${HELP}\n`);
    return 2;
  }
  if (positionals.filter((f) => f === '-').length > 1) {
    process.stderr.write('trackscan analyze: standard input ("-") can be read only once\n');
    return 2;
  }
  const switches = { detectBpm: !values['no-bpm'], detectKey: !values['no-key'], detectHz: !values['no-hz'], details: values.details };
  const outcomes: Outcome[] = [];
  for (const file of positionals) {
    const outcome = await analyzeOne(file, switches);
    outcomes.push(outcome);
    if ('error' in outcome) process.stderr.write(`${describeError(file, outcome.error)}\n`);
    else if (!values.json) process.stdout.write(`${summary(file, outcome.analysis)}\n`);
  }
  if (values.json) {
    const json = (o: Outcome): unknown =>
      'analysis' in o
        ? { file: o.file, analysis: o.analysis }
        : { file: o.file, error: o.error instanceof AppError ? o.error.toProblem() : { detail: o.error.message } };
    const only = outcomes[0];
    if (outcomes.length === 1 && only && 'analysis' in only) process.stdout.write(`${JSON.stringify(only.analysis)}\n`);
    else if (outcomes.length > 1) process.stdout.write(`${JSON.stringify(outcomes.map(json))}\n`);
  }
  return outcomes.every((o) => 'analysis' in o) ? 0 : 1;
}
