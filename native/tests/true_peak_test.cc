// True peak: EBU Tech 3341 cases 15-18 (a quarter-rate sine whose samples
// miss its crest), and agreement with libebur128's own true-peak mode, which
// interpolates every sample, on signals where skipping matters.
#include "true_peak.h"

#include <ebur128.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "signals.h"

namespace trackscan::dsp {
namespace {

constexpr double kPi = 3.14159265358979323846;

double OursDb(const std::vector<float>& pcm, double rate, int channels) {
  Result<TruePeak> tp = TruePeak::Create(rate, channels);
  EXPECT_TRUE(tp.ok());
  tp.value().Process(pcm.data(), pcm.size() / channels);
  return 20 * std::log10(tp.value().MaxLinear());
}

double Libebur128Db(const std::vector<float>& pcm, double rate, int channels) {
  ebur128_state* st = ebur128_init(channels, static_cast<unsigned long>(rate), EBUR128_MODE_TRUE_PEAK);
  ebur128_add_frames_float(st, pcm.data(), pcm.size() / channels);
  double peak = 0;
  for (int c = 0; c < channels; ++c) {
    double p = 0;
    ebur128_true_peak(st, c, &p);
    peak = std::max(peak, p);
  }
  ebur128_destroy(&st);
  return 20 * std::log10(peak);
}

TEST(TruePeakTest, RejectsBadConfig) {
  EXPECT_FALSE(TruePeak::Create(100, 2).ok());
  EXPECT_FALSE(TruePeak::Create(48000, 0).ok());
  EXPECT_FALSE(TruePeak::Create(48000, 9).ok());
}

// Tech 3341 cases 15-18: 48 kHz, fs/4 sine at -6 dBFS with phase 0, 45, 60
// and 67.5 degrees; expected -6.0 dBTP within +0.2/-0.4 dB.
TEST(TruePeakTest, Tech3341QuarterRateSines) {
  for (double degrees : {0.0, 45.0, 60.0, 67.5}) {
    const auto pcm = testing::Sine(12000, -6.0206, 5, 48000, 2, degrees * kPi / 180);
    const double db = OursDb(pcm, 48000, 2);
    EXPECT_LE(db, -6.0 + 0.2) << degrees;
    EXPECT_GE(db, -6.0 - 0.4) << degrees;
  }
}

TEST(TruePeakTest, NeverBelowSamplePeak) {
  const auto pcm = testing::Noise(-3, 2, 44100, 2, 7);
  float sample_peak = 0;
  for (float v : pcm) sample_peak = std::max(sample_peak, std::fabs(v));
  EXPECT_GE(OursDb(pcm, 44100, 2), 20 * std::log10(sample_peak) - 1e-4);
}

// Loud noise, then quieter noise with one louder burst late in the file: the
// burst must not be skipped, and the result must match full interpolation.
TEST(TruePeakTest, MatchesLibebur128) {
  for (double rate : {44100.0, 48000.0, 96000.0, 192000.0}) {
    auto pcm = testing::Noise(-12, 3, rate, 2, 1);
    testing::Append(&pcm, testing::Noise(-30, 3, rate, 2, 2));
    testing::Append(&pcm, testing::Sine(rate / 4.1, -1, 0.05, rate, 2, 0.3));
    testing::Append(&pcm, testing::Noise(-30, 1, rate, 2, 3));
    EXPECT_NEAR(OursDb(pcm, rate, 2), Libebur128Db(pcm, rate, 2), 0.02) << rate;
  }
}

TEST(TruePeakTest, ChunkingDoesNotMatter) {
  const auto pcm = testing::Noise(-6, 1, 44100, 2, 9);
  Result<TruePeak> a = TruePeak::Create(44100, 2);
  Result<TruePeak> b = TruePeak::Create(44100, 2);
  a.value().Process(pcm.data(), pcm.size() / 2);
  for (std::size_t i = 0; i < pcm.size() / 2; i += 37) {
    b.value().Process(pcm.data() + i * 2, std::min<std::size_t>(37, pcm.size() / 2 - i));
  }
  EXPECT_DOUBLE_EQ(a.value().MaxLinear(), b.value().MaxLinear());
}

}  // namespace
}  // namespace trackscan::dsp
