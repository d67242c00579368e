#include "rhythm.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace trackscan::testing {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::size_t Frames(double seconds, double rate_hz) {
  return static_cast<std::size_t>(std::max(0.0, std::round(seconds * rate_hz)));
}

// Adds a decaying sine burst starting at t_s, reaching its level over a
// raised-cosine attack of attack_s (0: at once).
void AddTone(std::vector<float>* out, double rate, double t_s, double freq_hz, double amp, double decay_s,
             double length_s, double attack_s = 0.0) {
  const long start = std::lround(t_s * rate);
  const long len = std::lround(length_s * rate);
  for (long i = 0; i < len; ++i) {
    const long j = start + i;
    if (j < 0 || j >= static_cast<long>(out->size())) continue;
    const double t = i / rate;
    const double attack = t < attack_s ? 0.5 - 0.5 * std::cos(kPi * t / attack_s) : 1.0;
    (*out)[j] += static_cast<float>(amp * attack * std::exp(-t / decay_s) * std::sin(2 * kPi * freq_hz * t));
  }
}

void AddKick(std::vector<float>* out, double rate, double t_s, double amp) {
  const long start = std::lround(t_s * rate);
  const long len = std::lround(0.25 * rate);
  double phase = 0.0;
  for (long i = 0; i < len; ++i) {
    const long j = start + i;
    if (j < 0 || j >= static_cast<long>(out->size())) continue;
    const double t = i / rate;
    const double f = 50.0 + 100.0 * std::exp(-t / 0.03);  // pitch drop of a kick drum
    phase += 2 * kPi * f / rate;
    (*out)[j] += static_cast<float>(amp * std::exp(-t / 0.08) * std::sin(phase));
  }
}

void AddNoiseBurst(std::vector<float>* out, double rate, double t_s, double amp, double decay_s, bool highpass,
                   std::mt19937* rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const long start = std::lround(t_s * rate);
  const long len = std::lround(6 * decay_s * rate);
  double prev = 0.0;
  for (long i = 0; i < len; ++i) {
    const long j = start + i;
    const double w = u(*rng);
    const double v = highpass ? 0.5 * (w - prev) : w;
    prev = w;
    if (j < 0 || j >= static_cast<long>(out->size())) continue;
    (*out)[j] += static_cast<float>(amp * std::exp(-(i / rate) / decay_s) * v);
  }
}

}  // namespace

std::vector<float> ClickTrack(double bpm, double seconds, double rate_hz, int beats_per_bar, double offset_s) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  const double beat = 60.0 / bpm;
  int k = 0;
  for (double t = offset_s; t < seconds; t = offset_s + (++k) * beat) {
    const bool accent = beats_per_bar > 0 && k % beats_per_bar == 0;
    AddTone(&out, rate_hz, t, accent ? 2500.0 : 1500.0, 0.5, 0.008, 0.04);
  }
  return out;
}

