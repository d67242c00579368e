#include "key.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "params.h"
#include "tuning.h"

namespace trackscan::dsp {

namespace {

constexpr double kPi = 3.14159265358979323846;
using Chroma = std::array<double, 12>;

struct Profile {
  Chroma major;
  Chroma minor;
};

// Key profiles, tonic first, as published; params::kKeyProfile picks one
// (see params.h for why).
constexpr Profile kProfiles[] = {
    // 0: Krumhansl & Kessler 1982, probe-tone ratings.
    {{6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88},
     {6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17}},
    // 1: Temperley 2007 (Music and Probability), Kostka-Payne corpus.
    {{0.748, 0.060, 0.488, 0.082, 0.670, 0.460, 0.096, 0.715, 0.104, 0.366, 0.057, 0.400},
     {0.712, 0.084, 0.474, 0.618, 0.049, 0.460, 0.105, 0.747, 0.404, 0.067, 0.133, 0.330}},
    // 2: Albrecht & Shanahan 2013, duration-weighted corpus counts.
    {{0.238, 0.006, 0.111, 0.006, 0.137, 0.094, 0.016, 0.214, 0.009, 0.080, 0.008, 0.081},
     {0.220, 0.006, 0.104, 0.123, 0.019, 0.103, 0.012, 0.214, 0.062, 0.022, 0.061, 0.052}},
};

// Folds a 10-cent pitch histogram (bin 0 = A on the 440 grid) onto the 12
// pitch classes of a grid shifted by tuning_cents. A bin's weight falls off
// as cos^2 of its distance to the nearest note, so energy half-way between
// two notes (glides, noise, mistuned partials) counts for little.
Chroma Fold(const std::array<float, kFineChromaBins>& fine, double tuning_cents) {
  Chroma out{};
  constexpr double bin_cents = 1200.0 / kFineChromaBins;
  for (int b = 0; b < kFineChromaBins; ++b) {
    if (fine[b] == 0.0f) continue;
    const double semis = (b * bin_cents - tuning_cents) / 100.0;
    const double n = std::round(semis);
    const double c = std::cos(kPi * (semis - n));
    const int pc = ((static_cast<int>(n) + 9) % 12 + 12) % 12;  // A = 9
    out[pc] += fine[b] * c * c;
  }
  return out;
}

double Sum(const Chroma& c) {
  double s = 0.0;
  for (double v : c) s += v;
  return s;
}

// Pearson correlation of chroma c with profile p rotated to tonic t.
double Correlate(const Chroma& c, const Chroma& p, int t) {
  double mc = Sum(c) / 12.0, mp = Sum(p) / 12.0;
  double num = 0.0, dc = 0.0, dp = 0.0;
  for (int i = 0; i < 12; ++i) {
    const double a = c[(i + t) % 12] - mc;
    const double b = p[i] - mp;
    num += a * b;
    dc += a * a;
    dp += b * b;
  }
  return dc > 0.0 && dp > 0.0 ? num / std::sqrt(dc * dp) : 0.0;
}

}  // namespace

Result<KeyEstimator> KeyEstimator::Create(double sample_rate_hz) {
  if (!(sample_rate_hz > 0.0)) return Status::kInvalidArgument;
  return KeyEstimator();
}

std::optional<KeyEstimate> KeyEstimator::Estimate(const TonalFeatures& features, double reference_hz) const {
  if (!(reference_hz > 0.0) || !std::isfinite(reference_hz)) reference_hz = 440.0;
  if (features.tonal_frames < params::kKeyMinTonalFrames) return std::nullopt;
  double tuning_cents = 1200.0 * std::log2(reference_hz / 440.0);
  tuning_cents -= 100.0 * std::round(tuning_cents / 100.0);

  const double gamma = params::kKeyCompression;

  // Each segment's chroma is normalised before summing: a key is heard over
  // the whole piece, so a loud chorus should not outvote a quiet verse.
  Chroma treble{}, bass{};
  double treble_weight = 0.0, bass_weight_total = 0.0;  // peak weight per band, before normalising
  for (const TonalSegment& seg : features.segments) {
    Chroma t = Fold(seg.treble, tuning_cents);
    Chroma b = Fold(seg.bass, tuning_cents);
    const double st = Sum(t), sb = Sum(b);
    treble_weight += st;
    bass_weight_total += sb;
    for (int i = 0; i < 12; ++i) {
      treble[i] += st > 0.0 ? t[i] / st : 0.0;
      bass[i] += sb > 0.0 ? b[i] / sb : 0.0;
    }
  }
  const double st = Sum(treble), sb = Sum(bass);
  if (!(st > 0.0)) return std::nullopt;
  // A bass band holding a small share of the partials (no bass instrument,
  // only stray low partials) is normalised into a confident-looking but
  // meaningless chroma; trust it in proportion to its share.
  const double bass_share = bass_weight_total / (bass_weight_total + treble_weight);
  const double bass_weight = params::kKeyBassWeight * std::clamp(bass_share / params::kKeyFullBassShare, 0.0, 1.0);
  // Log compression: what matters is which pitch classes are used at all,
  // more than how loud the most used one is.
  for (int i = 0; i < 12; ++i) {
    treble[i] = std::log1p(gamma * 12.0 * treble[i] / st);
    bass[i] = sb > 0.0 ? std::log1p(gamma * 12.0 * bass[i] / sb) : 0.0;
  }

  static_assert(params::kKeyProfile >= 0 && params::kKeyProfile < static_cast<int>(std::size(kProfiles)));
  const Profile& prof = kProfiles[params::kKeyProfile];
  std::array<double, 24> score{};
  for (int k = 0; k < 24; ++k) {
    const bool minor = k >= 12;
    const Chroma& p = minor ? prof.minor : prof.major;
    // Bass and treble scored apart: the bass names the tonic and the chord
    // roots, the upper voices the scale and the mode.
    score[k] = Correlate(treble, p, k % 12) + (sb > 0.0 ? bass_weight * Correlate(bass, p, k % 12) : 0.0);
    score[k] /= 1.0 + bass_weight;
  }
  std::array<int, 24> order{};
  for (int k = 0; k < 24; ++k) order[k] = k;
  auto rank = [&] { std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; }); };
  rank();
  const std::array<double, 24> profile_score = score;

  // The second stages read pitch classes from partials that are no overtone:
  // a note's 5th harmonic sits a major third above it, often on the very
  // pitch class that tells two keys apart (E -> G# in A minor, G -> B in F
  // major).
  Chroma fund = Fold(features.treble_fundamentals, tuning_cents);
  const double fsum = Sum(fund);
  if (fsum > 0.0) {
    for (double& v : fund) v = std::log1p(gamma * 12.0 * v / fsum);
  }
  const double fund_sum = Sum(fund);
  auto share = [&](int pc) { return fund_sum > 0.0 ? fund[pc % 12] / fund_sum : 0.0; };

  // A major key or one a fifth away? Their scales differ in one pitch class:
  // the key's 4th (the b7 of its dominant) against its #4 (the leading tone
  // of its dominant). The profiles weight both near their mean, so they
  // barely vote; here the one in use moves its key up. One-sided, as below:
  // a pitch class that is absent says little (melodies skip the 4th).
  // Minor keys are left alone: their 6th and 7th vary (natural, harmonic,
  // melodic, Dorian), and ../shared/eval lost a file when they were not.
  if (order[0] < 12) {
    const int y = order[0];
    score[(y + 5) % 12] += params::kKeyFifthCueWeight * std::max(0.0, share(y + 10) - share(y + 11));
    score[(y + 7) % 12] += params::kKeyFifthCueWeight * std::max(0.0, share(y + 6) - share(y + 5));
    rank();
  }
  // Minor or its relative major? The two share one scale, so the profiles
  // tell them apart only by tonic emphasis. The raised seventh (harmonic and
  // melodic minor: the leading tone in the V chord) is the one pitch class
  // that marks the minor key: in the relative major it is the rare #5. It
  // counts by how far it stands above the other chromatic pitch classes of
  // the minor key, and only for minor: most rock and modal minor music never
  // raises the seventh, so its absence says nothing. Only the best key's
  // pair is decided this way: for any other minor key that pitch class is
  // just as likely a diatonic note of a neighbouring key. (On all partials,
  // the fifth's 5th harmonic faked it: 4 of 24 major pad loops in key_test
  // read minor.)
  // The best key's relative pair, named by its minor (12..23) and major (0..11) key.
  int minor_key = 0, major_key = 0;
  auto pair_of_best = [&] {
    minor_key = order[0] >= 12 ? order[0] : 12 + (order[0] + 9) % 12;
    major_key = (minor_key % 12 + 3) % 12;
  };
  pair_of_best();
  {
    const int m = minor_key % 12;
    const double leading_tone =
        share(m + 11) - 0.25 * (share(m + 1) + share(m + 4) + share(m + 6) + share(m + 9));
    // Where the profiles already name the major by a clear margin, that
    // pitch class is more likely the major's own borrowed b6 (the iv or bVI
    // of pop and jazz: Ab in C major is the G# of A minor).
    if (score[major_key] - score[minor_key] < params::kKeyLeadingToneMaxMargin) {
      score[minor_key] += params::kKeyLeadingToneWeight * std::max(0.0, leading_tone);
    }
    rank();
  }

  // The final chord. Where the input ends by letting a chord ring out
  // (TonalFeatures::final_chord), that chord is the tonic triad, as the
  // final cadence of most tonal music is. It is what tells the keys that
  // pitch statistics confuse: a minor key and its relative major share a
  // scale, a key and its fifth neighbour all but one pitch class. So it
  // decides among those only, and only when its best-fitting triad (of the
  // 24 major and minor triads) is one of their tonic triads: a half cadence
  // or a stop on any other chord says nothing. A final chord that confirms
  // the answer raises its lead, and with it the confidence.
  bool ending_decided = false;
  if (features.final_chord.frames > 0.0) {
    const Chroma low = Fold(features.final_chord.bass, tuning_cents);
    const Chroma high = Fold(features.final_chord.treble, tuning_cents);
    Chroma chord{};
    for (int i = 0; i < 12; ++i) chord[i] = low[i] + high[i];
    int best_triad = 0;
    double best_fit = -1.0;
    for (int t = 0; t < 24; ++t) {
      const int r = t % 12;
      const double fit = chord[r] + chord[(r + (t >= 12 ? 3 : 4)) % 12] + chord[(r + 7) % 12];
      if (fit > best_fit) {
        best_fit = fit;
        best_triad = t;
      }
    }
    // A chord, not noise, a drum's resonance or a cluster: a triad with its
    // overtones puts most of its weight on its three pitch classes.
    const double total = Sum(chord);
    const bool triad = total > 0.0 && best_fit >= params::kKeyEndingMinTriadShare * total;
    // The keys a profile most often mistakes for the answer: its relative
    // (the same scale, so the profiles' lead between the two is weak
    // evidence) and its neighbours a fifth either side in the same mode
    // (one pitch class apart, which the profiles do see: a full margin
    // there stands, as when a major piece stops on its dominant).
    const int answer = order[0];
    const int mode_base = answer >= 12 ? 12 : 0;
    const bool relative = best_triad == (answer == minor_key ? major_key : minor_key);
    const bool fifth =
        best_triad == mode_base + (answer % 12 + 5) % 12 || best_triad == mode_base + (answer % 12 + 7) % 12;
    const bool related = best_triad == answer || relative ||
                         (fifth && score[answer] - score[best_triad] < params::kKeyFullMargin);
    if (triad && related) {
      score[best_triad] = std::max(score[best_triad], score[order[0]]) + params::kKeyEndingMargin;
      rank();
      pair_of_best();
      ending_decided = true;
    }
  }

  // Tonality: participation ratio of the treble chroma above its minimum.
  Chroma lin{};
  double lin_sum = 0.0;
  const double mn = *std::min_element(treble.begin(), treble.end());
  for (int i = 0; i < 12; ++i) lin_sum += (lin[i] = treble[i] - mn);
  double sq = 0.0;
  for (double v : lin) sq += (v / lin_sum) * (v / lin_sum);
  const double pitch_classes = lin_sum > 0.0 ? 1.0 / sq : 0.0;

  // Margin of the answer's relative pair over the best key outside it, on
  // the profile scores alone: the mode bonus decides between the two, it
  // does not make the pair any more likely; and when the fifth cue overturns
  // the profiles' choice, the margin is <= 0 and so is the confidence
  // (../shared/eval confident half exact 81.8 vs 45.5 % this way, 77.3 vs
  // 50.0 % with the fifth bonus counted in the margin).
  // Where the final chord named the key, its vote is part of the evidence
  // the margin measures.
  const std::array<double, 24>& evidence_score = ending_decided ? score : profile_score;
  const double pair_score = std::max(profile_score[minor_key], profile_score[major_key]);
  const double pair_evidence = std::max(evidence_score[minor_key], evidence_score[major_key]);
  double rival = -1.0;
  for (int k = 0; k < 24; ++k) {
    if (k != minor_key && k != major_key) rival = std::max(rival, evidence_score[k]);
  }
  const double margin = std::clamp((pair_evidence - rival) / params::kKeyFullMargin, 0.0, 1.0);
  const double tonality = std::clamp((pitch_classes - params::kKeyMinPitchClasses) /
                                         (params::kKeyFullPitchClasses - params::kKeyMinPitchClasses),
                                     0.0, 1.0);
  const double evidence = 1.0 - std::exp(-features.tonal_frames / params::kKeyEvidenceFrames);
  const std::optional<TuningEstimate> grid = TuningEstimator::FromFeatures(features);
  const double in_tune = std::clamp(((grid ? grid->confidence : 0.0) - params::kKeyMinInTune) /
                                        (params::kKeyFullInTune - params::kKeyMinInTune),
                                    0.0, 1.0);

  double z = 0.0;
  std::array<double, 24> prob{};
  for (int k = 0; k < 24; ++k) z += (prob[k] = std::exp((score[k] - score[order[0]]) / params::kKeySoftmaxTemperature));

  KeyEstimate e;
  e.tonic = order[0] % 12;
  e.minor = order[0] >= 12;
  const double fit =
      std::clamp((pair_score - params::kKeyMinFit) / (params::kKeyFullFit - params::kKeyMinFit), 0.0, 1.0);
  // The answer is one of the pair; how clearly did the mode win?
  const double mode = params::kKeyModeTieFactor +
                      (1.0 - params::kKeyModeTieFactor) *
                          std::min(1.0, std::abs(score[minor_key] - score[major_key]) / params::kKeyFullModeMargin);
  // Near the quarter-tone point the name is a coin toss (kKeyQuarterToneCents).
  const double named = std::clamp((50.0 - std::abs(tuning_cents)) / params::kKeyQuarterToneCents, 0.0, 1.0);
  e.confidence = fit * margin * tonality * evidence * in_tune * mode * named;
  for (int i = 0; i < params::kKeyCandidates; ++i) {
    e.candidates.push_back(KeyCandidate{order[i] % 12, order[i] >= 12, prob[order[i]] / z});
  }
  return e;
}

}  // namespace trackscan::dsp
