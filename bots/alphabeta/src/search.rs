//! The midgame search and the [`Searcher`] that owns the tables.
//!
//! Iterative deepening negamax with principal-variation search: the first
//! (best-ordered) move gets the full window, the others a null window that
//! only asks "is it better?", re-searched when it is. A transposition table
//! carries bounds and best moves from one iteration to the next, so each
//! iteration starts with the previous one's best line, inside an aspiration
//! window around the previous score. Multi-ProbCut ([`crate::mpc`]) cuts
//! nodes that a search to half the depth places far outside the window.
//!
//! With [`Searcher::set_threads`] above 1, helper threads run the same
//! search (lazy SMP) on the shared, lock-free tables and stop when the main
//! thread finishes; only the main thread's result is used.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use othello_sdk::{Move, Position, Square, flips, legal_moves};

use crate::board::{Bits, SCORE_MAX, final_score, play};
use crate::busy::{BusyTable, while_busy};
use crate::eval::{EVAL_LIMIT, EVAL_SCALE, terminal_score};
use crate::instruction_set::{Avx512, Baseline, detected_avx512};
use crate::mpc;
use crate::ordering::{MoveList, OrderingInstructions, fastest_first_value, odd_quadrants};
use crate::pvs::principal_variation;
use crate::tt::{NO_MOVE, TranspositionTable};

/// The most threads a search uses.
pub const MAX_THREADS: usize = 64;
/// Default transposition-table sizes (log2 of entries, 32 bytes each).
pub const MIDGAME_TABLE_BITS: u32 = 20;
pub const ENDGAME_TABLE_BITS: u32 = 20;
/// Above any score a search returns.
const INFINITY: i32 = 2 * (EVAL_LIMIT + SCORE_MAX * EVAL_SCALE);
/// From this remaining depth on, threads put off moves another thread is
/// searching (see [`crate::busy`]).
const BUSY_MIN_DEPTH: u32 = 4;
/// From this remaining depth on, moves are ordered by a shallow search too.
const SHALLOW_SORT_MIN_DEPTH: u32 = 4;
/// Remaining depth per ply of ordering search.
const SHALLOW_SORT_DEPTH_DIVISOR: u32 = 4;
/// How many nodes pass between two looks at the clock.
const NODES_PER_CLOCK_CHECK: u64 = 1 << 12;
/// Half the width of the root's aspiration window, in centi-discs.
const ASPIRATION_WINDOW: i32 = 3 * EVAL_SCALE;
/// What a midgame search found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchResult {
    pub best_move: Move,
    /// Evaluation in centi-discs ([`EVAL_SCALE`]) from the mover's view;
    /// beyond ±[`EVAL_LIMIT`] a proven result (see [`crate::eval::score_to_discs`]).
    pub score: i32,
    /// The last depth completed.
    pub depth: u32,
    pub nodes: u64,
}

/// Limits of one iterative-deepening search.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_depth: u32,
    /// Stop at once when reached.
    pub hard_deadline: Option<Instant>,
    /// Start no new iteration after it.
    pub soft_deadline: Option<Instant>,
    /// Start no new iteration after this many nodes (deterministic budgets).
    pub max_nodes: Option<u64>,
}

impl Limits {
    pub fn depth(max_depth: u32) -> Limits {
        Limits { max_depth, hard_deadline: None, soft_deadline: None, max_nodes: None }
    }
}

/// Search state: transposition tables and settings. Reuse one across moves
/// and games (the tables are the costly part to allocate).
pub struct Searcher {
    midgame_tt: TranspositionTable,
    pub(crate) endgame_tt: TranspositionTable,
    /// Per-root-move score offsets (level noise), by square.
    root_noise: Option<[i32; 64]>,
    /// Threads per search (1: no helpers).
    pub(crate) threads: usize,
    /// Whether big solves may grow the endgame table (tables of a size the
    /// caller chose stay that size).
    pub(crate) grow_endgame_table: bool,
}

impl Default for Searcher {
    fn default() -> Self {
        Searcher::new()
    }
}

impl Searcher {
    pub fn new() -> Searcher {
        let mut searcher = Searcher::with_table_bits(MIDGAME_TABLE_BITS, ENDGAME_TABLE_BITS);
        searcher.grow_endgame_table = true;
        searcher
    }

