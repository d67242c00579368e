#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan + UBSan) and fuzzes the analyzer
# for the given number of seconds (default 600). Crashes are written to
# build-fuzz/crashes/ and make this script fail.
#   bash scripts/fuzz.sh 60      # the short run CI does
#   bash scripts/fuzz.sh 3600    # a longer run
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DTRACKSCAN_FUZZ=ON >/dev/null
cmake --build build-fuzz --target analyzer_fuzz -j2 >/dev/null
mkdir -p build-fuzz/corpus build-fuzz/crashes
build-fuzz/analyzer_fuzz -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
  -artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 build-fuzz/corpus 2>&1 | tail -20
