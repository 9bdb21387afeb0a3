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
//! since every fit uses every game. A new ladder may start from the pool's shipped calibration
//! ([`crate::calibration::enter_pool`]): its members are then linked already, and seeding plays
//! only for those it does not rate (or, on a ladder handle that fits its own games only, the whole
//! calibration again, as the server refines it in the background).

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
/// Time per move of a calibration when the contest (or the app's Players) sets no limit: a pool
/// calibrated without one could take hours (alpha-beta at level 6 thinks as long as it likes).
pub const SEED_TIME_PER_MOVE: Duration = Duration::from_millis(50);

/// The time a move a calibration plays at: the contest's own (the server's time control, the
/// app's time per move), else [`SEED_TIME_PER_MOVE`] with the reason, said wherever its progress
/// is shown. The server and the app calibrate alike through this.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedingTime {
    pub limit: Duration,
    /// Why it is not the contest's time control (`None` when it is).
    pub note: Option<String>,
}

impl SeedingTime {
    pub fn for_contest(contest: Option<Duration>) -> SeedingTime {
        match contest {
            Some(limit) => SeedingTime { limit, note: None },
            None => SeedingTime {
                limit: SEED_TIME_PER_MOVE,
                note: Some(format!(
                    "the contest has no time limit, and a calibration without one could take hours: it plays at {} ms a move",
                    SEED_TIME_PER_MOVE.as_millis()
                )),
            },
        }
    }
}

/// Where seeding stands, after each game: every number is what was played, never a guess of
/// what is left (calibration plays until the pool is known to ±[`SEED_TARGET_ERROR`], which no
/// count can say in advance).
#[derive(Debug, Clone, PartialEq)]
pub struct SeedProgress {
    pub games: u32,
    /// The games of the linking round; calibration games come after, as many as it takes.
    pub linking_games: u32,
    /// The last game as `Black – White result`.
    pub last: String,
    /// The widest 95 % interval from the anchor among the pool after the last pair (`None`
    /// until the pool is linked).
    pub widest_error: Option<f64>,
}

impl SeedProgress {
    /// The progress in words, true at every step: games played, what they are for, the widest
    /// interval now against the target, and the cap.
    pub fn describe(&self, time: &SeedingTime) -> String {
        let mut text = format!(
            "Calibrating the sample pool: {} games played (the first {} link every bot to its neighbours; then it \
             plays until every bot is known to ±{SEED_TARGET_ERROR:.0} Elo, at most {SEED_MAX_GAMES} games)",
            self.games, self.linking_games
        );
        if let Some(error) = self.widest_error {
            text.push_str(&format!("; the widest interval now is ±{error:.0}"));
        }
        text.push_str(&format!("; {} ms a move", time.limit.as_millis()));
        if let Some(note) = &time.note {
            text.push_str(&format!(" ({note})"));
        }
        text
    }
}

/// The pairs the linking round plays, as indices into the pool.
pub fn seed_pairs(members: usize) -> Vec<(usize, usize)> {
    (0..members).flat_map(|a| (a + 1..members.min(a + 1 + SEED_NEIGHBOURS)).map(move |b| (a, b))).collect()
}

/// Adds `pool` to the ladder (its first member becomes the anchor unless the ladder has one) and
/// plays the seeding games with `time_limit` per move: the linking round (its pairs with a member
/// that has neither played before nor a shipped calibration the ladder's fits count: see
/// [`crate::calibration`]), then calibration pairs until every member is within
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
    // A member is linked by games it played, or by the shipped calibration when the fits count
    // it: the linking round plays only the pairs with a member that is not.
    let calibrated: Vec<i64> = match ladder.calibration()? {
        Some((pairs, _)) if ladder.counts_calibration() => pairs.iter().flat_map(|(a, b, _)| [*a, *b]).collect(),
        _ => Vec::new(),
    };
    let linked = |p: &Player| records.get(&p.entry.id).is_some_and(|r| r.games > 0) || calibrated.contains(&p.entry.id);
    let pairs: Vec<(usize, usize)> =
        seed_pairs(players.len()).into_iter().filter(|&(a, b)| !linked(&players[a]) || !linked(&players[b])).collect();
    let per_pair = SEED_OPENINGS_PER_PAIR as usize;
    // Openings for the linking round and every calibration pair; a second seeding (more games
    // in the ladder) draws new ones.
    let opening_count = pairs.len() * per_pair + SEED_MAX_GAMES as usize / 2;
    let openings = OpeningSource::Random { plies: OPENING_PLIES }.openings(opening_count, seed ^ ladder.game_count()?);
    let mut next_opening = openings.iter();
    let mut progress = SeedProgress {
        games: 0,
        linking_games: (pairs.len() * per_pair * 2) as u32,
        last: String::new(),
        widest_error: None,
    };
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

    #[test]
    fn a_calibration_plays_at_the_contests_time_or_says_why_not() {
        let contest = SeedingTime::for_contest(Some(Duration::from_millis(100)));
        assert_eq!(contest, SeedingTime { limit: Duration::from_millis(100), note: None });
        let unlimited = SeedingTime::for_contest(None);
        assert_eq!(unlimited.limit, SEED_TIME_PER_MOVE);
        assert!(unlimited.note.as_deref().is_some_and(|n| n.contains("no time limit")), "{unlimited:?}");
    }

    #[test]
    fn progress_past_the_linking_round_reads_true() {
        let progress = SeedProgress { games: 338, linking_games: 96, last: String::new(), widest_error: Some(140.4) };
        let text = progress.describe(&SeedingTime::for_contest(Some(Duration::from_millis(100))));
        assert!(text.contains("338 games played (the first 96 link"), "{text}");
        assert!(text.contains("widest interval now is ±140") && text.contains("100 ms a move"), "{text}");
        assert!(!text.contains("338 / 96") && !text.contains("338/96"), "{text}");
    }
}
