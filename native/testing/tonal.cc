#include "tonal.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace trackscan::testing {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kMajorScale[7] = {0, 2, 4, 5, 7, 9, 11};
constexpr int kMinorScale[7] = {0, 2, 3, 5, 7, 8, 10};

// Chord progressions as scale degrees (0 = tonic); in minor, degree 4 is the
// major dominant (raised leading tone) and the others natural minor.
constexpr int kMajorProgressions[4][6] = {
    {0, 3, 4, 0, 3, 4}, {0, 5, 3, 4, 0, 4}, {0, 4, 5, 3, 1, 4}, {0, 1, 4, 0, 5, 4}};
constexpr int kMinorProgressions[4][6] = {
    {0, 3, 4, 0, 3, 4}, {0, 5, 2, 6, 3, 4}, {0, 6, 5, 4, 0, 4}, {0, 3, 6, 2, 5, 4}};

void Normalise(std::vector<float>* x, double peak) {
  float m = 0.0f;
  for (float v : *x) m = std::max(m, std::fabs(v));
  if (m > 0.0f) {
    for (float& v : *x) v = static_cast<float>(v * peak / m);
  }
}

}  // namespace

double NoteHz(double midi, double a4_hz) { return a4_hz * std::exp2((midi - 69.0) / 12.0); }

void AddNote(std::vector<float>* out, double rate_hz, double start_s, double duration_s, double freq_hz, double amp,
             const Timbre& timbre, double decay_s, std::uint32_t rng_seed) {
  const auto begin = static_cast<std::size_t>(std::llround(start_s * rate_hz));
  const auto len = static_cast<std::size_t>(std::llround(duration_s * rate_hz));
  if (out->size() < begin + len) out->resize(begin + len, 0.0f);
  std::mt19937 rng(rng_seed);
  std::uniform_real_distribution<double> phase(0.0, 2.0 * kPi);
  const double attack = 0.01 * rate_hz, release = 0.02 * rate_hz;
  std::vector<double> env(len);
  for (std::size_t i = 0; i < len; ++i) {
    double e = std::min(1.0, i / attack) * std::min(1.0, (len - i) / release);
    if (decay_s > 0.0) e *= std::exp(-static_cast<double>(i) / (decay_s * rate_hz));
    env[i] = amp * e;
  }
  for (int k = 1; k <= timbre.partials; ++k) {
    if (timbre.odd_only && k % 2 == 0) continue;
    const double f = k * freq_hz;
    if (f >= 0.45 * rate_hz) break;
    const double a = 1.0 / std::pow(k, timbre.rolloff);
    const double w = 2.0 * kPi * f / rate_hz;
    // Recurrence sin((n+1)w + p) = 2 cos(w) sin(nw + p) - sin((n-1)w + p):
    // exact enough over a few seconds and far cheaper than sin() per sample.
    const double p = phase(rng);
    double s0 = std::sin(p - w), s1 = std::sin(p);
    const double c = 2.0 * std::cos(w);
    for (std::size_t i = 0; i < len; ++i) {
      (*out)[begin + i] += static_cast<float>(a * env[i] * s1);
      const double s2 = c * s1 - s0;
      s0 = s1;
      s1 = s2;
    }
  }
}

std::vector<float> HarmonicChord(const std::vector<double>& midis, double a4_hz, double seconds, double rate_hz,
                                 const Timbre& timbre, std::uint32_t seed) {
  std::vector<float> out;
  std::uint32_t s = seed;
  for (double m : midis) AddNote(&out, rate_hz, 0.0, seconds, NoteHz(m, a4_hz), 1.0, timbre, 0.0, ++s);
  Normalise(&out, 0.5);
  return out;
}