    pub fn with_table_bits(midgame_bits: u32, endgame_bits: u32) -> Searcher {
        Searcher {
            midgame_tt: TranspositionTable::new(midgame_bits),
            endgame_tt: TranspositionTable::new(endgame_bits),
            root_noise: None,
            threads: 1,
            grow_endgame_table: false,
        }
    }

    /// Searches on `threads` threads from now on (at least 1, at most
    /// [`MAX_THREADS`]): lazy SMP, helpers search the same tree and share the
    /// transposition tables, the main thread's result is the answer. With
    /// more than one thread, node counts and (rarely) moves of equal value
    /// vary from run to run.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }

    /// Threads per search.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets all stored results (for a new game).
    pub fn clear(&mut self) {
        self.midgame_tt.clear();
        self.endgame_tt.clear();
    }

    /// Adds `noise[square]` to each root move's score in later searches (weak
    /// levels); `None` for none.
    pub fn set_root_noise(&mut self, noise: Option<[i32; 64]>) {
        self.root_noise = noise;
    }

    /// Iterative deepening to `limits`, returning the result of the deepest
    /// completed iteration (at least depth 1, even past a deadline). Node
    /// counts include the helper threads'.
    pub fn search(&mut self, position: &Position, limits: &Limits) -> SearchResult {
        self.midgame_tt.new_search();
        let tt = &self.midgame_tt;
        if self.threads <= 1 {
            return Worker::new(tt, self.root_noise, None).iterate(position, limits, 0);
        }
        let stop = AtomicBool::new(false);
        let busy = BusyTable::new();
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|helper| {
                    let (stop, busy) = (&stop, &busy);
                    // Helpers keep to the hard deadline only; odd ones start a
                    // ply deeper, so that the threads' trees differ more.
                    let limits = Limits { soft_deadline: None, max_nodes: None, ..*limits };
                    scope.spawn(move || {
                        let mut worker = Worker::new(tt, None, Some(stop));
                        worker.busy = Some(busy);
                        worker.iterate(position, &limits, (helper % 2) as u32);
                        worker.nodes
                    })
                })
                .collect();
            let mut main = Worker::new(tt, self.root_noise, None);
            main.busy = Some(&busy);
            let mut result = main.iterate(position, limits, 0);
            stop.store(true, Ordering::Relaxed);
            result.nodes += helpers.into_iter().map(|h| h.join().unwrap_or(0)).sum::<u64>();
            result
        })
    }
}

/// One thread's midgame search on a shared table.
pub(crate) struct Worker<'a> {
    midgame_tt: &'a TranspositionTable,
    nodes: u64,
    deadline: Option<Instant>,
    next_clock_check: u64,
    aborted: bool,
    /// Per-root-move score offsets (level noise), by square.
    root_noise: Option<[i32; 64]>,
    /// A helper stops when this is set (the main thread has finished).
    stop: Option<&'a AtomicBool>,
    /// Iterations after the first start with an aspiration window.
    aspiration: bool,
    /// Multi-ProbCut on (results then depend a little on the window).
    probcut: bool,
    /// Shared with the other threads of a multi-threaded search (see
    /// [`crate::busy`]).
    busy: Option<&'a BusyTable>,
    /// The AVX-512 copy of the hot code, if this processor runs it
    /// ([`crate::instruction_set`]); else the build's own.
    avx512: Option<Avx512>,
}

/// The midgame search's recursion compiled for one instruction set
/// ([`crate::instruction_set`]): the provided method is [`Baseline`]'s, the
/// build's own code; `crate::dispatch` gives the AVX-512 copy.
pub(crate) trait SearchInstructions: OrderingInstructions {
    /// The midgame search's recursion ([`Worker::negamax_with`]).
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        self,
        worker: &mut Worker<'_>,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        worker.negamax_with(self, player, opponent, depth, alpha, beta, passed)
    }
}

impl SearchInstructions for Baseline {}

