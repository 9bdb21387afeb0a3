//! The exact solve of a whole position: the driver that guesses the score
//! with a midgame search, then narrows it with the [`Solver`]'s null-window
//! tests (selective first, then exact), on one thread or several.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use othello_sdk::{Move, Position, Square, legal_moves};

use super::Solver;
use crate::board::SCORE_MAX;
use crate::busy::BusyTable;
use crate::mpc;
use crate::search::{Limits, Searcher};
use crate::tt::TranspositionTable;

/// A solve of at least this many empties first grows the endgame table to
/// [`BIG_ENDGAME_TABLE_BITS`] (once; it stays that size). Such trees
/// overflow 2^20 entries (FFO #40–#49: 10 % fewer nodes with 2^22), while
/// games at arena speeds never solve that deep and so never pay for the
/// bigger table's 128 MiB and its clearing at every new game.
///
/// No bigger table pays, however deep the solve: since the table evicts by
/// work (see [`crate::tt::DEPTH_WORK_LIMIT`]), 2^24 entries (512 MiB) saved
/// FFO #53 (28 empties) only 0.7 % of its nodes, yet took more time: clearing
/// its pages costs about a second, and its probes miss this machine's caches
/// (the 128 MiB table fits its 480 MiB L3) more often.
pub const BIG_SOLVE_MIN_EMPTIES: u32 = 20;
pub const BIG_ENDGAME_TABLE_BITS: u32 = 22;
/// Midgame depth searched to guess the score before an exact solve (the
/// selective search refines the guess, in fewer null-window tests the closer
/// it starts). FFO #40–#49 against 8: guesses off by 2.4 discs on average
/// instead of 5.0, 5.8 % fewer nodes, 0.949x the time (3 pairs); 16 or more
/// cost more than they saved. Below 24 empties the margin caps the depth.
const SOLVE_GUESS_DEPTH: u32 = 14;
/// The guess starts no deeper iteration after this many nodes: a won or
/// lost position can make the deep iterations explode (FFO #39, +64: 44M
/// nodes at depth 14), and a solve of ~20 empties costs only a few million.
const SOLVE_GUESS_MAX_NODES: u64 = 300_000;
/// Plies below the number of empties for the guess (deeper is wasted).
const SOLVE_GUESS_MARGIN: u32 = 10;
/// From this many empties on, selective (Multi-ProbCut) searches precede the
/// exact one.
const SELECTIVE_MIN_EMPTIES: u32 = 18;

/// An exact solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solution {
    pub best_move: Move,
    /// Final disc difference with perfect play, mover's view.
    pub score: i32,
    pub nodes: u64,
}

/// What a solve proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SolveMode {
    /// The final disc difference.
    Exact,
    /// Win, draw or loss only.
    WinLossDraw,
}

impl Searcher {
    /// Solves the position exactly, with no time limit.
    pub fn solve(&mut self, position: &Position) -> Solution {
        self.solve_until(position, None).expect("a solve without deadline always finishes")
    }

    /// Solves the position exactly, or gives up (`None`) at the deadline.
    ///
    /// A midgame search guesses the score; null-window tests around the guess
    /// then close in on the exact value (aspiration), which is much cheaper
    /// than one search with the full window.
    pub fn solve_until(&mut self, position: &Position, deadline: Option<Instant>) -> Option<Solution> {
        self.solve_in_mode(position, deadline, SolveMode::Exact)
    }

    /// Proves only whether the position is won, drawn or lost (a null-window
    /// search around 0: much cheaper than the exact score), or gives up
    /// (`None`) at the deadline. The solution's `score` is 1 for a win, 0 for
    /// a draw and -1 for a loss; its move achieves that.
    pub fn solve_wld_until(&mut self, position: &Position, deadline: Option<Instant>) -> Option<Solution> {
        self.solve_in_mode(position, deadline, SolveMode::WinLossDraw)
    }