std::vector<float> KeyPiece(int tonic, bool minor, double a4_hz, double seconds, double rate_hz, int variant,
                            std::uint32_t seed) {
  std::mt19937 rng(seed);
  const int* scale = minor ? kMinorScale : kMajorScale;
  const int* prog = minor ? kMinorProgressions[variant & 3] : kMajorProgressions[variant & 3];
  // Scale degree d (any integer) to semitones above the tonic.
  auto degree = [&](int d, bool dominant) {
    const int oct = d >= 0 ? d / 7 : -((-d + 6) / 7);
    const int i = d - 7 * oct;
    int semis = scale[i] + 12 * oct;
    if (minor && dominant && i == 6) semis += 1;  // leading tone in the dominant chord
    return semis;
  };
  const Timbre bass{6, 1.5, false}, pad{10, 1.0, false}, lead{7, 1.0, true};
  const double beat = 0.5;  // 120 BPM
  const double bar = 4 * beat;
  std::vector<float> out(static_cast<std::size_t>(seconds * rate_hz), 0.0f);
  const int bars = static_cast<int>(seconds / bar);
  std::uniform_int_distribution<int> pick(0, 2);
  std::uniform_real_distribution<double> jitter(0.8, 1.0);
  std::uint32_t note_seed = seed * 7919u;
  for (int b = 0; b < bars; ++b) {
    // The first and last bars are the tonic, as in most music.
    const int root = (b == bars - 1) ? 0 : prog[b % 6];
    const bool dom = root == 4;
    const double t0 = b * bar;
    const int base = 48 + tonic;  // around C3..B3
    std::vector<double> chord;
    for (int j = 0; j < 3; ++j) chord.push_back(base + degree(root + 2 * j, dom));
    // Pad: the triad, held for the bar.
    for (double m : chord) AddNote(&out, rate_hz, t0, bar, NoteHz(m + 12, a4_hz), 0.25, pad, 1.5, ++note_seed);
    // Bass: root on beats 1 and 3, fifth on 2 and 4, two octaves down.
    for (int q = 0; q < 4; ++q) {
      const double m = chord[q % 2 == 0 ? 0 : 2] - 12;
      AddNote(&out, rate_hz, t0 + q * beat, beat, NoteHz(m, a4_hz), 0.5 * jitter(rng), bass, 0.6, ++note_seed);
    }
    // Melody: eighth notes, mostly chord tones, some scale steps.
    for (int e = 0; e < 8; ++e) {
      double m;
      if (e % 2 == 0) {
        m = chord[pick(rng)] + 24;
      } else {
        m = base + 24 + degree(root + 2 * pick(rng) + 1, dom);
      }
      AddNote(&out, rate_hz, t0 + e * beat / 2, beat / 2, NoteHz(m, a4_hz), 0.18 * jitter(rng), lead, 0.3,
              ++note_seed);
    }
  }
  // Hi-hat: short noise bursts on every eighth note.
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  const auto hat_len = static_cast<std::size_t>(0.04 * rate_hz);
  for (double t = 0.0; t + 0.05 < seconds; t += beat / 2) {
    const auto at = static_cast<std::size_t>(t * rate_hz);
    for (std::size_t i = 0; i < hat_len && at + i < out.size(); ++i) {
      out[at + i] += static_cast<float>(0.05 * noise(rng) * std::exp(-static_cast<double>(i) / (0.01 * rate_hz)));
    }
  }
  Normalise(&out, 0.7);
  return out;
}

namespace {

// Held chords (semitones above the tonic, from C3), one a 2-second bar,
// cycling through `loop`; the last bar is `last`. With `bass`, each chord's
// root also sounds an octave below.
std::vector<float> HeldChords(const std::vector<std::vector<int>>& loop, const std::vector<int>& last, int tonic,
                              bool bass, double a4_hz, double seconds, double rate_hz, std::uint32_t seed,
                              Ending ending = Ending::kStop) {
  const Timbre pad{10, 1.0, false};
  const double bar = 2.0;
  const int bars = static_cast<int>(seconds / bar);
  // A ring-out holds the last chord 2.5 s more, dying away (-36 dB at the end);
  // a hold, as long at a steady level, then stops.
  const double ring = ending == Ending::kRingOut || ending == Ending::kHold ? 2.5 : 0.0;
  std::vector<float> out(static_cast<std::size_t>((seconds + ring) * rate_hz), 0.0f);
  std::uint32_t note_seed = seed * 7919u;
  for (int b = 0; b < bars; ++b) {
    const bool final_bar = b == bars - 1;
    const std::vector<int>& chord = final_bar ? last : loop[b % loop.size()];
    const double length = final_bar ? bar + ring : bar;
    const double decay = !final_bar || ring == 0.0 ? 1.5 : ending == Ending::kRingOut ? 0.6 : 0.0;
    for (int semis : chord) {
      AddNote(&out, rate_hz, b * bar, length, NoteHz(48 + tonic + semis, a4_hz), 0.25, pad, decay, ++note_seed);
    }
    if (bass) {
      const double bass_decay = decay == 0.0 ? 0.0 : std::min(decay, 1.0);
      AddNote(&out, rate_hz, b * bar, length, NoteHz(36 + tonic + chord[0] % 12, a4_hz), 0.3, pad, bass_decay,
              ++note_seed);
    }
  }
  if (ending == Ending::kFadeOut) {
    // The last 8 s fall from 0 to -60 dB, the loop still moving underneath.
    const auto fade = std::min(out.size(), static_cast<std::size_t>(8.0 * rate_hz));
    const std::size_t start = out.size() - fade;
    for (std::size_t i = start; i < out.size(); ++i) {
      out[i] *= static_cast<float>(std::pow(10.0, -3.0 * static_cast<double>(i - start) / static_cast<double>(fade)));
    }
  }
  Normalise(&out, 0.7);
  return out;
}

}  // namespace

