// Key estimator on generated music in all 24 keys, at several tunings, and on
// the signals that have no key.
#include "key.h"

#include "analyzer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "params.h"
#include "signals.h"
#include "tonal.h"
#include "tuning.h"

namespace trackscan::dsp {
namespace {

constexpr double kRate = params::kAnalysisRateHz;
const char* const kNames[12] = {"C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"};

// The analyzer's order: tuning first, then the key on that tuning.
std::optional<KeyEstimate> Measure(const std::vector<float>& mono, std::size_t chunk = 3000) {
  Result<TuningEstimator> t = TuningEstimator::Create(kRate);
  Result<KeyEstimator> k = KeyEstimator::Create(kRate);
  EXPECT_TRUE(t.ok() && k.ok());
  for (std::size_t i = 0; i < mono.size(); i += chunk) {
    t.value().Process(mono.data() + i, std::min(chunk, mono.size() - i));
  }
  const std::optional<TuningEstimate> tuning = t.value().Estimate();
  return k.value().Estimate(t.value().features(), tuning ? tuning->reference_hz : 440.0);
}

std::string Name(int tonic, bool minor) { return std::string(kNames[tonic]) + (minor ? " minor" : " major"); }

// Chord loops for the final-chord tests (semitones above the tonic): i-bVII-bVI-bVII, which has
// the relative major's pitch classes, and I-IV-vi-IV, which never plays the leading tone.
const std::vector<std::vector<int>> kAeolian = {{0, 3, 7}, {10, 14, 17}, {8, 12, 15}, {10, 14, 17}};
const std::vector<std::vector<int>> kPlagal = {{0, 4, 7}, {5, 9, 12}, {9, 12, 16}, {5, 9, 12}};
const std::vector<int> kDominant = {7, 11, 14};

TEST(KeyTest, RejectsBadConfig) {
  EXPECT_FALSE(KeyEstimator::Create(0.0).ok());
  EXPECT_FALSE(KeyEstimator::Create(-1.0).ok());
  EXPECT_FALSE(KeyEstimator::Create(std::nan("")).ok());
  EXPECT_TRUE(KeyEstimator::Create(kRate).ok());
}

// Every key, every progression, at 440 Hz.
TEST(KeyTest, AllKeysAllProgressions) {
  int exact = 0, total = 0;
  for (int variant = 0; variant < 4; ++variant) {
    for (int tonic = 0; tonic < 12; ++tonic) {
      for (bool minor : {false, true}) {
        const auto x = testing::KeyPiece(tonic, minor, 440.0, 16.0, kRate, variant, 31 * tonic + variant + minor);
        const auto e = Measure(x);
        ++total;
        ASSERT_TRUE(e.has_value()) << Name(tonic, minor);
        ASSERT_EQ(e->candidates.size(), 3u);
        EXPECT_EQ(e->candidates[0].tonic, e->tonic);
        EXPECT_EQ(e->candidates[0].minor, e->minor);
        EXPECT_GE(e->candidates[0].score, e->candidates[1].score);
        EXPECT_GE(e->candidates[1].score, e->candidates[2].score);
        EXPECT_GE(e->confidence, 0.0);
        EXPECT_LE(e->confidence, 1.0);
        if (e->tonic == tonic && e->minor == minor) {
          ++exact;
        } else {
          std::printf("[ miss   ] %s (progression %d) -> %s, confidence %.2f\n", Name(tonic, minor).c_str(), variant,
                      Name(e->tonic, e->minor).c_str(), e->confidence);
        }
      }
    }
  }
  std::printf("[ metric ] exact %d / %d\n", exact, total);
  EXPECT_GE(exact, static_cast<int>(std::ceil(0.98 * total)));  // the issue's target: >= 98 % exact
}

// Minor or relative major when the chords say little: held chords only,
// i-VI-III-V against vi-IV-I-V in the relative major's own pitch set.
TEST(KeyTest, RelativeModeFromChordsAlone) {
  int exact = 0, total = 0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    for (bool minor : {false, true}) {
      const auto e = Measure(testing::PadLoop(tonic, minor, 440.0, 16.0, kRate, 17 * tonic + minor));
      ASSERT_TRUE(e.has_value()) << Name(tonic, minor);
      ++total;
      if (e->tonic == tonic && e->minor == minor) {
        ++exact;
      } else {
        std::printf("[ miss   ] %s pad loop -> %s, confidence %.2f\n", Name(tonic, minor).c_str(),
                    Name(e->tonic, e->minor).c_str(), e->confidence);
      }
    }
  }
  std::printf("[ metric ] pad loops exact %d / %d\n", exact, total);
  EXPECT_GE(exact, total - 1);
}

// Pop's borrowed iv (I-V-IV-iv) puts the relative minor's raised seventh in
// a major piece; the tonic still names the major.
TEST(KeyTest, BorrowedMinorSubdominantStaysMajor) {
  int exact = 0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    const auto e = Measure(testing::BorrowedIvLoop(tonic, 440.0, 16.0, kRate, 31 + tonic));
    ASSERT_TRUE(e.has_value()) << Name(tonic, false);
    if (e->tonic == tonic && !e->minor) {
      ++exact;
    } else {
      std::printf("[ miss   ] %s I-V-IV-iv -> %s, confidence %.2f\n", Name(tonic, false).c_str(),
                  Name(e->tonic, e->minor).c_str(), e->confidence);
    }
  }
  std::printf("[ metric ] I-V-IV-iv loops exact %d / 12\n", exact);
  EXPECT_GE(exact, 11);
}

