import assert from 'node:assert/strict';
import { test } from 'node:test';

import fc from 'fast-check';

import { mp4Layout, sniff } from '../../src/decode/sniff.js';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const pad = (b: Uint8Array, n = 64): Uint8Array => Buffer.concat([b, Buffer.alloc(Math.max(0, n - b.length))]);

test('recognises every accepted format by its magic number', () => {
  const cases: [Uint8Array, string][] = [
    [pad(bytes('RIFF', [0, 0, 0, 0], 'WAVE')), 'wav'],
    [pad(bytes('RF64', [0, 0, 0, 0], 'WAVE')), 'wav'],
    [pad(bytes('fLaC')), 'flac'],
    [pad(bytes('OggS')), 'ogg'],
    [pad(bytes([0x1a, 0x45, 0xdf, 0xa3])), 'webm'],
    [pad(bytes([0, 0, 0, 0x20], 'ftypM4A ')), 'mp4'],
    [pad(bytes([0xff, 0xfb, 0x90, 0x64])), 'mp3'],
    [pad(bytes([0xff, 0xf1, 0x50, 0x80])), 'aac'],
    [pad(bytes('ID3', [4, 0, 0, 0, 0, 0, 0], [0xff, 0xfb, 0x90, 0x64])), 'mp3'],
    [pad(bytes('ID3', [4, 0, 0, 0, 0, 0, 0], [0xff, 0xf1, 0x50, 0x80])), 'aac'],
    [pad(bytes('ID3', [4, 0, 0, 0, 0, 0, 0], 'fLaC')), 'flac'],
  ];
  for (const [buf, format] of cases) assert.deepEqual(sniff(buf), { kind: 'format', format }, format);
});

test('refuses what is not audio, whatever it is called', () => {
  for (const text of ['%PDF-1.7 hello world', '<!doctype html><html>', '{"json": true, "x": 1}', 'PK\u0003\u0004zipzipzipzip']) {
    assert.deepEqual(sniff(pad(Buffer.from(text))), { kind: 'unknown' }, text);
  }
  assert.deepEqual(sniff(pad(bytes([0x89], 'PNG\r\n'))), { kind: 'unknown' });
});

test('asks for more bytes while undecided, up to the ID3 tag end', () => {
  assert.equal(sniff(bytes('RI')).kind, 'need-more');
  const tagged = pad(bytes('ID3', [4, 0, 0, 0, 0, 0x10, 0]), 20); // 2048-byte tag
  assert.deepEqual(sniff(tagged), { kind: 'need-more', bytes: 10 + 2048 + 7 });
});

test('sniff never throws and a decision never changes as more bytes arrive', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.uint8Array({ maxLength: 100 }), (head, more) => {
      const first = sniff(head);
      if (first.kind === 'format' || first.kind === 'unknown') {
        assert.deepEqual(sniff(Buffer.concat([head, more])), first);
      }
    }),
  );
});

test('mp4Layout tells whether the index comes first', () => {
  const box = (type: string, size: number): Buffer => {
    const b = Buffer.alloc(size);
    b.writeUInt32BE(size, 0);
    b.write(type, 4, 'latin1');
    return b;
  };
  assert.equal(mp4Layout(Buffer.concat([box('ftyp', 24), box('moov', 64)])), 'moov-first');
  assert.equal(mp4Layout(Buffer.concat([box('ftyp', 24), box('free', 8), box('mdat', 64)])), 'mdat-first');
  assert.equal(mp4Layout(box('ftyp', 24)), 'need-more');
  assert.equal(mp4Layout(Buffer.concat([box('ftyp', 24), Buffer.alloc(16)])), 'invalid');
});
