//! Seeding a ladder with a starting pool (the sample bots at their levels), so a fresh install
//! already has a ladder to place a bot on, calibrated well enough to place it.
//!
//! The pool is given weakest first (roughly). Seeding first links every member to the anchor
//! (the first member) and to entries near its strength: each member plays its next
//! [`SEED_NEIGHBOURS`] in that order, [`SEED_OPENINGS_PER_PAIR`] openings with colours swapped.
//! Then, until every member's rating is known to ±[`SEED_TARGET_ERROR`] Elo from the anchor (95 %)
//! or [`SEED_MAX_GAMES`] are played, it plays the pair of members whose next two games are
//! expected to narrow the widest interval the most: for each pair, the fit is redone with two
//! more games scored as the current ratings predict, and the pair that leaves the smallest widest
//! interval plays (a fit of the pool takes well under a millisecond, a game far longer). Seeding
//! a ladder again continues from its games: it plays only while an interval is above the target. Rating sessions refine the pool further,
//! since every fit uses every game.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use othello_arena::event::openings::OpeningSource;
use othello_arena::seat::Seating;

use crate::fit::{Fit, FitOptions, expected_score, fit};
use crate::identity::Identity;
use crate::play::{Player, play_pair};
use crate::session::OPENING_PLIES;
use crate::store::Ladder;

/// The starting pool: the sample bots at some of their levels, by file stem and level, roughly
/// weakest first (each plays its next [`SEED_NEIGHBOURS`] in this order when seeding). `random`
/// is first, so it is the anchor (0 Elo) of a ladder seeded with it.
pub const SAMPLE_POOL: [&str; 10] = [
    "random",
    "weighted",
    "mcts@1",
    "alphabeta@1",
    "mcts@2",
    "alphabeta@2",
    "alphabeta@3",
    "mcts@3",
    "alphabeta@4",
    "alphabeta@6",
];

/// Openings each linking pair plays (two games each, colours swapped).
pub const SEED_OPENINGS_PER_PAIR: u32 = 2;
/// How many next members (in the pool's order) each member plays first.
pub const SEED_NEIGHBOURS: usize = 3;
/// Seeding plays on until every member's 95 % interval from the anchor is at most ± this.
pub const SEED_TARGET_ERROR: f64 = 100.0;
/// Most games one seeding plays, whatever the precision.
pub const SEED_MAX_GAMES: u32 = 3000;
/// Time per move the app seeds with (the command line uses `--time-ms`).
pub const SEED_TIME_PER_MOVE: Duration = Duration::from_millis(50);

/// Where seeding stands, after each game.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedProgress {
    pub games: u32,
    /// The games of the linking round; calibration games come after, as many as it takes.
    pub total: u32,
    /// The last game as `Black – White result`.
    pub last: String,
    /// The widest 95 % interval from the anchor among the pool after the last pair (`None`
    /// until the pool is linked).
    pub widest_error: Option<f64>,
}

/// The pairs the linking round plays, as indices into the pool.
pub fn seed_pairs(members: usize) -> Vec<(usize, usize)> {
    (0..members).flat_map(|a| (a + 1..members.min(a + 1 + SEED_NEIGHBOURS)).map(move |b| (a, b))).collect()
}

