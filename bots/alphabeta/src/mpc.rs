//! Multi-ProbCut for the endgame solver: selective searches that order the
//! exact one.
//!
//! A shallow search with the pattern evaluation predicts the exact score of
//! a position up to an error whose spread `sigma` grows with the empties and
//! shrinks with the shallow depth. When the prediction lies `t · sigma` beyond
//! the window, the subtree is assumed to fail the same way and is cut.
//!
//! The solver runs a few such *selective* searches, at rising confidence `t`
//! ([`SELECTIVITIES`]), before the exact one (as Edax and Egaroucid do): each
//! is much cheaper than an exact search and leaves best moves in the table,
//! so that the exact search finds its cut-offs sooner. Bounds found with cuts
//! never decide an exact search (see `Solver::set_selectivity`).
//!
//! The midgame search ([`crate::search`]) cuts the same way, predicting a
//! search to some depth by one to half that depth ([`midgame_margin`]).
//!
//! Both error models were fitted from data by
//! `cargo run --release -p bot-alphabeta --example fit_mpc -- 600` (endgame:
//! 600 self-play games, 1,808 positions with 12–20 empties solved exactly;
//! midgame: 150 games, 2,316 searches of positions with 22–52 empties; a few
//! minutes on 1 core).

use crate::eval::{EVAL_LIMIT, EVAL_SCALE};
use crate::ordering::OrderingInstructions;

/// The confidence of each selective search, in standard deviations of the
/// prediction error (1.5 ≈ 87 % of cuts right). Measured on FFO #40–#44 and
/// #47 (nodes of the whole solve): one pass at 1.5 saved 20 %; one at 1.0
/// 9 %; at 2.0, or 1.0 then 2.0, or 1.1, 1.5 and 2.0, cost more than they
/// saved (the evaluation errs by about 8 discs at these depths, so cuts
/// need wide margins).
pub const SELECTIVITIES: [f64; 1] = [1.5];
/// The selectivity index of exact searches (no cuts).
pub const EXACT: usize = SELECTIVITIES.len();
/// Table depths of results are `selectivity · QUALITY_STEP + empties`: the
/// table evicts entries by the empties alone (see
/// [`crate::tt::DEPTH_WORK_LIMIT`]).
pub const QUALITY_STEP: u32 = crate::tt::DEPTH_WORK_LIMIT as u32;
/// Fewer empties than this: no ProbCut (the subtree is cheap to search).
pub const MIN_EMPTIES: u32 = 12;
/// The error's standard deviation in discs:
/// `SIGMA_BASE + SIGMA_PER_EMPTY · empties + SIGMA_PER_DEPTH · depth`,
/// fitted by `examples/fit_mpc.rs`.
pub const SIGMA_BASE: f64 = 7.99;
pub const SIGMA_PER_EMPTY: f64 = 0.199;
pub const SIGMA_PER_DEPTH: f64 = -0.753;
/// Every this many empties add a ply to the shallow search (5 cut the solve's
/// time on FFO #40–#44, #47 by 11 % against 4; 3 and 6 were slower), before
/// [`ODD_SHALLOW_DEPTHS_ONLY`] rounds it down.
pub const EMPTIES_PER_SHALLOW_PLY: u32 = 5;
/// Shallow-search depth bounds (6 plies would be rounded down to 5).
pub const MIN_SHALLOW_DEPTH: u32 = 1;
pub const MAX_SHALLOW_DEPTH: u32 = 5;
/// An even depth is rounded down to the odd depth below it. A search to an
/// even depth ends on the opponent's move and underrates the side to move:
/// by 2.3 discs on average against exact scores, against 0.05 at odd
/// depths (`examples/mpc_check.rs`, 2,694 searches of positions with 12–37
/// empties). The odd depth is both unbiased and a ply cheaper: FFO #50–#53
/// 8.9 % fewer nodes and 0.915× the time (`farm-bench -n 3`), the 24- and
/// 26-empties self-play sets the same nodes within 0.2 %.
pub const ODD_SHALLOW_DEPTHS_ONLY: bool = true;

/// The midgame search's cuts: confidence, in standard deviations.
pub const MIDGAME_SELECTIVITY: f64 = 1.5;
/// From this remaining depth on, the midgame search tries ProbCut.
pub const MIDGAME_MIN_DEPTH: u32 = 3;
/// The spread in discs of (search to `depth`) − (search to `depth / 2`):
/// `MIDGAME_SIGMA_BASE + MIDGAME_SIGMA_PER_EMPTY · empties +
/// MIDGAME_SIGMA_PER_DEPTH · depth`, fitted by `examples/fit_mpc.rs`.
pub const MIDGAME_SIGMA_BASE: f64 = 7.01;
pub const MIDGAME_SIGMA_PER_EMPTY: f64 = -0.110;
pub const MIDGAME_SIGMA_PER_DEPTH: f64 = 0.0425;

/// The midgame ProbCut margin in centi-discs for a search to `depth` with
/// this many empties.
#[inline]
pub fn midgame_margin(empties: u32, depth: u32) -> i32 {
    let sigma = MIDGAME_SIGMA_BASE + MIDGAME_SIGMA_PER_EMPTY * empties as f64 + MIDGAME_SIGMA_PER_DEPTH * depth as f64;
    (MIDGAME_SELECTIVITY * sigma.max(1.0) * EVAL_SCALE as f64) as i32
}

/// The shallow-search depth at this many empties.
///
/// ```
/// use alphabeta::mpc::shallow_depth;
/// assert_eq!([12, 15, 20, 24, 25, 29, 30, 40].map(shallow_depth), [1, 3, 3, 3, 5, 5, 5, 5]);
/// ```
#[inline]
pub fn shallow_depth(empties: u32) -> u32 {
    let depth = (empties / EMPTIES_PER_SHALLOW_PLY).clamp(MIN_SHALLOW_DEPTH, MAX_SHALLOW_DEPTH);
    if ODD_SHALLOW_DEPTHS_ONLY && depth.is_multiple_of(2) { depth - 1 } else { depth }
}

/// The prediction error's standard deviation in centi-discs.
#[inline]
pub fn sigma(empties: u32, depth: u32) -> f64 {
    (SIGMA_BASE + SIGMA_PER_EMPTY * empties as f64 + SIGMA_PER_DEPTH * depth as f64) * EVAL_SCALE as f64
}

/// `Some(bound)` when a shallow search says, with the confidence of
/// `SELECTIVITIES[selectivity]`, that the exact score of the position lies
/// outside (`alpha`, `beta`) (disc differences): `beta` for above, `alpha`
/// for below. `None` to search on.
#[inline(always)]
pub(crate) fn probcut<I: OrderingInstructions>(
    isa: I,
    player: u64,
    opponent: u64,
    empties: u32,
    alpha: i32,
    beta: i32,
    selectivity: usize,
) -> Option<i32> {
    let depth = shallow_depth(empties);
    let margin = (SELECTIVITIES[selectivity] * sigma(empties, depth)) as i32;
    // Fail high: the shallow value is at least beta + margin.
    let high = beta * EVAL_SCALE + margin;
    if high < EVAL_LIMIT && isa.shallow_search::<true>(player, opponent, depth, high - 1, high) >= high {
        return Some(beta);
    }
    // Fail low: the shallow value is at most alpha - margin.
    let low = alpha * EVAL_SCALE - margin;
    if low > -EVAL_LIMIT && isa.shallow_search::<true>(player, opponent, depth, low, low + 1) <= low {
        return Some(alpha);
    }
    None
}
