//! Scores: W/D/L, Elo difference with its 95 % error margin (as cutechess
//! computes them), and the sequential probability ratio test for stopping a
//! match early (the trinomial GSPRT with logistic Elo, as fastchess offers).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Wins, draws and losses from one side's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// Pseudo-games of each result added when all results are alike (SPRT).
const SPRT_PRIOR_GAMES: f64 = 0.5;

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

/// An Elo value for people: `+70.4 ± 70.6`, `+inf`.
pub fn format_elo(elo: Option<f64>, error: Option<f64>) -> String {
    match elo {
        None => "-".to_owned(),
        Some(elo) if elo.is_infinite() => if elo > 0.0 { "+inf" } else { "-inf" }.to_owned(),
        Some(elo) => match error {
            Some(error) if error.is_finite() => format!("{elo:+.1} ± {error:.1}"),
            // The interval reaches a perfect score: its width is unbounded.
            _ => format!("{elo:+.1} ± inf"),
        },
    }
}

/// The one-sided confidence of the bound shown for a perfect (or null) score.
const PERFECT_SCORE_CONFIDENCE: f64 = 0.95;

/// An Elo value people can read, always finite: `+70.4 ± 70.6`; for a side that won every game
/// the honest statement is a lower bound, `> +183, no losses yet` (95 %) (the exact one-sided
/// bound: all `n` wins happen with chance at most 5 % when the score rate is below
/// `0.05^(1/n)`); for one that lost every game, `< -183, no wins yet`. When the 95 %
/// interval reaches a perfect score on one side only, that side's bound is left open:
/// `+382 (95%: ≥ +125)`.
pub fn format_elo_finite(wdl: Wdl) -> String {
    let games = wdl.games();
    if games == 0 {
        return "-".to_owned();
    }
    let bound = || elo_from_score((1.0 - PERFECT_SCORE_CONFIDENCE).powf(1.0 / games as f64));
    if wdl.wins == games {
        return format!("> {:+.0}, no losses yet", bound());
    }
    if wdl.losses == games {
        return format!("< {:+.0}, no wins yet", -bound());
    }
    let Some(elo) = wdl.elo() else { return "-".to_owned() };
    match wdl.elo_error() {
        Some(error) if error.is_finite() => format!("{elo:+.1} ± {error:.1}"),
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
                format!("{elo:+.0} (95%: ≥ {low:+.0})")
            } else if high.is_finite() {
                format!("{elo:+.0} (95%: ≤ {high:+.0})")
            } else {
                format!("{elo:+.0} (95%: unbounded yet)")
            }
        }
    }
}

/// SPRT parameters: H0 "the Elo difference is `elo0`" against H1 "it is `elo1`",
/// with error rates `alpha` (accept H1 wrongly) and `beta` (accept H0 wrongly).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
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