// The confidence sees how clearly the mode won: a loop that never raises the
// seventh (Aeolian) leaves minor and its relative major nearly tied, so it
// must rank well below the same kind of loop with a harmonic-minor V. The
// other factors already lower it (mean ratio 0.24 without the mode factor);
// the mode factor takes it to 0.14.
TEST(KeyTest, AnOpenModeLowersTheConfidence) {
  int lower = 0;
  double open_sum = 0.0, clear_sum = 0.0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    const auto open = Measure(testing::AeolianLoop(tonic, 440.0, 16.0, kRate, 43 + tonic));
    const auto clear = Measure(testing::PadLoop(tonic, true, 440.0, 16.0, kRate, 43 + tonic));
    ASSERT_TRUE(open.has_value() && clear.has_value()) << Name(tonic, true);
    open_sum += open->confidence;
    clear_sum += clear->confidence;
    if (open->confidence < clear->confidence) ++lower;
  }
  std::printf("[ metric ] Aeolian loop below harmonic-minor loop %d / 12; mean confidence %.2f vs %.2f\n", lower,
              open_sum / 12, clear_sum / 12);
  EXPECT_GE(lower, 10);
  EXPECT_LT(open_sum / clear_sum, 0.2);
}

// A piece that ends by letting its tonic chord ring out names its tonic
// where the pitch statistics cannot: an Aeolian loop has the relative
// major's pitch classes, and a major loop that never plays its leading tone
// (I-IV-vi-IV) has those of its subdominant key but for one. The control
// holds the same final chord as long at a steady level and stops dead: the
// same pitch content, no ring-out.
TEST(KeyTest, AFinalChordNamesTheTonic) {
  int held = 0, rung = 0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    for (bool minor : {true, false}) {
      const auto& loop = minor ? kAeolian : kPlagal;
      for (testing::Ending ending : {testing::Ending::kHold, testing::Ending::kRingOut}) {
        const auto e = Measure(testing::ChordLoop(loop, loop[0], tonic, 440.0, 24.0, kRate, ending, 59 + tonic));
        ASSERT_TRUE(e.has_value()) << Name(tonic, minor);
        const bool right = e->tonic == tonic && e->minor == minor;
        (ending == testing::Ending::kHold ? held : rung) += right;
        if (!right && ending == testing::Ending::kRingOut) {
          std::printf("[ miss   ] %s loop ringing out on its tonic -> %s\n", Name(tonic, minor).c_str(),
                      Name(e->tonic, e->minor).c_str());
        }
      }
    }
  }
  std::printf("[ metric ] loops exact: tonic held and stopped %d / 24, ringing out %d / 24\n", held, rung);
  EXPECT_GE(rung, 23);
  EXPECT_LE(held, 20);  // the ending, not the extra tonic weight, names these tonics
}

