#include "resampler.h"

#include <speex/speex_resampler.h>

#include <cmath>

#include "params.h"

namespace trackscan::dsp {

void MonoResampler::StateDeleter::operator()(SpeexResamplerState_* st) const { speex_resampler_destroy(st); }

Result<MonoResampler> MonoResampler::Create(double input_rate_hz, int channels, double output_rate_hz) {
  if (!(input_rate_hz >= params::kMinSampleRateHz && input_rate_hz <= params::kMaxSampleRateHz) ||
      channels < params::kMinChannels || channels > params::kMaxChannels || !(output_rate_hz > 0.0)) {
    return Status::kInvalidArgument;
  }
  const auto in_rate = static_cast<spx_uint32_t>(std::lround(input_rate_hz));
  const auto out_rate = static_cast<spx_uint32_t>(std::lround(output_rate_hz));
  SpeexResamplerState* st = nullptr;
  if (in_rate != out_rate) {
    int err = RESAMPLER_ERR_SUCCESS;
    st = speex_resampler_init(1, in_rate, out_rate, params::kResamplerQuality, &err);
    if (st == nullptr || err != RESAMPLER_ERR_SUCCESS) {
      return err == RESAMPLER_ERR_ALLOC_FAILED ? Status::kOutOfMemory : Status::kInternal;
    }
    // Without this the output starts with the filter's latency of zeros,
    // which would shift every beat time.
    speex_resampler_skip_zeros(st);
  }
  return MonoResampler(st, channels, output_rate_hz / input_rate_hz);
}

MonoResampler::MonoResampler(SpeexResamplerState_* st, int channels, double ratio)
    : state_(st), channels_(channels), ratio_(ratio) {}

Status MonoResampler::Process(const float* interleaved, std::size_t frames, std::vector<float>* out) {
  mono_.resize(frames);
  const float scale = 1.0f / static_cast<float>(channels_);
  for (std::size_t i = 0; i < frames; ++i) {
    float sum = 0.0f;
    for (int c = 0; c < channels_; ++c) sum += interleaved[i * channels_ + c];
    mono_[i] = sum * scale;
  }
  if (!state_) {
    out->insert(out->end(), mono_.begin(), mono_.end());
    return Status::kOk;
  }
  // speexdsp may stop early when the output buffer fills: loop until every
  // input sample is consumed.
  std::size_t done = 0;
  while (done < frames) {
    const std::size_t start = out->size();
    const std::size_t room = static_cast<std::size_t>(std::ceil((frames - done) * ratio_)) + 16;
    out->resize(start + room);
    spx_uint32_t in_len = static_cast<spx_uint32_t>(frames - done);
    spx_uint32_t out_len = static_cast<spx_uint32_t>(room);
    const int err =
        speex_resampler_process_float(state_.get(), 0, mono_.data() + done, &in_len, out->data() + start, &out_len);
    out->resize(start + out_len);
    if (err != RESAMPLER_ERR_SUCCESS) return Status::kInternal;
    if (in_len == 0 && out_len == 0) return Status::kInternal;  // no progress: never spin
    done += in_len;
  }
  return Status::kOk;
}

}  // namespace trackscan::dsp
