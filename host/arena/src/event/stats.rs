//! Scores: W/D/L, colour-swapped pair outcomes (pentanomial), Elo and normalized Elo with 95 %
//! intervals and the likelihood of superiority (as fastchess and fishtest compute them), the one
//! Elo format of every output ([`format_elo`]), and the sequential probability ratio test that
//! stops a match once it decides (the generalized SPRT with logistic Elo bounds of fishtest and
//! fastchess, on pairs by default or on single games).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Wins, draws and losses from one side's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The standard normal quantile for a two-sided 95 % interval.
const Z_95: f64 = 1.959_963_984_540_054;

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// The mean score per game (0..1), `None` without games.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// The other side's view.
    pub fn flipped(&self) -> Wdl {
        Wdl { wins: self.losses, draws: self.draws, losses: self.wins }
    }

    /// The Elo difference the score suggests (±∞ for a perfect or null score).
    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_from_score)
    }

    /// Half the width of the 95 % confidence interval of [`Wdl::elo`].
    pub fn elo_error(&self) -> Option<f64> {
        let n = self.games() as f64;
        let mu = self.score()?;
        let variance = (self.wins as f64 * (1.0 - mu).powi(2)
            + self.draws as f64 * (0.5 - mu).powi(2)
            + self.losses as f64 * mu.powi(2))
            / n;
        let stdev = (variance / n).sqrt();
        Some((elo_from_score(mu + Z_95 * stdev) - elo_from_score(mu - Z_95 * stdev)) / 2.0)
    }
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// Elo difference for a mean score (logistic model).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    // `+ 0.0` turns the -0.0 of an even score into 0.0.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// Expected score for an Elo difference (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo value with its 95 % interval, as every output of the project writes it (terminal,
/// HTML, app): the value signed, one decimal, then the interval's half-width: `+70.4 ± 70.6`,
/// `-3.0 ± 12.5`. The JSON outputs carry the same two numbers as fields.
pub fn format_elo(elo: f64, half_width: f64) -> String {
    // `+ 0.0` turns a -0.0 into 0.0, so an even score reads `+0.0`.
    if half_width.is_finite() {
        format!("{:+.1} ± {:.1}", elo + 0.0, half_width)
    } else {
        format!("{:+.1} (95 % interval unbounded yet)", elo + 0.0)
    }
}

/// A one-sided 95 % bound in words, the way it reads: `at least -216.0`, `at most +183.0`.
pub fn format_elo_bound(bound: f64, lower: bool) -> String {
    format!("{} {:+.1}", if lower { "at least" } else { "at most" }, bound + 0.0)
}

/// The one-sided confidence of the bound shown for a perfect (or null) score.
const PERFECT_SCORE_CONFIDENCE: f64 = 0.95;

/// An Elo value people can read, always finite ([`format_elo`]): `+70.4 ± 70.6`. A side that won
/// every game gets the honest statement, a lower bound: `at least +183.0 (no losses yet)` (95 %;
/// the exact one-sided bound: all `n` wins happen with chance at most 5 % when the score rate is
/// below `0.05^(1/n)`; after 2 wins it is `at least -216.0`, still a true statement); one that
/// lost every game gets `at most -183.0 (no wins yet)`. When the 95 % interval reaches a perfect
/// score on one side only, that side is left open: `+382.0 (95 %: at least +125.0)`.
pub fn format_elo_finite(wdl: Wdl) -> String {
    let games = wdl.games();
    if games == 0 {
        return "-".to_owned();
    }
    let bound = || elo_from_score((1.0 - PERFECT_SCORE_CONFIDENCE).powf(1.0 / games as f64));
    if wdl.wins == games {
        return format!("{} (no losses yet)", format_elo_bound(bound(), true));
    }
    if wdl.losses == games {
        return format!("{} (no wins yet)", format_elo_bound(-bound(), false));
    }
    let Some(elo) = wdl.elo() else { return "-".to_owned() };
    match wdl.elo_error() {
        Some(error) if error.is_finite() => format_elo(elo, error),
        _ => {
            // The interval's one end is a perfect (or null) score: give the other end only.
            let n = games as f64;
            let mu = wdl.score().unwrap_or(0.5);
            let variance = (wdl.wins as f64 * (1.0 - mu).powi(2)
                + wdl.draws as f64 * (0.5 - mu).powi(2)
                + wdl.losses as f64 * mu.powi(2))
                / n;
            let margin = Z_95 * (variance / n).sqrt();
            let (low, high) = (elo_from_score(mu - margin), elo_from_score(mu + margin));
            if low.is_finite() {
                format!("{:+.1} (95 %: {})", elo + 0.0, format_elo_bound(low, true))
            } else if high.is_finite() {
                format!("{:+.1} (95 %: {})", elo + 0.0, format_elo_bound(high, false))
            } else {
                format!("{:+.1} (95 % interval unbounded yet)", elo + 0.0)
            }
        }
    }
}

