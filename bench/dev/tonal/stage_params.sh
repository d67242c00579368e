#!/bin/sh
# Stages only the Key/Tuning/Tonal sections of native/dsp/params.h (from the
# "---- Key" marker to the closing namespace line), leaving other sections'
# uncommitted edits in the working tree untouched.
set -e
f=native/dsp/params.h
python3 - "$f" <<'PY' > /tmp/params_staged.h
import subprocess, sys
f = sys.argv[1]
head = subprocess.run(['git', 'show', 'HEAD:' + f], capture_output=True, text=True, check=True).stdout
work = open(f).read()
m, e = '// ---- Key (native/dsp/key.cc)', '}  // namespace trackscan::dsp::params'
h0, h1 = head.index(m), head.index(e)
w0, w1 = work.index(m), work.index(e)
sys.stdout.write(head[:h0] + work[w0:w1] + head[h1:])
PY
blob=$(git hash-object -w /tmp/params_staged.h)
git update-index --cacheinfo 100644,"$blob","$f"
