//! The static evaluation: what Othello players know, as a weighted sum.
//!
//! Scores are in centi-discs ([`EVAL_SCALE`] per disc) from the view of the
//! side to move. Every weight has an opening and an endgame value, blended by
//! the number of empty squares: mobility matters most early, parity and the
//! disc count late.

use othello_sdk::legal_moves;

use crate::board::{CORNERS, frontier_empties};
use crate::instruction_set::Baseline;
use crate::patterns::active;
use crate::stability::edge_stable_difference;

/// Evaluation units per disc of final disc difference.
pub const EVAL_SCALE: i32 = 100;

/// The largest magnitude an evaluation may take: a sure win never looks worse
/// than any heuristic score, so it stays below the exact-score range.
pub const EVAL_LIMIT: i32 = 63 * EVAL_SCALE;

/// A weight at the opening (60 empties) and at the end (0 empties).
#[derive(Clone, Copy)]
struct Weight {
    opening: i32,
    end: i32,
}

impl Weight {
    #[inline(always)]
    const fn at(self, empties: i32) -> i32 {
        (self.opening * empties + self.end * (60 - empties)) / 60
    }
}

/// The features the evaluation weighs, each a difference "mine - theirs".
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] =
    ["mobility", "potential_mobility", "corners", "x_squares", "c_squares", "stable_edge_discs", "parity", "discs"];
pub const FEATURE_COUNT: usize = 8;

/// The weight of each feature, in the order of [`FEATURE_NAMES`]:
/// - mobility: per move more than the opponent (corner moves count twice);
/// - potential mobility: per empty square next to the opponent's discs more
///   than next to ours (fewer frontier discs, more moves later);
/// - corners: per corner more;
/// - X-squares (diagonal neighbours of an empty corner): they give the corner away;
/// - C-squares (edge neighbours of an empty corner);
/// - stable edge discs: per edge-anchored stable disc more;
/// - parity: +1 for the side that will play the last move (odd empties), -1 else;
/// - discs: per disc more (few discs are good early, many late).
///
/// The endgame values were fitted by least squares to exact solver results of
/// positions with 8 to 18 empties (`examples/fit_eval.rs`).
const WEIGHTS: [Weight; FEATURE_COUNT] = [
    Weight { opening: 80, end: 420 },
    Weight { opening: 30, end: -80 },
    Weight { opening: 450, end: 120 },
    Weight { opening: -250, end: -130 },
    Weight { opening: -70, end: -240 },
    Weight { opening: 110, end: 135 },
    Weight { opening: 0, end: 160 },
    Weight { opening: -8, end: 0 },
];

/// The X-squares b2, g2, b7, g7, in the order of their corners a1, h1, a8, h8.
const X_SQUARES: [u64; 4] = [1 << 9, 1 << 14, 1 << 49, 1 << 54];
/// The C-squares next to each corner, same order.
const C_SQUARES: [u64; 4] = [(1 << 1) | (1 << 8), (1 << 6) | (1 << 15), (1 << 48) | (1 << 57), (1 << 55) | (1 << 62)];
const CORNER_SQUARES: [u64; 4] = [1 << 0, 1 << 7, 1 << 56, 1 << 63];

/// The X- and C-squares next to corners that are still empty.
#[inline(always)]
fn risky_squares(empty: u64) -> (u64, u64) {
    let mut x_squares = 0;
    let mut c_squares = 0;
    for corner in 0..4 {
        if empty & CORNER_SQUARES[corner] != 0 {
            x_squares |= X_SQUARES[corner];
            c_squares |= C_SQUARES[corner];
        }
    }
    (x_squares, c_squares)
}

/// The score of a finished game with this disc difference (mover's view):
/// exact results rank beyond every heuristic score, so a sure win by 2 beats
/// any hopeful evaluation and a sure loss is worse than any.
pub const fn terminal_score(disc_difference: i32) -> i32 {
    disc_difference * EVAL_SCALE + disc_difference.signum() * EVAL_LIMIT
}

/// The disc difference a score stands for (inverse of [`terminal_score`] for
/// exact results, a plain conversion for evaluations).
pub fn score_to_discs(score: i32) -> f64 {
    let score = if score.abs() > EVAL_LIMIT { score - score.signum() * EVAL_LIMIT } else { score };
    score as f64 / EVAL_SCALE as f64
}

#[inline(always)]
fn count(bits: u64) -> i32 {
    bits.count_ones() as i32
}

/// The feature values of a position, mover's view (see [`FEATURE_NAMES`]).
#[inline(always)]
pub fn features(player: u64, opponent: u64) -> [i32; FEATURE_COUNT] {
    let empty = !(player | opponent);
    let my_moves = legal_moves(player, opponent);
    let their_moves = legal_moves(opponent, player);
    let (x_squares, c_squares) = risky_squares(empty);
    [
        count(my_moves) + count(my_moves & CORNERS) - count(their_moves) - count(their_moves & CORNERS),
        count(frontier_empties(opponent, empty)) - count(frontier_empties(player, empty)),
        count(player & CORNERS) - count(opponent & CORNERS),
        count(player & x_squares) - count(opponent & x_squares),
        count(player & c_squares) - count(opponent & c_squares),
        edge_stable_difference(player, opponent),
        if count(empty) % 2 == 1 { 1 } else { -1 },
        count(player) - count(opponent),
    ]
}

