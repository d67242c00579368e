#!/usr/bin/env node
// After prebuildify: copies the shared libraries the addon links against
// (KissFFT, libebur128, libsoxr, and on Linux libsoxr's OpenMP runtime
// libgomp) next to it in prebuilds/<platform>-<arch>/, with their licences,
// so a machine without the -dev packages loads the prebuild. The addon finds
// them through its run path ($ORIGIN on Linux, @loader_path on macOS); the
// copies get the same run path, so libsoxr finds the libgomp beside it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, chmodSync } from 'node:fs';
import { basename, join } from 'node:path';

const BUNDLED = [
  { lib: /libkissfft-float/, deb: 'libkissfft-float131' },
  { lib: /libebur128/, deb: 'libebur128-1' },
  { lib: /libsoxr\.so/, deb: 'libsoxr0' },
  // Debian's libsoxr links OpenMP (we run it on one thread). libgomp comes
  // with gcc, so slim images (node:*-slim) do not have it. Homebrew's
  // libsoxr does not link it.
  { lib: /libgomp\.so/, deb: 'libgomp1', linuxOnly: true },
];
const dir = join('prebuilds', `${process.platform}-${process.arch}`);
const addon = readdirSync(dir).find((f) => f.endsWith('.node'));
if (!addon) throw new Error(`bundle-libs: no .node file in ${dir}`);

if (process.platform === 'linux') {
  // ldd resolves each needed library to a path; copy it under its SONAME.
  const ldd = execFileSync('ldd', [join(dir, addon)], { encoding: 'utf8' });
  mkdirSync(join(dir, 'licenses'), { recursive: true });
  for (const { lib, deb } of BUNDLED) {
    const line = ldd.split('\n').find((l) => lib.test(l));
    const match = line && /^\s*(\S+) => (\S+)/.exec(line);
    if (!match) throw new Error(`bundle-libs: ${lib} not linked by ${addon}:\n${ldd}`);
    const [, soname, path] = match;
    if (path.startsWith(dir)) continue; // already bundled
    copyFileSync(path, join(dir, soname));
    chmodSync(join(dir, soname), 0o644);
    execFileSync('patchelf', ['--set-rpath', '$ORIGIN', join(dir, soname)]);
    const copyright = `/usr/share/doc/${deb}/copyright`;
    if (existsSync(copyright)) copyFileSync(copyright, join(dir, 'licenses', `${deb}.copyright`));
    console.log(`bundle-libs: ${basename(path)} -> ${join(dir, soname)}`);
  }
} else if (process.platform === 'darwin') {
  // Untested here (no macOS machine): copy each Homebrew dylib beside the
  // addon and point the addon at @rpath, which binding.gyp sets to
  // @loader_path.
  const out = execFileSync('otool', ['-L', join(dir, addon)], { encoding: 'utf8' });
  for (const { lib } of BUNDLED.filter((b) => !b.linuxOnly)) {
    const path = out.split('\n').map((l) => l.trim().split(' ')[0]).find((p) => p && lib.test(p));
    if (!path) throw new Error(`bundle-libs: ${lib} not linked by ${addon}`);
    copyFileSync(path, join(dir, basename(path)));
    execFileSync('install_name_tool', ['-change', path, `@rpath/${basename(path)}`, join(dir, addon)]);
  }
} else {
  throw new Error(`bundle-libs: ${process.platform} is not supported`);
}
