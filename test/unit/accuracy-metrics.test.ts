import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  confidenceInformativeness, keyExact, median, mirexKeyScore, parseKey, quantile, tempoAcc1, tempoAcc2, tuningErrorCents, wrapCents,
} from '../../bench/accuracy/metrics.js';
import { confidenceBands, defaultRows, type Prediction } from '../../bench/accuracy/report.js';

test('tempo Acc1 is 4 % of the label, Acc2 adds 2, 1/2, 3 and 1/3', () => {
  assert.ok(tempoAcc1(104, 100));
  assert.ok(tempoAcc1(96, 100));
  assert.ok(!tempoAcc1(104.1, 100));
  assert.ok(!tempoAcc1(null, 100));
  assert.ok(!tempoAcc2(null, 100));
  for (const bpm of [200, 50, 300, 100 / 3, 207, 49]) assert.ok(tempoAcc2(bpm, 100), String(bpm));
  assert.ok(!tempoAcc2(150, 100));
  assert.ok(!tempoAcc2(75, 100));
});

test('keys parse with enharmonics; the MIREX weights', () => {
  assert.deepEqual(parseKey('C# major'), { tonic: 1, minor: false });
  assert.deepEqual(parseKey('Db major'), { tonic: 1, minor: false });
  assert.deepEqual(parseKey('Bb minor'), { tonic: 10, minor: true });
  assert.deepEqual(parseKey('A# minor'), { tonic: 10, minor: true });
  assert.equal(parseKey('H minor'), null);
  assert.equal(parseKey(null), null);
  const c = parseKey('C major')!;
  const a = parseKey('A minor')!;
  assert.ok(keyExact(parseKey('B# major'), c));
  assert.ok(!keyExact(null, c));
  assert.equal(mirexKeyScore(c, c), 1);
  assert.equal(mirexKeyScore(parseKey('G major'), c), 0.5);
  assert.equal(mirexKeyScore(parseKey('F major'), c), 0.5);
  assert.equal(mirexKeyScore(parseKey('G minor'), c), 0);
  assert.equal(mirexKeyScore(a, c), 0.3);
  assert.equal(mirexKeyScore(c, a), 0.3);
  assert.equal(mirexKeyScore(parseKey('E minor'), a), 0.5);
  assert.equal(mirexKeyScore(parseKey('D minor'), a), 0.5);
  assert.equal(mirexKeyScore(parseKey('C minor'), c), 0.2);
  assert.equal(mirexKeyScore(parseKey('A major'), a), 0.2);
  assert.equal(mirexKeyScore(parseKey('D major'), c), 0);
  assert.equal(mirexKeyScore(parseKey('E minor'), c), 0);
  assert.equal(mirexKeyScore(null, c), 0);
});

test('tuning errors wrap to +-50 cents', () => {
  assert.equal(wrapCents(0), 0);
  assert.equal(wrapCents(-100), 0);
  assert.equal(wrapCents(60), -40);
  assert.equal(wrapCents(-60), 40);
  assert.equal(wrapCents(50), -50);
  assert.ok(Math.abs(tuningErrorCents(415.3, 440)) < 0.1, '415.3 Hz is a semitone below 440: no error modulo a semitone');
  assert.ok(Math.abs(tuningErrorCents(440 * 2 ** (3 / 1200), 440) - 3) < 1e-9);
  assert.ok(Math.abs(tuningErrorCents(440, 440 * 2 ** (97 / 1200)) - 3) < 1e-9);
});

test('quantiles interpolate between order statistics', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(quantile([0, 10], 0.9), 9);
  assert.ok(Number.isNaN(median([])));
});

test('confidence informativeness: top half minus bottom half, in points', () => {
  const ranked = [0.9, 0.8, 0.2, 0.1].map((confidence, i) => ({ confidence, score: i < 2 ? 1 : 0 }));
  assert.equal(confidenceInformativeness(ranked), 100);
  assert.equal(confidenceInformativeness(ranked.map((j) => ({ ...j, score: 1 - j.score }))), -100);
  // No answer ranks lowest.
  assert.equal(confidenceInformativeness([{ confidence: 0.1, score: 1 }, { confidence: null, score: 0 }]), 100);
  // Equal confidences say nothing.
  assert.equal(confidenceInformativeness([{ confidence: 0, score: 1 }, { confidence: 0, score: 0 }]), null);
  assert.equal(confidenceInformativeness([{ confidence: 1, score: 1 }]), null);
  // A tie across the cut is shared, whatever the order: top = {1, mean(1,0)}, bottom = {mean(1,0), 0}.
  const tied = [
    { confidence: 0.9, score: 1 }, { confidence: 0.5, score: 1 }, { confidence: 0.5, score: 0 }, { confidence: 0.1, score: 0 },
  ];
  assert.equal(confidenceInformativeness(tied), 50);
  assert.equal(confidenceInformativeness([tied[0]!, tied[2]!, tied[1]!, tied[3]!]), 50);
  // Odd count: the middle one is left out.
  assert.equal(confidenceInformativeness([{ confidence: 3, score: 1 }, { confidence: 2, score: 0 }, { confidence: 1, score: 0 }]), 100);
});

test('confidence bands: right answers per band of the row\'s own confidence', () => {
  const p = (bpm: number | null, bpmConfidence: number | null, key: string | null, keyConfidence: number | null): Prediction => ({
    path: 'x', group: 'g', genre: null, durationSeconds: 10, label: { bpm: 120, key: 'A minor', hz: null }, referenceLufs: null,
    trackscan: {
      bpm, bpmConfidence, key, keyConfidence, hz: null, hzConfidence: null, integratedLufs: null, cpuSeconds: 0, wallSeconds: 0,
      loudnessOnlyCpuSeconds: 0, warnings: [],
    },
  });
  const predictions = [
    p(120, 0.05, 'A minor', 0.9), // tempo right in 0-0.1, key right in >= 0.5
    p(60, 0.2, 'C major', 0.2), // both wrong in 0.1-0.3
    p(121, 0.3, 'A minor', 0.5), // band edges belong to the band above
    p(null, null, null, null), // no answer: confidence 0, wrong
  ];
  const lines = confidenceBands(defaultRows(false, false)[0]!, predictions).split('\n');
  assert.deepEqual(lines.slice(4), [
    '| 0 – 0.1 | 50 % of 2 | 0 % of 1 |',
    '| 0.1 – 0.3 | 0 % of 1 | 0 % of 1 |',
    '| 0.3 – 0.5 | 100 % of 1 | — |',
    '| ≥ 0.5 | — | 100 % of 2 |',
  ]);
});
