//! Seeding a ladder with a starting pool (the sample bots at their levels), so a fresh install
//! already has a ladder to place a bot on.
//!
//! The pool is given weakest first (roughly). Each member plays its next two neighbours in that
//! order, [`SEED_OPENINGS_PER_PAIR`] openings with colours swapped: few games, but every entry is
//! linked to the anchor (the first member) and to entries near its strength. Rating sessions add
//! the rest of the evidence as they go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use othello_arena::event::openings::OpeningSource;
use othello_arena::seat::Seating;

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

/// Openings each seeding pair plays (two games each, colours swapped).
pub const SEED_OPENINGS_PER_PAIR: u32 = 2;
/// How many next members (in the pool's order) each member plays.
pub const SEED_NEIGHBOURS: usize = 2;
/// Time per move while seeding: short, so seeding takes a minute or so.
pub const SEED_TIME_PER_MOVE: Duration = Duration::from_millis(50);

/// Where seeding stands, after each game.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedProgress {
    pub games: u32,
    pub total: u32,
    /// The last game as `Black – White result`.
    pub last: String,
}

/// The pairs seeding plays, as indices into the pool.
pub fn seed_pairs(members: usize) -> Vec<(usize, usize)> {
    (0..members).flat_map(|a| (a + 1..members.min(a + 1 + SEED_NEIGHBOURS)).map(move |b| (a, b))).collect()
}

/// Adds `pool` to the ladder (its first member becomes the anchor unless the ladder has one) and
/// plays the seeding games with `time_limit` per move. Returns the games played.
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
    let pairs = seed_pairs(players.len());
    let per_pair = SEED_OPENINGS_PER_PAIR as usize;
    let openings = OpeningSource::Random { plies: OPENING_PLIES }.openings(pairs.len() * per_pair, seed);
    let mut progress = SeedProgress { games: 0, total: (pairs.len() * per_pair * 2) as u32, last: String::new() };
    for (i, &(a, b)) in pairs.iter().enumerate() {
        for opening in &openings[i * per_pair..(i + 1) * per_pair] {
            if stop.load(Ordering::SeqCst) {
                return Ok(progress.games);
            }
            for game in play_pair(ladder, &players[a], &players[b], opening, time_limit)? {
                progress.games += 1;
                progress.last = format!("{} – {} {}", game.black, game.white, game.result.winner_str());
                on_progress(&progress);
            }
        }
    }
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, "seeded the pool")?;
    Ok(progress.games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_member_meets_its_next_two() {
        assert_eq!(seed_pairs(4), [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]);
        assert!(seed_pairs(1).is_empty());
    }
}
