//! The exact endgame solver: the final disc difference with perfect play.
//!
//! The search changes shape with the number of empty squares, as in the
//! strongest solvers (Edax, Zebra):
//! - 1 to 4 empties: hand-unrolled functions, no move generation, moves tried
//!   isolated empties first, then in quadrant-parity order;
//! - up to [`SHALLOW_MAX_EMPTIES`]: plain alpha-beta in the same order,
//!   stability cutoff;
//! - more: "fastest first" ordering (fewest opponent replies; a move leaving
//!   at most one is searched at once), stability cutoff, below
//!   [`TT_MIN_EMPTIES`] a small table of the solver's own, from there the
//!   shared transposition table and hash move, and from [`ETC_MIN_EMPTIES`]
//!   enhanced transposition cutoffs and shallow-search ordering.
//!
//! Scores are disc differences (always even), fail-soft, from the view of the
//! side to move. Searches are principal-variation searches: most of the tree
//! is searched with a null window.

mod last_empties;
mod local_table;
mod solve;

pub use solve::{BIG_ENDGAME_TABLE_BITS, BIG_SOLVE_MIN_EMPTIES, Solution};

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use othello_sdk::{flips, legal_moves};

use self::local_table::LocalTable;
use crate::board::{Bits, SCORE_MAX, final_score, play};
use crate::busy::{BusyTable, while_busy};
use crate::eval::EVAL_SCALE;
use crate::instruction_set::{Avx512, Baseline, detected_avx512};
use crate::mpc;
use crate::ordering::{
    MAX_MOVES, MoveList, OrderingInstructions, ScoredMove, fastest_first_value, fastest_first_value_given_replies,
    odd_quadrants, weighted_replies,
};
use crate::pvs::principal_variation;
use crate::stability::StabilityInstructions;
use crate::tt::{NO_MOVE, TranspositionTable};

/// At most this many empties: no transposition table, no move sorting.
pub const SHALLOW_MAX_EMPTIES: u32 = 6;
/// From this many empties on, positions are stored in the transposition table.
/// 9 rather than 8: 4 % more nodes but 2 % less time on FFO #45 and #49
/// (`farm-bench`, 5 alternated pairs, twice): fewer table misses.
pub const TT_MIN_EMPTIES: u32 = 9;
/// From this many empties on, children are probed for transposition cutoffs.
/// 11 rather than 10: 0.6 % more nodes, 0.985x time on FFO #40–#49 (3 pairs)
/// and 0.989x on #45 and #49 (4 pairs); at 10 empties the children's table
/// entries have rarely arrived yet and few probes cut.
pub const ETC_MIN_EMPTIES: u32 = 11;
/// From this many empties on, the hash move is searched before the other
/// moves are generated and ordered.
pub const HASH_MOVE_FIRST_MIN_EMPTIES: u32 = TT_MIN_EMPTIES;
/// From this many empties on, threads put off moves another thread is
/// searching (see [`crate::busy`]); below, the subtrees are too small for
/// the bookkeeping to pay.
pub const BUSY_MIN_EMPTIES: u32 = 12;
/// From this many empties on, moves are ordered by a shallow search too.
pub const SHALLOW_SORT_MIN_EMPTIES: u32 = 12;
/// Weight of the shallow-search value relative to the fastest-first value.
pub const SHALLOW_SORT_WEIGHT: i32 = 1;
/// The shallow-search depth grows by one ply every this many extra empties.
pub const SHALLOW_SORT_EMPTIES_PER_PLY: u32 = 2;
/// Ordering searches resolve values only down to alpha minus this (centi-discs).
pub const SHALLOW_SORT_MARGIN: i32 = 800;
/// Whether the ordering searches use the full pattern evaluation (see
/// [`shallow_search`](crate::ordering::shallow_search)): more accurate, but its cost outweighs the nodes it
/// saves (FFO #40–#49 from 12 empties: 24 % fewer nodes, 1.21x the time);
/// without, they use the edge and corner patterns only.
pub const ENDGAME_ORDERING_WITH_PATTERNS: bool = false;
/// Beyond any evaluation or terminal score.
const EVAL_INFINITY: i32 = 1 << 20;
/// The deepest ordering search (reached at 22 empties). 5 rather than 6:
/// FFO #48–#52 2.2 % fewer nodes (#48 +16 %, #49 −9 %, #50 −3.7 %), and the
/// ordering costs less: FFO #46–#47 0.986x the instructions (callgrind), same
/// nodes. 4 cost more (#46–#47: 27 % more nodes, 1.11x the instructions).
pub const SHALLOW_SORT_MAX_DEPTH: u32 = 5;
/// Up to this many empties, only the [`SHALLOW_SORT_CANDIDATES`] best moves
/// by the cheap ordering value get an ordering
/// search; the others are searched after them, in cheap-value order. A cut
/// comes from one of the first few moves or from none (then every move is
/// searched whatever the order), so the ordering searches of the rest were
/// mostly wasted. FFO #50–#53: 4 % more nodes, 0.93x the time; K = 4 or 6
/// and 17 or 21 empties were within 2 % of it, every move sorted up to 64
/// empties slower (see the book).
pub const SHALLOW_SORT_ALL_MAX_EMPTIES: u32 = 19;
/// See [`SHALLOW_SORT_ALL_MAX_EMPTIES`].
pub const SHALLOW_SORT_CANDIDATES: usize = 5;
/// Puts a move without an ordering search after every move with one.
const UNSORTED_PENALTY: i32 = 2 * EVAL_INFINITY;
/// Puts first a move whose position a selective search (bounds not trusted
/// by an exact one) found to fail high here.
const SELECTIVE_REFUTATION_BONUS: i32 = 8 * EVAL_INFINITY;
/// Up to this many empties, a move leaving the opponent at most one reply
/// (corners counted twice) is searched as soon as it is found, under a null
/// window (see [`Solver::search`]). FFO #45–#52: 0.982x the time (3 pairs),
/// the same nodes within 0.2 %; up to 10 or 16 empties were no better.
const QUICK_REPLY_MAX_EMPTIES: u32 = 13;
/// How many nodes pass between two looks at the clock.
pub const NODES_PER_CLOCK_CHECK: u64 = 1 << 14;