/// The outcomes of colour-swapped game pairs from the first bot's view: how many pairs scored
/// 0, ½, 1, 1½ and 2 points (`[LL, LD, DD+WL, WD, WW]`, fishtest's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Counts one pair in which the first bot scored `half_points` half points (0..=4).
    pub fn add_pair(&mut self, half_points: u8) {
        self.0[usize::from(half_points.min(4))] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
}

impl std::ops::AddAssign for Pentanomial {
    fn add_assign(&mut self, other: Pentanomial) {
        for (count, more) in self.0.iter_mut().zip(other.0) {
            *count += more;
        }
    }
}

/// What the SPRT counts as one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtModel {
    /// Colour-swapped game pairs, five outcomes (fishtest's and fastchess's default): the two
    /// games of a pair share an opening, so their results are correlated and a pair is the
    /// independent sample.
    #[default]
    Pentanomial,
    /// Single games, three outcomes (W/D/L).
    Trinomial,
}

impl SprtModel {
    pub fn as_str(self) -> &'static str {
        match self {
            SprtModel::Pentanomial => "pentanomial",
            SprtModel::Trinomial => "trinomial",
        }
    }
}

/// A zero count is replaced by this in the SPRT's likelihoods (fishtest's and fastchess's
/// regularization: an outcome not seen yet is very unlikely, not impossible).
const REGULARIZED_ZERO: f64 = 1e-3;

/// Elo per unit of normalized t-value: `800 / ln 10` (fishtest's `nelo_divided_by_nt`).
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// A sample of results as a distribution: each outcome's score per game (0..1) and its count.
#[derive(Debug, Clone)]
struct Outcomes {
    scores: Vec<f64>,
    counts: Vec<f64>,
}

impl Outcomes {
    fn trinomial(wdl: Wdl) -> Outcomes {
        Outcomes { scores: vec![0.0, 0.5, 1.0], counts: vec![wdl.losses as f64, wdl.draws as f64, wdl.wins as f64] }
    }

    fn pentanomial(pairs: Pentanomial) -> Outcomes {
        Outcomes { scores: vec![0.0, 0.25, 0.5, 0.75, 1.0], counts: pairs.0.iter().map(|&c| c as f64).collect() }
    }

    fn samples(&self) -> f64 {
        self.counts.iter().sum()
    }

    /// Mean score per game and the variance of one sample's mean score.
    fn mean_and_variance(&self) -> (f64, f64) {
        let n = self.samples();
        let mean = self.scores.iter().zip(&self.counts).map(|(a, c)| a * c).sum::<f64>() / n;
        let variance = self.scores.iter().zip(&self.counts).map(|(a, c)| c * (a - mean).powi(2)).sum::<f64>() / n;
        (mean, variance)
    }
}

/// The Elo estimate of a sample of results ([`Estimate::of_games`] or [`Estimate::of_pairs`]),
/// with fastchess's and fishtest's formulas: the mean score `μ` and its standard error
/// `σ/√n` (`σ²` the variance of one sample: a game, or a pair's mean score), Elo from `μ` by the
/// logistic model, the 95 % interval from `μ ± 1.96·σ/√n`, normalized Elo
/// `(μ − ½)/σ_game · 800/ln 10` (`σ_game = σ` for games, `√2·σ` for pairs), and the
/// likelihood of superiority `Φ((μ − ½)/(σ/√n))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Mean score per game, 0..1.
    pub score: f64,
    /// Elo (`±inf` for a perfect or null score).
    pub elo: f64,
    /// Ends of the 95 % interval (an end at a perfect or null score is infinite).
    pub elo_low: f64,
    pub elo_high: f64,
    /// Normalized Elo and the half-width of its 95 % interval (`NaN` when every sample is alike).
    pub nelo: f64,
    pub nelo_error: f64,
    /// Likelihood of superiority, 0..1: the chance that the first bot is the stronger.
    pub los: f64,
}

