/**
 * "No answer is an answer" on real speech: espeak-ng (a formant speech
 * synthesizer from Debian) reads a paragraph in three languages at three
 * speeds, and `trackscan analyze` must not report a confident tempo, key or
 * tuning for any of them. The native tests check synthetic babble; this is
 * speech with real intonation, pauses and vowel formants, analysed by the
 * command a user runs.
 *
 * Below 0.3 is the bar the native tests use for "no confident answer"
 * (native/tests/tempo_test.cc, key_test.cc); the README says how to read it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { makeTempDir, runCli } from '../helpers/media.js';

const execFileAsync = promisify(execFile);

const TEXT =
  'Trackscan listens to a piece of music and tells you its tempo, key, tuning and loudness, each with a ' +
  'confidence. People call it over a web interface with a key of their own. This is a longer passage, so ' +
  'that the analysis has twenty seconds or more of speech to look at, with pauses, questions and ordinary ' +
  'intonation. Does it find a key in speech? It should not. Nor should it hear a steady beat where there is none.';

const VOICES: Array<{ voice: string; wordsPerMinute: number }> = [
  { voice: 'en', wordsPerMinute: 220 },
  { voice: 'de', wordsPerMinute: 130 },
  { voice: 'fr', wordsPerMinute: 175 },
];

const NO_CONFIDENT_ANSWER = 0.3;

for (const { voice, wordsPerMinute } of VOICES) {
  test(`speech (espeak-ng ${voice}, ${wordsPerMinute} wpm) gets no confident tempo, key or tuning`, async (t) => {
    const dir = await makeTempDir(t);
    const path = join(dir, 'speech.wav');
    await execFileAsync('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '-w', path, TEXT]);
    const r = await runCli(['analyze', path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const a = JSON.parse(r.stdout) as Record<string, number | string | null>;
    t.diagnostic(`bpm ${a.bpm} (${a.bpm_confidence}), key ${a.key} (${a.key_confidence}), hz ${a.hz} (${a.hz_confidence})`);
    for (const field of ['bpm_confidence', 'key_confidence', 'hz_confidence']) {
      const c = a[field];
      assert.ok(c === null || (typeof c === 'number' && c >= 0 && c < NO_CONFIDENT_ANSWER), `${field} ${c}`);
    }
    // The loudness is still measured: speech has a loudness like anything else.
    assert.equal(typeof a.lufs, 'number');
  });
}
