//! The rating fit: maximum-likelihood Bradley–Terry (the Elo model) over every game of the ladder,
//! as BayesElo and Ordo fit the chess rating lists.
//!
//! - Games are first aggregated into one tally per pair of entries ([`Results`]), so a refit costs
//!   the number of pairs, not of games.
//! - A draw counts as half a win for each side (the binomial Bradley–Terry likelihood with
//!   fractional scores; Ordo's default).
//! - One entry, the anchor, is held at a fixed rating; every other rating is relative to it.
//! - Every pair of entries that met gets [`VIRTUAL_DRAWS_PER_PAIR`] virtual draws (a weak prior, as
//!   BayesElo's): an entry that won or lost every game still gets a finite rating, as far above or
//!   below its opponents as its record supports, instead of an infinite one.
//! - The maximum is found by Newton's method with backtracking (the log-likelihood is concave).
//! - 95 % intervals come from the observed Fisher information (the negated Hessian of the
//!   log-likelihood at the maximum, with the anchor's row and column removed): each entry's error
//!   is its uncertainty relative to the anchor.
//! - Entries with no chain of games to the anchor cannot be placed on its scale: they stay unrated.

use std::collections::BTreeMap;

/// Elo points per natural-log unit of the odds: a difference of 400 Elo means 10:1 odds.
pub const ELO_PER_NATURAL_UNIT: f64 = 400.0 / std::f64::consts::LN_10;
/// The normal quantile of a two-sided 95 % interval.
pub const Z_95: f64 = 1.959_963_984_540_054;
/// Virtual draws added to every pair of entries that played each other (see the module docs).
pub const VIRTUAL_DRAWS_PER_PAIR: f64 = 1.0;
/// Newton steps at most (a fit converges in well under 20).
const MAX_NEWTON_STEPS: usize = 200;
/// Largest rating change (natural units) that still counts as converged.
const CONVERGED_STEP: f64 = 1e-10;
/// Halvings of a Newton step at most while it does not improve the likelihood.
const MAX_BACKTRACKS: usize = 60;

/// Expected score of a player `difference` Elo above its opponent.
pub fn expected_score(difference: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-difference / 400.0))
}

/// Wins, draws and losses of one pair, from the first entry's side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairTally {
    pub wins: f64,
    pub draws: f64,
    pub losses: f64,
}

impl PairTally {
    pub fn games(&self) -> f64 {
        self.wins + self.draws + self.losses
    }

    /// Points of the first entry (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins + 0.5 * self.draws
    }
}

/// Every game of a ladder as one tally per pair of entries (entries are numbered `0..entries`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    entries: usize,
    /// Keyed by `(low, high)` entry numbers; the tally is from `low`'s side.
    pairs: BTreeMap<(usize, usize), PairTally>,
}

impl Results {
    pub fn new(entries: usize) -> Results {
        Results { entries, pairs: BTreeMap::new() }
    }

    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Adds `count` games between `a` and `b` in which `a` scored `score` each (1, ½ or 0).
    pub fn add_games(&mut self, a: usize, b: usize, score: f64, count: f64) {
        assert!(a < self.entries && b < self.entries, "entry numbers are below the entry count");
        if a == b || count <= 0.0 {
            return; // a game against oneself tells nothing about strength
        }
        let (low, high, low_score) = if a < b { (a, b, score) } else { (b, a, 1.0 - score) };
        let tally = self.pairs.entry((low, high)).or_default();
        if low_score >= 1.0 {
            tally.wins += count;
        } else if low_score <= 0.0 {
            tally.losses += count;
        } else {
            tally.draws += count;
        }
    }

    /// Adds one game in which `a` scored `score` against `b`.
    pub fn add_game(&mut self, a: usize, b: usize, score: f64) {
        self.add_games(a, b, score, 1.0);
    }

    /// Each pair that played, with its tally from the lower-numbered entry's side.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize, &PairTally)> {
        self.pairs.iter().map(|(&(a, b), tally)| (a, b, tally))
    }

    /// Games in all.
    pub fn games(&self) -> f64 {
        self.pairs.values().map(PairTally::games).sum()
    }
}

/// How to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitOptions {
    /// The entry held at `anchor_rating`.
    pub anchor: usize,
    pub anchor_rating: f64,
    /// Virtual draws added to each pair that played (0 = the plain maximum likelihood, which is
    /// infinite for an entry that won or lost every game).
    pub virtual_draws_per_pair: f64,
}