impl<'a> Worker<'a> {
    fn new(
        midgame_tt: &'a TranspositionTable,
        root_noise: Option<[i32; 64]>,
        stop: Option<&'a AtomicBool>,
    ) -> Worker<'a> {
        Worker {
            midgame_tt,
            nodes: 0,
            deadline: None,
            next_clock_check: 0,
            aborted: false,
            root_noise,
            stop,
            aspiration: true,
            probcut: true,
            busy: None,
            avx512: detected_avx512(),
        }
    }

    /// The iterative deepening of [`Searcher::search`]; iterations start at
    /// depth `1 + skip` (depth 1 always completes, except in a stopped helper).
    fn iterate(&mut self, position: &Position, limits: &Limits, skip: u32) -> SearchResult {
        match self.avx512 {
            Some(isa) => self.iterate_with(isa, position, limits, skip),
            None => self.iterate_with(Baseline, position, limits, skip),
        }
    }

    /// [`Worker::iterate`] on the instruction set `isa`.
    fn iterate_with<I: SearchInstructions>(
        &mut self,
        isa: I,
        position: &Position,
        limits: &Limits,
        skip: u32,
    ) -> SearchResult {
        let (player, opponent) = (position.player().0, position.opponent().0);
        self.nodes = 0;
        let moves = legal_moves(player, opponent);
        let empties = position.empty().count();
        if moves == 0 {
            let score = if legal_moves(opponent, player) == 0 {
                terminal_score(final_score(player, opponent))
            } else {
                -isa.evaluate(opponent, player)
            };
            return SearchResult { best_move: Move::Pass, score, depth: 0, nodes: 1 };
        }
        let mut result: Option<SearchResult> = None;
        // Searching deeper than the game lasts changes nothing (passes aside).
        let max_depth = limits.max_depth.clamp(1, empties.max(1) + 2);
        for depth in (1 + skip).min(max_depth)..=max_depth {
            // Depth 1 always completes: it is the fallback move.
            self.deadline = if depth == 1 && self.stop.is_none() { None } else { limits.hard_deadline };
            self.aborted = false;
            self.next_clock_check = self.nodes + NODES_PER_CLOCK_CHECK;
            let (score, square) = self.aspirated_root(isa, player, opponent, depth, result.map(|r| r.score));
            if self.aborted {
                break;
            }
            let best_move = Move::Play(Square::new(square).expect("a square"));
            result = Some(SearchResult { best_move, score, depth, nodes: self.nodes });
            let out_of_time = limits.soft_deadline.is_some_and(|soft| Instant::now() >= soft);
            let out_of_nodes = limits.max_nodes.is_some_and(|max| self.nodes >= max);
            if out_of_time || out_of_nodes || score.abs() > EVAL_LIMIT && depth >= empties {
                break;
            }
        }
        // Only a stopped helper can end without a result; nobody reads it.
        let mut result = result.unwrap_or(SearchResult { best_move: Move::Pass, score: 0, depth: 0, nodes: 0 });
        result.nodes = self.nodes;
        result
    }

    /// One iteration at the root with the window (`lower`, `upper`):
    /// (score, best square), fail-soft. Noise needs the full window.
    #[allow(clippy::too_many_arguments)]
    fn root<I: SearchInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        depth: u32,
        lower: i32,
        upper: i32,
    ) -> (i32, u8) {
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        let mut list = self.ordered_moves(isa, player, opponent, moves, depth);
        let noise = self.root_noise;
        let mut alpha = lower;
        let mut best = (-INFINITY, NO_MOVE);
        // With noise the move is chosen by its noised score but reported with its true one: a
        // noised score could leave the evaluation's range and read as a final score.
        let mut best_noised = -INFINITY;
        let mut first = true;
        while let Some(m) = list.next_best() {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let score = match noise {
                // With noise every move needs its true score: full windows.
                Some(noise) => {
                    let score = -isa.negamax(self, next_player, next_opponent, depth - 1, -INFINITY, INFINITY, false);
                    if !self.aborted && score + noise[m.square as usize] > best_noised {
                        best_noised = score + noise[m.square as usize];
                        best = (score, m.square);
                    }
                    first = false;
                    continue;
                }
                None if first => -isa.negamax(self, next_player, next_opponent, depth - 1, -upper, -alpha, false),
                None => {
                    let probe = -isa.negamax(self, next_player, next_opponent, depth - 1, -alpha - 1, -alpha, false);
                    if probe > alpha && probe < upper {
                        -isa.negamax(self, next_player, next_opponent, depth - 1, -upper, -probe, false)
                    } else {
                        probe
                    }
                }
            };
            first = false;
            if self.aborted {
                break;
            }
            if score > best.0 {
                best = (score, m.square);
                alpha = alpha.max(score);
                if alpha >= upper {
                    break;
                }
            }
        }
        // A noised choice's score is not the position's value: the table keeps true values only.
        if !self.aborted && noise.is_none() {
            self.midgame_tt.store(player, opponent, depth, lower, upper, best.0, best.1, INFINITY);
        }
        best
    }

    /// One iteration, first with an aspiration window around the previous
    /// iteration's score (`previous`), searched again with the full window
    /// if the score falls outside it.
    fn aspirated_root<I: SearchInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        depth: u32,
        previous: Option<i32>,
    ) -> (i32, u8) {
        let full = (-INFINITY, INFINITY);
        let window = match previous {
            Some(score) if self.aspiration && self.root_noise.is_none() && score.abs() < EVAL_LIMIT => {
                (score - ASPIRATION_WINDOW, score + ASPIRATION_WINDOW)
            }
            _ => full,
        };
        let result = self.root(isa, player, opponent, depth, window.0, window.1);
        if window != full && !self.aborted && (result.0 <= window.0 || result.0 >= window.1) {
            return self.root(isa, player, opponent, depth, full.0, full.1);
        }
        result
    }

    fn ordered_moves<I: SearchInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        moves: u64,
        depth: u32,
    ) -> MoveList {
        let hash_move = self.midgame_tt.probe(player, opponent).map_or(NO_MOVE, |e| e.best_move);
        let odd = odd_quadrants(!(player | opponent));
        let mut list = MoveList::new(player, opponent, moves);
        let sort_depth =
            (depth >= SHALLOW_SORT_MIN_DEPTH).then(|| (depth - SHALLOW_SORT_MIN_DEPTH) / SHALLOW_SORT_DEPTH_DIVISOR);
        list.score(|m| {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            let mut value = fastest_first_value(next_player, next_opponent, m.square, odd, hash_move);
            if let Some(sort_depth) = sort_depth {
                value -= isa.shallow_search::<true>(next_player, next_opponent, sort_depth, -INFINITY, INFINITY);
            }
            value
        });
        list
    }

    /// The recursion of the midgame search, compiled once per instruction
    /// set (see [`crate::instruction_set`]); it recurses through `isa`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn negamax_with<I: SearchInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
        passed: bool,
    ) -> i32 {
        if depth == 0 {
            self.nodes += 1;
            return isa.evaluate(player, opponent);
        }
        self.nodes += 1;
        if self.nodes >= self.next_clock_check {
            self.next_clock_check = self.nodes + NODES_PER_CLOCK_CHECK;
            if self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
            {
                self.aborted = true;
            }
        }
        if self.aborted {
            return 0;
        }

        if let Some(entry) = self.midgame_tt.probe(player, opponent)
            && entry.depth as u32 >= depth
        {
            {
                let (lower, upper) = (entry.lower as i32, entry.upper as i32);
                if lower >= beta {
                    return lower;
                }
                if upper <= alpha || lower == upper {
                    return upper;
                }
                alpha = alpha.max(lower);
                beta = beta.min(upper);
            }
        }

        // Multi-ProbCut: a search to half the depth far enough outside the
        // window predicts this one's result.
        if self.probcut && depth >= mpc::MIDGAME_MIN_DEPTH && alpha > -EVAL_LIMIT && beta < EVAL_LIMIT {
            let empties = (!(player | opponent)).count_ones();
            let margin = mpc::midgame_margin(empties, depth);
            let shallow = depth / 2;
            let high = beta + margin;
            if high < EVAL_LIMIT && isa.negamax(self, player, opponent, shallow, high - 1, high, passed) >= high {
                return beta;
            }
            let low = alpha - margin;
            if low > -EVAL_LIMIT && isa.negamax(self, player, opponent, shallow, low, low + 1, passed) <= low {
                return alpha;
            }
            if self.aborted {
                return 0;
            }
        }

        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if passed {
                return terminal_score(final_score(player, opponent));
            }
            return -isa.negamax(self, opponent, player, depth, -beta, -alpha, true);
        }

        let original_alpha = alpha;
        let mut list = self.ordered_moves(isa, player, opponent, moves, depth);
        let mut best = (-INFINITY, NO_MOVE);
        let mut first = true;
        let busy = self.busy.filter(|_| depth >= BUSY_MIN_DEPTH);
        // Moves put off because another thread was searching them.
        let mut deferred = 0u64;
        let mut cut = false;
        while let Some(m) = list.next_best() {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            if let Some(busy) = busy
                && !first
                && busy.is_busy(BusyTable::key(next_player, next_opponent))
            {
                deferred |= 1u64 << m.square;
                continue;
            }
            let score = self.child_score(isa, next_player, next_opponent, depth, alpha, beta, first, busy);
            first = false;
            if self.aborted {
                return 0;
            }
            if score > best.0 {
                best = (score, m.square);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        cut = true;
                        break;
                    }
                }
            }
        }
        if !cut {
            for square in Bits(deferred) {
                let (next_player, next_opponent) = play(player, opponent, square, flips(player, opponent, square));
                let score = self.child_score(isa, next_player, next_opponent, depth, alpha, beta, false, busy);
                if self.aborted {
                    return 0;
                }
                if score > best.0 {
                    best = (score, square as u8);
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
        }
        self.midgame_tt.store(player, opponent, depth, original_alpha, beta, best.0, best.1, INFINITY);
        best.0
    }

    /// The score of one move's position (the opponent to move), searched to
    /// `depth - 1`, from the mover's view: the full window for the `first`
    /// move, else a null window and a re-search should it land inside.
    /// Marked busy meanwhile when the threads share a `busy` table.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn child_score<I: SearchInstructions>(
        &mut self,
        isa: I,
        next_player: u64,
        next_opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        first: bool,
        busy: Option<&BusyTable>,
    ) -> i32 {
        while_busy(busy, next_player, next_opponent, || {
            principal_variation(first, alpha, beta, |alpha, beta| {
                -isa.negamax(self, next_player, next_opponent, depth - 1, -beta, -alpha, false)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;

    /// Positions from noisy shallow self-play, reproducible.
    fn midgame_positions() -> Vec<Position> {
        let mut positions = Vec::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..6 {
            let mut position = Position::start();
            for _ in 0..20 {
                let moves: Vec<_> = position.legal_moves().into_iter().collect();
                if moves.is_empty() {
                    break;
                }
                xorshift(&mut state);
                position.play(Move::Play(moves[(state % moves.len() as u64) as usize]));
            }
            positions.push(position);
        }
        positions
    }

    /// Without ProbCut (whose cuts depend on the window) the score of a
    /// search is the same with or without aspiration windows.
    #[test]
    fn aspiration_windows_find_the_full_window_result() {
        for position in midgame_positions() {
            let mut results = Vec::new();
            for aspiration in [true, false] {
                let tt = TranspositionTable::new(16);
                let mut worker = Worker::new(&tt, None, None);
                (worker.aspiration, worker.probcut) = (aspiration, false);
                results.push(worker.iterate(&position, &Limits::depth(6), 0));
            }
            assert_eq!(results[0].score, results[1].score, "{position:?}");
            assert_eq!(results[0].depth, 6);
        }
    }

    /// A window that misses the score on either side is searched again.
    #[test]
    fn a_missed_aspiration_window_is_searched_again() {
        for position in midgame_positions() {
            let (player, opponent) = (position.player().0, position.opponent().0);
            let tt = TranspositionTable::new(16);
            let mut worker = Worker::new(&tt, None, None);
            worker.probcut = false;
            let (score, _) = worker.root(Baseline, player, opponent, 4, -INFINITY, INFINITY);
            for wrong in [score - 20 * EVAL_SCALE, score + 20 * EVAL_SCALE] {
                let tt = TranspositionTable::new(16);
                let mut worker = Worker::new(&tt, None, None);
                worker.probcut = false;
                assert_eq!(worker.aspirated_root(Baseline, player, opponent, 4, Some(wrong)).0, score, "{position:?}");
            }
        }
    }

    #[test]
    fn the_avx512_copy_searches_the_same_tree_as_the_build_s_own_code() {
        if detected_avx512().is_none() {
            eprintln!("this processor has no AVX-512 (or ALPHABETA_AVX512=0): only the build's own code is tested");
            return;
        }
        for position in midgame_positions() {
            let mut results = Vec::new();
            for avx512 in [detected_avx512(), None] {
                let tt = TranspositionTable::new(16);
                let mut worker = Worker::new(&tt, None, None);
                worker.avx512 = avx512;
                results.push(worker.iterate(&position, &Limits::depth(7), 0));
            }
            assert_eq!(results[0], results[1], "{position:?}");
        }
    }
}
