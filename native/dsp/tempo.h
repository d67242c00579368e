// Tempo estimator: mono samples at params::kAnalysisRateHz in; BPM, its
// confidence, beat times and ranked tempo candidates out.
//
// Method
// 1. Onset envelopes (streaming, the only state kept): STFT (kTempoFrameSize,
//    hop kTempoHopSize, Hann) -> power summed into kTempoBands log-spaced
//    bands -> log(1 + gamma |X|) -> rise over kTempoFluxLagFrames minus a
//    small dead zone (kTempoMinBandRise, so steady tones give nothing),
//    half-wave rectified and averaged over bands (log spectral flux; Bello et
//    al. 2005, Klapuri 1999); beside it the same rise bin by bin above
//    kTempoPitchFluxMinHz (the pitch flux: a legato note change moves
//    partials between bins inside one band), and the kick's and the snare's
//    envelopes of step 3 (two for the snare). Five floats per 11.6 ms frame
//    (86 a second), so an hour of audio keeps 6.2 MB.
// 2. Periodicity (Estimate): where no drum kit marks the beat (the bright
//    onsets are not noise-like, step 3's flatness) the pitch flux is added
//    to the envelope (kTempoPitchFluxWeight): there the note changes carry
//    the pulse (bowed strings read at half without it). The envelope's slow
//    trend is removed, its level equalised over a few seconds, its peaks
//    widened by a Gaussian of kTempoSmoothFrames, and it is autocorrelated
//    (normalised by lag 0). A comb averages the autocorrelation at k * P
//    (k = 1..kTempoCombHarmonics) for every period P of a log-spaced grid
//    from kTempoSearchMinBpm to kTempoSearchMaxBpm.
// 3. Metrical level: each comb peak between kTempoMinBpm and kTempoMaxBpm is
//    weighted by a log-normal prior around kTempoPriorCentreBpm (where
//    listeners tap when the music lets them) and the best wins. Then, if the
//    events half-way between its beats are nearly as strong as the beats
//    (comb at the odd half-multiples >= kTempoHomogeneousRatio x the comb),
//    the winner is an aggregate of a faster homogeneous pulse (a metronome,
//    quarter-note drums at 190 BPM) and the tempo is doubled, as long as the
//    double stays <= kTempoHomogeneousMaxBpm. If that double is too fast but
//    the half-period events are still there (kTempoCompoundMinHalf), the
//    winner groups a tatum in twos; where the comb of the group of three is
//    stronger (kTempoCompoundMinRatio: the accents recur every three tatums,
//    6/8) the beat is that group, two thirds of the winner's tempo. Then
//    the backbeat: two more envelopes, the kick's bands
//    (< kTempoKickBandMaxHz) and the snare's bright bands (> kTempoSnareBandMinHz), rising in magnitude so the loudest
//    event of each dominates. A snare is noise, so where the bright onsets
//    are noise-like enough for a drum kit (kTempoSnareMinFlatness) its
//    envelope keeps only broadband rises (a power mean over the bright bins'
//    rises): the partials of a melody or of comping, which land on every
//    beat, would otherwise blur the backbeat. Where kicks and snares
//    alternate (their cross-correlation at the lags inside a bar of 2 or 3
//    beats exceeds that at whole bars) the period between them is the beat:
//    snare on 2 and 4, or on 2 and 3 of a waltz. Of T/2, T, 2T (and 3T for a
//    waltz read at the bar) the level that alternates most wins when it
//    beats T's own alternation by kTempoBackbeatMin (by the smaller
//    kTempoBackbeatTatumMin for 2T when T has events half-way between its
//    beats that no step took as the beat: the comb is then torn between T
//    and 2T, and a backbeat buried in a mix settles it), among the levels with
//    a pulse of their own (kTempoBackbeatMinComb); it needs a kick
//    (kTempoKickMinShare), so click tracks and hats alone are left to the
//    prior. The answer is refined to 0.02 % with every comb multiple that
//    fits in the autocorrelation.
// 4. Beats: Ellis (2007) dynamic-programming beat tracker on the equalised
//    envelope at that period (tightness kTempoBeatTightness).
//
// Confidence (0..1) = clarity * (0.5 + 0.5 max(level, backbeat))
//                    * (1 - w doubled (1 - backbeat)) * length:
//   clarity = c / (c + kTempoClarityHalfComb), c the comb at the answer (the
//             mean normalised autocorrelation at its beat multiples: ~0 for
//             noise or speech, ~0.2 for a loose band, ~0.8 for a machine);
//   level   = 1 - (best prior-weighted comb among T/2, 2T, T/3, 3T, 2T/3,
//             3T/2) / (that of T): how clearly the metrical level wins;
//   doubled = comb(2T) / comb(T) when 2T <= kTempoHomogeneousMaxBpm, or
//             2T <= kTempoMaxBpm with events half-way between T's beats as
//             strong as the beats (>= kTempoHomogeneousRatio), else 0: a
//             double tempo that is just as periodic and still tappable is
//             the half/double ambiguity that causes most errors
//             (w = kTempoDoubleAmbiguityWeight);
//   backbeat = margin of T's kick-snare alternation over the other levels',
//             / kTempoBackbeatFull, clipped to 0..1: a backbeat settles the
//             level and removes the half/double ambiguity;
//   length  = 1 - exp(-seconds / kTempoEvidenceSeconds): few beats, less trust.
// Measured (bench/dev/tempo/eval.sh, analyzer 0.5.6): the most confident
// half of ../shared/eval is right (Acc1) 97 % of the time vs 76 % for the
// least confident half (the top half's miss is a GTZAN label at double
// time, 227 BPM); on the FluidSynth corpora of bench/dev/soundfont (seeds
// 1-4 of 72 pieces) 89..100 % vs 64..78 %. On the generated corpora almost
// every answer is right (seed 1: 100 % vs 97 %).
// nullopt when the input is shorter than kTempoMinSeconds, silent or steady
// (no onsets above kTempoMinFluxRms), or the comb has no positive peak.
//
// Units: sample_rate_hz in Hz, 1000..400000 (the analyzer always passes
// params::kAnalysisRateHz); Process takes any number of samples per call and
// any level (samples are clipped to +-kTempoMaxAbsSample).
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
  int low_bands_ = 0;               // bands 0..low_bands_-1 lie below kTempoKickBandMaxHz
  int high_from_band_ = 0;          // bands from this one up lie above kTempoSnareBandMinHz
  std::vector<float> pending_;      // samples not yet consumed by a full frame
  std::size_t pending_start_ = 0;   // first unconsumed sample in pending_
  std::vector<float> frame_;        // windowed frame (scratch)
  std::vector<float> power_;        // power spectrum (scratch)
  std::vector<float> band_power_;   // per band (scratch)
  std::vector<std::vector<float>> history_;  // last kTempoFluxLagFrames log band spectra (ring)
  std::size_t frames_ = 0;          // frames computed
  std::size_t samples_ = 0;         // samples received
  std::vector<float> flux_;         // onset envelope, one value per frame
  std::vector<float> low_flux_;     // the same over the kick's bands only
  std::vector<float> high_flux_;    // the same over the snare's bright bands only
  std::vector<float> snare_flux_;   // broadband (noise-like) rise over the bright bins
  std::vector<float> pitch_flux_;   // mean log rise per bin above kTempoPitchFluxMinHz
  std::size_t pitch_bin_lo_ = 0;    // first FFT bin of it (then every kTempoBinStride-th up to kTempoBandMaxHz)
  std::vector<float> pitch_ratio_;  // scratch: each bin's rise past the dead zone as a ratio, else 1
  std::vector<std::vector<float>> pitch_history_;  // their last kTempoFluxLagFrames 1 + gamma |X| (ring)
  std::vector<std::size_t> snare_bins_;          // bright FFT bins measured for it
  std::vector<std::vector<float>> bin_history_;  // their last kTempoFluxLagFrames magnitudes (ring)
  double snare_sq_ = 0.0;           // sum of snare_flux_ squared
  double bright_sq_ = 0.0;          // sum of squares of the plain sum of those bins' rises
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TEMPO_H_