impl FitOptions {
    /// The ladder's fit: `anchor` at 0 with [`VIRTUAL_DRAWS_PER_PAIR`].
    pub fn anchored_at(anchor: usize) -> FitOptions {
        FitOptions { anchor, anchor_rating: 0.0, virtual_draws_per_pair: VIRTUAL_DRAWS_PER_PAIR }
    }
}

/// A fitted rating: Elo relative to the anchor, and the half-width of its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub elo: f64,
    /// `elo ± error` is the 95 % interval (0 for the anchor, which is fixed).
    pub error: f64,
}

/// The fitted ratings, one per entry (`None`: not connected to the anchor by games).
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub ratings: Vec<Option<Rating>>,
    /// Each entry's 95 % half-width with every other rating held where it is: how precisely its
    /// own games place it among its opponents (what a rating session waits for), as opposed to
    /// [`Rating::error`], which also carries its opponents' uncertainty back to the anchor.
    pub placement_errors: Vec<Option<f64>>,
    /// Newton steps taken.
    pub steps: usize,
}

/// Fits the ratings of every entry connected to the anchor (see the module docs).
pub fn fit(results: &Results, options: &FitOptions) -> Fit {
    let n = results.entries;
    let mut ratings = vec![None; n];
    if options.anchor >= n {
        return Fit { placement_errors: vec![None; n], ratings, steps: 0 };
    }
    ratings[options.anchor] = Some(Rating { elo: options.anchor_rating, error: 0.0 });
    // Number the entries connected to the anchor, the anchor left out (it is fixed).
    let connected = connected_to(results, options.anchor);
    let mut free_index = vec![usize::MAX; n];
    let mut free = Vec::new();
    for entry in 0..n {
        if connected[entry] && entry != options.anchor {
            free_index[entry] = free.len();
            free.push(entry);
        }
    }
    if free.is_empty() {
        return Fit { placement_errors: vec![None; n], ratings, steps: 0 };
    }
    // Pairs with their games and the first entry's points, prior included.
    let pairs: Vec<(usize, usize, f64, f64)> = results
        .pairs()
        .filter(|(a, _, _)| connected[*a])
        .map(|(a, b, tally)| {
            let prior = options.virtual_draws_per_pair;
            (a, b, tally.games() + prior, tally.points() + prior / 2.0)
        })
        .collect();
    let m = free.len();
    let mut r = vec![0.0; n]; // natural units; the anchor stays at 0 and is shifted at the end
    let mut steps = 0;
    let mut information = vec![0.0; m * m];
    for _ in 0..MAX_NEWTON_STEPS {
        steps += 1;
        let gradient = gradient_and_information(&pairs, &r, &free_index, &mut information, m);
        let Some(factor) = cholesky(&information, m) else { break };
        let step = cholesky_solve(&factor, m, &gradient);
        let before = log_likelihood(&pairs, &r);
        let mut scale = 1.0;
        let mut next = r.clone();
        for _ in 0..MAX_BACKTRACKS {
            for (k, &entry) in free.iter().enumerate() {
                next[entry] = r[entry] + scale * step[k];
            }
            if log_likelihood(&pairs, &next) >= before - 1e-12 * before.abs() {
                break;
            }
            scale /= 2.0;
        }
        let largest = step.iter().fold(0.0f64, |acc, s| acc.max((s * scale).abs()));
        r = next;
        if largest < CONVERGED_STEP {
            break;
        }
    }
    // The covariance is the inverse of the information at the maximum.
    gradient_and_information(&pairs, &r, &free_index, &mut information, m);
    let covariance_diagonal = match cholesky(&information, m) {
        Some(factor) => (0..m)
            .map(|k| {
                let mut unit = vec![0.0; m];
                unit[k] = 1.0;
                cholesky_solve(&factor, m, &unit)[k]
            })
            .collect(),
        None => vec![f64::INFINITY; m],
    };
    // An entry's own information, every other rating held fixed (the anchor's too).
    let mut own_information = vec![0.0; n];
    for &(a, b, games, _) in &pairs {
        let p = logistic(r[a] - r[b]);
        own_information[a] += games * p * (1.0 - p);
        own_information[b] += games * p * (1.0 - p);
    }
    let placement_errors =
        (0..n).map(|e| connected[e].then(|| Z_95 * own_information[e].recip().sqrt() * ELO_PER_NATURAL_UNIT)).collect();
    for (k, &entry) in free.iter().enumerate() {
        ratings[entry] = Some(Rating {
            elo: options.anchor_rating + r[entry] * ELO_PER_NATURAL_UNIT,
            error: Z_95 * covariance_diagonal[k].sqrt() * ELO_PER_NATURAL_UNIT,
        });
    }
    Fit { ratings, placement_errors, steps }
}

