//! Analysis: the win rate of every legal move (the optional `othello_analyze` export).
//!
//! The same search as a move, at full strength whatever the level: playouts until the time is
//! up, and then, if the time was too short for some move to be tried, a few more until each has
//! been; each root child's share of points won is its move's win rate, its visits the "depth".
//! MCTS knows no disc values, so only win rates are reported. The tree is kept, so a second call
//! on the same position (with a longer time) goes on from the first.

use std::time::{Duration, Instant};

use othello_sdk::{MoveValue, Position, SplitMix64, Square};

use crate::playout::LANES;
use crate::tree::Tree;
use crate::{DEFAULT_THINK_TIME, PLAYOUTS_PER_CLOCK_CHECK, TIME_LIMIT_SHARE};

/// Most extra batches of playouts run past the time so every move is tried at least once.
const MAX_CATCH_UP_BATCHES: usize = 256;

/// The win rate of every legal move of `position` (the side to move's chance), best first.
/// Empty when the side to move must pass.
pub fn analyze(
    tree: &mut Tree,
    rng: &mut SplitMix64,
    position: &Position,
    time_limit: Option<Duration>,
) -> Vec<MoveValue> {
    let started = Instant::now();
    if position.legal_moves().is_empty() {
        return Vec::new();
    }
    tree.set_root(position.player().0, position.opponent().0);
    let deadline = started + time_limit.unwrap_or(DEFAULT_THINK_TIME).mul_f64(TIME_LIMIT_SHARE);
    let mut batches = 0u64;
    loop {
        tree.iterate::<LANES>(rng);
        batches += 1;
        if batches.is_multiple_of((PLAYOUTS_PER_CLOCK_CHECK / LANES as u64).max(1)) && Instant::now() >= deadline {
            break;
        }
    }
    for _ in 0..MAX_CATCH_UP_BATCHES {
        let children = tree.root_children();
        if !children.is_empty() && children.iter().all(|child| child.visits > 0) {
            break;
        }
        tree.iterate::<LANES>(rng);
    }
    let mut values: Vec<MoveValue> = tree
        .root_children()
        .iter()
        .filter(|child| child.visits > 0)
        .filter_map(|child| {
            let square = Square::new(child.mv)?;
            Some(MoveValue { win_rate: Some(child.mean()), depth: Some(child.visits), ..MoveValue::new(square) })
        })
        .collect();
    values.sort_by(|a, b| b.win_rate.unwrap_or(0.0).total_cmp(&a.win_rate.unwrap_or(0.0)));
    values
}
