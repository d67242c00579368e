import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import {
  displayPrefix,
  generateKeyId,
  generateSecret,
  hashesEqual,
  hashSecret,
  isWellFormedSecret,
  minutePeriod,
  monthPeriod,
} from '../../src/store/api-keys.js';

test('secrets carry the tsk_ prefix, 256 random bits and a checksum', () => {
  const secrets = Array.from({ length: 500 }, generateSecret);
  assert.equal(new Set(secrets).size, secrets.length);
  for (const s of secrets) {
    assert.match(s, /^tsk_[0-9A-Za-z]{49}$/);
    assert.ok(isWellFormedSecret(s));
  }
  // Every base62 character shows up in the random part: no alphabet truncation.
  const used = new Set(secrets.flatMap((s) => [...s.slice(4, 47)]));
  assert.equal(used.size, 62);
});

test('isWellFormedSecret refuses typos, other prefixes and junk', () => {
  const s = generateSecret();
  const swap = (i: number) => s.slice(0, i) + (s[i] === 'x' ? 'y' : 'x') + s.slice(i + 1);
  let caught = 0;
  for (let i = 4; i < s.length; i++) if (!isWellFormedSecret(swap(i))) caught++;
  assert.equal(caught, s.length - 4, 'every single-character change breaks the checksum');
  assert.equal(isWellFormedSecret(`tsX_${s.slice(4)}`), false);
  assert.equal(isWellFormedSecret(s.slice(0, -1)), false);
  assert.equal(isWellFormedSecret(`${s}0`), false);
  assert.equal(isWellFormedSecret(` ${s}`), false);
  assert.equal(isWellFormedSecret(''), false);
  assert.equal(isWellFormedSecret(`tsk_${'-'.repeat(49)}`), false);
});

test('hashes are SHA-256 of the secret and compare by value', () => {
  const s = generateSecret();
  assert.deepEqual(hashSecret(s), createHash('sha256').update(s).digest());
  assert.equal(hashesEqual(hashSecret(s), hashSecret(s)), true);
  assert.equal(hashesEqual(hashSecret(s), hashSecret(generateSecret())), false);
  assert.equal(hashesEqual(hashSecret(s), hashSecret(s).subarray(0, 31)), false, 'length mismatch is false, not a throw');
});

test('ids are public and unrelated to secrets; the display prefix is short', () => {
  assert.match(generateKeyId(), /^key_[0-9A-Za-z]{16}$/);
  const s = generateSecret();
  assert.equal(displayPrefix(s), s.slice(0, 12));
});

test('periods are UTC minutes and months', () => {
  const d = new Date('2026-12-31T23:59:59.999-02:00'); // 2027-01-01T01:59:59.999Z
  assert.equal(minutePeriod(d), '2027-01-01T01:59');
  assert.equal(monthPeriod(d), '2027-01');
});
