#!/bin/sh
# Quick tempo evaluation on decoded lists (see prepare.mjs):
#   bench/dev/tempo/eval.sh LIST [BUILD_DIR]
# Rebuilds the DSP library in BUILD_DIR (default build-tempo) and the dev tool.
set -e
list=${1:?list file}
build=${2:-build-tempo}
cmake --build "$build" -j2 --target trackscan_dsp >/dev/null
tool="$build/tempo_eval"
c++ -O2 -std=c++17 -Inative/dsp bench/dev/tempo/tempo_eval.cc "$build/libtrackscan_dsp.a" \
  $(pkg-config --libs kissfft-float libebur128 speexdsp) -o "$tool"
"$tool" "$list"
