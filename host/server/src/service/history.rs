//! The rating-history plot: each bot's rating as the ladder's games accumulated, refitted from the
//! games themselves at a few dozen points (so the refresh games show, not only the placements'
//! snapshots), drawn as server-side SVG by the ladder's own plot.

use std::collections::HashMap;
use std::sync::Arc;

use othello_ladder::session::MIN_GAMES;
use othello_ladder::store::Snapshot;
use othello_ladder::{FitOptions, Ladder, Results, Row, fit, leaderboard};

use super::{Refusal, Service, lock};

/// Points of the history at most (each one a refit of the games up to there).
pub const HISTORY_POINTS: u64 = 40;

/// The history and the leaderboard rows it is drawn for, as of one change count.
pub struct History {
    /// The ladder's leaderboard rows (the plot's names and versions).
    pub rows: Vec<Row>,
    pub snapshots: Vec<Snapshot>,
}

impl History {
    /// The plot of `entries` (in the leaderboard's order), as an SVG element (names escaped),
    /// each bot named with its entrant (`entrants`, by entry) in the legend.
    pub fn plot(&self, entries: &[i64], entrants: &HashMap<i64, String>) -> String {
        let rows: Vec<Row> = self
            .rows
            .iter()
            .filter(|r| entries.contains(&r.entry))
            .map(|r| {
                let mut row = r.clone();
                if let Some(entrant) = entrants.get(&r.entry) {
                    row.name = format!("{} ({entrant})", row.name);
                }
                row
            })
            .collect();
        othello_ladder::html::history_plot(&rows, &self.snapshots)
    }
}

impl Service {
    /// The rating history (computed once per change).
    pub fn history(&self) -> Result<Arc<History>, Refusal> {
        let version = *self.shared.changes.borrow();
        let mut cache = lock(&self.history_cache);
        if let Some((cached, history)) = cache.as_ref()
            && *cached == version
        {
            return Ok(history.clone());
        }
        let games = crate::store::game_results(&lock(&self.db))?;
        let history = Arc::new(compute(&lock(&self.ladder), &games).map_err(Refusal::internal)?);
        *cache = Some((version, history.clone()));
        Ok(history)
    }
}

/// Refits the ladder on its first `g` games for [`HISTORY_POINTS`] values of `g`, as
/// [`Ladder::fit`] does (the anchor at 0; an entry that lost every game so far by a failure left
/// out).
fn compute(ladder: &Ladder, games: &[crate::store::GameResult]) -> Result<History, String> {
    let entries = ladder.entries()?;
    let rows = leaderboard(ladder)?.rows;
    let index: HashMap<i64, usize> = entries.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
    let anchor = ladder.anchor()?.and_then(|id| index.get(&id).copied());
    let mut snapshots = Vec::new();
    let Some(anchor) = anchor else { return Ok(History { rows, snapshots }) };
    let total = games.len() as u64;
    let points = total.min(HISTORY_POINTS);
    let checkpoints: Vec<u64> = (1..=points).map(|k| (total * k).div_ceil(points)).collect();
    // (black, white, black score) → games, and each entry's games and failures so far.
    let mut tallies: HashMap<(usize, usize, u8), f64> = HashMap::new();
    let mut played = vec![(0u64, 0u64); entries.len()];
    let mut next = checkpoints.iter().peekable();
    for (n, game) in games.iter().enumerate() {
        let (Some(&black), Some(&white)) = (index.get(&game.black), index.get(&game.white)) else { continue };
        *tallies.entry((black, white, (game.black_score * 2.0) as u8)).or_default() += 1.0;
        for (side, id) in [(black, game.black), (white, game.white)] {
            played[side].0 += 1;
            played[side].1 += u64::from(game.failed == Some(id));
        }
        if next.peek().is_some_and(|&&c| c == n as u64 + 1) {
            next.next();
            let failing = |i: usize| played[i].0 > 0 && played[i].0 == played[i].1;
            let mut results = Results::new(entries.len());
            for (&(b, w, score), &count) in &tallies {
                if !failing(b) && !failing(w) {
                    results.add_games(b, w, f64::from(score) / 2.0, count);
                }
            }
            let fitted = fit(&results, &FitOptions::anchored_at(anchor));
            snapshots.push(Snapshot {
                id: snapshots.len() as i64,
                taken_at: 0,
                games: n as u64 + 1,
                reason: String::new(),
                // A bot's first few games place it anywhere: its line starts once it has played
                // the few games a placement starts with.
                ratings: entries
                    .iter()
                    .zip(&fitted.ratings)
                    .enumerate()
                    .filter(|&(i, _)| i == anchor || played[i].0 >= u64::from(MIN_GAMES))
                    .filter_map(|(_, (e, r))| Some((e.id, (*r)?)))
                    .collect(),
            });
        }
    }
    Ok(History { rows, snapshots })
}
