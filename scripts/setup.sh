#!/usr/bin/env bash
# One-time (and idempotent) set-up of a Debian machine for trackscan:
# system packages, npm dependencies, the native addon and the TypeScript
# build. Quick when everything is already there. Used by the README's two
# commands and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runtime: ffmpeg decodes; the -dev packages build the addon (KissFFT FFTs,
# libebur128 loudness, libsoxr resampling); pkg-config finds them.
# Build/test: g++ and make (node-gyp), cmake + libgtest-dev (native tests),
# redis-server (the Redis backend's tests), clang and libclang-rt-dev (the fuzz
# target: libFuzzer and the sanitizer runtimes, only recommended by clang),
# espeak-ng (real speech for the "no confident answer" tests).
packages=(ffmpeg pkg-config g++ make python3 cmake libkissfft-dev libebur128-dev libsoxr-dev
          libgtest-dev redis-server clang libclang-rt-dev patchelf chromium espeak-ng)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<17)) { console.error("setup: Node >= 20.17 is required, this is "+process.version); process.exit(1) }'

# npm ci when the lock file changed since the last install (it also builds
# the addon through the install script, node-gyp-build).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# Rebuild the addon when a native source is newer than it.
addon=build/Release/trackscan.node
if [ ! -f "$addon" ] || [ -n "$(find native binding.gyp -newer "$addon" -type f | head -1)" ]; then
  npx --no-install node-gyp rebuild >/dev/null
fi

npx --no-install tsc -p tsconfig.json
echo "setup: ready"
