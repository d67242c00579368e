// RAII wrapper over KissFFT's real-input transform (kiss_fftr), from the
// system's libkissfft (Debian libkissfft-dev, Homebrew kissfft).
//
// Size: even, with small prime factors (2, 3, 5) for speed; 16..65536.
#ifndef TRACKSCAN_DSP_REAL_FFT_H_
#define TRACKSCAN_DSP_REAL_FFT_H_

#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

#include "status.h"

namespace trackscan::dsp {

class RealFft {
 public:
  static Result<RealFft> Create(std::size_t size);

  std::size_t size() const { return size_; }
  std::size_t bins() const { return size_ / 2 + 1; }

  // in: size() real samples; out: bins() complex values (unnormalised).
  void Forward(const float* in, std::complex<float>* out) const;

  // in: size() real samples; out: bins() squared magnitudes.
  void PowerSpectrum(const float* in, float* power) const;

 private:
  struct ConfigDeleter {
    void operator()(void* cfg) const;
  };
  RealFft(std::size_t size, void* cfg);

  std::size_t size_;
  std::unique_ptr<void, ConfigDeleter> cfg_;  // kiss_fftr_cfg
  mutable std::vector<std::complex<float>> scratch_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_REAL_FFT_H_