impl Sprt {
    /// Parses `elo0=0,elo1=5,alpha=0.05,beta=0.05` (any order; all four needed).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, None, None);
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}` is not key=value"))?;
            let value: f64 = value.trim().parse().map_err(|_| format!("`{value}` is not a number in `{part}`"))?;
            let slot = match key.trim() {
                "elo0" => &mut elo0,
                "elo1" => &mut elo1,
                "alpha" => &mut alpha,
                "beta" => &mut beta,
                other => return Err(format!("unknown SPRT parameter `{other}` (expected elo0, elo1, alpha, beta)")),
            };
            *slot = Some(value);
        }
        let need = |v: Option<f64>, name: &str| v.ok_or_else(|| format!("SPRT parameter `{name}` is missing"));
        let sprt = Sprt {
            elo0: need(elo0, "elo0")?,
            elo1: need(elo1, "elo1")?,
            alpha: need(alpha, "alpha")?,
            beta: need(beta, "beta")?,
        };
        if sprt.elo1 <= sprt.elo0 {
            return Err("SPRT needs elo1 > elo0".to_owned());
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

    /// The log-likelihood ratio of H1 against H0 for the first bot's results.
    pub fn llr(&self, wdl: Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        let (mut wins, mut draws, mut losses) = (wdl.wins as f64, wdl.draws as f64, wdl.losses as f64);
        if [wins, draws, losses].iter().filter(|&&count| count > 0.0).count() == 1 {
            // All results alike: the spread would be 0. Add half a game of each
            // kind, a small prior that lets a one-sided match still decide.
            wins += SPRT_PRIOR_GAMES;
            draws += SPRT_PRIOR_GAMES;
            losses += SPRT_PRIOR_GAMES;
        }
        let n = wins + draws + losses;
        let mean = (wins + draws / 2.0) / n;
        let variance = (wins * (1.0 - mean).powi(2) + draws * (0.5 - mean).powi(2) + losses * mean.powi(2)) / n;
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    pub fn decide(&self, wdl: Wdl) -> SprtDecision {
        let llr = self.llr(wdl);
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

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "elo0={},elo1={},alpha={},beta={}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_elo_text_is_honest_for_perfect_and_null_scores() {
        let wdl = |wins, draws, losses| Wdl { wins, draws, losses };
        // 10 straight wins: the score rate is above 0.05^(1/10) = 0.741 (+183 Elo) with 95 % confidence.
        assert_eq!(format_elo_finite(wdl(10, 0, 0)), "> +183, no losses yet");
        assert_eq!(format_elo_finite(wdl(0, 0, 10)), "< -183, no wins yet");
        assert_eq!(format_elo_finite(wdl(0, 0, 0)), "-");
        assert_eq!(format_elo_finite(wdl(5, 0, 5)), format_elo(wdl(5, 0, 5).elo(), wdl(5, 0, 5).elo_error()));
        for wins in 0..12 {
            for draws in 0..4 {
                for losses in 0..12 {
                    let text = format_elo_finite(wdl(wins, draws, losses));
                    assert!(!text.contains("inf") && !text.contains("NaN"), "{wins}-{draws}-{losses}: {text}");
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
        assert!(close(Wdl { wins: 60, draws: 0, losses: 40 }.elo().unwrap(), 70.44, 0.01));
        assert!(close(Wdl { wins: 10, draws: 20, losses: 10 }.elo().unwrap(), 0.0, 1e-9));
        assert!(close(score_from_elo(190.848), 0.75, 1e-4));
        assert_eq!(Wdl { wins: 3, draws: 0, losses: 0 }.elo(), Some(f64::INFINITY));
        assert_eq!(Wdl::default().elo(), None);
    }

    #[test]
    fn elo_error_is_cutechess_95_percent_margin() {
        // 60-0-40: mu 0.6, stdev sqrt(0.24/100) = 0.04899; mu ± 1.96 stdev = 0.69602 / 0.50398,
        // half the Elo span between them is 70.57.
        let error = Wdl { wins: 60, draws: 0, losses: 40 }.elo_error().unwrap();
        assert!(close(error, 70.57, 0.01), "{error}");
        // Draws shrink the spread: 30-40-30 has stdev sqrt(0.15/100); ± 1.96 stdev = 0.4241..0.5759,
        // which is -53.16..+53.16 Elo.
        let error = Wdl { wins: 30, draws: 40, losses: 30 }.elo_error().unwrap();
        assert!(close(error, 53.16, 0.01), "{error}");
    }

    #[test]
    fn sprt_log_likelihood_ratio_and_bounds() {
        let sprt = Sprt::parse("elo0=0,elo1=5,alpha=0.05,beta=0.05").unwrap();
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944, 0.001) && close(upper, 2.944, 0.001));
        // 60-0-40: n (s1-s0)(2 mean - s0 - s1) / (2 var) = 100 * 0.0071951 * 0.1928049 / 0.48 = 0.28901.
        assert!(close(sprt.llr(Wdl { wins: 60, draws: 0, losses: 40 }), 0.28901, 1e-4));
        assert_eq!(sprt.decide(Wdl { wins: 60, draws: 0, losses: 40 }), SprtDecision::Continue);
        assert_eq!(sprt.decide(Wdl { wins: 900, draws: 0, losses: 100 }), SprtDecision::AcceptH1);
        assert_eq!(sprt.decide(Wdl { wins: 100, draws: 0, losses: 900 }), SprtDecision::AcceptH0);
        // All wins: decided through the prior, not stuck at a zero spread.
        assert_eq!(sprt.decide(Wdl { wins: 40, draws: 0, losses: 0 }), SprtDecision::AcceptH1);
        assert_eq!(sprt.decide(Wdl { wins: 1, draws: 0, losses: 0 }), SprtDecision::Continue);
        assert!(Sprt::parse("elo0=5,elo1=0,alpha=0.05,beta=0.05").is_err());
        assert!(Sprt::parse("elo0=0,elo1=5,alpha=0.05").unwrap_err().contains("beta"));
    }
}
