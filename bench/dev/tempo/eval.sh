#!/bin/sh
# Quick tempo evaluation on decoded lists (see prepare.mjs):
#   bench/dev/tempo/eval.sh LIST [BUILD_DIR]
# Rebuilds the DSP library in BUILD_DIR (default build-tempo) and the dev tool,
# then prints one line per item and Acc1 / Acc2 / confidence split / cost /
# AUC (the chance a right answer is more confident than a wrong one).
# Reproduce the figures in tempo.h:
#   cmake -S . -B build-tempo -DCMAKE_BUILD_TYPE=Release
#   node bench/dev/tempo/prepare.mjs ../shared/eval/manifest.jsonl /tmp/eval.list
#   bench/dev/tempo/eval.sh /tmp/eval.list
#   node dist/test/fixtures/generate-corpus.js --out /tmp/gen --count 80 --seed 3
#   node bench/dev/tempo/prepare.mjs /tmp/gen/manifest.jsonl /tmp/gen.list
#   bench/dev/tempo/eval.sh /tmp/gen.list
set -e
list=${1:?list file}
build=${2:-build-tempo}
cmake --build "$build" -j2 --target trackscan_dsp >/dev/null
tool="$build/tempo_eval"
c++ -O2 -std=c++17 -Inative/dsp bench/dev/tempo/tempo_eval.cc "$build/libtrackscan_dsp.a" \
  $(pkg-config --libs kissfft-float libebur128 soxr) -o "$tool"
"$tool" "$list"
