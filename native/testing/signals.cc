#include "signals.h"

#include <cmath>
#include <random>

namespace trackscan::testing {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

std::vector<float> Sine(double freq_hz, double level_dbfs, double seconds, double rate_hz, int channels,
                        double phase_rad) {
  const auto frames = static_cast<std::size_t>(std::llround(seconds * rate_hz));
  const double amp = std::pow(10.0, level_dbfs / 20.0);
  std::vector<float> out(frames * channels);
  for (std::size_t i = 0; i < frames; ++i) {
    const auto v = static_cast<float>(amp * std::sin(2.0 * kPi * freq_hz * i / rate_hz + phase_rad));
    for (int c = 0; c < channels; ++c) out[i * channels + c] = v;
  }
  return out;
}

void Append(std::vector<float>* a, const std::vector<float>& b) { a->insert(a->end(), b.begin(), b.end()); }

std::vector<float> Noise(double level_dbfs, double seconds, double rate_hz, int channels, std::uint32_t seed) {
  const auto frames = static_cast<std::size_t>(std::llround(seconds * rate_hz));
  const double amp = std::pow(10.0, level_dbfs / 20.0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<float> out(frames * channels);
  for (float& v : out) v = static_cast<float>(amp * dist(rng));
  return out;
}

}  // namespace trackscan::testing
