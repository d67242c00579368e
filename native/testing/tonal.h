// Deterministic tonal test signals for the key and tuning estimators: harmonic
// tones, chords, multi-instrument progressions with melody in any of the 24
// keys at any tuning, and the "no key here" cases (speech-like glides, a drum
// hit). All mono, in [-1, 1], at the rate asked for.
#ifndef TRACKSCAN_TESTING_TONAL_H_
#define TRACKSCAN_TESTING_TONAL_H_

#include <cstdint>
#include <vector>

namespace trackscan::testing {

// Frequency of MIDI note `midi` (69 = A4) with A4 at a4_hz, equal temperament.
double NoteHz(double midi, double a4_hz);

// Partial k (1-based) has amplitude 1 / k^rolloff; odd_only keeps odd partials
// (a clarinet- or square-like timbre).
struct Timbre {
  int partials = 8;
  double rolloff = 1.0;
  bool odd_only = false;
};

// Adds a note to *out (grown as needed): harmonic partials with random phases
// from rng_seed, a 10 ms attack and an exponential decay with time constant
// decay_s (0 = sustained), and a 20 ms release at the end.
void AddNote(std::vector<float>* out, double rate_hz, double start_s, double duration_s, double freq_hz, double amp,
             const Timbre& timbre, double decay_s, std::uint32_t rng_seed);

// One sustained harmonic note (or chord of several MIDI notes).
std::vector<float> HarmonicChord(const std::vector<double>& midis, double a4_hz, double seconds, double rate_hz,
                                 const Timbre& timbre, std::uint32_t seed);

// A piece in a key: bass line, chord pad, melody and hi-hat noise over a
// chord progression that starts and ends on the tonic (variant picks one of
// four progressions per mode; minor ones use the harmonic-minor dominant as
// common-practice and most popular music do). tonic 0 = C .. 11 = B.
std::vector<float> KeyPiece(int tonic, bool minor, double a4_hz, double seconds, double rate_hz, int variant,
                            std::uint32_t seed);

// Held chords only (no bass line, no melody), one a bar at 120 BPM, looping
// i-VI-III-V in minor or vi-IV-I-V in major and ending on the tonic. In
// minor every chord but V is also diatonic to the relative major, so the
// raised seventh in V is the main cue to the mode.
std::vector<float> PadLoop(int tonic, bool minor, double a4_hz, double seconds, double rate_hz, std::uint32_t seed);

// Held chords over their roots, I-V-IV-iv in a major key, ending on I. The
// borrowed iv's minor third (Ab in C major) is the raised seventh of the
// relative minor (G# in A minor).
std::vector<float> BorrowedIvLoop(int tonic, double a4_hz, double seconds, double rate_hz, std::uint32_t seed);

// Held chords over their roots, i-bVII-bVI-bVII in a minor key, ending on i:
// never a raised seventh, so its pitch classes are those of the relative
// major and only the tonic's weight tells the two apart.
std::vector<float> AeolianLoop(int tonic, double a4_hz, double seconds, double rate_hz, std::uint32_t seed);

// How a ChordLoop ends: stopped at the end of its last bar (the 20 ms
// release of every note), its last chord held 2.5 s more at a steady level
// and then stopped, the same chord ringing out instead (dying away over
// those 2.5 s to -36 dB), or the whole loop faded out over its last 8 s to
// -60 dB.
enum class Ending { kStop, kHold, kRingOut, kFadeOut };

// Held chords over their roots, one a 2 s bar: `loop` repeated, then `last`.
// Chords are semitones above the tonic, root first.
std::vector<float> ChordLoop(const std::vector<std::vector<int>>& loop, const std::vector<int>& last, int tonic,
                             double a4_hz, double seconds, double rate_hz, Ending ending, std::uint32_t seed);

// Voiced speech-like sound: a buzz whose pitch glides continuously between
// about 90 and 250 Hz, shaped by moving formants, in syllables with pauses.
std::vector<float> SpeechLike(double seconds, double rate_hz, std::uint32_t seed);

// One drum hit (a pitch-dropping kick with a noise burst) followed by silence.
std::vector<float> DrumHit(double seconds, double rate_hz, std::uint32_t seed);

}  // namespace trackscan::testing

#endif  // TRACKSCAN_TESTING_TONAL_H_
