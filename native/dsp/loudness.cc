#include "loudness.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "params.h"

namespace trackscan::dsp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ToDb(double linear) { return linear > 0.0 ? 20.0 * std::log10(linear) : kNaN; }

// BS.1770-4 weights by loudspeaker position: front channels 1.0, surround and
// side channels 1.41 (libebur128's Mp110/Mm110), LFE not measured.
int ChannelFromMaskBit(std::uint32_t bit) {
  switch (bit) {
    case 0x1: return EBUR128_LEFT;             // front left
    case 0x2: return EBUR128_RIGHT;            // front right
    case 0x4: return EBUR128_CENTER;           // front centre
    case 0x8: return EBUR128_UNUSED;           // low frequency
    case 0x10: return EBUR128_LEFT_SURROUND;   // back left
    case 0x20: return EBUR128_RIGHT_SURROUND;  // back right
    case 0x40: return EBUR128_LEFT;            // front left of centre
    case 0x80: return EBUR128_RIGHT;           // front right of centre
    case 0x100: return EBUR128_CENTER;         // back centre
    case 0x200: return EBUR128_LEFT_SURROUND;  // side left
    case 0x400: return EBUR128_RIGHT_SURROUND; // side right
    default: return EBUR128_CENTER;            // top and others: weight 1.0
  }
}

}  // namespace

void Loudness::StateDeleter::operator()(ebur128_state* st) const { ebur128_destroy(&st); }

Result<Loudness> Loudness::Create(double sample_rate_hz, int channels, std::uint32_t channel_mask) {
  if (!(sample_rate_hz >= params::kMinSampleRateHz && sample_rate_hz <= params::kMaxSampleRateHz) ||
      channels < params::kMinChannels || channels > params::kMaxChannels ||
      std::floor(sample_rate_hz) != sample_rate_hz) {
    return Status::kInvalidArgument;
  }
  Result<TruePeak> tp = TruePeak::Create(sample_rate_hz, channels);
  if (!tp.ok()) return tp.status();
  ebur128_state* st = ebur128_init(static_cast<unsigned>(channels), static_cast<unsigned long>(sample_rate_hz),
                                   EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_S | EBUR128_MODE_SAMPLE_PEAK |
                                       EBUR128_MODE_HISTOGRAM);
  if (st == nullptr) return Status::kOutOfMemory;
  Loudness loudness(st, tp.take(),
                    static_cast<std::size_t>(std::llround(sample_rate_hz * params::kLoudnessCurveIntervalS)));
  // Only a mask that names exactly `channels` positions describes the data.
  int named = 0;
  for (std::uint32_t m = channel_mask; m != 0; m &= m - 1) ++named;
  if (channel_mask != 0 && named == channels) {
    unsigned index = 0;
    for (std::uint32_t bit = 1; bit != 0 && index < static_cast<unsigned>(channels); bit <<= 1) {
      if ((channel_mask & bit) == 0) continue;
      if (ebur128_set_channel(st, index++, ChannelFromMaskBit(bit)) != EBUR128_SUCCESS) return Status::kInternal;
    }
  }
  return loudness;
}

Loudness::Loudness(ebur128_state* st, TruePeak true_peak, std::size_t frames_per_point)
    : state_(st), true_peak_(std::move(true_peak)), frames_per_point_(frames_per_point) {}

Status Loudness::Process(const float* interleaved, std::size_t frames) {
  const std::size_t channels = state_->channels;
  true_peak_.Process(interleaved, frames);
  // Split at curve points so each point is the short-term loudness of the
  // 3 s ending exactly on a whole interval.
  while (frames > 0) {
    const std::size_t n = std::min(frames, frames_per_point_ - frames_since_point_);
    const int err = ebur128_add_frames_float(state_.get(), interleaved, n);
    if (err == EBUR128_ERROR_NOMEM) return Status::kOutOfMemory;
    if (err != EBUR128_SUCCESS) return Status::kInternal;
    interleaved += n * channels;
    frames -= n;
    frames_since_point_ += n;
    if (frames_since_point_ == frames_per_point_) {
      frames_since_point_ = 0;
      double st = kNaN;
      if (ebur128_loudness_shortterm(state_.get(), &st) != EBUR128_SUCCESS || !std::isfinite(st)) st = kNaN;
      short_term_lufs_.push_back(static_cast<float>(st));
    }
  }
  return Status::kOk;
}

LoudnessSummary Loudness::Summary() const {
  LoudnessSummary s{kNaN, kNaN, kNaN, kNaN, short_term_lufs_};
  ebur128_state* st = state_.get();
  double integrated = kNaN;
  if (ebur128_loudness_global(st, &integrated) == EBUR128_SUCCESS && std::isfinite(integrated)) {
    s.integrated_lufs = integrated;
    double range = kNaN;
    if (ebur128_loudness_range(st, &range) == EBUR128_SUCCESS && std::isfinite(range)) s.loudness_range_lu = range;
  }
  double sample_peak = 0.0;
  for (unsigned c = 0; c < st->channels; ++c) {
    double p = 0.0;
    if (ebur128_sample_peak(st, c, &p) == EBUR128_SUCCESS) sample_peak = std::max(sample_peak, p);
  }
  s.sample_peak_dbfs = ToDb(sample_peak);
  s.true_peak_dbtp = ToDb(std::max(true_peak_.MaxLinear(), sample_peak));
  return s;
}

}  // namespace trackscan::dsp