/// Adds `pool` to the ladder (its first member becomes the anchor unless the ladder has one) and
/// plays the seeding games with `time_limit` per move: the linking round (unless the pool's
/// entries have played before), then calibration pairs until every member is within
/// ±[`SEED_TARGET_ERROR`] (see the module docs). Returns the games played.
pub fn seed_pool(
    ladder: &mut Ladder,
    pool: &[Identity],
    seating: &Seating,
    time_limit: Option<Duration>,
    seed: u64,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(&SeedProgress),
) -> Result<u32, String> {
    let mut players = Vec::new();
    for identity in pool {
        players.push(Player::new(ladder.entry_for(identity)?, seating));
    }
    if let Some(first) = players.first() {
        ladder.set_anchor_if_unset(first.entry.id)?;
    }
    let records = ladder.records()?;
    let linked = players.iter().all(|p| records.get(&p.entry.id).is_some_and(|r| r.games > 0));
    let pairs = if linked { Vec::new() } else { seed_pairs(players.len()) };
    let per_pair = SEED_OPENINGS_PER_PAIR as usize;
    // Openings for the linking round and every calibration pair; a second seeding (more games
    // in the ladder) draws new ones.
    let opening_count = pairs.len() * per_pair + SEED_MAX_GAMES as usize / 2;
    let openings = OpeningSource::Random { plies: OPENING_PLIES }.openings(opening_count, seed ^ ladder.game_count()?);
    let mut next_opening = openings.iter();
    let mut progress =
        SeedProgress { games: 0, total: (pairs.len() * per_pair * 2) as u32, last: String::new(), widest_error: None };
    let mut play = |ladder: &mut Ladder, a: &Player, b: &Player, progress: &mut SeedProgress| {
        let opening = next_opening.next().expect("an opening for every pair of the cap");
        for game in play_pair(ladder, a, b, opening, time_limit)? {
            progress.games += 1;
            progress.last = format!("{} – {} {}", game.black, game.white, game.result.winner_str());
            on_progress(progress);
        }
        Ok::<(), String>(())
    };
    for &(a, b) in &pairs {
        for _ in 0..per_pair {
            if stop.load(Ordering::SeqCst) {
                return finish(ladder, progress.games);
            }
            play(ladder, &players[a], &players[b], &mut progress)?;
        }
    }
    while progress.games < SEED_MAX_GAMES && !stop.load(Ordering::SeqCst) {
        let entries = ladder.entries()?;
        let (results, anchor) = ladder.fit_inputs(&entries)?;
        let Some(anchor) = anchor else { break };
        // A member that failed every game has no rating to calibrate (it is placed at the bottom).
        let records = ladder.records()?;
        // (player, entry) numbers of the members to calibrate.
        let members: Vec<(usize, usize)> = players
            .iter()
            .enumerate()
            .filter(|(_, p)| !records.get(&p.entry.id).is_some_and(|r| r.failed_every_game()))
            .filter_map(|(i, p)| entries.iter().position(|e| e.id == p.entry.id).map(|entry| (i, entry)))
            .collect();
        let member_entries: Vec<usize> = members.iter().map(|&(_, entry)| entry).collect();
        let options = FitOptions::anchored_at(anchor);
        let now = fit(&results, &options);
        let widest = widest_error(&now, &member_entries);
        progress.widest_error = widest.is_finite().then_some(widest);
        if widest <= SEED_TARGET_ERROR {
            break;
        }
        let elo = |entry: usize| now.ratings[entry].map_or(0.0, |r| r.elo);
        let mut best: Option<((usize, usize), f64)> = None;
        for (k, &(first, a)) in members.iter().enumerate() {
            for &(second, b) in &members[k + 1..] {
                let p = expected_score(elo(a) - elo(b));
                let mut more = results.clone();
                more.add_games(a, b, 1.0, 2.0 * p);
                more.add_games(a, b, 0.0, 2.0 * (1.0 - p));
                let after = widest_error(&fit(&more, &options), &member_entries);
                if best.is_none_or(|(_, least)| after < least) {
                    best = Some(((first, second), after));
                }
            }
        }
        let Some(((a, b), _)) = best else { break }; // a pool of one
        play(ladder, &players[a], &players[b], &mut progress)?;
    }
    finish(ladder, progress.games)
}

/// The widest 95 % interval from the anchor among `members` (infinite for one not linked to it).
fn widest_error(fit: &Fit, members: &[usize]) -> f64 {
    members.iter().map(|&m| fit.ratings[m].map_or(f64::INFINITY, |r| r.error)).fold(0.0, f64::max)
}

/// Saves the pool's ratings as a snapshot of the history.
fn finish(ladder: &mut Ladder, games: u32) -> Result<u32, String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, "seeded the pool")?;
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_member_meets_its_next_three() {
        assert_eq!(seed_pairs(5), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]);
        assert!(seed_pairs(1).is_empty());
    }
}