impl Estimate {
    /// From single games.
    pub fn of_games(wdl: Wdl) -> Option<Estimate> {
        Estimate::of(&Outcomes::trinomial(wdl), 1.0)
    }

    /// From colour-swapped pairs.
    pub fn of_pairs(pairs: Pentanomial) -> Option<Estimate> {
        Estimate::of(&Outcomes::pentanomial(pairs), std::f64::consts::SQRT_2)
    }

    fn of(outcomes: &Outcomes, game_spread_per_sample_spread: f64) -> Option<Estimate> {
        let n = outcomes.samples();
        if n <= 0.0 {
            return None;
        }
        let (score, variance) = outcomes.mean_and_variance();
        let standard_error = (variance / n).sqrt();
        let (low, high) = (score - Z_95 * standard_error, score + Z_95 * standard_error);
        let game_spread = game_spread_per_sample_spread * variance.sqrt();
        let nelo = |s: f64| (s - 0.5) / game_spread * NELO_PER_T;
        let los = if standard_error > 0.0 {
            0.5 * libm::erfc(-(score - 0.5) / standard_error / std::f64::consts::SQRT_2)
        } else if score > 0.5 {
            1.0
        } else if score < 0.5 {
            0.0
        } else {
            0.5
        };
        Some(Estimate {
            score,
            elo: elo_from_score(score),
            elo_low: elo_from_score(low),
            elo_high: elo_from_score(high),
            nelo: nelo(score),
            nelo_error: (nelo(high) - nelo(low)) / 2.0,
            los,
        })
    }

    /// Half the width of the 95 % interval (infinite when an end is).
    pub fn elo_error(&self) -> f64 {
        (self.elo_high - self.elo_low) / 2.0
    }
}

/// SPRT parameters: H0 "the Elo difference is `elo0`" against H1 "it is `elo1`" (logistic Elo),
/// with error rates `alpha` (accept H1 wrongly) and `beta` (accept H0 wrongly), on the samples of
/// `model`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Absent in events saved before the pentanomial model: they read as pentanomial.
    #[serde(default)]
    pub model: SprtModel,
}

/// Where the test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtDecision {
    Continue,
    /// The first bot is not `elo1` stronger (H0 accepted).
    AcceptH0,
    /// The first bot is at least `elo1` stronger (H1 accepted).
    AcceptH1,
}

/// The default error rates, as fishtest's and fastchess's.
pub const DEFAULT_SPRT_ALPHA: f64 = 0.05;
pub const DEFAULT_SPRT_BETA: f64 = 0.05;

