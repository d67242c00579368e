// dsp::TempoEstimator on generated rhythms of known tempo (native/testing/
// rhythm.h): bad configs first, then tempo and metrical level across
// 60-200 BPM, beats, streaming, level independence, and the inputs that must
// not get a confident answer.
#include "tempo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "params.h"
#include "rhythm.h"
#include "signals.h"

namespace trackscan::dsp {
namespace {

constexpr double kRate = params::kAnalysisRateHz;

std::optional<TempoEstimate> Analyze(const std::vector<float>& pcm, std::size_t chunk = 4096) {
  Result<TempoEstimator> t = TempoEstimator::Create(kRate);
  EXPECT_TRUE(t.ok());
  for (std::size_t i = 0; i < pcm.size(); i += chunk) {
    t.value().Process(pcm.data() + i, std::min(chunk, pcm.size() - i));
  }
  return t.value().Estimate();
}

TEST(TempoTest, RejectsBadConfig) {
  EXPECT_FALSE(TempoEstimator::Create(0).ok());
  EXPECT_FALSE(TempoEstimator::Create(-11025).ok());
  EXPECT_FALSE(TempoEstimator::Create(std::numeric_limits<double>::quiet_NaN()).ok());
  EXPECT_FALSE(TempoEstimator::Create(std::numeric_limits<double>::infinity()).ok());
  EXPECT_TRUE(TempoEstimator::Create(kRate).ok());
}

TEST(TempoTest, ClickTracksWithinOneBpm) {
  for (double bpm = 60; bpm <= 200; bpm += 7.3) {
    const auto est = Analyze(testing::ClickTrack(bpm, 20, kRate, 0));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << bpm;
    EXPECT_GE(est->confidence, 0.3) << bpm;
  }
}

// An even pulse too fast for the doubling step (every event alike at 205-245
// BPM) is answered at half, but its double is a reading listeners give: the
// confidence must say so against the same tempo without the events between.
TEST(TempoTest, EvenPulseAboveTheDoublingCeilingIsLessCertain) {
  for (double fast = 205; fast <= 245; fast += 9.7) {
    const auto even = Analyze(testing::ClickTrack(fast, 20, kRate, 0));
    const auto half = Analyze(testing::ClickTrack(fast / 2, 20, kRate, 0));
    ASSERT_TRUE(even.has_value() && half.has_value()) << fast;
    EXPECT_NEAR(even->bpm, fast / 2, 1.0) << fast;
    EXPECT_LT(even->confidence, 0.6 * half->confidence) << fast;
  }
}

// The label of a drum pattern is its quarter-note rate; the backbeat (snare
// on 2 and 4) is what fixes the level, so half or double is an error here.
void ExpectDrums(testing::DrumStyle style, double lo, double hi, double step, bool pad) {
  int seed = 1;
  for (double bpm = lo; bpm <= hi; bpm += step) {
    testing::DrumOptions o;
    o.style = style;
    o.swing = 0.1;
    o.jitter_ms = 4.0;
    o.tonal_pad = pad;
    o.seed = seed++;
    const auto est = Analyze(testing::DrumPattern(bpm, 25, kRate, o));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << "style " << static_cast<int>(style) << " at " << bpm;
  }
}

TEST(TempoTest, RockPatterns60To200) { ExpectDrums(testing::DrumStyle::kRock, 60, 200, 9.7, false); }
TEST(TempoTest, FourOnTheFloor100To140) { ExpectDrums(testing::DrumStyle::kFourFloor, 100, 140, 6.1, false); }
TEST(TempoTest, FastHalfTimeFeel150To200) { ExpectDrums(testing::DrumStyle::kHalfTime, 150, 200, 8.3, false); }
TEST(TempoTest, Waltz90To180) { ExpectDrums(testing::DrumStyle::kWaltz, 90, 180, 11.9, false); }
TEST(TempoTest, Shuffle80To150) { ExpectDrums(testing::DrumStyle::kShuffle, 80, 150, 9.1, false); }
TEST(TempoTest, BandWithSustainedChords60To200) { ExpectDrums(testing::DrumStyle::kRock, 63, 200, 13.1, true); }

// Drums plus a melody of plucked, square-like notes (odd harmonics up to the
// analysis band) in half notes, on beats 1 and 3 with the kick, at four times
// the drums' RMS (which is mostly the kick's): in the snare's bright bands
// its partials then outweigh the snare, as a lead voice or guitar does in a
// mix, and rise on the beats the snare leaves out. The backbeat has to be
// read from the snare's noise, not from whatever rises up there (the plain
// sum of the bright bands read 8 of these 9 at half or double tempo).
std::vector<float> WithBrightMelody(double bpm, testing::DrumStyle style, std::uint32_t seed) {
  testing::DrumOptions o;
  o.style = style;
  o.jitter_ms = 3.0;
  o.seed = seed;
  std::vector<float> pcm = testing::DrumPattern(bpm, 25, kRate, o);
  std::vector<float> melody(pcm.size(), 0.0f);
  const double pitches[] = {392.0, 440.0, 493.9, 523.3, 587.3, 659.3, 587.3, 523.3, 493.9, 440.0, 349.2};
  const double beat = 60.0 / bpm;
  std::uint32_t state = seed * 2654435761u + 1u;
  for (int b = 0; 0.1 + b * beat < 25.0; b += 2) {
    state = state * 1664525u + 1013904223u;
    const double f0 = pitches[(state >> 8) % (sizeof(pitches) / sizeof(pitches[0]))];
    const std::size_t start = static_cast<std::size_t>((0.1 + b * beat) * kRate);
    const std::size_t len = static_cast<std::size_t>(1.9 * beat * kRate);
    for (int k = 1; k * f0 < 0.45 * kRate; k += 2) {
      const double w = 2.0 * 3.14159265358979 * k * f0 / kRate;
      for (std::size_t i = 0; i < len && start + i < melody.size(); ++i) {
        const double t = static_cast<double>(i) / kRate;
        melody[start + i] += static_cast<float>(std::min(1.0, t / 0.004) * std::exp(-t / 0.25) * std::sin(w * i) / k);
      }
    }
  }
  double drums2 = 0.0, melody2 = 0.0;
  for (std::size_t i = 0; i < pcm.size(); ++i) {
    drums2 += static_cast<double>(pcm[i]) * pcm[i];
    melody2 += static_cast<double>(melody[i]) * melody[i];
  }
  const float g = static_cast<float>(4.0 * std::sqrt(drums2 / melody2));
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] += g * melody[i];
  return pcm;
}

TEST(TempoTest, LoudBrightMelodyKeepsTheBackbeat) {
  std::uint32_t seed = 1;
  for (double bpm = 160; bpm <= 200; bpm += 8.1) {
    const auto est = Analyze(WithBrightMelody(bpm, testing::DrumStyle::kHalfTime, seed++));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << "half-time at " << bpm;
  }
  for (double bpm = 62; bpm <= 86; bpm += 6.1) {
    const auto est = Analyze(WithBrightMelody(bpm, testing::DrumStyle::kRock, seed++));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << "rock at " << bpm;
  }
}

// 6/8 is felt in dotted quarters. Its eighths are as strong as each other
// and the quarter (two of them) sits nearer the prior's centre, so only the
// grouping in threes that the bar shows tells the dotted quarter from the
// quarter (read at 1.5 times the tempo without it). Below ~67 BPM the eighths
// themselves (up to 200 BPM) are read, three times the tempo.
TEST(TempoTest, SixEightIsReadOnTheDottedQuarter) {
  std::uint32_t seed = 1;
  for (double bpm = 67.5; bpm <= 84; bpm += 2.3) {
    const auto est = Analyze(testing::SixEightArpeggio(bpm, 25, kRate, seed++));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << "6/8 at " << bpm;
  }
}

// Bowed strings: the melody changes note on every beat without an attack, and
// only a bass every second beat plucks. The band flux sees the bass; the
// beat is in the pitch flux (7 of 8 read at half with its weight at 0).
TEST(TempoTest, LegatoNoteChangesMarkTheBeat) {
  std::uint32_t seed = 1;
  for (double bpm = 100; bpm <= 140; bpm += 5.3) {
    const auto est = Analyze(testing::LegatoStrings(bpm, 25, kRate, seed++));
    ASSERT_TRUE(est.has_value()) << bpm;
    EXPECT_NEAR(est->bpm, bpm, 1.0) << "legato strings at " << bpm;
  }
}

// A bar accent makes every other beat differ; up to ~160 BPM that must not
// move the answer to the bar or half-bar level.
TEST(TempoTest, AccentedClicksKeepTheBeatLevel) {
  for (double bpm = 60; bpm <= 160; bpm += 12.7) {
    for (int beats_per_bar : {3, 4}) {
      const auto est = Analyze(testing::ClickTrack(bpm, 20, kRate, beats_per_bar));
      ASSERT_TRUE(est.has_value()) << bpm;
      EXPECT_NEAR(est->bpm, bpm, 1.0) << bpm << " with " << beats_per_bar << " beats a bar";
    }
  }
}

TEST(TempoTest, BeatsFallOnTheClicks) {
  const double bpm = 120, offset = 0.1;
  const auto est = Analyze(testing::ClickTrack(bpm, 20, kRate, 4, offset));
  ASSERT_TRUE(est.has_value());
  ASSERT_GE(est->beat_times_s.size(), 35u);
  for (double t : est->beat_times_s) {
    const double phase = std::fmod(t - offset + 10 * 0.5, 0.5);
    EXPECT_LT(std::min(phase, 0.5 - phase), 0.03) << t;
  }
  ASSERT_FALSE(est->candidates.empty());
  EXPECT_NEAR(est->candidates[0].bpm, est->bpm, 1e-9);
  for (std::size_t i = 1; i < est->candidates.size(); ++i) {
    EXPECT_LE(est->candidates[i].score, est->candidates[i - 1].score);
  }
}

TEST(TempoTest, ChunkSizeDoesNotMatter) {
  testing::DrumOptions o;
  o.tonal_pad = true;
  const std::vector<float> pcm = testing::DrumPattern(97, 15, kRate, o);
  const auto a = Analyze(pcm, 4096);
  for (std::size_t chunk : {1u, 37u, 128u, 100000u}) {
    const auto b = Analyze(pcm, chunk);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->bpm, b->bpm) << chunk;
    EXPECT_EQ(a->confidence, b->confidence) << chunk;
    EXPECT_EQ(a->beat_times_s, b->beat_times_s) << chunk;
  }
}

