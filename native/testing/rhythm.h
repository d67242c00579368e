// Deterministic rhythmic test signals at known tempos, mono, for the tempo
// estimator's tests and tools: click tracks, drum patterns (kick, snare,
// hats) with swing and humanised timing, optional sustained tonal content,
// and non-rhythmic references (speech-like babble, a single hit).
#ifndef TRACKSCAN_TESTING_RHYTHM_H_
#define TRACKSCAN_TESTING_RHYTHM_H_

#include <cstdint>
#include <vector>

namespace trackscan::testing {

// Metronome: a 1.5 kHz click (2.5 kHz, same level, on the first beat of each bar of
// `beats_per_bar`; 0 = no accent) every 60/bpm seconds, first click at
// `offset_s`.
std::vector<float> ClickTrack(double bpm, double seconds, double rate_hz, int beats_per_bar = 4,
                              double offset_s = 0.1);

enum class DrumStyle {
  kRock,       // 4/4: kick 1 and 3, snare 2 and 4, eighth hats
  kFourFloor,  // 4/4: kick on every beat, snare/clap 2 and 4, off-beat open hats
  kHalfTime,   // 4/4 at fast tempos: kick 1 and 3, snare 2 and 4, quarter hats
  kWaltz,      // 3/4: kick 1, snare 2 and 3, eighth hats
  kShuffle,    // 12/8 feel: kick 1 and 3, snare 2 and 4, hats on triplet 1 and 3
};

struct DrumOptions {
  DrumStyle style = DrumStyle::kRock;
  double swing = 0.0;          // 0..0.5: off-beat eighths late by this share of an eighth
  double jitter_ms = 0.0;      // Gaussian timing error per hit, ms (humanising)
  bool tonal_pad = false;      // add a sustained chord progression (one chord a bar) and a bass line
  std::uint32_t seed = 1;
};

// Drum pattern at `bpm` (quarter-note beats), first downbeat at 0.1 s.
std::vector<float> DrumPattern(double bpm, double seconds, double rate_hz, const DrumOptions& options = {});

// 6/8 without drums at `bpm` dotted quarters: a plucked six-note arpeggio
// (six partials) on every eighth, the chord a tone lower every other bar,
// and a bass note on each downbeat. The eighths are as strong as each
// other; only the bar marks the grouping in threes. First note at 0.1 s.
std::vector<float> SixEightArpeggio(double bpm, double seconds, double rate_hz, std::uint32_t seed);

// Bowed strings without drums at `bpm`: a legato melody (ten partials,
// steady level, vibrato) that slides by a tone or more on every beat, over a
// sustained chord, a plucked bass note every second beat and a noise floor.
// Only the bass attacks; the beat is in the melody's note changes. First
// beat at 0.1 s.
std::vector<float> LegatoStrings(double bpm, double seconds, double rate_hz, std::uint32_t seed);
// Speech-like babble: voiced syllables (glottal pulse train, 100-220 Hz,
// through two formant-like resonances) of random length 80-350 ms separated
// by random pauses; no periodic rhythm.
std::vector<float> Babble(double seconds, double rate_hz, std::uint32_t seed);

// One snare-like hit at `at_s`, silence elsewhere.
std::vector<float> SingleHit(double seconds, double rate_hz, double at_s);

// Scales samples by 10^(db/20).
void Gain(std::vector<float>* x, double db);

}  // namespace trackscan::testing

#endif  // TRACKSCAN_TESTING_RHYTHM_H_
