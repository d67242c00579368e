// Tempo estimator: mono samples at params::kAnalysisRateHz in; BPM, its
// confidence, beat times and ranked tempo candidates out.
//
// Method
// 1. Onset envelope (streaming, the only state kept): STFT (kTempoFrameSize,
//    hop kTempoHopSize, Hann) -> power summed into kTempoBands log-spaced
//    bands -> log(1 + gamma |X|) -> half-wave rectified difference over
//    kTempoFluxLagFrames, summed over bands (log spectral flux; Bello et al.
//    2005, Klapuri 1999). 86 floats a second.
// 2. Periodicity: the envelope is detrended and its level equalised over a
//    few seconds, then autocorrelated (normalised by lag 0). A comb sums the
//    autocorrelation at k * P (k = 1..kTempoCombHarmonics) for every period P
//    of a log-spaced grid between kTempoSearchMinBpm and kTempoSearchMaxBpm.
// 3. Metrical level: the comb's peaks related to the strongest by 1/3, 1/2,
//    2, 3 (and 2/3, 3/2) form the candidate levels; each is weighted by a
//    log-normal prior around kTempoPriorCentreBpm (where listeners tap when
//    the music allows) and the best weighted level is the tempo, refined to a
//    fraction of a grid step with all comb multiples that fit.
// 4. Beats: Ellis (2007) dynamic-programming beat tracker on the envelope at
//    that period.
//
// Confidence (0..1) = clarity * level * length, where
//   clarity = how periodic the envelope is: the comb value at the answer
//             (normalised autocorrelation, 0 for noise), mapped through a
//             saturating curve;
//   level   = how clearly the chosen metrical level beats its rivals: the
//             share of the chosen level's prior-weighted score among it and
//             the best other level;
//   length  = 1 - exp(-seconds / kTempoEvidenceSeconds), few beats -> low.
// nullopt when the input is shorter than kTempoMinSeconds, silent, or has no
// periodicity at all (comb value <= 0).
//
// Units: sample_rate_hz in Hz, > 0 (the analyzer always passes 11025).
#ifndef TRACKSCAN_DSP_TEMPO_H_
#define TRACKSCAN_DSP_TEMPO_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "real_fft.h"
#include "status.h"

namespace trackscan::dsp {

struct TempoCandidate {
  double bpm;
  double score;  // 0..1, higher is more likely
};

struct TempoEstimate {
  double bpm;
  double confidence;                       // 0..1
  std::vector<double> beat_times_s;        // seconds from the start
  std::vector<TempoCandidate> candidates;  // best first
};

class TempoEstimator {
 public:
  static Result<TempoEstimator> Create(double sample_rate_hz);
  void Process(const float* mono, std::size_t n);
  // nullopt when there is no pulse to report.
  std::optional<TempoEstimate> Estimate() const;

  // Onset envelope so far (one value per hop); for tests and tools.
  const std::vector<float>& onset_envelope() const { return flux_; }
  double frame_rate_hz() const { return frame_rate_hz_; }

 private:
  TempoEstimator(double sample_rate_hz, RealFft fft);
  void ProcessFrame();

  double sample_rate_hz_;
  double frame_rate_hz_;            // onset frames per second
  RealFft fft_;                     // kTempoFrameSize real FFT
  std::vector<float> window_;       // Hann, kTempoFrameSize
  std::vector<int> band_of_bin_;    // band index per FFT bin, -1 outside bands
  std::vector<float> pending_;      // samples not yet consumed by a full frame
  std::size_t pending_start_ = 0;   // first unconsumed sample in pending_
  std::vector<float> frame_;        // windowed frame (scratch)
  std::vector<float> power_;        // power spectrum (scratch)
  std::vector<float> band_power_;   // per band (scratch)
  std::vector<std::vector<float>> history_;  // last kTempoFluxLagFrames log band spectra (ring)
  std::size_t frames_ = 0;          // frames computed
  std::size_t samples_ = 0;         // samples received
  std::vector<float> flux_;         // onset envelope, one value per frame
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TEMPO_H_