// Streaming keeps features, not PCM: one envelope value per hop.
TEST(TempoTest, KeepsOnlyTheOnsetEnvelope) {
  Result<TempoEstimator> t = TempoEstimator::Create(kRate);
  ASSERT_TRUE(t.ok());
  const std::vector<float> minute = testing::DrumPattern(110, 60, kRate);
  for (int i = 0; i < 5; ++i) t.value().Process(minute.data(), minute.size());
  const double frames_expected = 5 * 60 * kRate / params::kTempoHopSize;
  EXPECT_NEAR(static_cast<double>(t.value().onset_envelope().size()), frames_expected, 2.0);
  const auto est = t.value().Estimate();
  ASSERT_TRUE(est.has_value());
  EXPECT_NEAR(est->bpm, 110, 1.0);
  EXPECT_NEAR(static_cast<double>(est->beat_times_s.size()), 5 * 110, 6.0);
}

TEST(TempoTest, LevelDoesNotMatter) {
  for (double db : {-50.0, -20.0, 0.0, 40.0, 200.0}) {
    std::vector<float> pcm = testing::DrumPattern(128, 15, kRate);
    testing::Gain(&pcm, db);
    const auto est = Analyze(pcm);
    ASSERT_TRUE(est.has_value()) << db;
    EXPECT_NEAR(est->bpm, 128, 1.0) << db;
  }
}