// Only a chord that ends the piece and names a closely related tonic votes:
// a loop faded out over its moving chords, or stopped dead (even on a long
// held chord), has no final chord; one that rings out on its dominant (a
// half cadence) has one, but that chord does not become the key. (Its extra 2.5 s of V can still move
// the pitch statistics, with or without the final-chord stage: the answer
// matches the stopped loop's 10 times in 12 either way.)
TEST(KeyTest, AFinalChordThatNamesNoTonicIsIgnored) {
  auto final_frames = [](const std::vector<float>& x) {
    Result<TuningEstimator> t = TuningEstimator::Create(kRate);
    EXPECT_TRUE(t.ok());
    t.value().Process(x.data(), x.size());
    t.value().Estimate();
    return t.value().features().final_chord.frames;
  };
  int same = 0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    const auto stop =
        testing::ChordLoop(kAeolian, kDominant, tonic, 440.0, 16.0, kRate, testing::Ending::kStop, 7 + tonic);
    const auto ring =
        testing::ChordLoop(kAeolian, kDominant, tonic, 440.0, 16.0, kRate, testing::Ending::kRingOut, 7 + tonic);
    const auto fade =
        testing::ChordLoop(kAeolian, kAeolian[0], tonic, 440.0, 24.0, kRate, testing::Ending::kFadeOut, 7 + tonic);
    const auto hold =
        testing::ChordLoop(kAeolian, kAeolian[0], tonic, 440.0, 16.0, kRate, testing::Ending::kHold, 7 + tonic);
    EXPECT_EQ(final_frames(stop), 0.0) << Name(tonic, true);
    EXPECT_EQ(final_frames(hold), 0.0) << Name(tonic, true);
    EXPECT_GT(final_frames(ring), 0.0) << Name(tonic, true);
    EXPECT_EQ(final_frames(fade), 0.0) << Name(tonic, true);
    const auto a = Measure(stop), b = Measure(ring);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_NE(Name(b->tonic, b->minor), Name((tonic + 7) % 12, false)) << "half cadence in " << Name(tonic, true);
    same += a->tonic == b->tonic && a->minor == b->minor;
  }
  std::printf("[ metric ] half cadences ringing out: same key as stopped %d / 12\n", same);
}

// A major piece that stops on its dominant and then lets a drum hit or a
// cymbal die away ends in a decay, but not on a chord that settles anything:
// the drum frame holds the dominant chord (a fifth neighbour the profiles
// clearly rule out), the cymbal's frames no triad at all. Either way the
// key is the one found without the tail.
TEST(KeyTest, ADecayAfterTheMusicIsNoFinalChord) {
  int drum_same = 0, cymbal_same = 0;
  for (int tonic = 0; tonic < 12; ++tonic) {
    const auto loop =
        testing::ChordLoop(kPlagal, kDominant, tonic, 440.0, 16.0, kRate, testing::Ending::kStop, 3 + tonic);
    auto drum = loop;
    const auto hit = testing::DrumHit(3.0, kRate, 1 + tonic);
    drum.insert(drum.end(), hit.begin(), hit.end());
    auto cymbal = loop;
    const auto noise = testing::Noise(-12.0, 3.0, kRate, 1, 100 + tonic);
    for (std::size_t i = 0; i < noise.size(); ++i) {
      cymbal.push_back(noise[i] * static_cast<float>(std::exp(-static_cast<double>(i) / (0.5 * kRate))));
    }
    const auto plain = Measure(loop), a = Measure(drum), b = Measure(cymbal);
    ASSERT_TRUE(plain.has_value() && a.has_value() && b.has_value()) << Name(tonic, false);
    EXPECT_NE(Name(a->tonic, a->minor), Name((tonic + 7) % 12, false))
        << "stop on V, then a drum, in " << Name(tonic, false);
    drum_same += a->tonic == plain->tonic && a->minor == plain->minor;
    cymbal_same += b->tonic == plain->tonic && b->minor == plain->minor;
  }
  std::printf("[ metric ] same key as without the tail: drum hit %d / 12, cymbal %d / 12\n", drum_same, cymbal_same);
  EXPECT_EQ(drum_same, 12);
  // Noise can move the pitch statistics themselves, with or without this stage (2 of 12 loops with a
  // Gaussian tail in a scratch run); 12 of 12 here.
  EXPECT_GE(cymbal_same, 10);
}

