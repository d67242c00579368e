#include "tuning.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "params.h"

namespace trackscan::dsp {

Result<TuningEstimator> TuningEstimator::Create(double sample_rate_hz) {
  Result<TonalFrontend> frontend = TonalFrontend::Create(sample_rate_hz);
  if (!frontend.ok()) return frontend.status();
  return TuningEstimator(frontend.take());
}

void TuningEstimator::Process(const float* mono, std::size_t n) { frontend_.Process(mono, n); }

std::optional<TuningEstimate> TuningEstimator::Estimate() {
  frontend_.Finish();
  return FromFeatures(frontend_.features());
}

std::optional<TuningEstimate> TuningEstimator::FromFeatures(const TonalFeatures& features) {
  constexpr int n = kTuningHistogramBins;
  const std::array<double, n>& h = features.tuning_histogram;
  double total = 0.0;
  for (double v : h) total += v;
  if (!(total > 0.0)) return std::nullopt;

  // Circular Gaussian smoothing.
  const double sigma = params::kTuningKernelCents;
  const int reach = static_cast<int>(std::ceil(3.0 * sigma));
  std::array<double, n> s{};
  for (int i = 0; i < n; ++i) {
    if (h[i] == 0.0) continue;
    for (int d = -reach; d <= reach; ++d) s[((i + d) % n + n) % n] += h[i] * std::exp(-0.5 * d * d / (sigma * sigma));
  }
  const int top = static_cast<int>(std::max_element(s.begin(), s.end()) - s.begin());
  const double left = s[(top + n - 1) % n];
  const double right = s[(top + 1) % n];
  const double curvature = left - 2.0 * s[top] + right;
  const double shift = curvature < 0.0 ? 0.5 * (left - right) / curvature : 0.0;
  double cents = top + std::clamp(shift, -0.5, 0.5);
  if (cents >= 50.0) cents -= 100.0;

  double near = 0.0;
  for (int i = 0; i < n; ++i) {
    const double d = std::fmod(std::fabs(i - cents), 100.0);
    if (std::min(d, 100.0 - d) <= params::kTuningConcentrationCents) near += h[i];
  }
  const double uniform = (2.0 * params::kTuningConcentrationCents + 1.0) / n;
  const double concentration =
      std::clamp((near / total - uniform) / (params::kTuningFullConcentration - uniform), 0.0, 1.0);
  const double evidence = 1.0 - std::exp(-features.peak_weight / params::kTuningEvidenceWeight);

  TuningEstimate e;
  e.cents_offset = cents;
  e.reference_hz = 440.0 * std::exp2(cents / 1200.0);
  e.confidence = concentration * evidence;
  return e;
}

}  // namespace trackscan::dsp