/// Room for the moves of every node on a search path: at most 60 plies plus
/// passes, each with at most [`MAX_MOVES`] moves.
const MOVE_STACK_SIZE: usize = 128 * MAX_MOVES;

/// Stability cutoffs pay only when alpha is high enough for the opponent's
/// stable discs to matter; by empties (Edax's thresholds).
const STABILITY_THRESHOLD: [i32; 65] = [
    99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50, 52,
    52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 64, 64, 64, 64, 64,
];

/// The exact solver. Borrow a transposition table, search, read `nodes`.
pub struct Solver<'a> {
    tt: &'a TranspositionTable,
    /// Positions visited so far.
    pub nodes: u64,
    deadline: Option<Instant>,
    next_clock_check: u64,
    aborted: bool,
    /// The moves of every [`Solver::search`] node on the current path, so that
    /// no node has to initialise a move array of its own.
    move_stack: Vec<ScoredMove>,
    stack_top: usize,
    /// How sure a cut must be ([`mpc::SELECTIVITIES`] index; [`mpc::EXACT`]
    /// for none: an exact solve).
    selectivity: usize,
    stop: Option<&'a AtomicBool>,
    /// `(k, n)`: the root moves are searched from the `k·moves/n`-th best
    /// on, wrapping round (see [`Solver::with_root_start`]).
    root_start: (usize, usize),
    /// Shared with the other threads of a multi-threaded search.
    busy: Option<&'a BusyTable>,
    /// Bounds of the nodes below [`TT_MIN_EMPTIES`].
    local_table: LocalTable,
    /// The AVX-512 copy of the hot code, if this processor runs it
    /// ([`crate::instruction_set`]); else the build's own.
    avx512: Option<Avx512>,
}

/// The solver's recursion compiled for one instruction set
/// ([`crate::instruction_set`]): the provided methods are [`Baseline`]'s, the
/// build's own code; `crate::dispatch` gives the AVX-512 copy.
pub(crate) trait SolverInstructions: OrderingInstructions + StabilityInstructions {
    /// [`Solver::search`].
    fn search(self, solver: &mut Solver<'_>, player: u64, opponent: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        solver.search_with(self, player, opponent, alpha, beta, passed)
    }

