// EBU Tech 3341 (loudness, true peak) and Tech 3342 (loudness range) cases
// that are defined as sine sequences, through dsp::Loudness.
#include "loudness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "signals.h"

namespace trackscan::dsp {
namespace {

using testing::Append;
using testing::Sine;

LoudnessSummary Measure(const std::vector<float>& pcm, double rate, int channels, std::size_t chunk = 4096) {
  Result<Loudness> l = Loudness::Create(rate, channels, 0);
  EXPECT_TRUE(l.ok());
  const std::size_t frames = pcm.size() / channels;
  for (std::size_t i = 0; i < frames; i += chunk) {
    const std::size_t n = std::min(chunk, frames - i);
    EXPECT_EQ(l.value().Process(pcm.data() + i * channels, n), Status::kOk);
  }
  return l.value().Summary();
}

// A sequence of (level dBFS, seconds) of stereo 1 kHz sine.
std::vector<float> Sequence(std::initializer_list<std::pair<double, double>> parts, double rate = 48000) {
  std::vector<float> out;
  for (const auto& [level, seconds] : parts) Append(&out, Sine(1000, level, seconds, rate, 2));
  return out;
}

TEST(LoudnessTest, RejectsBadConfig) {
  EXPECT_FALSE(Loudness::Create(0, 2, 0).ok());
  EXPECT_FALSE(Loudness::Create(7999, 2, 0).ok());
  EXPECT_FALSE(Loudness::Create(44100.5, 2, 0).ok());
  EXPECT_FALSE(Loudness::Create(48000, 0, 0).ok());
  EXPECT_FALSE(Loudness::Create(48000, 9, 0).ok());
  EXPECT_TRUE(Loudness::Create(8000, 1, 0).ok());
  EXPECT_TRUE(Loudness::Create(192000, 8, 0).ok());
}

// Tech 3341 cases 1-5: integrated loudness within +-0.1 LU.
TEST(LoudnessTest, Tech3341Case1) { EXPECT_NEAR(Measure(Sequence({{-23, 20}}), 48000, 2).integrated_lufs, -23.0, 0.1); }
TEST(LoudnessTest, Tech3341Case2) { EXPECT_NEAR(Measure(Sequence({{-33, 20}}), 48000, 2).integrated_lufs, -33.0, 0.1); }
TEST(LoudnessTest, Tech3341Case3) {
  EXPECT_NEAR(Measure(Sequence({{-36, 10}, {-23, 60}, {-36, 10}}), 48000, 2).integrated_lufs, -23.0, 0.1);
}
TEST(LoudnessTest, Tech3341Case4) {
  const auto pcm = Sequence({{-72, 10}, {-36, 10}, {-23, 60}, {-36, 10}, {-72, 10}});
  EXPECT_NEAR(Measure(pcm, 48000, 2).integrated_lufs, -23.0, 0.1);
}
TEST(LoudnessTest, Tech3341Case5) {
  EXPECT_NEAR(Measure(Sequence({{-26, 20}, {-20, 20.1}, {-26, 20}}), 48000, 2).integrated_lufs, -23.0, 0.1);
}

// Tech 3342 cases 1-4: loudness range within +-1 LU.
TEST(LoudnessTest, Tech3342Case1) { EXPECT_NEAR(Measure(Sequence({{-20, 20}, {-30, 20}}), 48000, 2).loudness_range_lu, 10, 1); }
TEST(LoudnessTest, Tech3342Case2) { EXPECT_NEAR(Measure(Sequence({{-20, 20}, {-15, 20}}), 48000, 2).loudness_range_lu, 5, 1); }
TEST(LoudnessTest, Tech3342Case3) { EXPECT_NEAR(Measure(Sequence({{-40, 20}, {-20, 20}}), 48000, 2).loudness_range_lu, 20, 1); }
TEST(LoudnessTest, Tech3342Case4) {
  const auto pcm = Sequence({{-50, 20}, {-35, 20}, {-20, 20}, {-35, 20}, {-50, 20}});
  EXPECT_NEAR(Measure(pcm, 48000, 2).loudness_range_lu, 15, 1);
}

TEST(LoudnessTest, SilenceHasNoLoudness) {
  const std::vector<float> silence(48000 * 2 * 5, 0.0f);
  const LoudnessSummary s = Measure(silence, 48000, 2);
  EXPECT_TRUE(std::isnan(s.integrated_lufs));
  EXPECT_TRUE(std::isnan(s.loudness_range_lu));
  EXPECT_TRUE(std::isnan(s.true_peak_dbtp));
  EXPECT_TRUE(std::isnan(s.sample_peak_dbfs));
  EXPECT_EQ(s.short_term_lufs.size(), 5u);
}

TEST(LoudnessTest, ShortTermCurveHasOnePointPerSecond) {
  const LoudnessSummary s = Measure(Sequence({{-23, 10.5}}, 44100), 44100, 2, 1000);
  ASSERT_EQ(s.short_term_lufs.size(), 10u);
  // From 3 s on the window is full of the -23 LUFS tone.
  for (std::size_t i = 2; i < s.short_term_lufs.size(); ++i) EXPECT_NEAR(s.short_term_lufs[i], -23.0, 0.1);
}

TEST(LoudnessTest, ChunkSizeDoesNotChangeResults) {
  const auto pcm = Sequence({{-30, 3}, {-20, 4}});
  const LoudnessSummary a = Measure(pcm, 48000, 2, 1);
  const LoudnessSummary b = Measure(pcm, 48000, 2, 65536);
  EXPECT_DOUBLE_EQ(a.integrated_lufs, b.integrated_lufs);
  EXPECT_DOUBLE_EQ(a.true_peak_dbtp, b.true_peak_dbtp);
  EXPECT_EQ(a.short_term_lufs, b.short_term_lufs);
}

TEST(LoudnessTest, LfeIsNotMeasuredWhenTheMaskSaysSo) {
  // 5.1 (mask 0x3F) with the tone only on the LFE channel: nothing to measure.
  std::vector<float> pcm(48000 * 6 * 5, 0.0f);
  const auto tone = Sine(1000, -10, 5, 48000, 1);
  for (std::size_t i = 0; i < tone.size(); ++i) pcm[i * 6 + 3] = tone[i];
  Result<Loudness> l = Loudness::Create(48000, 6, 0x3F);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l.value().Process(pcm.data(), pcm.size() / 6), Status::kOk);
  EXPECT_TRUE(std::isnan(l.value().Summary().integrated_lufs));
}

}  // namespace
}  // namespace trackscan::dsp
