// Key + tuning cost alone (tonal front end, tuning and key estimates), in
// seconds of one core per minute of audio at params::kAnalysisRateHz, i.e.
// after the analyzer's shared downmix/resample front end. Best of 5 runs over
// a generated 60 s piece. Build and run from the repo root:
//
//   g++ -O2 -std=c++17 -Inative/dsp -Inative/testing bench/dev/tonal/speed.cc \
//     build-tonal/libtrackscan_testing.a build-tonal/libtrackscan_dsp.a \
//     $(pkg-config --libs kissfft-float libebur128 soxr) -o build-tonal/tonal_speed && build-tonal/tonal_speed
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "key.h"
#include "params.h"
#include "tonal.h"
#include "tuning.h"

int main() {
  using namespace trackscan;
  const double rate = dsp::params::kAnalysisRateHz;
  const std::vector<float> x = testing::KeyPiece(3, true, 440.0, 60.0, rate, 1, 3);
  double best = 1e9;
  for (int run = 0; run < 5; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    dsp::TuningEstimator tuning = dsp::TuningEstimator::Create(rate).take();
    for (std::size_t i = 0; i < x.size(); i += 4096) {
      tuning.Process(x.data() + i, std::min<std::size_t>(4096, x.size() - i));
    }
    const auto t = tuning.Estimate();
    const auto k = dsp::KeyEstimator::Create(rate).take().Estimate(tuning.features(), t ? t->reference_hz : 440.0);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!k) return 1;
  }
  std::printf("key+tuning: %.4f s per minute of audio (best of 5)\n", best * 60.0 / (x.size() / rate));
  return 0;
}