    fn solve_in_mode(&mut self, position: &Position, deadline: Option<Instant>, mode: SolveMode) -> Option<Solution> {
        let (player, opponent) = (position.player().0, position.opponent().0);
        let empties = position.empty().count();
        if self.grow_endgame_table
            && empties >= BIG_SOLVE_MIN_EMPTIES
            && self.endgame_tt.bits() < BIG_ENDGAME_TABLE_BITS
            && let Some(bigger) = TranspositionTable::try_new(BIG_ENDGAME_TABLE_BITS)
        {
            self.endgame_tt = bigger;
        }
        self.endgame_tt.new_search();
        let mut nodes = 0;

        let guess_depth = SOLVE_GUESS_DEPTH.min(empties.saturating_sub(SOLVE_GUESS_MARGIN));
        let mut guess = 0;
        if guess_depth > 0 {
            let limits = Limits {
                hard_deadline: deadline,
                max_nodes: Some(SOLVE_GUESS_MAX_NODES),
                ..Limits::depth(guess_depth)
            };
            let result = self.search(position, &limits);
            nodes += result.nodes;
            guess = (crate::eval::score_to_discs(result.score).round() as i32).clamp(-SCORE_MAX, SCORE_MAX);
            guess += guess & 1; // final scores are even
        }

        // Selective searches first (Multi-ProbCut, rising confidence): cheap,
        // and they leave the exact search good move orders and a close guess.
        let first_selectivity = if empties >= SELECTIVE_MIN_EMPTIES { 0 } else { mpc::EXACT };
        let solve = |solver: &mut Solver| -> Option<(i32, Option<usize>)> {
            let mut solved = (guess, None);
            for selectivity in first_selectivity..=mpc::EXACT {
                solver.set_selectivity(selectivity);
                solved = match mode {
                    SolveMode::Exact => mtd(solver, player, opponent, solved.0)?,
                    SolveMode::WinLossDraw => {
                        // Scores are even: the window (-1, 1) decides the sign exactly.
                        let (score, square) = solver.solve_root(player, opponent, -1, 1);
                        if solver.aborted() {
                            return None;
                        }
                        (score.signum(), square)
                    }
                };
            }
            Some(solved)
        };
        let tt = &self.endgame_tt;
        let busy = BusyTable::new();
        let busy = &busy;
        let stop = AtomicBool::new(false);
        let (solved, solver_nodes) = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|helper| {
                    let (solve, stop, threads) = (&solve, &stop, self.threads);
                    scope.spawn(move || {
                        let mut solver = Solver::new(tt)
                            .with_deadline(deadline)
                            .with_stop(stop)
                            .with_root_start(helper, threads)
                            .with_busy_table(busy);
                        solve(&mut solver);
                        solver.nodes
                    })
                })
                .collect();
            let mut solver = Solver::new(tt).with_deadline(deadline);
            if self.threads > 1 {
                solver = solver.with_busy_table(busy);
            }
            let solved = solve(&mut solver);
            stop.store(true, Ordering::Relaxed);
            let helper_nodes: u64 = helpers.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            (solved, solver.nodes + helper_nodes)
        });
        let (score, best_square) = solved?;
        nodes += solver_nodes;
        let best_move = best_square.map_or(Move::Pass, |sq| Move::Play(Square::new(sq as u8).expect("a square")));
        Some(Solution { best_move, score, nodes })
    }
}

/// MTD(f): null-window tests "is the score at least v?" from `guess` until
/// the bounds meet: (score, best move). `None` if the solver's deadline passed.
///
/// Scores are even, so the window (v - 1, v) decides it. Tests climb from
/// below in steps of 2: a test that fails high is much cheaper than one that
/// fails low (which must refute every move), so bigger steps that overshoot
/// were measured to cost more than they save.
fn mtd(solver: &mut Solver, player: u64, opponent: u64, guess: i32) -> Option<(i32, Option<usize>)> {
    let (mut lower, mut upper) = (-SCORE_MAX, SCORE_MAX);
    let mut best_square = None;
    let mut test = guess.clamp(-SCORE_MAX, SCORE_MAX);
    test += test & 1;
    while lower < upper {
        let (score, square) = solver.solve_root(player, opponent, test - 1, test);
        if solver.aborted() {
            return None;
        }
        // Exact scores are even; a selective search's cut returns the odd
        // bound of its window. Rounding to even keeps the tests two apart
        // (the exact score is even whatever the selective one says).
        if score >= test {
            lower = score + (score & 1);
            best_square = square;
            test = lower + 2;
        } else {
            upper = score - (score & 1);
            test = upper;
        }
    }
    if best_square.is_none() && legal_moves(player, opponent) != 0 {
        // Every test failed low (a lost position at -64): any move reaching -64 will do.
        best_square = solver.solve_root(player, opponent, lower - 1, lower).1;
    }
    Some((lower, best_square))
}
