// Downmix-and-resample front end: every source rate lands on the analysis
// rate with the pitch, level and timing of what went in, and what the
// analysis rate cannot hold is filtered out rather than folded back.
#include "resampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "params.h"

namespace trackscan::dsp {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kOut = params::kAnalysisRateHz;
const double kRates[] = {8000, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000};

std::vector<float> Resample(const std::vector<float>& interleaved, double rate, int channels, std::size_t chunk = 4096) {
  Result<MonoResampler> r = MonoResampler::Create(rate, channels, kOut);
  EXPECT_TRUE(r.ok());
  std::vector<float> out;
  const std::size_t frames = interleaved.size() / channels;
  for (std::size_t i = 0; i < frames; i += chunk) {
    const std::size_t n = std::min(chunk, frames - i);
    EXPECT_EQ(r.value().Process(interleaved.data() + i * channels, n, &out), Status::kOk);
  }
  EXPECT_EQ(r.value().Flush(&out), Status::kOk);
  return out;
}

std::vector<float> Sine(double hz, double rate, double seconds, double amp) {
  std::vector<float> x(static_cast<std::size_t>(rate * seconds));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(amp * std::sin(2 * kPi * hz * i / rate));
  return x;
}

// Amplitude of the component at `hz` (least squares over the middle half).
double AmplitudeAt(const std::vector<float>& x, double rate, double hz) {
  double re = 0, im = 0;
  const std::size_t a = x.size() / 4, b = 3 * x.size() / 4;
  for (std::size_t i = a; i < b; ++i) {
    re += x[i] * std::cos(2 * kPi * hz * i / rate);
    im += x[i] * std::sin(2 * kPi * hz * i / rate);
  }
  return 2 * std::hypot(re, im) / static_cast<double>(b - a);
}

TEST(ResamplerTest, EveryRateKeepsPitchLevelAndLength) {
  for (double rate : kRates) {
    const std::vector<float> out = Resample(Sine(1000, rate, 4, 0.5), rate, 1);
    // Flush hands over the filter's tail: every input second comes out.
    EXPECT_NEAR(static_cast<double>(out.size()), 4 * kOut, 1.0) << rate;
    EXPECT_NEAR(AmplitudeAt(out, kOut, 1000), 0.5, 0.01) << rate;
    EXPECT_LT(AmplitudeAt(out, kOut, 1010), 0.01) << rate;
  }
}

TEST(ResamplerTest, WhatTheAnalysisRateCannotHoldIsFilteredNotFolded) {
  // 7 kHz is above the 5.5 kHz Nyquist of the analysis rate; folded, it
  // would land at 11025 - 7000 = 4025 Hz.
  for (double rate : {22050.0, 32000.0, 44100.0, 48000.0, 96000.0, 192000.0}) {
    const std::vector<float> out = Resample(Sine(7000, rate, 4, 0.5), rate, 1);
    EXPECT_LT(AmplitudeAt(out, kOut, 4025), 0.5 * 0.01) << rate;  // >= 40 dB down
  }
}

TEST(ResamplerTest, AClickStaysWhereItWas) {
  for (double rate : kRates) {
    std::vector<float> x(static_cast<std::size_t>(rate * 3), 0.0f);
    const std::size_t at = static_cast<std::size_t>(rate * 1.5);
    for (int i = 0; i < 8; ++i) x[at + i] = 1.0f;
    const std::vector<float> out = Resample(x, rate, 1);
    std::size_t peak = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (std::abs(out[i]) > std::abs(out[peak])) peak = i;
    }
    EXPECT_NEAR(peak / kOut, 1.5, 0.002) << rate;  // within 2 ms: a tenth of an onset frame
  }
}

TEST(ResamplerTest, DownmixIsTheMeanOfTheChannels) {
  const double rate = 48000;
  const std::vector<float> left = Sine(1000, rate, 2, 0.8);
  std::vector<float> stereo(2 * left.size());
  for (std::size_t i = 0; i < left.size(); ++i) {
    stereo[2 * i] = left[i];
    stereo[2 * i + 1] = 0.0f;
  }
  EXPECT_NEAR(AmplitudeAt(Resample(stereo, rate, 2), kOut, 1000), 0.4, 0.01);
}

TEST(ResamplerTest, ChunkSizeDoesNotMatter) {
  for (double rate : {44100.0, 48000.0, 96000.0}) {
    const std::vector<float> x = Sine(440, rate, 2, 0.5);
    const std::vector<float> whole = Resample(x, rate, 1, x.size());
    const std::vector<float> bits = Resample(x, rate, 1, 997);
    ASSERT_EQ(whole.size(), bits.size()) << rate;
    for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_NEAR(whole[i], bits[i], 1e-5) << rate << " at " << i;
  }
}

TEST(ResamplerTest, RejectsBadConfig) {
  EXPECT_FALSE(MonoResampler::Create(0, 2, kOut).ok());
  EXPECT_FALSE(MonoResampler::Create(48000, 0, kOut).ok());
  EXPECT_FALSE(MonoResampler::Create(48000, 9, kOut).ok());
  EXPECT_FALSE(MonoResampler::Create(48000, 2, 0).ok());
  EXPECT_FALSE(MonoResampler::Create(std::nan(""), 2, kOut).ok());
}

}  // namespace
}  // namespace trackscan::dsp
