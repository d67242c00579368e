import assert from 'node:assert/strict';
import { test } from 'node:test';

import { camelot, keyName, openKey, TONICS } from '../../src/analysis/key-names.js';

// The published Camelot and Open Key wheels, by key.
const WHEEL: Record<string, [string, string]> = {
  'C major': ['8B', '1d'], 'G major': ['9B', '2d'], 'D major': ['10B', '3d'], 'A major': ['11B', '4d'],
  'E major': ['12B', '5d'], 'B major': ['1B', '6d'], 'F# major': ['2B', '7d'], 'C# major': ['3B', '8d'],
  'Ab major': ['4B', '9d'], 'Eb major': ['5B', '10d'], 'Bb major': ['6B', '11d'], 'F major': ['7B', '12d'],
  'A minor': ['8A', '1m'], 'E minor': ['9A', '2m'], 'B minor': ['10A', '3m'], 'F# minor': ['11A', '4m'],
  'C# minor': ['12A', '5m'], 'Ab minor': ['1A', '6m'], 'Eb minor': ['2A', '7m'], 'Bb minor': ['3A', '8m'],
  'F minor': ['4A', '9m'], 'C minor': ['5A', '10m'], 'G minor': ['6A', '11m'], 'D minor': ['7A', '12m'],
};

test('all 24 keys: SPEC spelling, Camelot and Open Key', () => {
  let checked = 0;
  for (let tonic = 0; tonic < 12; tonic++) {
    for (const minor of [false, true]) {
      const name = keyName(tonic, minor);
      assert.match(name, /^(C|C#|D|Eb|E|F|F#|G|Ab|A|Bb|B) (major|minor)$/);
      // SPEC spells C# major as "C# major" (tonic spelling is fixed, not enharmonic).
      const expected = WHEEL[name];
      assert.ok(expected, name);
      assert.deepEqual([camelot(tonic, minor), openKey(tonic, minor)], expected, name);
      checked++;
    }
  }
  assert.equal(checked, 24);
  assert.equal(TONICS.length, 12);
});