impl Sprt {
    /// Parses `elo0=0,elo1=5[,alpha=0.05][,beta=0.05][,model=pentanomial|trinomial]` (any order).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, None, None);
        let mut model = SprtModel::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}` is not key=value"))?;
            let (key, value) = (key.trim(), value.trim());
            if key == "model" {
                model = match value {
                    "pentanomial" => SprtModel::Pentanomial,
                    "trinomial" => SprtModel::Trinomial,
                    other => {
                        return Err(format!("unknown SPRT model `{other}` (expected pentanomial or trinomial)"));
                    }
                };
                continue;
            }
            let number: f64 = value.parse().map_err(|_| format!("`{value}` is not a number in `{part}`"))?;
            let slot = match key {
                "elo0" => &mut elo0,
                "elo1" => &mut elo1,
                "alpha" => &mut alpha,
                "beta" => &mut beta,
                other => {
                    return Err(format!("unknown SPRT parameter `{other}` (expected elo0, elo1, alpha, beta, model)"));
                }
            };
            *slot = Some(number);
        }
        let need = |v: Option<f64>, name: &str| v.ok_or_else(|| format!("SPRT parameter `{name}` is missing"));
        let sprt = Sprt {
            elo0: need(elo0, "elo0")?,
            elo1: need(elo1, "elo1")?,
            alpha: alpha.unwrap_or(DEFAULT_SPRT_ALPHA),
            beta: beta.unwrap_or(DEFAULT_SPRT_BETA),
            model,
        };
        if !(sprt.elo0.is_finite() && sprt.elo1.is_finite() && sprt.elo1 > sprt.elo0) {
            return Err("SPRT needs finite elo0 < elo1".to_owned());
        }
        if !(0.0 < sprt.alpha && sprt.alpha < 0.5 && 0.0 < sprt.beta && sprt.beta < 0.5) {
            return Err("SPRT needs 0 < alpha, beta < 0.5".to_owned());
        }
        Ok(sprt)
    }

    /// The log-likelihood ratio bounds: (accept H0 at or below, accept H1 at or above).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalized log-likelihood ratio of H1 against H0 for the first bot's games `wdl` and
    /// pairs `pairs`, on the samples of the model: fishtest's `LLR_logistic` (M. Van den Bergh's
    /// maximum-likelihood distributions with the expected score of each hypothesis), which
    /// fastchess computes too. Zero counts are regularized to 0.001 as both do.
    pub fn llr(&self, wdl: Wdl, pairs: Pentanomial) -> f64 {
        let outcomes = match self.model {
            SprtModel::Pentanomial => Outcomes::pentanomial(pairs),
            SprtModel::Trinomial => Outcomes::trinomial(wdl),
        };
        if outcomes.samples() == 0.0 {
            return 0.0;
        }
        let counts: Vec<f64> = outcomes.counts.iter().map(|&c| if c == 0.0 { REGULARIZED_ZERO } else { c }).collect();
        let n: f64 = counts.iter().sum();
        let observed: Vec<f64> = counts.iter().map(|c| c / n).collect();
        let p0 = most_likely_with_mean(&outcomes.scores, &observed, score_from_elo(self.elo0));
        let p1 = most_likely_with_mean(&outcomes.scores, &observed, score_from_elo(self.elo1));
        n * observed.iter().zip(p0.iter().zip(&p1)).map(|(q, (a, b))| q * (b.ln() - a.ln())).sum::<f64>()
    }

    pub fn decide(&self, wdl: Wdl, pairs: Pentanomial) -> SprtDecision {
        self.decision(self.llr(wdl, pairs))
    }

    /// The decision an LLR reaches.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The distribution over outcomes with `scores` that has mean `mean` and is most likely to have
/// produced the observed frequencies `observed` (all positive): `p_i = q_i / (1 + θ (a_i − s))`
/// with `θ` the root of `Σ q_i (a_i − s) / (1 + θ (a_i − s)) = 0` (M. Van den Bergh, "Comments on
/// normalized Elo", proposition 1.1; fishtest's `MLE_expected`). The left side falls as `θ`
/// grows on the interval where every `p_i` is positive, so bisection finds the root.
fn most_likely_with_mean(scores: &[f64], observed: &[f64], mean: f64) -> Vec<f64> {
    let shifted: Vec<f64> = scores.iter().map(|a| a - mean).collect();
    let highest = shifted.iter().copied().fold(f64::MIN, f64::max);
    let lowest = shifted.iter().copied().fold(f64::MAX, f64::min);
    let sum = |theta: f64| -> f64 { observed.iter().zip(&shifted).map(|(q, x)| q * x / (1.0 + theta * x)).sum() };
    let (mut low, mut high) = (-1.0 / highest, -1.0 / lowest);
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            break;
        }
        if sum(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    let theta = 0.5 * (low + high);
    observed.iter().zip(&shifted).map(|(q, x)| q / (1.0 + theta * x)).collect()
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={},model={}",
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.model.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl { wins, draws, losses }
    }

    #[test]
    fn finite_elo_text_is_honest_for_perfect_and_null_scores() {
        // 10 straight wins: the score rate is above 0.05^(1/10) = 0.741 (+182.7 Elo) with 95 % confidence.
        assert_eq!(format_elo_finite(wdl(10, 0, 0)), "at least +182.7 (no losses yet)");
        assert_eq!(format_elo_finite(wdl(0, 0, 10)), "at most -182.7 (no wins yet)");
        // 2-0: 0.05^(1/2) = 0.2236 is -216.2 Elo; the bound reads as the lower bound it is.
        assert_eq!(format_elo_finite(wdl(2, 0, 0)), "at least -216.2 (no losses yet)");
        assert_eq!(format_elo_finite(wdl(0, 0, 0)), "-");
        assert_eq!(format_elo_finite(wdl(60, 0, 40)), "+70.4 ± 70.6");
        assert_eq!(format_elo_finite(wdl(5, 0, 5)), "+0.0 ± 251.8");
        assert_eq!(format_elo(-3.04, 12.46), "-3.0 ± 12.5");
        for wins in 0..12 {
            for draws in 0..4 {
                for losses in 0..12 {
                    let text = format_elo_finite(wdl(wins, draws, losses));
                    assert!(!text.contains("inf") && !text.contains("NaN"), "{wins}-{draws}-{losses}: {text}");
                    assert!(!text.contains('>') && !text.contains('<'), "{wins}-{draws}-{losses}: {text}");
                }
            }
        }
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_matches_the_logistic_model() {
        // 75 % is 190.85 Elo, 60 % is 70.44, 50 % is 0 (textbook values).
        assert!(close(elo_from_score(0.75), 190.85, 0.01));
        assert!(close(wdl(60, 0, 40).elo().unwrap(), 70.44, 0.01));
        assert!(close(wdl(10, 20, 10).elo().unwrap(), 0.0, 1e-9));
        assert!(close(score_from_elo(190.848), 0.75, 1e-4));
        assert_eq!(wdl(3, 0, 0).elo(), Some(f64::INFINITY));
        assert_eq!(Wdl::default().elo(), None);
    }

    #[test]
    fn elo_error_is_cutechess_95_percent_margin() {
        // 60-0-40: mu 0.6, stdev sqrt(0.24/100) = 0.04899; mu ± 1.96 stdev = 0.69602 / 0.50398,
        // half the Elo span between them is 70.57.
        let error = wdl(60, 0, 40).elo_error().unwrap();
        assert!(close(error, 70.57, 0.01), "{error}");
        // Draws shrink the spread: 30-40-30 has stdev sqrt(0.15/100); ± 1.96 stdev = 0.4241..0.5759,
        // which is -53.16..+53.16 Elo.
        let error = wdl(30, 40, 30).elo_error().unwrap();
        assert!(close(error, 53.16, 0.01), "{error}");
    }

    /// A sample with fishtest's figures for it: the counts in fishtest's order, the SPRT's
    /// bounds in logistic Elo, the LLR, Elo with its 95 % half-width, and the LOS.
    struct Reference<const N: usize> {
        counts: [u32; N],
        elo0: f64,
        elo1: f64,
        llr: f64,
        elo: f64,
        error: f64,
        los: f64,
    }

    /// Reference figures computed with fishtest's own statistics code
    /// (official-stockfish/fishtest, server/fishtest/stats at commit b8eecff2, 2026-08-22):
    /// `LLRcalc.LLR_logistic(elo0, elo1, results)` for the LLR and `stat_util.get_elo(results)`
    /// for Elo, its 95 % half-width and the LOS, with `results` in fishtest's order
    /// (`[L, D, W]` or `[LL, LD, DD+WL, WD, WW]`). The first three pentanomial samples are the
    /// ones of fishtest's own `stat_util.py` self-test (real fishtest runs). fishtest's `get_elo`
    /// regularizes a zero count to 0.001 games: where a count is zero its Elo and LOS are
    /// compared more loosely (ours count the games as played).
    const FISHTEST_PENTANOMIAL: [Reference<5>; 5] = [
        Reference {
            counts: [10789, 19328, 33806, 19402, 10543],
            elo0: -3.0,
            elo1: 1.0,
            llr: 2.1310678118,
            elo: -0.7735773359,
            error: 1.2775798957,
            los: 0.1176588580,
        },
        Reference {
            counts: [1187, 7410, 13475, 7378, 1164],
            elo0: -3.0,
            elo1: 1.0,
            llr: 2.8615271806,
            elo: -0.4426077992,
            error: 1.7298590276,
            los: 0.3080138791,
        },
        Reference {
            counts: [39, 2226, 31451, 2412, 40],
            elo0: 0.2,
            elo1: 0.9,
            llr: 2.1625425800,
            elo: 0.9029810488,
            error: 0.6625314860,
            los: 0.9962220973,
        },
        Reference {
            counts: [12, 30, 45, 38, 20],
            elo0: 0.0,
            elo1: 5.0,
            llr: 0.4677920251,
            elo: 28.8192045769,
            error: 32.8632189017,
            los: 0.9583566655,
        },
        // A zero count: the LLR regularizes it to 0.001 as fishtest does.
        Reference {
            counts: [0, 3, 10, 7, 5],
            elo0: 0.0,
            elo1: 5.0,
            llr: 0.3569898856,
            elo: 99.9316883819,
            error: 70.7619776685,
            los: 0.9985262009,
        },
    ];
    /// The same for single games, `[L, D, W]`; the last is fishtest's BayesElo test sample.
    const FISHTEST_TRINOMIAL: [Reference<3>; 3] = [
        Reference {
            counts: [40, 0, 60],
            elo0: 0.0,
            elo1: 5.0,
            llr: 0.2774708994,
            elo: 70.4357798057,
            error: 70.5704041848,
            los: 0.9793865622,
        },
        Reference {
            counts: [591, 2163, 716],
            elo0: 0.0,
            elo1: 6.0,
            llr: 4.3618012493,
            elo: 12.5211090460,
            error: 7.0926052769,
            los: 0.9997334526,
        },
        // All wins: only the LLR is compared (fishtest clamps the score to 0.999 for its Elo).
        Reference {
            counts: [0, 0, 10],
            elo0: 0.0,
            elo1: 5.0,
            llr: 0.1428758671,
            elo: f64::NAN,
            error: f64::NAN,
            los: f64::NAN,
        },
    ];

    fn pentanomial_sprt(elo0: f64, elo1: f64) -> Sprt {
        Sprt::parse(&format!("elo0={elo0},elo1={elo1}")).unwrap()
    }

    #[test]
    fn pentanomial_llr_elo_and_los_match_fishtest() {
        for Reference { counts, elo0, elo1, llr, elo, error, los } in FISHTEST_PENTANOMIAL {
            let pairs = Pentanomial(counts);
            let ours = pentanomial_sprt(elo0, elo1).llr(Wdl::default(), pairs);
            assert!(close(ours, llr, 1e-6), "{counts:?}: LLR {ours} vs fishtest {llr}");
            let estimate = Estimate::of_pairs(pairs).unwrap();
            let tolerance = if counts.contains(&0) { 0.05 } else { 1e-6 };
            assert!(close(estimate.elo, elo, tolerance), "{counts:?}: Elo {} vs {elo}", estimate.elo);
            let half_width = estimate.elo_error();
            assert!(close(half_width, error, tolerance), "{counts:?}: ± {half_width} vs {error}");
            assert!(close(estimate.los, los, tolerance / 10.0), "{counts:?}: LOS {} vs {los}", estimate.los);
        }
    }

    #[test]
    fn trinomial_llr_elo_and_los_match_fishtest() {
        for Reference { counts: [losses, draws, wins], elo0, elo1, llr, elo, error, los } in FISHTEST_TRINOMIAL {
            let sprt = Sprt::parse(&format!("elo0={elo0},elo1={elo1},model=trinomial")).unwrap();
            let games = wdl(wins, draws, losses);
            let ours = sprt.llr(games, Pentanomial::default());
            assert!(close(ours, llr, 1e-6), "{games:?}: LLR {ours} vs fishtest {llr}");
            if elo.is_nan() {
                continue;
            }
            let estimate = Estimate::of_games(games).unwrap();
            let tolerance = if [wins, draws, losses].contains(&0) { 0.05 } else { 1e-6 };
            assert!(close(estimate.elo, elo, tolerance), "{games:?}: Elo {} vs {elo}", estimate.elo);
            let half_width = estimate.elo_error();
            assert!(close(half_width, error, tolerance), "{games:?}: ± {half_width} vs {error}");
            assert!(close(estimate.los, los, tolerance / 10.0), "{games:?}: LOS {} vs {los}", estimate.los);
        }
    }

    #[test]
    fn normalized_elo_follows_fastchess() {
        // fastchess (app/src/matchmaking/elo/elo_pentanomial.cpp): nElo = (μ − ½) / √(2·var) · 800/ln 10
        // with var the per-pair variance; for [12, 30, 45, 38, 20] (145 pairs) μ = 0.541379,
        // var = 0.0827705, nElo = 35.3350 ± 39.9874 (the half-width is 1.96 / √(2·145) · 800/ln 10);
        // figures from fastchess's formulas evaluated in Python.
        let estimate = Estimate::of_pairs(Pentanomial([12, 30, 45, 38, 20])).unwrap();
        assert!(close(estimate.score, 0.541379, 1e-6), "{}", estimate.score);
        assert!(close(estimate.nelo, 35.3350, 1e-3), "{}", estimate.nelo);
        assert!(close(estimate.nelo_error, Z_95 / (2.0f64 * 145.0).sqrt() * NELO_PER_T, 1e-9));
        assert!(close(estimate.nelo_error, 39.9874, 1e-3), "{}", estimate.nelo_error);
        // Single games (elo_wdl.cpp): nElo = (μ − ½) / σ · 800/ln 10; 60-0-40: 0.1 / 0.4899 · 347.436.
        let games = Estimate::of_games(wdl(60, 0, 40)).unwrap();
        assert!(close(games.nelo, 70.9200, 1e-3), "{}", games.nelo);
    }

    #[test]
    fn sprt_parameters_default_alpha_beta_and_model() {
        let sprt = Sprt::parse("elo0=0,elo1=5").unwrap();
        assert_eq!((sprt.alpha, sprt.beta, sprt.model), (0.05, 0.05, SprtModel::Pentanomial));
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944439, 1e-6) && close(upper, 2.944439, 1e-6));
        let sprt = Sprt::parse("model=trinomial, elo1=2, elo0=-1, alpha=0.1").unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta), (-1.0, 2.0, 0.1, 0.05));
        assert_eq!(sprt.model, SprtModel::Trinomial);
        assert_eq!(Sprt::parse(&sprt.to_string()).unwrap(), sprt);
        assert!(Sprt::parse("elo0=5,elo1=0").is_err());
        assert!(Sprt::parse("elo1=5").unwrap_err().contains("elo0"));
        assert!(Sprt::parse("elo0=0,elo1=5,model=binomial").unwrap_err().contains("binomial"));
    }

    #[test]
    fn sprt_decides_on_pairs() {
        let sprt = Sprt::parse("elo0=0,elo1=5").unwrap();
        assert_eq!(sprt.decide(Wdl::default(), Pentanomial::default()), SprtDecision::Continue);
        assert_eq!(sprt.llr(Wdl::default(), Pentanomial::default()), 0.0);
        // Every pair won 2-0: with the regularized zero counts each pair adds about 0.0143 to the
        // LLR (fishtest: LLR_logistic(0, 5, [0, 0, 0, 0, 40]) = 0.5715, [..., 210] = 3.0004).
        let all_won = |pairs| Pentanomial([0, 0, 0, 0, pairs]);
        assert!(close(sprt.llr(Wdl::default(), all_won(40)), 0.5715326733, 1e-6));
        assert_eq!(sprt.decide(Wdl::default(), all_won(40)), SprtDecision::Continue);
        assert_eq!(sprt.decide(Wdl::default(), all_won(210)), SprtDecision::AcceptH1);
        // fishtest: [210, 0, 0, 0, 0] gives -3.0439.
        assert_eq!(sprt.decide(Wdl::default(), Pentanomial([210, 0, 0, 0, 0])), SprtDecision::AcceptH0);
        // Even, many pairs (fishtest: -5.1760): H0.
        let even = Pentanomial([1500, 3000, 6000, 3000, 1500]);
        assert!(close(sprt.llr(Wdl::default(), even), -5.176027643, 1e-6));
        assert_eq!(sprt.decide(Wdl::default(), even), SprtDecision::AcceptH0);
    }
}
