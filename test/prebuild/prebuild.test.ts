/**
 * The prebuild (npm run prebuild, which the test command runs first) carries
 * KissFFT, libebur128, libsoxr and libsoxr's libgomp beside the addon and loads them from
 * there, so a machine without the -dev packages can use it. Proven twice:
 * the loaded libraries' paths, and a run in a private mount namespace where
 * the system's copies are replaced by empty files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { root } from '../helpers/media.js';

const dir = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
const LIBS = [/^libkissfft-float\.so\./, /^libebur128\.so\./, /^libsoxr\.so\./, /^libgomp\.so\./];

// Loads the addon with PREBUILDS_ONLY=1 (no fallback to build/), analyses a
// tone, and prints which files of the libraries the process mapped.
const PROBE = `
  const { Analyzer } = await import(${JSON.stringify(join(root, 'dist/src/native/analyzer.js'))});
  const a = new Analyzer({ sampleRate: 48000, channels: 2 });
  const pcm = new Float32Array(48000 * 2 * 5).map((_, i) => 0.0708 * Math.sin((2 * Math.PI * 1000 * Math.floor(i / 2)) / 48000));
  await a.push(pcm);
  const r = await a.finish();
  const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8');
  const libs = [...new Set(maps.split('\\n').map((l) => l.split(/\\s+/).pop()).filter((p) => /kissfft|ebur128|soxr|gomp|trackscan/.test(p)))];
  console.log(JSON.stringify({ lufs: r.loudness.integratedLufs, libs }));`;

function probe(wrapper: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const cmd = [...wrapper, process.execPath, '--input-type=module', '-e', PROBE];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', env: { ...process.env, PREBUILDS_ONLY: '1', TRACKSCAN_ADDON: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the prebuild folder holds the addon, the four libraries and their licences', { skip: process.platform !== 'linux' }, () => {
  assert.ok(existsSync(dir), `${dir} is missing: run npm run prebuild`);
  const files = readdirSync(dir);
  assert.ok(files.some((f) => f.endsWith('.node')), files.join(', '));
  for (const lib of LIBS) assert.ok(files.some((f) => lib.test(f)), `${lib} not bundled: ${files.join(', ')}`);
  assert.ok(readdirSync(join(dir, 'licenses')).length >= LIBS.length);
});

test('the prebuild loads its bundled libraries, not the system ones', { skip: process.platform !== 'linux' }, () => {
  const r = probe();
  assert.equal(r.status, 0, r.stderr);
  const { lufs, libs } = JSON.parse(r.stdout) as { lufs: number; libs: string[] };
  assert.ok(Math.abs(lufs + 23) < 0.1, String(lufs));
  for (const lib of LIBS) {
    const loaded = libs.filter((p) => lib.test(p.split('/').pop()!));
    assert.deepEqual(loaded.map((p) => p.startsWith(dir)), [true], `${lib}: ${loaded.join(', ')}`);
  }
});

// Hiding the system libraries needs a private mount namespace (root, or
// unprivileged user namespaces). Where neither is available the test says so.
const canUnshare = spawnSync('unshare', ['-m', 'true']).status === 0;
test('the prebuild works with the system copies of the libraries out of reach', { skip: (process.platform !== 'linux' || !canUnshare) && 'needs unshare -m (root)' }, () => {
  const systemLibs = spawnSync('sh', ['-c', 'ldconfig -p | grep -E "libkissfft-float|libebur128|libsoxr\\.so|libgomp\\.so" | sed "s/.*=> //"'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  assert.ok(systemLibs.length >= LIBS.length, `system libraries not found: ${systemLibs.join(', ')}`);
  // Bind /dev/null over each system copy (and what its symlink points to).
  const hide = systemLibs.map((l) => `mount --bind /dev/null "$(readlink -f ${l})"`).join(' && ');
  const check = systemLibs.map((l) => `test ! -s "$(readlink -f ${l})"`).join(' && ');
  const wrapper = ['unshare', '-m', 'sh', '-c', `${hide} && ${check} && exec "$@"`, 'sh'];
  const r = probe(wrapper);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Math.abs((JSON.parse(r.stdout) as { lufs: number }).lufs + 23) < 0.1);

  // The control: the development build, linked to the system copies, fails there.
  const control = spawnSync(
    wrapper[0]!,
    [...wrapper.slice(1), process.execPath, '-e', `require(${JSON.stringify(join(root, 'build/Release/trackscan.node'))})`],
    { encoding: 'utf8' },
  );
  if (existsSync(join(root, 'build/Release/trackscan.node'))) assert.notEqual(control.status, 0, 'the system libraries were not hidden');
});