std::vector<float> DrumPattern(double bpm, double seconds, double rate_hz, const DrumOptions& o) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  std::mt19937 rng(o.seed);
  std::normal_distribution<double> jitter(0.0, o.jitter_ms / 1000.0);
  std::uniform_real_distribution<double> vel(0.85, 1.0);
  const double beat = 60.0 / bpm;
  const int beats_per_bar = o.style == DrumStyle::kWaltz ? 3 : 4;
  const double bar = beats_per_bar * beat;
  const double start = 0.1;
  auto when = [&](double t) { return t + (o.jitter_ms > 0 ? jitter(rng) : 0.0); };
  // Chord roots (Hz) of a I-vi-IV-V in C, one a bar, for the tonal pad.
  const double roots[4] = {130.81, 110.00, 87.31, 98.00};
  int bar_index = 0;
  for (double b0 = start; b0 < seconds; b0 += bar, ++bar_index) {
    for (int beat_i = 0; beat_i < beats_per_bar; ++beat_i) {
      const double tb = b0 + beat_i * beat;
      const bool on_13 = beat_i == 0 || beat_i == 2;
      switch (o.style) {
        case DrumStyle::kRock:
        case DrumStyle::kHalfTime:
        case DrumStyle::kShuffle:
          if (on_13) {
            AddKick(&out, rate_hz, when(tb), 0.8 * vel(rng));
          } else {
            const double t = when(tb);
            AddNoiseBurst(&out, rate_hz, t, 0.5 * vel(rng), 0.04, false, &rng);
            AddTone(&out, rate_hz, t, 190.0, 0.3, 0.05, 0.2);  // the snare's shell
          }
          break;
        case DrumStyle::kFourFloor:
          AddKick(&out, rate_hz, when(tb), 0.8 * vel(rng));
          if (!on_13) AddNoiseBurst(&out, rate_hz, when(tb), 0.4 * vel(rng), 0.03, false, &rng);
          break;
        case DrumStyle::kWaltz:
          if (beat_i == 0) AddKick(&out, rate_hz, when(tb), 0.8 * vel(rng));
          else AddNoiseBurst(&out, rate_hz, when(tb), 0.35 * vel(rng), 0.04, false, &rng);
          break;
      }
      // Hats.
      switch (o.style) {
        case DrumStyle::kRock:
        case DrumStyle::kWaltz:
          AddNoiseBurst(&out, rate_hz, when(tb), 0.15 * vel(rng), 0.01, true, &rng);
          AddNoiseBurst(&out, rate_hz, when(tb + beat * (0.5 + 0.5 * o.swing)), 0.1 * vel(rng), 0.01, true, &rng);
          break;
        case DrumStyle::kHalfTime:
          AddNoiseBurst(&out, rate_hz, when(tb), 0.15 * vel(rng), 0.01, true, &rng);
          break;
        case DrumStyle::kFourFloor:
          AddNoiseBurst(&out, rate_hz, when(tb + beat * 0.5), 0.15 * vel(rng), 0.05, true, &rng);
          break;
        case DrumStyle::kShuffle:
          AddNoiseBurst(&out, rate_hz, when(tb), 0.15 * vel(rng), 0.01, true, &rng);
          AddNoiseBurst(&out, rate_hz, when(tb + beat * 2.0 / 3.0), 0.1 * vel(rng), 0.01, true, &rng);
          break;
      }
    }
    if (o.tonal_pad) {
      const double root = roots[bar_index % 4];
      // Sustained triad over the bar (slow attack: tonal, not percussive).
      for (double ratio : {2.0, 2.0 * 1.2599, 2.0 * 1.4983}) {
        const double f = root * ratio;
        const long s0 = std::lround(b0 * rate_hz), len = std::lround(bar * rate_hz);
        for (long i = 0; i < len; ++i) {
          const long j = s0 + i;
          if (j >= static_cast<long>(out.size())) break;
          const double t = i / rate_hz;
          const double env = std::min(1.0, t / 0.15) * std::min(1.0, (bar - t) / 0.05);
          out[j] += static_cast<float>(0.08 * env * (std::sin(2 * kPi * f * t) + 0.3 * std::sin(4 * kPi * f * t)));
        }
      }
      // Bass on beats 1 and the "and" of 2.
      AddTone(&out, rate_hz, when(b0), root / 2, 0.3, 0.25, 0.6);
      AddTone(&out, rate_hz, when(b0 + 1.5 * beat), root / 2, 0.2, 0.2, 0.4);
    }
  }
  return out;
}

std::vector<float> SixEightArpeggio(double bpm, double seconds, double rate_hz, std::uint32_t seed) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> vel(0.85, 1.0);
  const double eighth = 60.0 / bpm / 3.0;
  const double arpeggio[6] = {261.6, 329.6, 392.0, 523.3, 392.0, 329.6};  // C E G C' G E
  for (int k = 0; 0.1 + k * eighth < seconds; ++k) {
    const double t = 0.1 + k * eighth;
    const double shift = (k / 12) % 2 ? 0.89 : 1.0;  // every other bar a tone lower
    const double v = vel(rng);
    for (int h = 1; h <= 6; ++h) AddTone(&out, rate_hz, t, h * arpeggio[k % 6] * shift, 0.25 * v / h, 0.3, 3 * eighth);
    if (k % 6 == 0) {
      for (int h = 1; h <= 3; ++h) AddTone(&out, rate_hz, t, h * 65.4 * shift, 0.5 / h, 0.4, 6 * eighth);
    }
  }
  return out;
}

