// Every tunable constant of the analysis engine, declared once, with its unit,
// its valid range and the reason for its value. Estimators read them from here;
// nothing numeric that changes results is defined anywhere else.
//
// Changing any value here can change results: bump kAnalyzerVersion.
#ifndef TRACKSCAN_DSP_PARAMS_H_
#define TRACKSCAN_DSP_PARAMS_H_

#include <cstddef>

namespace trackscan::dsp::params {

// "MAJOR.MINOR.PATCH" of the analysis engine (SPEC.md analyzer_version). The
// result cache keys on it, so a change that can move any number must bump it.
inline constexpr const char* kAnalyzerVersion = "0.5.7";

// ---- Input limits -------------------------------------------------------
// Hz. 8 kHz (telephone audio) to 384 kHz (the highest rate ffmpeg's PCM
// codecs commonly produce); outside that the filters below are not designed.
inline constexpr double kMinSampleRateHz = 8000.0;
inline constexpr double kMaxSampleRateHz = 384000.0;
// Channels. SPEC.md accepts 1 to 8 (7.1 is the widest common layout).
inline constexpr int kMinChannels = 1;
inline constexpr int kMaxChannels = 8;

// ---- Loudness (EBU R128 / ITU-R BS.1770-4) --------------------------------
// Seconds between two points of the short-term loudness curve in `details`.
// One a second is what SPEC.md asks for; short-term loudness is a 3 s window.
inline constexpr double kLoudnessCurveIntervalS = 1.0;

// ---- True peak (BS.1770-4 Annex 2) ----------------------------------------
// Taps of the windowed-sinc interpolation filter. 49 (odd) puts a tap at the
// centre so phase 0 reproduces the input samples exactly, which makes the
// true peak never lower than the sample peak; it is also the length
// libebur128 uses, so the two agree to a few hundredths of a dB.
inline constexpr int kTruePeakTaps = 49;
// Oversampling factor by input rate: BS.1770 asks for at least 192 kHz
// after oversampling, so 4x below 96 kHz, 2x below 192 kHz, 1x above.
inline constexpr int TruePeakOversampling(double rate_hz) {
  return rate_hz < 96000.0 ? 4 : rate_hz < 192000.0 ? 2 : 1;
}
// Samples per channel tested (and, if needed, interpolated) together. The
// skip test (true_peak.h) is per block, so small blocks skip more of a loud,
// limited master; below ~64 the per-block overhead wins. Measured with
// native/tools/loudness_bench on a loud master (+2.9 dBTP): 32 -> 0.027,
// 64 -> 0.027, 256 -> 0.039, 2048 -> 0.059 s per minute. Range 32..8192.
inline constexpr std::size_t kTruePeakBlockSamples = 64;

// ---- Shared front end -----------------------------------------------------
// Hz. The rate every tempo/key/tuning estimator works at, after downmix.
// 11025 Hz keeps content up to 5.5 kHz: all chroma-relevant partials and the
// bulk of onset energy, at a quarter of the FFT cost of 44.1 kHz.
inline constexpr double kAnalysisRateHz = 11025.0;
// libsoxr quality recipe (soxr.h: SOXR_LQ 1, SOXR_MQ 2, SOXR_HQ 4, SOXR_VHQ 6).
// SOXR_HQ, soxr's own default: flat to 91 % of the analysis Nyquist (5 kHz),
// about 120 dB down from it on, so nothing folds back into the onset bands
// or the chroma. Per minute of 44.1 kHz audio it costs about 100 M
// instructions against 300 M for speexdsp at its default quality (80 dB),
// which this replaced; SOXR_LQ saves only 5 % more. Range 1..6.
inline constexpr unsigned long kResamplerQuality = 4;

// ---- Tempo (native/dsp/tempo.cc) ------------------------------------------
// Onset envelope. STFT frame, samples at kAnalysisRateHz: 512 (46 ms) is long
// enough to separate a kick's low band from a hat's high band and short enough
// that two sixteenths at 200 BPM (75 ms apart) stay distinct. Factors 2,3,5.
// Range 256..2048.
inline constexpr std::size_t kTempoFrameSize = 512;
// Samples between onset frames: 128 -> 86.1 frames/s (11.6 ms). A beat
// period at 200 BPM is 26 frames, so one frame is < 4 % of it and the
// autocorrelation is interpolated below that. Range 64..256.
inline constexpr std::size_t kTempoHopSize = 128;
// Frames between the two spectra whose log difference is the flux. 2 (23 ms)
// looks past the smearing of the 46 ms window overlap so a note attack is one
// clean rise rather than a spread of small ones. Range 1..4.
inline constexpr std::size_t kTempoFluxLagFrames = 2;
// Log-spaced flux bands between these edges, Hz. 40 Hz catches the kick's
// fundamental; 5 kHz is just under Nyquist of the analysis rate. 24 bands is
// the resolution of a critical-band scale over that span, and keeps the log()
// count per frame small (the speed budget). Bands 12..64.
inline constexpr double kTempoBandMinHz = 40.0;
inline constexpr double kTempoBandMaxHz = 5000.0;
inline constexpr int kTempoBands = 24;
// log(1 + gamma * |X|/(N/4)): |X| relative to a full-scale sine. 1e4 puts the
// knee at -80 dBFS, so anything audible is compressed logarithmically (flux
// then measures relative, level-independent change). Range 1e2..1e5.
inline constexpr double kTempoLogGamma = 1e4;
// Rise of one band's log magnitude (nepers, 1 dB = 0.115) ignored by the
// flux: a steady tone's magnitude ripples by a few hundredths with the
// window's phase (and vibrato by more), which is periodic and would read as a
// pulse; a note or drum onset rises by several dB. 0.05 (0.43 dB) is under a
// loudness JND. Range 0..0.2.
inline constexpr float kTempoMinBandRise = 0.05f;
// The pitch flux: the same log rise, bin by bin from this frequency up to
// kTempoBandMaxHz, beside the bands. A legato note change (bowed strings, a
// voice, a piano under the pedal) moves partials to other bins but leaves a
// band's energy about where it was, so the band flux misses it. From 200 Hz
// the bins (21.5 Hz apart) are under two semitones apart, so a step of a tone
// or more rises in bins of its own. Measured (Acc1 on FluidSynth seeds 1 / 2 /
// 3, weight 1): 100 Hz 83.3 / 81.9 / 81.9, 200 or 400 Hz 84.7 / 83.3 / 81.9,
// 800 Hz 83.3 / 83.3 / 81.9 %; ../shared/eval the same at each. Range 100..800.
inline constexpr double kTempoPitchFluxMinHz = 200.0;
// Weight of the pitch flux (mean rise per bin) added to the band flux (mean
// rise per band) where no drum kit marks the beat: the bright onsets are less
// noise-like than kTempoSnareMinFlatness (a drum kit, or a band with one,
// reads 0.3..0.95; strings 0.07..0.11). There the pulse is in the note
// changes. With drums the beat is the kit's, and the melody's rhythm, which
// the pitch flux brings out, only blurs it (added everywhere at 0.5 it cost
// one to two band pieces on each generated seed, read at 1/3 or 2/3).
// Measured, Acc1 FluidSynth seeds 1 / 2 / 3 and ../shared/eval: 0 -> 81.9 /
// 79.2 / 79.2 / 86.4 (Acc2 eval 94.9), 0.5 -> 81.9 / 81.9 / 80.6 / 88.1, 0.75
// -> 81.9 / 81.9 / 81.9 / 88.1, 1 -> 84.7 / 83.3 / 81.9 / 86.4, 1.5 -> 86.1 /
// 83.3 / 81.9 / 86.4, 2 -> 86.1 / 83.3 / 81.9 / 84.7 (eval Acc2 96.6 from 0.5
// to 2: gtzan_classical_00006, rubato strings, leaves 0.6 x the label); the
// generated seeds, which all have drums, are unchanged at every weight.
// Range 0..2.
inline constexpr double kTempoPitchFluxWeight = 1.0;
// Input samples are clipped to +-this before the FFT so absurd levels cannot
// overflow float power spectra. 1e4 is 80 dB above full scale. Range 1..1e6.
inline constexpr float kTempoMaxAbsSample = 1e4f;
// Seconds of the centred moving average removed from the envelope (its slow
// loudness trend). 1.5 s is longer than a beat at the slowest tempo we report
// (40 BPM) so it never removes the pulse itself. Range 1..4.
inline constexpr double kTempoDetrendS = 1.5;
// Seconds of the window over which the envelope's RMS is equalised, so a loud
// chorus does not outvote the rest; its floor (share of the global RMS) stops
// fade-ins and silences from being amplified to full weight. Range 2..16 / 0.05..0.5.
inline constexpr double kTempoNormWindowS = 6.0;
inline constexpr double kTempoNormFloor = 0.2;
// Standard deviation, frames, of the Gaussian that widens the envelope's
// peaks before the autocorrelation (see tempo.cc Smooth). 1.5 frames =
// 17 ms, about the timing spread of a human drummer; wider starts to merge
// sixteenths at fast tempos. Measured 0 / 0.7 / 1 / 1.5 / 2 -> eval Acc1
// 75 / 78 / 78 / 81 / 80 %, generated 83 / 85 / 85 / 85 / 83 %. Range 0..3.
inline constexpr double kTempoSmoothFrames = 1.5;
// Tempo search range, BPM. Periodicity is computed over 30..300 so the
// half/double of any answer is visible; answers are kept within
// kTempoMinBpm..kTempoMaxBpm (practically all notated music).
inline constexpr double kTempoSearchMinBpm = 30.0;
inline constexpr double kTempoSearchMaxBpm = 320.0;
inline constexpr double kTempoMinBpm = 40.0;
inline constexpr double kTempoMaxBpm = 250.0;
// Grid step of the tempo search, as a ratio (0.25 %): a tenth of the 4 %
// accuracy window. Range 1.001..1.01.
inline constexpr double kTempoGridRatio = 1.0025;
// Multiples of the period summed by the comb (k * P for k = 1..K). 4 covers a
// bar of 4/4 at the beat level, which is what separates a steady pulse from a
// chance peak of the autocorrelation. Range 2..8.
inline constexpr int kTempoCombHarmonics = 4;
// Prior over tempo: log-normal on BPM, centre and width (octaves). Listeners
// tap near 100-120 BPM when the music allows (Moelants & McKinney 2004; van
// Noorden & Moelants 1999 resonance at ~2 Hz); the width lets strong evidence
// at 60 or 200 still win. Range 90..130 / 0.5..1.5.
inline constexpr double kTempoPriorCentreBpm = 120.0;
inline constexpr double kTempoPriorOctaves = 1.0;
// Metrical level: when the comb at the odd half-multiples of the winning
// period reaches this share of the comb at its multiples, the events half-way
// between its beats are as strong as the beats, so the pulse is the faster
// level (clicks; quarter-note hats under a fast backbeat). Taken only while
// the faster level stays at or below kTempoHomogeneousMaxBpm, about where
// listeners stop tapping every event (London 2004: ~ 200-250 ms IOI floor of
// a comfortable beat). Ranges 0.8..1.0 / 170..230. The confidence counts a
// homogeneous answer's double as a rival reading up to kTempoMaxBpm (tempo.h):
// people do tap 200-250 where every event is alike.
inline constexpr double kTempoHomogeneousRatio = 0.9;
inline constexpr double kTempoHomogeneousMaxBpm = 200.0;
// Compound metre: when the events half-way between the winning beats reach
// kTempoCompoundMinHalf of the beats (a tatum at half the period) but the
// tatum is not taken as the beat (kTempoHomogeneousRatio, ...MaxBpm), and the
// tatum grouped in threes (two thirds of the tempo) has a comb of at least
// kTempoCompoundMinRatio times that of the tatum grouped in twos (the
// winner), the beat is the group of three: 6/8 read on the dotted quarter,
// not on a quarter that falls on every other eighth. Both combs hold the bar
// (6 tatums); only the grouping's own lags (3, 9 against 2, 4, 8) differ,
// and the prior, which chose the winner, says nothing about metre. Measured
// (bench/dev/tempo/NOTES.md) on ../shared/eval, generated seeds 1/3/5/7/11/13
// and FluidSynth seeds 1-3: the six 6/8 pieces read at the quarter have
// ratios 1.07..1.26 and halves 0.84..1.0; no other piece with a half of 0.5
// or more goes above 0.984 (a country recording in straight eighths). Any
// half from 0 to 0.8 and any ratio from 1.0 to 1.07 give the same answers
// (waltzes reach 1.06..1.25 but have no events half-way between their
// beats: halves below 0). Ranges 0..0.8 / 1.0..1.07.
inline constexpr double kTempoCompoundMinHalf = 0.5;
inline constexpr double kTempoCompoundMinRatio = 1.03;
// Backbeat: the kick's bands (upper edge at or below this, Hz) and the
// snare's bright bands (lower edge at or above this, Hz) give two more onset
// envelopes. 150 Hz holds a kick's body (50-120 Hz) but not a snare's
// (~180-250 Hz); above 2.5 kHz a snare's crack outweighs the partials of
// chords, bass and voice, which fall off with frequency (hats and cymbals sit
// mostly above the 5 kHz of the analysis rate). Measured, Acc1 generated seed
// 1 / seed 3 / eval: kick 100 -> 90 / 90 / 85 %, 150 -> 93 / 97 / 85 %, 200 ->
// 88 / 93 / 85 % (snare 2.5 kHz); snare 1 / 1.5 / 2 / 2.5 / 3 / 3.5 kHz ->
// 88/88/85, 90/92/85, 90/90/85, 93/97/85, 94/95/83, 97/98/81 % (kick 150 Hz):
// higher fits the generator's bright snare and loses real recordings.
// Ranges 100..250 / 1000..3500.
inline constexpr double kTempoKickBandMaxHz = 150.0;
inline constexpr double kTempoSnareBandMinHz = 2500.0;
// The snare as noise. Its envelope is the power mean of order 1/4 of the
// magnitude rises of the bright bins (times their count): a snare raises
// every bin, the partials of a melody or of comping only the few near them,
// which that mean shrinks by about their share (order 1 is the plain sum;
// order -> 0, the geometric mean, is zero whenever one bin stays still).
// Measured every kTempoBinStride-th bin (as is the pitch flux below): neighbours
// share the main lobe of the 512-point Hann window, so the mean hardly changes
// and the cost halves (stride 1: same Acc1 on every set, +0.006 s per minute
// of audio instead of +0.003 for the snare; the pitch flux gives the same
// Acc1 on all ten dev sets at 1 and 2). Range 1..4.
inline constexpr int kTempoBinStride = 2;
// Flatness of the bright onsets over the whole piece (RMS of that envelope
// over RMS of the plain sum of the same rises; ~0.75 for a drum kit alone,
// ~0 for sustained notes) from which the snare's envelope is the noise-like
// one. Below it there is no snare to single out, and the bright bands as a
// whole are kept: the upper register against the bass (oom-pah) is then
// what alternates, if anything does. Measured: generated drums alone 0.68..
// 0.95, band pieces 0.30..0.75, arpeggios 0.01..0.53 (chords and tones up to
// 0.9 where only the noise floor moves: a ratio, blind when nothing rises);
// ../shared/eval orchestral 0.10..0.19 (and a ballroom orchestra 0.11), the
// rest 0.17..0.79 (dense guitars and voice keep rock and pop low). Any value from 0.16 to 0.35 gives the same Acc1 on every set; below
// 0.15 gtzan_classical_00000 (0.151, no drums) loses the register
// alternation that reads it at 94 and goes to 189; above 0.35 generated band
// pieces fall back to the blurred envelope. Range 0..0.5.
inline constexpr double kTempoSnareMinFlatness = 0.25;
// RMS of the kick envelope relative to the snare envelope (magnitude rises)
// below which there is no kick to speak of and the backbeat is not looked
// for: a click track leaves only leakage in the kick's bands (1.5 / 2.5 kHz
// clicks measure 0.39..0.46, and their accent then reads as a backbeat at
// half or double the tempo). Recordings of ../shared/eval with drums measure
// 0.6..20 (a solo sax 0.29, a solo trumpet 0.006), drum kits 5..15.
// Range 0.3..0.6.
inline constexpr double kTempoKickMinShare = 0.5;
// Bars averaged by the alternation measure (kick-snare lags inside a bar
// against whole bars): 2 bars of 2 beats span a 4/4 bar. Range 1..4.
inline constexpr int kTempoBackbeatPairs = 2;
// Alternation (correlation units) by which a level must beat the answer's
// own (or zero) for the backbeat to move the answer there (only ever to a
// level at or below kTempoHomogeneousMaxBpm). Drum patterns with a backbeat
// give 0.1..0.35 at their beat, 0.03..0.05 under a band's bass and chords,
// other levels < 0.03. Measured, Acc1 generated seed 1 / 3 / 5 / eval:
// 0.02 -> 96 / 95 / 93 / 86 %, 0.03 -> 97 / 95 / 93 / 86 %, 0.04 -> 94 / 95 /
// 93 / 85 %, 0.05 -> 93 / 97 / 90 / 85 %, 0.08 -> 92 / 92 / - / 81 %.
// Range 0..0.3.
inline constexpr double kTempoBackbeatMin = 0.03;
// The same margin when the level is twice an answer that has events
// half-way between its beats (kTempoCompoundMinHalf) and was neither
// doubled nor grouped in threes: the comb is then torn between the two
// (half-comb ratio 0.5..0.9), and a weaker backbeat settles it. FluidR3's
// recorded kit in a full mix at 166-197 BPM (kick 1 and 3, snare 2 and 4,
// quarter hats or ride) alternates by only 0.010-0.027 more at the beat than
// at the half; the largest margin of a piece read right at the half level
// is 0.0175 (a FluidSynth piano piece, lost), on ../shared/eval 0.0068.
// Measured (bench/dev/tempo/NOTES.md): 0.003..0.015 give the same or better
// Acc1 than 0.03 on every set. Range 0.003..0.015.
inline constexpr double kTempoBackbeatTatumMin = 0.01;
// A level the backbeat may move the answer to must have a prior-weighted
// comb of at least this share of the answer's: a pulse of its own. Every
// move that was right on ../shared/eval, generated seeds 1/3/5/7/11/13 and
// FluidSynth seeds 1-3 has 0.23 or more (most 0.5-1.3); the wrong moves it
// stops (two string pieces read as waltzes at three times a level with no
// pulse) have 0.05-0.06. Range 0.07..0.2.
inline constexpr double kTempoBackbeatMinComb = 0.15;
// Margin of the chosen level's alternation over every other level's at which
// the backbeat fully settles the metrical level in the confidence (see
// tempo.h). 0.03 / 0.05 / 0.1 / 0.2 give the same confidence ranking on
// the generated sets and ../shared/eval. Range 0.03..0.3.
inline constexpr double kTempoBackbeatFull = 0.1;
// Below this RMS of the detrended envelope (mean log rise per band and frame)
// nothing moves at all: digital silence, DC, a constant signal. Measured:
// drums ~1, speech-like babble ~0.4, white noise ~0.07, a held sine ~0.005
// (residual ripple; its clarity is then noise-like). Range 1e-4..1e-2.
inline constexpr double kTempoMinFluxRms = 1e-3;
// Shortest input that gets an answer, seconds: below ~4 beats at 60 BPM there
// is no periodicity to speak of. Range 2..8.
inline constexpr double kTempoMinSeconds = 3.0;
// Beat tracker (Ellis 2007 dynamic programming): penalty weight on
// log(interval / period)^2. 100 is Ellis' tightness: holds the tempo through
// fills, still follows slow drift. Range 10..1000.
inline constexpr double kTempoBeatTightness = 100.0;
// Candidates reported in `details`.
inline constexpr int kTempoCandidates = 3;
// Confidence. Comb value (mean normalised autocorrelation at the period's
// multiples) at which the clarity factor c / (c + this) is one half: white
// noise gives ~0.02, a loose band ~0.2, a drum machine ~0.8. Range 0.05..0.5.
inline constexpr double kTempoClarityHalfComb = 0.2;
// How much a viable double-tempo reading (2T at or below
// kTempoHomogeneousMaxBpm, with a comb as strong as T's) lowers the
// confidence: that is exactly the half/double ambiguity listeners share.
// Range 0..1.
inline constexpr double kTempoDoubleAmbiguityWeight = 0.7;
// Seconds at which the length factor of the confidence reaches 63 %.
// Range 2..20.
inline constexpr double kTempoEvidenceSeconds = 5.0;

// ---- Key (native/dsp/key.cc) ----------------------------------------------
// Index into key.cc's profile table (0 Krumhansl-Kessler, 1 Temperley 2007,
// 2 Albrecht-Shanahan 2013). Corpus counts (2) fit audio chroma better than
// probe-tone ratings (0): they are sparse outside the scale, as is what
// instruments actually play. ../shared/eval MIREX: 49 %, 55 %, 68 %.
inline constexpr int kKeyProfile = 2;
// Weight of the bass-band correlation relative to the treble one, 0..4.
// ../shared/eval MIREX: 0 -> 44 %, 0.5 -> 58 %, 1 -> 68 %, 2 -> 63 %.
inline constexpr double kKeyBassWeight = 1.0;
// Share of all chroma peak weight in the bass band from which the bass
// correlation gets its full weight (less: proportionally less), 0.05..0.5.
// Music with a bass line has 0.15..0.95 on ../shared/eval; pieces without
// one have ~0, and their few stray low partials must not name the key.
// MIREX ../shared/eval / exact on the harness corpus: off 68.6 / 85.2 %,
// 0.1 68.6 / 87.0, 0.2 69.8 / 88.9, 0.3 69.8 / 88.9, 0.5 69.8 / 87.0.
inline constexpr double kKeyFullBassShare = 0.2;
// Minor-key bonus per unit of the raised seventh's share of the compressed
// treble chroma of non-overtone partials above the mean of the other four
// chromatic pitch classes, correlation units, 0..20; applied only to the
// minor key of the best key's relative pair (key.cc). Shares run 0.03..0.09
// in generated minor music with a V chord, <= 0.02 in major. Generated seed 1
// / seed 3 exact: 2 -> 96.3 / 93.3 %, 3..12 -> 98.1 / 93.3, (0: 94.4 / 86.7);
// ../shared/eval MIREX 69.3..70.9 over 2..12 (69.8 at 0), 68.2 at 16. 5:
// inside the generated plateau, and low, because a secondary dominant in
// major (III7 -> vi) raises the relative minor's seventh too.
// Tried and dropped: the same cue on the full treble chroma (eval 71.4 but
// the 5th harmonic of the fifth fakes it: 4 of 24 major pad loops in
// key_test read minor); counting its absence against minor (two-sided)
// cost ../shared/eval a file at every weight (Aeolian rock never raises it).
inline constexpr double kKeyLeadingToneWeight = 5.0;
// Largest lead of the major over its relative minor (profile score after the
// fifth cue, correlation units) that the raised-seventh cue may overturn.
// Major pop and jazz borrow the iv or bVI chord, whose b6 is the relative
// minor's raised 7th (Ab in C major = G# in A minor). In the minor pieces of
// generated seeds 1/3/5 that need the cue, the major leads by at most 0.133;
// in the FluidSynth corpus (bench/dev/soundfont, seed 1) two major pieces
// with a borrowed iv lead by 0.38 and 0.42 and read minor without a cap.
// Every value from 0.15 to 0.37 gives the same answers on all five sets
// (eval, seeds 1/3/5, FluidSynth): 0.25 sits in the middle. Range 0.1..1.
inline constexpr double kKeyLeadingToneMaxMargin = 0.25;
// Bonus per unit of share (as above) by which a major key's 4th outweighs
// its 7th (to its subdominant) or its #4 outweighs its 4th (to its
// dominant), correlation units, 0..10; only for a major best key (key.cc).
// Generated seed 1 / 3 / 5 exact: 0 -> 98.1 / 93.3 / 97.2 %, 1 -> 100 /
// 97.8 / 100, 1.5..3 -> 100 / 100 / 100; ../shared/eval MIREX 70.9 % at
// every weight 0..3. 2: mid-plateau. Tried and dropped: the same for minor
// keys (6th vs its raised form; eval 69.8 at 1..1.5, 71.6 at 3: noise either
// way, and minor 6ths/7ths vary by style); a whole-scale membership term on
// the full chroma for all keys (eval 66.8 % at the weight that fixed the
// generated sets: real music is not diatonic, and harmonics fake the #4).
inline constexpr double kKeyFifthCueWeight = 2.0;
// Lead the final chord's key is given over the answer when the input ends
// on the tonic triad of one of the answer's closely related keys (key.cc);
// it also sets the mode factor of the confidence. Range 0..0.3.
inline constexpr double kKeyEndingMargin = 0.1;
// Share of the final chord's pitch-class weight its best triad must hold to
// count as a chord (key.cc). A triad with its overtones holds 0.55-1.0 (the
// FluidSynth endings); noise, a cymbal or a drum's resonances spread it.
// Range 0.4..0.6.
inline constexpr double kKeyEndingMinTriadShare = 0.5;
// Log compression of the chroma, log(1 + gamma * 12 * share), 0.1..100.
// Flat around 1 (0.3 -> 66.6 %, 1 -> 67.7 %, 5 -> 64.1 % on ../shared/eval).
inline constexpr double kKeyCompression = 1.0;
// Frames (of kTonalHopSize, 0.37 s) with partials needed before any key is
// given, 1..20. 6 (~2 s of tonal sound) is about a bar at common tempos: less
// than that cannot establish a key, so a 1 s clip answers "no key".
inline constexpr double kKeyMinTonalFrames = 6.0;
// Tonal frames at which the evidence factor of the confidence reaches 63 %,
// 5..100. 20 frames = 7.4 s: a 15 s excerpt reads ~0.9, 3 s ~0.3.
inline constexpr double kKeyEvidenceFrames = 20.0;
// Score margin (the answer's relative pair over the best key outside it,
// profile scores, correlation units) that reads full confidence. Margins on
// ../shared/eval run 0..0.25; 0.25 keeps the mapping linear over that range
// so it ranks rather than saturates.
inline constexpr double kKeyFullMargin = 0.25;
// Mode factor of the confidence: kKeyModeTieFactor + (1 - it) x
// min(1, |minor - major| / kKeyFullModeMargin), the final scores (cues in) of
// the answer and its relative key. The two share a scale, so a near-tie
// between them is a coin toss the pair margin above cannot see. Confident
// half minus the other, key exact, FluidSynth corpus (bench/dev/soundfont,
// 72) / ../shared/eval (44): without +11.1 / +36.4; tie factor 0.5 with full
// margin 0.15..0.6 +22.2 / +36.4; 0.1 +16.7 / +27.3; tie factor 0.3 or 0.7
// the same plateau, narrower. Generated seeds 1/3/5 unchanged (at ceiling).
// Ranges 0..1 / 0.05..1.
inline constexpr double kKeyModeTieFactor = 0.5;
inline constexpr double kKeyFullModeMargin = 0.3;
// Fit: the best key's score (mean of treble and bass correlations with the
// profile) mapped from min..full to 0..1. How well the chroma looks like any
// key at all; on ../shared/eval right answers score 0.4..0.94, wrong ones
// rarely above 0.8.
inline constexpr double kKeyMinFit = 0.3;
inline constexpr double kKeyFullFit = 0.9;
// Participation ratio (1 / sum p^2) of the treble chroma above its minimum,
// pitch classes, 1..12: a single harmonic note reads about 2-3 (its pitch
// class, fifth and third from partials 3 and 5) and gets no confident key;
// music reads 4.5..9.5 on ../shared/eval.
inline constexpr double kKeyMinPitchClasses = 3.0;
inline constexpr double kKeyFullPitchClasses = 6.0;
// Tuning confidence below which partials are not on a semitone grid (speech,
// glides: 0..0.12 on generated speech-like signals) and above which they are
// (music: 0.2..1 on ../shared/eval, 1.0 on generated music).
inline constexpr double kKeyMinInTune = 0.1;
inline constexpr double kKeyFullInTune = 0.3;
// Cents from the quarter-tone point (+-50 cents from 440 Hz) inside which the
// key's name is as likely a semitone away: a recording tuned 49 cents flat is,
// note for note, the one a semitone lower tuned 51 cents sharp, and the side of
// the point the tuning estimate lands on decides the name. The confidence
// scales from 0 at the point to all of it this far away. 3 cents is a few
// times the tuning's precision on recordings (TuningTest: 0.03..0.13 cents
// on generated music; ../shared/eval's labelled A4 to 0.25). On
// ../shared/eval two recordings fall inside it (gtzan rock.00002 at -49.7,
// hiphop.00008 at -49.9 cents; the first named a semitone off its label) and
// the nearest outside sits at 44.9. Range 1..10.
inline constexpr double kKeyQuarterToneCents = 3.0;
// Softmax temperature turning key scores into candidate scores, correlation
// units, 0.01..0.2: about the typical best-to-third margin, so the top three
// candidates get visibly different, non-degenerate scores.
inline constexpr double kKeySoftmaxTemperature = 0.03;
// Candidates reported (SPEC: top 3).
inline constexpr int kKeyCandidates = 3;

// ---- Tuning (native/dsp/tuning.cc) ----------------------------------------
// Band of partials that vote for the tuning, Hz. From the lowest partial the
// front end resolves (a bass note alone still has a tuning) to 2.5 kHz, above
// which stretched partials (piano inharmonicity) and noise dominate.
inline constexpr double kTuningMinHz = 50.0;
inline constexpr double kTuningMaxHz = 2500.0;
// A partial with another within this many cents of f/3, f/5 or f/7 is taken
// for an overtone and does not vote (tonal_frontend.cc). Wide enough for the
// 14- and 31-cent offsets of those harmonics from the grid not to matter,
// narrow enough (a quarter tone) not to catch unrelated notes.
inline constexpr double kTuningHarmonicToleranceCents = 25.0;
// Partials below this frequency vote with weight f / kTuningFullWeightHz, Hz,
// 50..500: their offset in cents is less precise (a bin is 24 cents at
// 100 Hz, 4 at 600 Hz) and they beat against neighbours in a mix.
inline constexpr double kTuningFullWeightHz = 200.0;
// Gaussian kernel over the cent-offset histogram, cents, 0.5..5. Narrow, so
// the 2-cent offset of harmonics 3 and 6 (when an overtone escapes the test
// above) cannot pull the mode; wide enough to merge vibrato and the ~0.1-cent
// scatter of the frequency estimator into one mode.
inline constexpr double kTuningKernelCents = 2.0;
// Half-width of the window around the mode that counts as "in tune", cents,
// 3..25. 10 covers vibrato and ensemble spread; uniform noise puts 21 % there.
inline constexpr double kTuningConcentrationCents = 10.0;
// Share of weight within that window that reads full confidence, 0.3..1.
// Clean generated music reaches ~0.9, real mixes 0.3..0.8.
inline constexpr double kTuningFullConcentration = 0.6;
// Total peak weight (nepers, summed over voting partials) at which the
// evidence factor reaches 63 %, 1..1000. A sustained harmonic note gives ~20
// per second, so half a second of one note already reads ~0.4.
inline constexpr double kTuningEvidenceWeight = 20.0;

// ---- Tonal front end (native/dsp/tonal_frontend.cc), shared by key and tuning
// Samples per STFT frame at kAnalysisRateHz. 8192 (0.74 s, 1.35 Hz bins)
// resolves neighbouring semitones down to about E2 (82 Hz), where the bass
// line lives, and localises a partial to a fraction of a cent above ~200 Hz.
// Key MIREX on ../shared/eval (hop = half a frame): 4096 -> 62.5 %,
// 8192 -> 68.6 %, 16384 -> 59.1 % (chords change within 1.5 s).
// Must have only factors 2, 3, 5 (RealFft). Range 4096..16384.
inline constexpr std::size_t kTonalFrameSize = 8192;
// Samples between frames. Half a frame: a Hann window at 50 % overlap covers
// every sample with equal total weight, and key/tuning need no finer time.
// Range kTonalFrameSize/4..kTonalFrameSize/2.
inline constexpr std::size_t kTonalHopSize = 4096;
// Lowest partial used, Hz: below ~50 Hz an 8192-point frame at 11025 Hz
// cannot separate semitones (2.4 bins apart at 55 Hz).
inline constexpr double kTonalBassMinHz = 50.0;
// Bass/treble split for the chroma, Hz. Below ~200 Hz (G3) sit the bass line
// and chord roots, which name the tonic more often than upper voices do, so
// they get their own chroma and correlation. Measured on ../shared/eval
// (bench/dev/tonal/eval.mjs): 150 -> 63.6, 200 -> 67.7, 300 -> 65.9 MIREX %.
inline constexpr double kTonalBassMaxHz = 200.0;
// Highest partial in the chroma, Hz. Above ~1 kHz most peaks are upper
// harmonics (3rd, 5th, ... of lower notes: fifths and thirds of the wrong
// root) and vocal formants, which blur the pitch-class picture. Measured on
// ../shared/eval: 600 -> 66.6, 1000 -> 67.7, 1600 -> 58.2, 2500 -> 60.2.
inline constexpr double kTonalChromaMaxHz = 1000.0;
// Half-width of the local floor (geometric mean of |X|), bins, 10..100. 40
// bins = +-54 Hz: wide enough that a partial's own main lobe (4 bins) barely
// raises it, narrow enough to follow the spectral tilt of a mix.
inline constexpr int kTonalFloorHalfWidthBins = 40;
// A peak must stand this far above the local floor, dB. Below ~10 dB noise
// maxima and sidelobes get in, above ~15 dB quieter voices of a dense mix drop
// out (../shared/eval MIREX: 6 dB 58 %, 9 dB 66 %, 12 dB 68 %, 16 dB 62 %).
inline constexpr double kTonalPeakOverFloorDb = 12.0;
// Added to each peak's weight (nepers above threshold), so a peak just over
// the threshold still counts, 0..5. ../shared/eval MIREX: 0.1 -> 67.3 %,
// 0.5 -> 68.6 %, 2 -> 63.4 % (larger offsets flatten the weighting towards
// counting peaks).
inline constexpr double kTonalPeakWeightOffset = 0.5;
// Partials below this level (dBFS, as a sine's peak) are ignored, -120..-60:
// far below anything audible in a mastered mix, but it keeps dither and
// codec noise in digital near-silence from making "partials".
inline constexpr double kTonalAbsoluteFloorDbfs = -90.0;
// Peaks in a frame for it to count as tonal, 1..20. 3: fewer is a lone
// partial or a noise maximum, not a note with harmonics or a chord.
inline constexpr int kTonalMinFramePeaks = 3;
// Frames per key segment at the start (16 = 6 s) and the most segments kept.
// Each segment's chroma is normalised before they are summed, so a loud
// passage counts no more than a quiet one; the length hardly matters on
// ../shared/eval (2 -> 66.6 %, 16 -> 68.6 %, 64 -> 66.8 % MIREX). 256
// segments of 2 x 120 floats bound the key state to about 250 kB.
inline constexpr std::size_t kTonalSegmentFrames = 16;
inline constexpr std::size_t kTonalMaxSegments = 256;
// The final chord (tonal_frontend.h). Audible frames kept at the end, 8..64:
// 32 (11.9 s) hold the last frame at the music's level and the ring-out
// after it down to kTonalEndingFloorDbfs for most instruments (a held piano
// chord falls ~6 dB/s, a pad's release is faster). 2 x 120 floats each.
inline constexpr std::size_t kTonalEndingFrames = 32;
// Frames quieter than this (dBFS of the 50-1000 Hz band) are silence, not the
// end of a ring-out; they are not kept. Range -100..-60.
inline constexpr double kTonalEndingFloorDbfs = -80.0;
// The ring-out must start within this many dB of the median frame level: a
// chord played as loud as the music, not the tail of a fade-out (whose last
// seconds sit 20-40 dB down). Range 6..20.
inline constexpr double kTonalEndingMinLevelDb = 10.0;
// ... and fall by at least this much by the end of the input, dB: an excerpt
// cut mid-music ends at the music's level (../shared/eval's GTZAN excerpts:
// the last 1.5 s within 3 dB of the median), so does a held synth chord
// that stops dead. Range 10..30.
inline constexpr double kTonalEndingDecayDb = 15.0;
// Largest rise of the level from one frame to the next inside the ring-out,
// dB: a new attack after the last loud frame (the next chord of a fade-out,
// a drum hit) means the music did not stop there.
// Range 0..3.
inline constexpr double kTonalEndingMaxRiseDb = 1.0;

}  // namespace trackscan::dsp::params

#endif  // TRACKSCAN_DSP_PARAMS_H_