    /// The solver's search of 5 or more empties below its table's reach.
    #[allow(clippy::too_many_arguments)]
    fn shallow_with_parity(
        self,
        solver: &mut Solver<'_>,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        passed: bool,
        odd: u64,
    ) -> i32 {
        solver.shallow_with_parity_with(self, player, opponent, alpha, beta, passed, odd)
    }

    /// The solver's search of 4 empties.
    #[allow(clippy::too_many_arguments)]
    fn solve_4(
        self,
        solver: &mut Solver<'_>,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        squares: [usize; 4],
        passed: bool,
    ) -> i32 {
        solver.solve_4_with(self, player, opponent, alpha, beta, squares, passed)
    }
}

impl SolverInstructions for Baseline {}

impl<'a> Solver<'a> {
    pub fn new(tt: &'a TranspositionTable) -> Solver<'a> {
        Solver {
            tt,
            nodes: 0,
            deadline: None,
            next_clock_check: NODES_PER_CLOCK_CHECK,
            aborted: false,
            move_stack: vec![ScoredMove::default(); MOVE_STACK_SIZE],
            stack_top: 0,
            selectivity: mpc::EXACT,
            stop: None,
            root_start: (0, 1),
            busy: None,
            local_table: LocalTable::new(),
            avx512: detected_avx512(),
        }
    }

    /// Runs the build's own code even where AVX-512 is available (the
    /// results are the same; for tests and comparisons).
    pub fn with_baseline_instructions(mut self) -> Solver<'a> {
        self.avx512 = None;
        self
    }

    /// Whether this solver runs the AVX-512 copy of its code.
    pub fn uses_avx512(&self) -> bool {
        self.avx512.is_some()
    }

    /// Gives up (see [`Solver::aborted`]) once `stop` is set (a helper
    /// thread's signal that the main thread has finished).
    pub fn with_stop(mut self, stop: &'a AtomicBool) -> Solver<'a> {
        self.stop = Some(stop);
        self
    }

    /// Makes this solver thread `index` of `threads` searching the same
    /// position (lazy SMP): it tries the root moves from the
    /// `index·moves/threads`-th best on, wrapping round. The threads then
    /// prove different root moves first, and each finds the others' proofs
    /// in the shared table when it gets there; in the same order they would
    /// search the same moves at the same time, which was measured to gain
    /// nothing on two cores.
    pub fn with_root_start(mut self, index: usize, threads: usize) -> Solver<'a> {
        self.root_start = (index, threads.max(1));
        self
    }

    /// Shares `busy` with the other threads searching the same position:
    /// from [`BUSY_MIN_EMPTIES`] on, moves another thread is searching are
    /// put off to the end of their node's move loop.
    pub fn with_busy_table(mut self, busy: &'a BusyTable) -> Solver<'a> {
        self.busy = Some(busy);
        self
    }

    /// Gives up (see [`Solver::aborted`]) once `deadline` has passed.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Solver<'a> {
        self.deadline = deadline;
        self
    }

    /// Searches from now on cut subtrees that a shallow search says, with the
    /// confidence of [`mpc::SELECTIVITIES`]`[selectivity]`, fail outside the
    /// window (Multi-ProbCut); [`mpc::EXACT`] for exact results again. The
    /// table keeps which selectivity each bound was found at: a bound found
    /// with cuts never decides an exact search (its best move still orders it).
    pub fn set_selectivity(&mut self, selectivity: usize) {
        self.selectivity = selectivity.min(mpc::EXACT);
    }

    /// The table "depth" of a result at this many empties: selectivity first,
    /// so that exact results outrank selective ones.
    #[inline(always)]
    fn quality(&self, empties: u32) -> u32 {
        self.selectivity as u32 * mpc::QUALITY_STEP + empties
    }

    /// Whether a stored result is sure enough for the current search.
    #[inline(always)]
    fn trusted(&self, stored_depth: u8) -> bool {
        stored_depth as u32 >= self.selectivity as u32 * mpc::QUALITY_STEP
    }