std::vector<float> LegatoStrings(double bpm, double seconds, double rate_hz, std::uint32_t seed) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  std::mt19937 rng(seed);
  const double beat = 60.0 / bpm;
  // C major from G4 to A5, in semitones above A4 (440 Hz).
  const int scale[] = {-2, 0, 2, 3, 5, 7, 8, 10, 12};
  std::uniform_int_distribution<int> step(2, 4);  // scale degrees up or down: a tone or more
  std::uniform_int_distribution<int> coin(0, 1);
  int degree = 4;
  double phase = 0.0, from = 440.0, to = 440.0, since = 0.0;
  int beats = 0;
  for (long j = std::lround(0.1 * rate_hz); j < static_cast<long>(out.size()); ++j) {
    if (j == std::lround((0.1 + beats * beat) * rate_hz)) {
      const int s = step(rng);
      degree = coin(rng) ? degree + s : degree - s;
      if (degree < 0) degree += 2 * s;
      if (degree > 8) degree -= 2 * s;
      from = to;
      to = 440.0 * std::pow(2.0, scale[degree] / 12.0);
      since = 0.0;
      ++beats;
    }
    // The bow slides to the next note in 40 ms, it does not stop; a 5.5 Hz
    // vibrato of +-30 cents moves every partial all the time.
    const double glide = std::min(1.0, since / 0.04);
    since += 1.0 / rate_hz;
    const double vibrato = std::pow(2.0, 0.3 / 12.0 * std::sin(2 * kPi * 5.5 * j / rate_hz));
    phase += from * std::pow(to / from, glide) * vibrato / rate_hz;
    double v = 0.0;
    for (int h = 1; h <= 10 && h * to < 0.45 * rate_hz; ++h) v += std::sin(2 * kPi * h * phase) / h;
    out[j] += static_cast<float>(0.15 * v);
  }
  const double pad[3] = {261.6, 329.6, 392.0};  // C E G, held throughout
  for (double f : pad) {
    for (int h = 1; h <= 8; ++h) AddTone(&out, rate_hz, 0.1, h * f, 0.15 / h, 1e9, seconds);
  }
  // Bow and room noise (-34 dBFS RMS): what makes the bright onsets of a
  // recording not noise-like where no drum plays (a noiseless synthesis
  // reads as a drum kit to kTempoSnareMinFlatness).
  std::normal_distribution<double> noise(0.0, 0.02);
  for (float& x : out) x += static_cast<float>(noise(rng));
  // The bass: a plucked C2 every second beat, with a 10 ms attack (a click
  // would be broadband, like a drum).
  for (int k = 0; 0.1 + 2 * k * beat < seconds; ++k) {
    for (int h = 1; h <= 3; ++h) AddTone(&out, rate_hz, 0.1 + 2 * k * beat, h * 65.4, 0.4 / h, 0.4, 2 * beat, 0.01);
  }
  return out;
}

std::vector<float> Babble(double seconds, double rate_hz, std::uint32_t seed) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double t = 0.05;
  while (t < seconds) {
    const double len = 0.08 + 0.27 * u(rng);
    const double f0 = 100.0 + 120.0 * u(rng);
    const double glide = 0.8 + 0.4 * u(rng);
    const double f1 = 300.0 + 600.0 * u(rng), f2 = 900.0 + 1500.0 * u(rng);
    const long s0 = std::lround(t * rate_hz), n = std::lround(len * rate_hz);
    double phase = 0.0;
    for (long i = 0; i < n; ++i) {
      const long j = s0 + i;
      if (j >= static_cast<long>(out.size())) break;
      const double tt = i / rate_hz;
      const double f = f0 * (1.0 + (glide - 1.0) * tt / len);
      phase += f / rate_hz;
      const double env = std::sin(kPi * tt / len);
      double v = 0.0;
      // A few harmonics weighted by two formant bumps.
      for (int h = 1; h * f < 0.45 * rate_hz && h <= 30; ++h) {
        const double fh = h * f;
        const double g = std::exp(-std::pow((fh - f1) / 150.0, 2)) + 0.5 * std::exp(-std::pow((fh - f2) / 250.0, 2)) +
                         0.05 / h;
        v += g * std::sin(2 * kPi * h * phase);
      }
      out[j] += static_cast<float>(0.2 * env * v);
    }
    t += len + (u(rng) < 0.3 ? 0.2 + 0.5 * u(rng) : 0.02 + 0.1 * u(rng));
  }
  return out;
}

std::vector<float> SingleHit(double seconds, double rate_hz, double at_s) {
  std::vector<float> out(Frames(seconds, rate_hz), 0.0f);
  std::mt19937 rng(7);
  AddNoiseBurst(&out, rate_hz, at_s, 0.8, 0.05, false, &rng);
  AddTone(&out, rate_hz, at_s, 190.0, 0.4, 0.06, 0.3);
  return out;
}

void Gain(std::vector<float>* x, double db) {
  const float g = static_cast<float>(std::pow(10.0, db / 20.0));
  for (float& v : *x) v *= g;
}

}  // namespace trackscan::testing