/// The evaluation of the position for the side to move (`player`), in
/// centi-discs, within ±[`EVAL_LIMIT`]: the hand-written features plus the
/// trained pattern correction ([`crate::patterns`]).
#[inline]
pub fn evaluate(player: u64, opponent: u64) -> i32 {
    evaluate_inlined(player, opponent)
}

/// [`evaluate`], inlined into its caller (the solver's copies for each
/// instruction set, [`crate::instruction_set`]).
#[inline(always)]
pub(crate) fn evaluate_inlined(player: u64, opponent: u64) -> i32 {
    let score = hand_evaluate_unclamped(player, opponent) + active().correction(player, opponent);
    score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The evaluation the endgame solver's ordering searches use: the
/// hand-written part and the edge and corner patterns
/// ([`PatternWeights::edge_and_corner_correction`](crate::patterns::PatternWeights::edge_and_corner_correction)),
/// within ±[`EVAL_LIMIT`]. FFO #40–#49: 19 % fewer nodes than with the
/// hand-written part alone, 0.944x the time (3 pairs; #30–#39 0.84x, #50–#52
/// 0.93x); the full evaluation orders better still but costs more than it saves.
pub fn ordering_evaluate(player: u64, opponent: u64) -> i32 {
    ordering_evaluate_inlined(player, opponent)
}

/// [`ordering_evaluate`], inlined into its caller (the solver's copies for
/// each instruction set, [`crate::instruction_set`]).
#[inline(always)]
pub(crate) fn ordering_evaluate_inlined(player: u64, opponent: u64) -> i32 {
    let score = hand_evaluate_unclamped(player, opponent) + active().edge_and_corner_correction(player, opponent);
    score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The evaluations compiled for one instruction set ([`crate::instruction_set`]):
/// the provided methods are [`Baseline`]'s, the build's own code;
/// `crate::dispatch` gives the AVX-512 copy.
pub(crate) trait EvalInstructions: Copy {
    /// [`evaluate`].
    #[inline(always)]
    fn evaluate(self, player: u64, opponent: u64) -> i32 {
        evaluate(player, opponent)
    }

    /// [`ordering_evaluate`].
    #[inline(always)]
    fn ordering_evaluate(self, player: u64, opponent: u64) -> i32 {
        ordering_evaluate(player, opponent)
    }
}

impl EvalInstructions for Baseline {}

/// The hand-written part of the evaluation alone, within ±[`EVAL_LIMIT`]
/// (what the pattern correction is trained on top of).
pub fn hand_evaluate(player: u64, opponent: u64) -> i32 {
    hand_evaluate_unclamped(player, opponent).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// [`WEIGHTS`] blended for each number of empties (0..=64; a board has at
/// most 60, the rest only keeps lookups in bounds): no divisions per call.
const WEIGHTS_BY_EMPTIES: [[i32; FEATURE_COUNT]; 65] = {
    let mut table = [[0; FEATURE_COUNT]; 65];
    let mut empties = 0;
    while empties < 65 {
        let mut feature = 0;
        while feature < FEATURE_COUNT {
            table[empties][feature] = WEIGHTS[feature].at(empties as i32);
            feature += 1;
        }
        empties += 1;
    }
    table
};

#[inline(always)]
fn hand_evaluate_unclamped(player: u64, opponent: u64) -> i32 {
    let weights = &WEIGHTS_BY_EMPTIES[(!(player | opponent)).count_ones() as usize];
    let values = features(player, opponent);
    let mut score = 0;
    for (weight, value) in weights.iter().zip(values) {
        score += weight * value;
    }
    score
}

/// The weight of each feature at `empties` empty squares (for fitting tools).
pub fn weights_at(empties: i32) -> [i32; FEATURE_COUNT] {
    WEIGHTS.map(|w| w.at(empties))
}

/// The opening and endgame weights of each feature (for fitting tools).
pub fn weight_table() -> [(i32, i32); FEATURE_COUNT] {
    WEIGHTS.map(|w| (w.opening, w.end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::Position;

    #[test]
    fn the_start_position_is_balanced() {
        let start = Position::start();
        assert_eq!(hand_evaluate(start.player().0, start.opponent().0), -WEIGHTS[6].at(60));
    }

    #[test]
    fn owning_a_corner_is_good() {
        let pos = Position::from_board_string(
            "X------O\
             -XXXOO--\
             -XXXOO--\
             --XOO---\
             --OXO---\
             ---X----\
             --------\
             -------- X",
        )
        .unwrap();
        let (p, o) = (pos.player().0, pos.opponent().0);
        let a1 = 1u64;
        // The same position with a1 belonging to the opponent instead.
        assert!(evaluate(p, o) > evaluate(p & !a1, o | a1));
        assert!(hand_evaluate(p, o) > hand_evaluate(p & !a1, o | a1));
    }

    #[test]
    fn exact_results_rank_beyond_evaluations() {
        assert!(terminal_score(2) > EVAL_LIMIT);
        assert!(terminal_score(-2) < -EVAL_LIMIT);
        assert_eq!(terminal_score(0), 0);
        assert_eq!(score_to_discs(terminal_score(-6)), -6.0);
        assert_eq!(score_to_discs(250), 2.5);
    }
}