    /// The deadline passed during a search: its results are meaningless.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// The exact score within the window (`alpha`, `beta`) and the best move
    /// (`None` for a pass or a finished game), searching the root moves in order.
    /// Fail-soft: a score ≤ alpha is an upper bound, ≥ beta a lower bound.
    pub fn solve_root(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32) -> (i32, Option<usize>) {
        match self.avx512 {
            Some(isa) => self.solve_root_with(isa, player, opponent, alpha, beta),
            None => self.solve_root_with(Baseline, player, opponent, alpha, beta),
        }
    }

    fn solve_root_with<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, Option<usize>) {
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return (final_score(player, opponent), None);
            }
            return (-isa.search(self, opponent, player, -beta, -alpha, true), None);
        }
        let mut list = self.ordered_moves(isa, player, opponent, moves);
        let mut ordered = [ScoredMove::default(); MAX_MOVES];
        let mut count = 0;
        while let Some(m) = list.next_best() {
            ordered[count] = m;
            count += 1;
        }
        let (index, threads) = self.root_start;
        ordered[..count].rotate_left(index * count / threads % count);
        let mut best_score = -SCORE_MAX - 1;
        let mut best_move = None;
        let mut first = true;
        for &m in &ordered[..count] {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let score = if first {
                -isa.search(self, next_player, next_opponent, -beta, -alpha, false)
            } else {
                let probe = -isa.search(self, next_player, next_opponent, -alpha - 1, -alpha, false);
                if probe > alpha && probe < beta {
                    -isa.search(self, next_player, next_opponent, -beta, -probe, false)
                } else {
                    probe
                }
            };
            first = false;
            if self.aborted {
                return (0, None);
            }
            if score > best_score {
                best_score = score;
                best_move = Some(m.square as usize);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        (best_score, best_move)
    }

    fn ordered_moves<I: SolverInstructions>(&mut self, isa: I, player: u64, opponent: u64, moves: u64) -> MoveList {
        let empties = (!(player | opponent)).count_ones();
        let hash_move = self.tt.probe(player, opponent).map_or(NO_MOVE, |e| e.best_move);
        let odd = odd_quadrants(!(player | opponent));
        let mut list = MoveList::new(player, opponent, moves);
        let sort_depth = if empties >= SHALLOW_SORT_MIN_EMPTIES {
            Some(((empties - SHALLOW_SORT_MIN_EMPTIES) / SHALLOW_SORT_EMPTIES_PER_PLY).min(SHALLOW_SORT_MAX_DEPTH))
        } else {
            None
        };
        list.score(|m| {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let mut value = fastest_first_value(next_player, next_opponent, m.square, odd, hash_move);
            if let Some(depth) = sort_depth {
                value -= SHALLOW_SORT_WEIGHT
                    * isa.shallow_search::<ENDGAME_ORDERING_WITH_PATTERNS>(
                        next_player,
                        next_opponent,
                        depth,
                        -i32::MAX / 2,
                        i32::MAX / 2,
                    );
            }
            value
        });
        list
    }

    #[inline(always)]
    fn clock_check(&mut self) {
        if self.nodes >= self.next_clock_check {
            self.next_clock_check = self.nodes + NODES_PER_CLOCK_CHECK;
            if self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
            {
                self.aborted = true;
            }
        }
    }

    /// The score of a position with more than [`SHALLOW_MAX_EMPTIES`] empties
    /// (or fewer: it hands over), principal-variation search with the table.
    pub fn search(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        match self.avx512 {
            Some(isa) => isa.search(self, player, opponent, alpha, beta, passed),
            None => Baseline.search(self, player, opponent, alpha, beta, passed),
        }
    }

    /// [`Solver::search`]'s body, compiled once per instruction set (see
    /// [`crate::instruction_set`]); it recurses through `isa`.
    #[inline(always)]
    pub(crate) fn search_with<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        mut beta: i32,
        passed: bool,
    ) -> i32 {
        let empty = !(player | opponent);
        let empties = empty.count_ones();
        if empties <= SHALLOW_MAX_EMPTIES {
            return self.shallow(isa, player, opponent, alpha, beta, passed);
        }
        self.nodes += 1;
        self.clock_check();
        if self.aborted {
            return 0;
        }

        // Stability cutoff: the opponent's stable discs cap our result.
        if alpha >= STABILITY_THRESHOLD[empties as usize] {
            let ceiling = SCORE_MAX - 2 * isa.stable_discs(opponent, player).count_ones() as i32;
            if ceiling <= alpha {
                return ceiling;
            }
            beta = beta.min(ceiling);
        }

        // Bounds from an earlier visit: the shared transposition table's
        // (with its best move), or below TT_MIN_EMPTIES the solver's own.
        let mut hash_move = NO_MOVE;
        let known = if empties >= TT_MIN_EMPTIES {
            self.tt.probe(player, opponent).map(|entry| {
                hash_move = entry.best_move;
                if self.trusted(entry.depth) {
                    (entry.lower as i32, entry.upper as i32)
                } else {
                    (-SCORE_MAX, SCORE_MAX)
                }
            })
        } else {
            self.local_table.probe(player, opponent, empties)
        };
        if let Some((lower, upper)) = known {
            if lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            if lower == upper {
                return lower;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }

        // Multi-ProbCut: a shallow search far enough outside the window
        // predicts the result (selective searches only).
        if self.selectivity < mpc::EXACT
            && empties >= mpc::MIN_EMPTIES
            && let Some(score) = mpc::probcut(isa, player, opponent, empties, alpha, beta, self.selectivity)
        {
            return score;
        }

        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if passed {
                return final_score(player, opponent);
            }
            return -isa.search(self, opponent, player, -beta, -alpha, true);
        }

        // The table's best move first, before the other moves are even
        // generated: it cuts off often, and then their ordering (a shallow
        // search each from SHALLOW_SORT_MIN_EMPTIES on) is never paid for.
        let window_alpha = alpha;
        let mut best = (-SCORE_MAX - 1, NO_MOVE);
        let mut moves = moves;
        if empties >= HASH_MOVE_FIRST_MIN_EMPTIES && hash_move != NO_MOVE && moves & (1u64 << hash_move) != 0 {
            let square = hash_move as usize;
            let (next_player, next_opponent) = play(player, opponent, square, flips(player, opponent, square));
            let score = -isa.search(self, next_player, next_opponent, -beta, -alpha, false);
            if self.aborted {
                return 0;
            }
            best = (score, hash_move);
            moves &= !(1u64 << hash_move);
            if score >= beta || moves == 0 {
                return self.stored(player, opponent, empties, window_alpha, beta, score, hash_move);
            }
            alpha = alpha.max(score);
        }

        // This node's (other) moves go on the shared move stack: [base, end).
        let base = self.stack_top;
        let mut end = base;
        // Children that will probe the table get their buckets fetched now,
        // while the moves are scored.
        let prefetch_children = empties > TT_MIN_EMPTIES;
        for square in Bits(moves) {
            let flipped = flips(player, opponent, square);
            if prefetch_children {
                let (next_player, next_opponent) = play(player, opponent, square, flipped);
                self.tt.prefetch(next_player, next_opponent);
            }
            self.move_stack[end] = ScoredMove { square: square as u8, flipped, value: 0 };
            end += 1;
        }

        let odd = odd_quadrants(empty);
        let sort_depth = (empties >= SHALLOW_SORT_MIN_EMPTIES)
            .then(|| ((empties - SHALLOW_SORT_MIN_EMPTIES) / SHALLOW_SORT_EMPTIES_PER_PLY).min(SHALLOW_SORT_MAX_DEPTH));
        // Ordering searches need exact values only for moves that may reach alpha.
        let sort_alpha = alpha * EVAL_SCALE - SHALLOW_SORT_MARGIN;
        // Under a null window at few empties, a move leaving the opponent
        // at most one reply is searched at once (Egaroucid's shortcut): it
        // cuts often, and then the other moves are never scored.
        let quick = empties <= QUICK_REPLY_MAX_EMPTIES && beta == alpha + 1;
        let mut i = base;
        while i < end {
            let m = self.move_stack[i];
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let replies = legal_moves(next_player, next_opponent);
            if quick && weighted_replies(replies) <= 1 {
                self.stack_top = end;
                let score = -isa.search(self, next_player, next_opponent, -beta, -alpha, false);
                self.stack_top = base;
                if self.aborted {
                    return 0;
                }
                if score > best.0 {
                    best = (score, m.square);
                    if score >= beta {
                        return self.stored(player, opponent, empties, window_alpha, beta, score, m.square);
                    }
                }
                end -= 1;
                self.move_stack[i] = self.move_stack[end];
                continue;
            }
            self.move_stack[i].value =
                fastest_first_value_given_replies(next_player, next_opponent, replies, m.square, odd, hash_move);
            i += 1;
        }

        // Enhanced transposition cutoff: a child already known to fail high.
        // Before the ordering searches, which a cut makes needless; children
        // a selective search decided (bounds an exact search does not trust)
        // are put first if they failed high there, last if they failed low,
        // and need no ordering search either.
        let mut decided_by_selective_search = 0u64;
        if empties >= ETC_MIN_EMPTIES {
            for i in base..end {
                let m = self.move_stack[i];
                let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
                if let Some(child) = self.tt.probe(next_player, next_opponent) {
                    if -(child.upper as i32) >= beta {
                        if self.trusted(child.depth) {
                            let (score, square) = (-(child.upper as i32), m.square);
                            return self.stored(player, opponent, empties, window_alpha, beta, score, square);
                        }
                        self.move_stack[i].value += SELECTIVE_REFUTATION_BONUS;
                        decided_by_selective_search |= 1u64 << m.square;
                    } else if -(child.lower as i32) < beta {
                        self.move_stack[i].value -= SELECTIVE_REFUTATION_BONUS;
                        decided_by_selective_search |= 1u64 << m.square;
                    }
                }
            }
        }

        if let Some(depth) = sort_depth {
            // Up to SHALLOW_SORT_ALL_MAX_EMPTIES only the best few moves by
            // the cheap value get an ordering search; the others follow them.
            let threshold = if empties <= SHALLOW_SORT_ALL_MAX_EMPTIES {
                nth_best_value(&self.move_stack[base..end], SHALLOW_SORT_CANDIDATES)
            } else {
                i32::MIN
            };
            for m in &mut self.move_stack[base..end] {
                if m.square == hash_move || decided_by_selective_search & (1u64 << m.square) != 0 {
                    continue;
                }
                if m.value < threshold {
                    m.value -= UNSORTED_PENALTY;
                    continue;
                }
                let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
                m.value -= SHALLOW_SORT_WEIGHT
                    * isa.shallow_search::<ENDGAME_ORDERING_WITH_PATTERNS>(
                        next_player,
                        next_opponent,
                        depth,
                        -EVAL_INFINITY,
                        -sort_alpha,
                    );
            }
        }

        self.stack_top = end;
        let (best_score, best_move) = self.search_moves(isa, player, opponent, alpha, beta, base, end, best);
        self.stack_top = base;
        if self.aborted {
            return 0;
        }
        self.stored(player, opponent, empties, window_alpha, beta, best_score, best_move)
    }

    /// The move loop of [`Solver::search`] over the moves in
    /// `move_stack[base..end]`, best value first: (best score, best move).
    /// `best` is the result of a move searched already (the hash move), or
    /// `(-SCORE_MAX - 1, NO_MOVE)`: then the first move here gets the full window.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn search_moves<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        beta: i32,
        base: usize,
        end: usize,
        best: (i32, u8),
    ) -> (i32, u8) {
        let (mut best_score, mut best_move) = best;
        let full_window_first = best_move == NO_MOVE;
        let empties = 64 - (player | opponent).count_ones();
        let busy = self.busy.filter(|_| empties >= BUSY_MIN_EMPTIES);
        // Moves put off because another thread was searching them.
        let mut deferred = 0u64;
        for next in base..end {
            // Selection sort, one step at a time: cutoffs come early.
            let mut pick = next;
            for i in next + 1..end {
                if self.move_stack[i].value > self.move_stack[pick].value {
                    pick = i;
                }
            }
            self.move_stack.swap(next, pick);
            let m = self.move_stack[next];
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let first = next == base && full_window_first;
            if let Some(busy) = busy
                && !first
                && busy.is_busy(BusyTable::key(next_player, next_opponent))
            {
                deferred |= 1u64 << m.square;
                continue;
            }
            let score = self.search_child(isa, next_player, next_opponent, alpha, beta, first, busy);
            if self.aborted {
                return (best_score, best_move);
            }
            if score > best_score {
                best_score = score;
                best_move = m.square;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        return (best_score, best_move);
                    }
                }
            }
        }
        for square in Bits(deferred) {
            let (next_player, next_opponent) = play(player, opponent, square, flips(player, opponent, square));
            let score = self.search_child(isa, next_player, next_opponent, alpha, beta, false, busy);
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = square as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        (best_score, best_move)
    }

    /// The score of one move's position (the opponent to move) from the
    /// mover's view: the full window for the `first` move, else a null
    /// window and a re-search should it land inside. Marked busy meanwhile
    /// when the threads share a `busy` table.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn search_child<I: SolverInstructions>(
        &mut self,
        isa: I,
        next_player: u64,
        next_opponent: u64,
        alpha: i32,
        beta: i32,
        first: bool,
        busy: Option<&BusyTable>,
    ) -> i32 {
        while_busy(busy, next_player, next_opponent, || {
            principal_variation(first, alpha, beta, |alpha, beta| {
                -isa.search(self, next_player, next_opponent, -beta, -alpha, false)
            })
        })
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn stored(&mut self, player: u64, opponent: u64, empties: u32, alpha: i32, beta: i32, score: i32, best: u8) -> i32 {
        if empties >= TT_MIN_EMPTIES {
            let quality = self.quality(empties);
            self.tt.store(player, opponent, quality, alpha, beta, score, best, SCORE_MAX);
        } else {
            self.local_table.store(player, opponent, empties, alpha, beta, score);
        }
        score
    }
}

