#include "true_peak.h"

#include <algorithm>
#include <cmath>

#include "params.h"

namespace trackscan::dsp {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

Result<TruePeak> TruePeak::Create(double sample_rate_hz, int channels) {
  if (!(sample_rate_hz >= params::kMinSampleRateHz && sample_rate_hz <= params::kMaxSampleRateHz) ||
      channels < params::kMinChannels || channels > params::kMaxChannels) {
    return Status::kInvalidArgument;
  }
  return TruePeak(channels, params::TruePeakOversampling(sample_rate_hz));
}

TruePeak::TruePeak(int channels, int factor)
    : channels_(channels),
      factor_(factor),
      taps_per_phase_((params::kTruePeakTaps + factor - 1) / factor),
      peak_(channels, 0.0),
      history_(channels, std::vector<float>((params::kTruePeakTaps + factor - 1) / factor - 1, 0.0f)),
      acc_(params::kTruePeakBlockSamples),
      block_(channels, std::vector<float>(params::kTruePeakBlockSamples)) {
  // Polyphase split of a Hann-windowed sinc with cut-off at the original
  // Nyquist frequency: coefficient j goes to phase j % factor, tap j / factor.
  const int taps = params::kTruePeakTaps;
  coeffs_.assign(static_cast<std::size_t>(factor_) * taps_per_phase_, 0.0f);
  for (int j = 0; j < taps; ++j) {
    const double m = j - (taps - 1) / 2.0;
    const double x = m * kPi / factor_;
    const double sinc = std::fabs(m) < 1e-9 ? 1.0 : std::sin(x) / x;
    const double hann = 0.5 * (1.0 - std::cos(2.0 * kPi * j / (taps - 1)));
    coeffs_[static_cast<std::size_t>(j % factor_) * taps_per_phase_ + j / factor_] =
        static_cast<float>(sinc * hann);
  }
  bound_gain_ = 0.0;
  for (int f = 0; f < factor_; ++f) {
    double sum = 0.0;
    for (int t = 0; t < taps_per_phase_; ++t) sum += std::fabs(coeffs_[f * taps_per_phase_ + t]);
    bound_gain_ = std::max(bound_gain_, sum);
  }
  work_.resize(static_cast<std::size_t>(taps_per_phase_ - 1) + params::kTruePeakBlockSamples);
}

void TruePeak::Process(const float* interleaved, std::size_t frames) {
  const std::size_t block = params::kTruePeakBlockSamples;
  std::size_t i = 0;
  while (i < frames) {
    const std::size_t n = std::min(frames - i, block - block_fill_);
    for (int c = 0; c < channels_; ++c) {
      float* dst = block_[c].data() + block_fill_;
      const float* src = interleaved + i * channels_ + c;
      for (std::size_t k = 0; k < n; ++k) dst[k] = src[k * channels_];
    }
    block_fill_ += n;
    i += n;
    if (block_fill_ == block) {
      for (int c = 0; c < channels_; ++c) ProcessChannelBlock(c);
      block_fill_ = 0;
    }
  }
}

void TruePeak::ProcessChannelBlock(int channel) {
  const std::size_t hist = static_cast<std::size_t>(taps_per_phase_ - 1);
  const std::size_t n = block_fill_;
  std::vector<float>& h = history_[channel];
  float* buf = work_.data();
  std::copy(h.begin(), h.end(), buf);
  std::copy(block_[channel].begin(), block_[channel].begin() + n, buf + hist);

  float max_abs = 0.0f;
  for (std::size_t k = 0; k < hist + n; ++k) max_abs = std::max(max_abs, std::fabs(buf[k]));
  double& peak = peak_[channel];
  if (factor_ == 1) {
    peak = std::max(peak, static_cast<double>(max_abs));
  } else if (max_abs * bound_gain_ > peak) {
    for (int f = 0; f < factor_; ++f) {
      const float* c = coeffs_.data() + static_cast<std::size_t>(f) * taps_per_phase_;
      std::fill(acc_.begin(), acc_.begin() + n, 0.0f);
      for (int t = 0; t < taps_per_phase_; ++t) {
        const float ct = c[t];
        const float* x = buf + hist - t;
        float* a = acc_.data();
        for (std::size_t k = 0; k < n; ++k) a[k] += ct * x[k];
      }
      for (std::size_t k = 0; k < n; ++k) peak = std::max(peak, static_cast<double>(std::fabs(acc_[k])));
    }
  }
  // Keep the last inputs as the next block's filter history.
  std::copy(buf + n, buf + n + hist, h.begin());
}

double TruePeak::MaxLinear() const {
  // The pending partial block has not been filtered yet: do it on a copy so
  // that reading the peak does not disturb the stream.
  TruePeak copy = *this;
  if (copy.block_fill_ > 0) {
    for (int c = 0; c < copy.channels_; ++c) copy.ProcessChannelBlock(c);
  }
  double m = 0.0;
  for (double p : copy.peak_) m = std::max(m, p);
  return m;
}

}  // namespace trackscan::dsp
