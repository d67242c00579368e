// Key estimator: reads the tonal front end's features (tonal_frontend.h,
// owned by the tuning estimator so the STFT runs once) and the measured
// tuning; the key, its confidence and ranked candidates out.
//
// Method (see key.cc for the reasoning behind each step):
//   1. fold the 10-cent pitch histograms into 12 pitch classes on the grid of
//      the measured tuning, weighting each fine bin by how close it is to a
//      note of that grid (tuning-aware chroma);
//   2. per segment, normalise and log-compress the treble and bass chroma,
//      then average over segments so a loud passage counts no more than a
//      quiet one;
//   3. score the 24 keys by correlating the chroma with rotated key profiles,
//      treble and bass separately, and add the two (the bass weighted down
//      when the bass band holds little of the energy);
//   4. second stages, each on the one pitch class that tells two keys with
//      nearly the same scale apart, read from partials that are no overtone
//      (TonalFeatures::treble_fundamentals) and counted only when present:
//      a major best key against its fifth neighbours (its #4 against its 4th
//      for the dominant, its b7 against its 7th for the subdominant),
//      then the best key's relative pair (a raised seventh that stands out
//      adds to the minor key's score);
//   5. the final chord: where the input ends by letting a chord ring out
//      (TonalFeatures::final_chord) and that chord is the tonic triad of the
//      answer, its relative or a neighbour a fifth away in the same mode,
//      that key wins (kKeyEndingMargin over the answer). A final cadence
//      names the tonic where the pitch statistics cannot (an Aeolian loop
//      has its relative major's pitch classes); excerpts cut mid-music and
//      fade-outs have no final chord, and a half cadence is none of those
//      keys' tonic triads. It must be a triad (kKeyEndingMinTriadShare of
//      its weight, not a cymbal's noise), and a fifth neighbour must not
//      trail the answer by a full margin (kKeyFullMargin): one pitch class
//      tells those two apart, which the profiles do see (a major piece that
//      stops on V and lets a drum ring keeps its key);
//   6. candidate scores are a softmax of the key scores.
//
// Confidence = fit x margin x tonality x evidence x in-tune x mode x named,
// each in 0..1:
//   fit      the best profile score (step 3) of the answer's relative pair from
//            kKeyMinFit (0) to kKeyFullFit (1): a chroma that matches no
//            profile well gives no confident key;
//   margin   (that score - the best profile score of any key outside the
//            pair) / kKeyFullMargin: a close runner-up is usually the
//            dominant or subdominant key and often the answer. The pair's
//            own margin (mode) is left out: on ../shared/eval it predicts
//            little (confident half exact +9 points alone or in a geometric
//            mean with this margin, +36 without it, +27 best - second);
//            a mode error still scores 0.3 (MIREX) and the runner-up
//            candidate is the other mode. When step 4 overturns the
//            profiles' choice of pair, the margin and the confidence are 0.
//            When the final chord (step 5) named the key, the margin is
//            taken on the scores with its vote in;
//   mode     the pair's own margin after steps 4 and 5, softly: a tie between the
//            relative keys keeps kKeyModeTieFactor of the confidence, a lead
//            of kKeyFullModeMargin keeps all of it. Alone it predicts little
//            (above); as a factor it ranks a coin-tossed mode below a clear
//            one (held-out FluidSynth corpus +11 -> +22 points, eval +36 kept);
//   tonality how many pitch classes carry energy (participation ratio of the
//            chroma) between kKeyMinPitchClasses (a single note with its
//            harmonics: no key) and kKeyFullPitchClasses;
//   evidence 1 - exp(-tonal frames / kKeyEvidenceFrames);
//   in tune  the tuning estimator's confidence (how many partials sit on one
//            semitone grid) mapped from kKeyMinInTune..kKeyFullInTune to
//            0..1: speech and other gliding pitch has partials everywhere
//            between the notes, and no key;
//   named    0 at the quarter-tone point (tuning 50 cents from 440 Hz), 1
//            from kKeyQuarterToneCents away: there the key is as likely named
//            a semitone lower or higher.
// nullopt when fewer than kKeyMinTonalFrames frames carried partials.
#ifndef TRACKSCAN_DSP_KEY_H_
#define TRACKSCAN_DSP_KEY_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "status.h"
#include "tonal_frontend.h"

namespace trackscan::dsp {

struct KeyCandidate {
  int tonic;   // pitch class, 0 = C .. 11 = B
  bool minor;
  double score;  // 0..1, higher is more likely
};

struct KeyEstimate {
  int tonic;
  bool minor;
  double confidence;                     // 0..1
  std::vector<KeyCandidate> candidates;  // best first
};

class KeyEstimator {
 public:
  static Result<KeyEstimator> Create(double sample_rate_hz);

  // features: from TuningEstimator::features() after its Estimate();
  // reference_hz: the tuning to build pitch classes on (440 when unknown).
  std::optional<KeyEstimate> Estimate(const TonalFeatures& features, double reference_hz) const;

 private:
  KeyEstimator() = default;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_KEY_H_