/// Which entries have a chain of games to `anchor`.
fn connected_to(results: &Results, anchor: usize) -> Vec<bool> {
    let mut neighbours = vec![Vec::new(); results.entries];
    for (a, b, tally) in results.pairs() {
        if tally.games() > 0.0 {
            neighbours[a].push(b);
            neighbours[b].push(a);
        }
    }
    let mut seen = vec![false; results.entries];
    let mut stack = vec![anchor];
    seen[anchor] = true;
    while let Some(entry) = stack.pop() {
        for &next in &neighbours[entry] {
            if !seen[next] {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    seen
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln(logistic(x))`, accurate for large |x|.
fn ln_logistic(x: f64) -> f64 {
    if x > 0.0 { -(-x).exp().ln_1p() } else { x - x.exp().ln_1p() }
}

fn log_likelihood(pairs: &[(usize, usize, f64, f64)], r: &[f64]) -> f64 {
    pairs
        .iter()
        .map(|&(a, b, games, points)| {
            let d = r[a] - r[b];
            points * ln_logistic(d) + (games - points) * ln_logistic(-d)
        })
        .sum()
}

/// The gradient of the log-likelihood over the free entries; fills `information` (m × m, row
/// major) with the negated Hessian.
fn gradient_and_information(
    pairs: &[(usize, usize, f64, f64)],
    r: &[f64],
    free_index: &[usize],
    information: &mut [f64],
    m: usize,
) -> Vec<f64> {
    let mut gradient = vec![0.0; m];
    information.iter_mut().for_each(|x| *x = 0.0);
    for &(a, b, games, points) in pairs {
        let p = logistic(r[a] - r[b]);
        let residual = points - games * p;
        let weight = games * p * (1.0 - p);
        let (ia, ib) = (free_index[a], free_index[b]);
        if ia != usize::MAX {
            gradient[ia] += residual;
            information[ia * m + ia] += weight;
        }
        if ib != usize::MAX {
            gradient[ib] -= residual;
            information[ib * m + ib] += weight;
        }
        if ia != usize::MAX && ib != usize::MAX {
            information[ia * m + ib] -= weight;
            information[ib * m + ia] -= weight;
        }
    }
    gradient
}

/// The lower Cholesky factor of a symmetric positive definite `m × m` matrix; `None` if it is not.
fn cholesky(matrix: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i * m + k] * l[j * m + k]).sum();
            if i == j {
                let d = matrix[i * m + i] - sum;
                if d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i * m + i] = d.sqrt();
            } else {
                l[i * m + j] = (matrix[i * m + j] - sum) / l[j * m + j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b` for a Cholesky factor `L`.
fn cholesky_solve(l: &[f64], m: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; m];
    for i in 0..m {
        let sum: f64 = (0..i).map(|k| l[i * m + k] * y[k]).sum();
        y[i] = (b[i] - sum) / l[i * m + i];
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let sum: f64 = (i + 1..m).map(|k| l[k * m + i] * x[k]).sum();
        x[i] = (y[i] - sum) / l[i * m + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_record_is_level_with_the_anchor() {
        let mut results = Results::new(2);
        results.add_games(0, 1, 1.0, 5.0);
        results.add_games(0, 1, 0.0, 5.0);
        let fit = fit(&results, &FitOptions::anchored_at(0));
        assert!(fit.ratings[1].unwrap().elo.abs() < 1e-9);
    }

    #[test]
    fn entries_without_games_to_the_anchor_stay_unrated() {
        let mut results = Results::new(4);
        results.add_game(0, 1, 1.0);
        results.add_game(2, 3, 0.5);
        let fit = fit(&results, &FitOptions::anchored_at(0));
        assert!(fit.ratings[0].is_some() && fit.ratings[1].is_some());
        assert!(fit.ratings[2].is_none() && fit.ratings[3].is_none());
    }

    #[test]
    fn a_clean_sweep_gets_a_finite_rating_from_the_prior() {
        let mut results = Results::new(2);
        results.add_games(1, 0, 1.0, 20.0);
        let rating = fit(&results, &FitOptions::anchored_at(0)).ratings[1].unwrap();
        // 20.5 of 21 points with the virtual draw: 400·log10(20.5/0.5).
        let expected = 400.0 * (20.5f64 / 0.5).log10();
        assert!((rating.elo - expected).abs() < 1e-6, "{rating:?} vs {expected}");
        assert!(rating.error.is_finite() && rating.error > 0.0);
    }
}