// Tuning-aware chroma: the same pieces a third of a semitone sharp or flat.
TEST(KeyTest, KeysAtOtherTunings) {
  int exact = 0, total = 0;
  for (double a4 : {432.0, 448.0}) {
    for (int tonic = 0; tonic < 12; ++tonic) {
      const bool minor = tonic % 2 == 1;
      const auto x = testing::KeyPiece(tonic, minor, a4, 16.0, kRate, tonic % 4, 500 + tonic);
      const auto e = Measure(x);
      ++total;
      ASSERT_TRUE(e.has_value());
      if (e->tonic == tonic && e->minor == minor) ++exact;
    }
  }
  EXPECT_GE(exact, total - 1);
}

// At the quarter-tone point the key is as likely named a semitone away: the
// same pieces tuned 49.5 cents sharp get a fraction of the confidence they
// get at 40 cents sharp.
TEST(KeyTest, AQuarterToneOffNamesNoKeyConfidently) {
  for (int tonic = 0; tonic < 12; tonic += 3) {
    const bool minor = tonic % 2 == 1;
    const auto clear = Measure(testing::KeyPiece(tonic, minor, 440.0 * std::pow(2.0, 40.0 / 1200), 16.0, kRate, 1, 600 + tonic));
    const auto edge = Measure(testing::KeyPiece(tonic, minor, 440.0 * std::pow(2.0, 49.5 / 1200), 16.0, kRate, 1, 600 + tonic));
    ASSERT_TRUE(clear.has_value() && edge.has_value()) << tonic;
    EXPECT_GT(clear->confidence, 0.3) << tonic;
    EXPECT_LT(edge->confidence, 0.3 * clear->confidence) << tonic;
  }
}

TEST(KeyTest, ChunkSizeDoesNotMatter) {
  const auto x = testing::KeyPiece(9, true, 440.0, 12.0, kRate, 2, 77);
  const auto whole = Measure(x, x.size());
  ASSERT_TRUE(whole.has_value());
  for (std::size_t chunk : {1u, 333u, 4096u, 100000u}) {
    const auto e = Measure(x, chunk);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->tonic, whole->tonic);
    EXPECT_EQ(e->minor, whole->minor);
    EXPECT_EQ(e->confidence, whole->confidence);
  }
}

// "No answer is an answer": nullopt or a confidence below 0.3.
void ExpectNoConfidentKey(const std::vector<float>& x, const char* what) {
  const auto e = Measure(x);
  if (e) {
    EXPECT_LT(e->confidence, 0.3) << what << ": " << Name(e->tonic, e->minor);
    std::printf("[ metric ] %s: %s at confidence %.2f\n", what, Name(e->tonic, e->minor).c_str(), e->confidence);
  } else {
    std::printf("[ metric ] %s: no key\n", what);
  }
}

TEST(KeyTest, NoKeyInSilence) {
  EXPECT_FALSE(Measure(std::vector<float>(10 * static_cast<std::size_t>(kRate))).has_value());
}

TEST(KeyTest, NoConfidentKeyInNoise) { ExpectNoConfidentKey(testing::Noise(-6.0, 15.0, kRate, 1, 3), "white noise"); }

TEST(KeyTest, NoConfidentKeyInSpeech) {
  ExpectNoConfidentKey(testing::SpeechLike(15.0, kRate, 11), "speech-like");
  ExpectNoConfidentKey(testing::SpeechLike(15.0, kRate, 12), "speech-like");
}

TEST(KeyTest, NoConfidentKeyInADrumHit) { ExpectNoConfidentKey(testing::DrumHit(4.0, kRate, 5), "drum hit"); }