/// The `n`-th largest value among `moves` (`i32::MIN` if there are at most
/// `n` moves: then every move qualifies).
fn nth_best_value(moves: &[ScoredMove], n: usize) -> i32 {
    if moves.len() <= n {
        return i32::MIN;
    }
    let mut values = [i32::MIN; MAX_MOVES];
    for (value, m) in values.iter_mut().zip(moves) {
        *value = m.value;
    }
    let values = &mut values[..moves.len()];
    values.sort_unstable_by(|a, b| b.cmp(a));
    values[n - 1]
}

/// A straightforward minimax solver (no pruning tricks) for checking the fast
/// one on small positions.
#[cfg(test)]
pub fn reference_solve(player: u64, opponent: u64) -> i32 {
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return final_score(player, opponent);
        }
        return -reference_solve(opponent, player);
    }
    Bits(moves)
        .map(|square| {
            let (p, o) = play(player, opponent, square, flips(player, opponent, square));
            -reference_solve(p, o)
        })
        .max()
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;
    use othello_sdk::Position;

    /// Random playouts down to `empties` empties, deterministic by seed.
    fn random_position(seed: u64, empties: u32) -> (u64, u64) {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let pos = Position::start();
        let (mut p, mut o) = (pos.player().0, pos.opponent().0);
        while (!(p | o)).count_ones() > empties {
            let moves = legal_moves(p, o);
            if moves == 0 {
                if legal_moves(o, p) == 0 {
                    break;
                }
                (p, o) = (o, p);
                continue;
            }
            xorshift(&mut state);
            let pick = (state % moves.count_ones() as u64) as usize;
            let square = Bits(moves).nth(pick).unwrap();
            (p, o) = play(p, o, square, flips(p, o, square));
        }
        (p, o)
    }

    #[test]
    fn a_helper_threads_order_changes_no_score() {
        for seed in 0..6 {
            let (p, o) = random_position(1000 + seed, BUSY_MIN_EMPTIES + 2);
            let expected = Solver::new(&TranspositionTable::new(16)).solve_root(p, o, -SCORE_MAX, SCORE_MAX).0;
            // Every position two plies down looks busy: the nodes one ply
            // down put off all their moves but the first.
            let busy = BusyTable::new();
            for square in Bits(legal_moves(p, o)) {
                let (p1, o1) = play(p, o, square, flips(p, o, square));
                for reply in Bits(legal_moves(p1, o1)) {
                    let (p2, o2) = play(p1, o1, reply, flips(p1, o1, reply));
                    busy.enter(BusyTable::key(p2, o2));
                }
            }
            let tt = TranspositionTable::new(16);
            let mut helper = Solver::new(&tt).with_root_start(1, 2).with_busy_table(&busy);
            assert_eq!(helper.solve_root(p, o, -SCORE_MAX, SCORE_MAX).0, expected, "seed {seed}");
        }
    }

    #[test]
    fn only_the_best_few_moves_qualify_for_an_ordering_search() {
        let moves = [5, -3, 40, 7, 7, 1].map(|value| ScoredMove { square: 0, flipped: 0, value });
        assert_eq!(nth_best_value(&moves, 3), 7);
        assert_eq!(nth_best_value(&moves, 4), 5);
        // With no more moves than candidates, every move qualifies.
        assert_eq!(nth_best_value(&moves, 6), i32::MIN);
        assert_eq!(nth_best_value(&moves[..2], 5), i32::MIN);
    }

    #[test]
    fn one_solver_keeps_agreeing_with_minimax_across_windows_and_positions() {
        // The bounds a solver keeps near the end (its local table) are shared
        // by every search it does: none may leak into another's result.
        let tt = TranspositionTable::new(12);
        let mut solver = Solver::new(&tt);
        for seed in 0..120 {
            let empties = 7 + (seed % 3) as u32;
            let (p, o) = random_position(5000 + seed, empties);
            let expected = reference_solve(p, o);
            for test in (-8..=8).step_by(2).map(|offset| expected + offset) {
                let score = solver.search(p, o, test - 1, test, false);
                assert_eq!(score >= test, expected >= test, "seed {seed}, test {test}");
            }
            assert_eq!(solver.solve_root(p, o, -SCORE_MAX, SCORE_MAX).0, expected, "seed {seed}");
        }
    }

    #[test]
    fn agrees_with_plain_minimax_on_random_endgames() {
        let tt = TranspositionTable::new(12);
        for seed in 0..300 {
            let empties = 1 + (seed % 11) as u32;
            let (p, o) = random_position(seed, empties);
            let expected = reference_solve(p, o);
            let mut solver = Solver::new(&tt);
            let (score, _) = solver.solve_root(p, o, -SCORE_MAX, SCORE_MAX);
            assert_eq!(score, expected, "seed {seed}, {empties} empties");
            // Null-window tests around the score agree too.
            let mut solver = Solver::new(&tt);
            assert!(solver.search(p, o, expected - 1, expected, false) >= expected);
            assert!(solver.search(p, o, expected, expected + 1, false) <= expected);
        }
    }

    #[test]
    fn the_avx512_copy_visits_the_same_nodes_as_the_build_s_own_code() {
        if detected_avx512().is_none() {
            eprintln!("this processor has no AVX-512 (or ALPHABETA_AVX512=0): only the build's own code is tested");
            return;
        }
        // Selective then exact null-window tests, as a whole solve makes
        // them: every search path (ProbCut, ordering searches, the table,
        // the last empties) runs in both copies.
        let solve = |solver: &mut Solver, p: u64, o: u64| {
            let mut results = Vec::new();
            for selectivity in 0..=mpc::EXACT {
                solver.set_selectivity(selectivity);
                for test in (-6..=6).step_by(2) {
                    results.push(solver.solve_root(p, o, test - 1, test));
                }
            }
            (results, solver.nodes)
        };
        for seed in 0..12 {
            let (p, o) = random_position(9000 + seed, 14 + (seed % 5) as u32);
            let (tt_avx512, tt_baseline) = (TranspositionTable::new(14), TranspositionTable::new(14));
            let mut avx512 = Solver::new(&tt_avx512);
            assert!(avx512.uses_avx512());
            let mut baseline = Solver::new(&tt_baseline).with_baseline_instructions();
            assert!(!baseline.uses_avx512());
            assert_eq!(solve(&mut avx512, p, o), solve(&mut baseline, p, o), "seed {seed}");
        }
    }
}
