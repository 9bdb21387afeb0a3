//! Analysis: the value of every legal move, for move evaluations on a GUI's board and for hints
//! (the optional `othello_analyze` export).
//!
//! Each root move is searched on its own, so each gets its true value (a normal search only
//! proves the other moves worse than the best one):
//! 1. iterative deepening over the root moves: depth 1 for every move, then depth 2 for every
//!    move (best first), and so on, until the soft mark of the clock or the end of the game;
//! 2. when few enough empties remain for the budget ([`solvable_empties`]), the midgame search
//!    stops early and each move is solved exactly, best first, until the hard mark; a move whose
//!    solve does not finish keeps its midgame value.
//!
//! Analysis is at full strength whatever the level (no noise, no depth cap); the tables are the
//! bot's own, so calling it again on the same position with a longer time goes deeper quickly.

use std::time::{Duration, Instant};

use othello_sdk::{Move, MoveValue, Position, Square};

use crate::eval::{EVAL_LIMIT, score_to_discs};
use crate::search::{Limits, Searcher};
use crate::time::{Clock, solvable_empties};

/// Deepest midgame iteration before the exact solves take over: enough to order the moves.
pub const DEPTH_BEFORE_SOLVE: u32 = 6;
/// Deepest midgame iteration at all (the game is over well before).
const MAX_DEPTH: u32 = 60;

/// One root move under analysis.
struct RootMove {
    square: Square,
    /// The position after the move.
    child: Position,
    /// What the midgame search looks at: the child, or after the opponent's forced pass the
    /// position with the analysed side to move again.
    searched: Position,
    /// Turns the searched position's score into the analysed side's view.
    sign: f64,
    value: MoveValue,
}

/// Values every legal move of `position` within `time_limit` (1 s if none), best first, from the
/// side to move's view. Empty when the side to move must pass.
pub fn analyze(searcher: &mut Searcher, position: &Position, time_limit: Option<Duration>) -> Vec<MoveValue> {
    let clock = Clock::start(time_limit);
    searcher.set_root_noise(None);
    let mut moves: Vec<RootMove> = position
        .legal_moves()
        .into_iter()
        .map(|square| {
            let mut child = *position;
            child.play(Move::Play(square));
            let mut root = RootMove { square, child, searched: child, sign: -1.0, value: MoveValue::new(square) };
            if child.is_game_over() {
                // The game ends with this move: its value is the final score.
                root.value.eval = Some(f64::from(final_difference(&child, position.side_to_move())));
                root.value.exact = true;
                root.value.depth = Some(1);
            } else if child.must_pass() {
                root.searched.play(Move::Pass);
                root.sign = 1.0;
            }
            root
        })
        .collect();
    if moves.is_empty() {
        return Vec::new();
    }
    let empties = position.empty().count();
    let solve = empties.saturating_sub(1) <= solvable_empties(clock.hard_budget());
    let (max_depth, soft) = if solve {
        (DEPTH_BEFORE_SOLVE.min(empties), clock.fallback_deadline())
    } else {
        (MAX_DEPTH.min(empties), clock.soft_deadline())
    };

    deepen(searcher, &mut moves, max_depth, clock.hard_deadline(), soft);
    if solve {
        solve_each(searcher, &mut moves, empties, clock.hard_deadline());
    }
    sort_best_first(&mut moves);
    moves.into_iter().map(|m| m.value).collect()
}

/// Iterative deepening over the root moves, up to `max_depth` plies from the root. An iteration
/// counts only when every move finished it, so all values shown come from the same depth (values
/// of different depths are not comparable: Othello evaluations swing between odd and even
/// depths); an unfinished one still leaves its results in the tables for the next call.
fn deepen(searcher: &mut Searcher, moves: &mut [RootMove], max_depth: u32, hard: Instant, soft: Instant) {
    for depth in 1..=max_depth {
        let mut iteration = Vec::with_capacity(moves.len());
        for root in moves.iter().filter(|m| !m.value.exact) {
            // The child is searched one ply less deep; a child search always completes its first
            // iteration, so every move has a value after the first round.
            let child_depth = depth - 1;
            let limits = Limits { hard_deadline: Some(hard), ..Limits::depth(child_depth.max(1)) };
            let result = searcher.search(&root.searched, &limits);
            if depth > 1 && result.depth < child_depth.max(1) {
                return; // cut short by the deadline: the last whole iteration stands
            }
            let proven = result.score.abs() > EVAL_LIMIT;
            iteration.push((root.square, root.sign * score_to_discs(result.score) + 0.0, proven));
        }
        for (square, eval, proven) in iteration {
            let root = moves.iter_mut().find(|m| m.square == square).expect("a root move");
            root.value.eval = Some(eval);
            root.value.exact = proven;
            root.value.depth = Some(depth);
        }
        sort_best_first(moves);
        if Instant::now() >= soft {
            return;
        }
    }
}

/// Solves each move exactly, best first, until `hard`.
fn solve_each(searcher: &mut Searcher, moves: &mut [RootMove], empties: u32, hard: Instant) {
    for root in moves.iter_mut() {
        if root.value.exact {
            continue;
        }
        let Some(solution) = searcher.solve_until(&root.child, Some(hard)) else { return };
        root.value.eval = Some(f64::from(-solution.score) + 0.0);
        root.value.exact = true;
        root.value.depth = Some(empties);
    }
}

/// The final disc difference of a finished game for `side` (empties to the winner).
fn final_difference(finished: &Position, side: othello_sdk::Color) -> i32 {
    let (black, white) = finished.final_score();
    let difference = black as i32 - white as i32;
    if side == othello_sdk::Color::Black { difference } else { -difference }
}

fn sort_best_first(moves: &mut [RootMove]) {
    let key = |m: &RootMove| m.value.eval.unwrap_or(f64::NEG_INFINITY);
    moves.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.square.index().cmp(&b.square.index())));
}