std::vector<float> PadLoop(int tonic, bool minor, double a4_hz, double seconds, double rate_hz, std::uint32_t seed) {
  // Chords as semitones above the tonic, root position.
  static const std::vector<std::vector<int>> kMinorLoop = {{0, 3, 7}, {8, 12, 15}, {3, 7, 10}, {7, 11, 14}};
  static const std::vector<std::vector<int>> kMajorLoop = {{9, 12, 16}, {5, 9, 12}, {0, 4, 7}, {7, 11, 14}};
  return minor ? HeldChords(kMinorLoop, kMinorLoop[0], tonic, false, a4_hz, seconds, rate_hz, seed)
               : HeldChords(kMajorLoop, kMajorLoop[2], tonic, false, a4_hz, seconds, rate_hz, seed);
}

std::vector<float> BorrowedIvLoop(int tonic, double a4_hz, double seconds, double rate_hz, std::uint32_t seed) {
  static const std::vector<std::vector<int>> kLoop = {{0, 4, 7}, {7, 11, 14}, {5, 9, 12}, {5, 8, 12}};
  return HeldChords(kLoop, kLoop[0], tonic, true, a4_hz, seconds, rate_hz, seed);
}

std::vector<float> AeolianLoop(int tonic, double a4_hz, double seconds, double rate_hz, std::uint32_t seed) {
  static const std::vector<std::vector<int>> kLoop = {{0, 3, 7}, {10, 14, 17}, {8, 12, 15}, {10, 14, 17}};
  return HeldChords(kLoop, kLoop[0], tonic, true, a4_hz, seconds, rate_hz, seed);
}

std::vector<float> ChordLoop(const std::vector<std::vector<int>>& loop, const std::vector<int>& last, int tonic,
                             double a4_hz, double seconds, double rate_hz, Ending ending, std::uint32_t seed) {
  return HeldChords(loop, last, tonic, true, a4_hz, seconds, rate_hz, seed, ending);
}

std::vector<float> SpeechLike(double seconds, double rate_hz, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto n = static_cast<std::size_t>(seconds * rate_hz);
  std::vector<float> out(n, 0.0f);
  double phase = 0.0;
  double f0 = 150.0, target = 150.0;
  double syllable_left = 0.0, pause_left = 0.0, syllable_len = 0.2;
  double f1 = 500.0, f2 = 1500.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (syllable_left <= 0.0 && pause_left <= 0.0) {
      syllable_len = 0.12 + 0.2 * u(rng);
      syllable_left = syllable_len;
      if (u(rng) < 0.3) pause_left = 0.1 + 0.3 * u(rng);
      target = 90.0 + 160.0 * u(rng);
      f1 = 300.0 + 500.0 * u(rng);
      f2 = 900.0 + 1500.0 * u(rng);
    }
    if (pause_left > 0.0 && syllable_left <= 0.0) {
      pause_left -= 1.0 / rate_hz;
      continue;
    }
    // Intonation glides: the pitch slides continuously, never holding a note.
    f0 += (target - f0) * (8.0 / rate_hz);
    phase += 2.0 * kPi * f0 / rate_hz;
    const double pos = 1.0 - syllable_left / syllable_len;
    const double env = std::sin(kPi * pos);
    double v = 0.0;
    for (int k = 1; k * f0 < 3500.0; ++k) {
      const double f = k * f0;
      // Two resonances (formants) over a falling glottal spectrum.
      const double g = 1.0 / (1.0 + std::pow((f - f1) / 150.0, 2)) + 0.5 / (1.0 + std::pow((f - f2) / 200.0, 2));
      v += g / k * std::sin(k * phase);
    }
    out[i] = static_cast<float>(0.3 * env * v);
    syllable_left -= 1.0 / rate_hz;
  }
  Normalise(&out, 0.5);
  return out;
}

std::vector<float> DrumHit(double seconds, double rate_hz, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  std::vector<float> out(static_cast<std::size_t>(seconds * rate_hz), 0.0f);
  double phase = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double t = i / rate_hz;
    const double f = 50.0 + 100.0 * std::exp(-t / 0.03);
    phase += 2.0 * kPi * f / rate_hz;
    out[i] = static_cast<float>(0.8 * std::exp(-t / 0.15) * std::sin(phase) + 0.3 * std::exp(-t / 0.02) * noise(rng));
  }
  return out;
}

}  // namespace trackscan::testing
