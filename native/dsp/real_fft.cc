#include "real_fft.h"

#include <kiss_fftr.h>

namespace trackscan::dsp {

namespace {

bool HasOnlySmallFactors(std::size_t n) {
  for (std::size_t p : {2, 3, 5}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

}  // namespace

static_assert(sizeof(kiss_fft_cpx) == sizeof(std::complex<float>), "kiss_fft_cpx must match std::complex<float>");

void RealFft::ConfigDeleter::operator()(void* cfg) const { kiss_fftr_free(cfg); }

Result<RealFft> RealFft::Create(std::size_t size) {
  if (size < 16 || size > 65536 || size % 2 != 0 || !HasOnlySmallFactors(size)) return Status::kInvalidArgument;
  kiss_fftr_cfg cfg = kiss_fftr_alloc(static_cast<int>(size), 0, nullptr, nullptr);
  if (cfg == nullptr) return Status::kOutOfMemory;
  return RealFft(size, cfg);
}

RealFft::RealFft(std::size_t size, void* cfg) : size_(size), cfg_(cfg), scratch_(size / 2 + 1) {}

void RealFft::Forward(const float* in, std::complex<float>* out) const {
  kiss_fftr(static_cast<kiss_fftr_cfg>(cfg_.get()), in, reinterpret_cast<kiss_fft_cpx*>(out));
}

void RealFft::PowerSpectrum(const float* in, float* power) const {
  Forward(in, scratch_.data());
  for (std::size_t k = 0; k < scratch_.size(); ++k) power[k] = std::norm(scratch_[k]);
}

}  // namespace trackscan::dsp
