#include "resampler.h"

#include <speex/speex_resampler.h>

#include <algorithm>
#include <cmath>

#include "params.h"

namespace trackscan::dsp {

void MonoResampler::StateDeleter::operator()(SpeexResamplerState_* st) const { speex_resampler_destroy(st); }

namespace {

// speexdsp filters with a precomputed table only when the reduced ratio's
// denominator is small; 48000 -> 11025 (640/147) falls back to interpolating
// its filter per sample, four times the work of 44100 -> 11025 at a filter
// as long. An exact integer decimation first (48000 / 4 = 12000) leaves the
// fractional step to a low rate and a short filter.
spx_uint32_t IntegerStage(spx_uint32_t in_rate, spx_uint32_t out_rate) {
  for (spx_uint32_t k = in_rate / out_rate; k >= 2; --k) {
    if (in_rate % k == 0) return in_rate / k;
  }
  return in_rate;
}

Result<SpeexResamplerState*> NewStage(spx_uint32_t in_rate, spx_uint32_t out_rate) {
  int err = RESAMPLER_ERR_SUCCESS;
  SpeexResamplerState* st = speex_resampler_init(1, in_rate, out_rate, params::kResamplerQuality, &err);
  if (st == nullptr || err != RESAMPLER_ERR_SUCCESS) {
    if (st != nullptr) speex_resampler_destroy(st);
    return err == RESAMPLER_ERR_ALLOC_FAILED ? Status::kOutOfMemory : Status::kInternal;
  }
  // Without this the output starts with the filter's latency of zeros,
  // which would shift every beat time.
  speex_resampler_skip_zeros(st);
  return st;
}

// Appends the resampling of in[0..n) to *out, `ratio` = output / input rate.
Status Run(SpeexResamplerState* st, const float* in, std::size_t n, double ratio, std::vector<float>* out) {
  // speexdsp may stop early when the output buffer fills: loop until every
  // input sample is consumed.
  std::size_t done = 0;
  while (done < n) {
    const std::size_t start = out->size();
    const std::size_t room = static_cast<std::size_t>(std::ceil((n - done) * ratio)) + 16;
    out->resize(start + room);
    spx_uint32_t in_len = static_cast<spx_uint32_t>(n - done);
    spx_uint32_t out_len = static_cast<spx_uint32_t>(room);
    const int err = speex_resampler_process_float(st, 0, in + done, &in_len, out->data() + start, &out_len);
    out->resize(start + out_len);
    if (err != RESAMPLER_ERR_SUCCESS) return Status::kInternal;
    if (in_len == 0 && out_len == 0) return Status::kInternal;  // no progress: never spin
    done += in_len;
  }
  return Status::kOk;
}

}  // namespace

Result<MonoResampler> MonoResampler::Create(double input_rate_hz, int channels, double output_rate_hz) {
  if (!(input_rate_hz >= params::kMinSampleRateHz && input_rate_hz <= params::kMaxSampleRateHz) ||
      channels < params::kMinChannels || channels > params::kMaxChannels || !(output_rate_hz > 0.0)) {
    return Status::kInvalidArgument;
  }
  const auto in_rate = static_cast<spx_uint32_t>(std::lround(input_rate_hz));
  const auto out_rate = static_cast<spx_uint32_t>(std::lround(output_rate_hz));
  MonoResampler r(channels);
  if (in_rate == out_rate) return r;
  const spx_uint32_t mid_rate = IntegerStage(in_rate, out_rate);
  const spx_uint32_t first_out = mid_rate == in_rate ? out_rate : mid_rate;
  Result<SpeexResamplerState*> first = NewStage(in_rate, first_out);
  if (!first.ok()) return first.status();
  r.first_.reset(first.value());
  r.first_ratio_ = static_cast<double>(first_out) / in_rate;
  if (first_out != out_rate) {
    Result<SpeexResamplerState*> second = NewStage(first_out, out_rate);
    if (!second.ok()) return second.status();
    r.second_.reset(second.value());
    r.second_ratio_ = static_cast<double>(out_rate) / first_out;
  }
  return r;
}

MonoResampler::MonoResampler(int channels) : channels_(channels) {}

Status MonoResampler::Process(const float* interleaved, std::size_t frames, std::vector<float>* out) {
  mono_.resize(frames);
  const float scale = 1.0f / static_cast<float>(channels_);
  if (channels_ == 1) {
    std::copy(interleaved, interleaved + frames, mono_.begin());
  } else if (channels_ == 2) {
    // Stereo, the common case, written out: with the channel count known the
    // compiler vectorises the loop; the general one costs about 24
    // instructions a frame more (4 % of a whole analysis).
    for (std::size_t i = 0; i < frames; ++i) mono_[i] = (interleaved[2 * i] + interleaved[2 * i + 1]) * scale;
  } else {
    for (std::size_t i = 0; i < frames; ++i) {
      float sum = 0.0f;
      for (int c = 0; c < channels_; ++c) sum += interleaved[i * channels_ + c];
      mono_[i] = sum * scale;
    }
  }
  if (!first_) {
    out->insert(out->end(), mono_.begin(), mono_.end());
    return Status::kOk;
  }
  if (!second_) return Run(first_.get(), mono_.data(), frames, first_ratio_, out);
  mid_.clear();
  const Status s = Run(first_.get(), mono_.data(), frames, first_ratio_, &mid_);
  if (s != Status::kOk) return s;
  return Run(second_.get(), mid_.data(), mid_.size(), second_ratio_, out);
}

}  // namespace trackscan::dsp
