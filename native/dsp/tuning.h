// Tuning estimator: mono samples at params::kAnalysisRateHz in; the
// reference frequency of A4 and its confidence out.
//
// It owns the tonal front end (tonal_frontend.h) that the key estimator reads
// too, so the analyzer runs it whenever key or tuning is wanted and the STFT
// is computed once.
//
// Method: every spectral peak between kTuningMinHz and kTuningMaxHz votes,
// with its whitened weight, for its offset in cents from the A440
// equal-tempered grid (a 100-cent circular histogram with 1-cent bins). The
// histogram is smoothed with a Gaussian of kTuningKernelCents and its mode,
// refined by a parabola through the three top bins, is the offset.
// Harmonics 1, 2, 4, 8 of every note sit exactly on the grid, but harmonics 3
// and 6 sit 2 cents sharp, 5 and 10 14 cents flat and 7 31 cents flat, so a
// mean over all partials is biased by the timbre (Essentia's TuningFrequency
// errs by 1-2 cents on generated tones for this reason). Two defences: a
// partial with another partial at f/3, f/5 or f/7 does not vote (it is an
// overtone; tonal_frontend.cc), and the mode of a narrow kernel ignores what
// little escapes. Generated tones, chords and music at 415..466 Hz come out
// within 0.1 cent (native/tests/tuning_test.cc).
//
// A tuning is only defined modulo a semitone (A4 = 415.3 Hz is Ab4 = 440 Hz
// with every note renamed), so the answer is always within +-50 cents of
// 440 Hz: 427.5..452.9 Hz.
//
// Confidence = concentration x evidence, where concentration is how much
// more of the histogram's weight lies within kTuningConcentrationCents of the
// mode than a uniform histogram would put there, scaled so that
// kTuningFullConcentration reads 1 (noise reads about 0, a few harmonic
// notes read near 1), and evidence = 1 - exp(-W / kTuningEvidenceWeight) for
// W the total peak weight (a fraction of a second of a single note reads
// low). nullopt when there are no partials at all (silence).
#ifndef TRACKSCAN_DSP_TUNING_H_
#define TRACKSCAN_DSP_TUNING_H_

#include <cstddef>
#include <optional>

#include "status.h"
#include "tonal_frontend.h"

namespace trackscan::dsp {

struct TuningEstimate {
  double reference_hz;  // frequency of A4, 427.5..452.9 (see above)
  double cents_offset;  // 1200 * log2(reference_hz / 440), -50..50
  double confidence;    // 0..1
};

class TuningEstimator {
 public:
  static Result<TuningEstimator> Create(double sample_rate_hz);
  void Process(const float* mono, std::size_t n);

  // Ends the input (the last partial frame is analysed) and estimates.
  // Process() must not be called afterwards; calling Estimate() again is fine.
  std::optional<TuningEstimate> Estimate();

  // What the key estimator reads; complete once Estimate() has been called.
  const TonalFeatures& features() const { return frontend_.features(); }

  // The estimate from a histogram alone (for tests and tools).
  static std::optional<TuningEstimate> FromFeatures(const TonalFeatures& features);

 private:
  explicit TuningEstimator(TonalFrontend frontend) : frontend_(std::move(frontend)) {}
  TonalFrontend frontend_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TUNING_H_