// No answer is an answer: nullopt or a confidence below 0.3.
void ExpectNoConfidentAnswer(const std::vector<float>& pcm, const char* what) {
  const auto est = Analyze(pcm);
  if (est) {
    EXPECT_LT(est->confidence, 0.3) << what << " got " << est->bpm << " BPM";
    EXPECT_GE(est->confidence, 0.0) << what;
  }
}

TEST(TempoTest, NoConfidentAnswerWithoutPulse) {
  ExpectNoConfidentAnswer(std::vector<float>(30 * 11025, 0.0f), "silence");
  ExpectNoConfidentAnswer({}, "nothing");
  ExpectNoConfidentAnswer(testing::Noise(-10, 30, kRate, 1, 5), "white noise");
  ExpectNoConfidentAnswer(testing::Babble(30, kRate, 3), "speech-like babble");
  ExpectNoConfidentAnswer(testing::SingleHit(20, kRate, 5.0), "a single hit");
  ExpectNoConfidentAnswer(testing::Sine(440, -10, 20, kRate, 1), "a sustained tone");
}

TEST(TempoTest, OneSecondClipGetsNoAnswer) {
  EXPECT_FALSE(Analyze(testing::DrumPattern(120, 1.0, kRate)).has_value());
}

TEST(TempoTest, ExtremeSamplesAreSafe) {
  std::vector<float> pcm = testing::ClickTrack(100, 10, kRate);
  for (std::size_t i = 0; i < pcm.size(); i += 97) pcm[i] = (i / 97) % 2 ? 3e38f : -3e38f;
  const auto est = Analyze(pcm);
  if (est) {
    EXPECT_TRUE(std::isfinite(est->bpm));
    EXPECT_TRUE(std::isfinite(est->confidence));
  }
}

TEST(TempoTest, ConfidenceRanksClearPulseAboveAmbiguousOne) {
  const auto clear = Analyze(testing::DrumPattern(120, 25, kRate));
  std::vector<float> mixed = testing::DrumPattern(120, 25, kRate);
  const std::vector<float> noise = testing::Noise(-6, 25, kRate, 1, 9);
  for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] += noise[i];
  const auto noisy = Analyze(mixed);
  ASSERT_TRUE(clear.has_value());
  if (noisy) EXPECT_LT(noisy->confidence, clear->confidence);
}

}  // namespace
}  // namespace trackscan::dsp