TEST(KeyTest, NoConfidentKeyInAOneSecondClip) {
  auto x = testing::KeyPiece(4, false, 440.0, 16.0, kRate, 0, 9);
  x.resize(static_cast<std::size_t>(kRate));
  ExpectNoConfidentKey(x, "1 s clip");
}

TEST(KeyTest, NoConfidentKeyInASingleNote) {
  for (double midi : {45.0, 57.0, 64.0}) {
    ExpectNoConfidentKey(testing::HarmonicChord({midi}, 440.0, 10.0, kRate, testing::Timbre{10, 1.0, false}, 3),
                         "single note");
  }
}

// Through the whole analyzer: 44.1 kHz stereo in, downmixed and resampled by
// its front end, key and tuning out.
TEST(KeyTest, ThroughTheAnalyzer) {
  const double rate = 44100.0, a4 = 437.0;
  const auto mono = testing::KeyPiece(6, true, a4, 16.0, rate, 1, 21);  // F# minor
  std::vector<float> stereo(2 * mono.size());
  for (std::size_t i = 0; i < mono.size(); ++i) stereo[2 * i] = stereo[2 * i + 1] = mono[i];
  AnalyzerConfig config;
  config.sample_rate_hz = rate;
  config.channels = 2;
  config.detect_tempo = false;  // this suite is about key and tuning
  Result<Analyzer> a = Analyzer::Create(config);
  ASSERT_TRUE(a.ok());
  for (std::size_t f = 0; f < mono.size(); f += 10000) {
    ASSERT_EQ(a.value().Push(stereo.data() + 2 * f, std::min<std::size_t>(10000, mono.size() - f)), Status::kOk);
  }
  Result<AnalysisResult> r = a.value().Finish();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.value().key.has_value());
  EXPECT_EQ(r.value().key->tonic, 6);
  EXPECT_TRUE(r.value().key->minor);
  EXPECT_GT(r.value().key->confidence, 0.3);
  ASSERT_TRUE(r.value().tuning.has_value());
  EXPECT_NEAR(r.value().tuning->reference_hz, a4, a4 * (std::exp2(1.0 / 1200.0) - 1.0));  // 1 cent
}

// Key asked for without tuning: the tuning is still measured (the key needs
// it) but not reported.
TEST(KeyTest, KeyWithoutTuningReport) {
  const auto mono = testing::KeyPiece(10, false, 440.0, 12.0, 22050.0, 0, 4);  // Bb major
  AnalyzerConfig config;
  config.sample_rate_hz = 22050.0;
  config.channels = 1;
  config.detect_tuning = false;
  config.detect_tempo = false;
  Result<Analyzer> a = Analyzer::Create(config);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a.value().Push(mono.data(), mono.size()), Status::kOk);
  Result<AnalysisResult> r = a.value().Finish();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().tuning.has_value());
  ASSERT_TRUE(r.value().key.has_value());
  EXPECT_EQ(r.value().key->tonic, 10);
  EXPECT_FALSE(r.value().key->minor);
}

// State is bounded by the features kept: an hour of music keeps at most
// kTonalMaxSegments segments, and the answer is still right.
TEST(KeyTest, LongInputKeepsBoundedState) {
  const auto bar = testing::KeyPiece(2, false, 440.0, 24.0, kRate, 0, 8);  // D major
  Result<TuningEstimator> t = TuningEstimator::Create(kRate);
  ASSERT_TRUE(t.ok());
  const int repeats = 3600 / 24;
  for (int i = 0; i < repeats; ++i) t.value().Process(bar.data(), bar.size());
  const auto tuning = t.value().Estimate();
  ASSERT_TRUE(tuning.has_value());
  EXPECT_LE(t.value().features().segments.size(), params::kTonalMaxSegments);
  EXPECT_NEAR(t.value().features().frames, repeats * bar.size() / static_cast<double>(params::kTonalHopSize), 2.0);
  const auto e = KeyEstimator::Create(kRate).value().Estimate(t.value().features(), tuning->reference_hz);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->tonic, 2);
  EXPECT_FALSE(e->minor);
}

}  // namespace
}  // namespace trackscan::dsp
