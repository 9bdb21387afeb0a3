//! # alphabeta: the strongest sample bot
//!
//! Iterative deepening principal-variation search with a transposition table,
//! a hand-written evaluation (mobility, potential mobility, corners and their
//! X/C neighbours, edge stability, parity) and an exact endgame solver that
//! takes over when the remaining empties can be solved in time.
//!
//! | file | concept |
//! |---|---|
//! | `board.rs` | bitboard helpers |
//! | `eval.rs` | the evaluation |
//! | `patterns.rs` | trained pattern tables (weights in `weights/patterns.bin`) |
//! | `stability.rs` | stable discs |
//! | `ordering.rs` | move ordering |
//! | `tt.rs` | transposition table |
//! | `table_memory.rs` | the tables' memory, in 2 MiB pages on Linux |
//! | `search.rs` | midgame search, [`Searcher`] |
//! | `endgame.rs` | exact solver (`endgame/`: the last empties, a small table of its own, the whole solve) |
//! | `mpc.rs` | Multi-ProbCut: selective searches before the exact one |
//! | `instruction_set.rs` | the solver's hot code compiled for AVX-512 too, chosen at run time |
//! | `time.rs` | time management |
//! | `level.rs` | strength levels |
//! | `book.rs` | the opening book (built by the bot's own search, shipped in `book/book.bin`) |
//! | `analyze.rs` | the value of every legal move (the analysis export) |
//! | `threads.rs` | how many search threads (`ALPHABETA_THREADS`, default 1) |
//! | `busy.rs` | positions other threads are searching (lazy SMP's move deferral) |
//!
//! ## A move, step by step ([`AlphaBetaBot::think`])
//! 1. No legal move: pass.
//! 2. At the strong levels, a position of the opening book ([`book`]) gets
//!    the book's move at once.
//! 3. The clock ([`time::Clock`]) turns the host's limit (1 s if none) into a
//!    hard budget (70 % of it, minus a small margin) and a soft one.
//! 4. Iterative deepening midgame search up to the level's depth; no new
//!    iteration starts after the soft mark, and the hard mark stops a search
//!    at once (the previous iteration's move is played).
//! 5. If few enough empties remain for the level and the budget
//!    ([`time::solvable_empties`]), the midgame search only gets a short
//!    share of the budget and the exact solver takes the rest; if it finishes,
//!    its move is played and the report is exact.
//!
//! ## Levels
//! [`LEVEL_COUNT`] levels ([`level`]): level 1 looks one move ahead with a lot
//! of random noise on its move scores and never solves (a beginner can win);
//! each level searches deeper with less noise and solves more empties; the top
//! level is full strength. Levels 9 and 10 play the opening book's moves
//! (positions of the usual openings, searched ahead of time to depth 10).
//!
//! ## As a library
//! [`Searcher::solve`] solves a position exactly (deterministic: same
//! position, same move, score and node count); [`Searcher::search`] runs an
//! iterative-deepening search to fixed limits (depth, nodes, deadlines).

pub mod analyze;
pub mod board;
pub mod book;
pub mod busy;
mod dispatch;
pub mod endgame;
pub mod eval;
pub mod instruction_set;
pub mod level;
pub mod mpc;
pub mod ordering;
pub mod patterns;
pub mod pvs;
pub mod search;
pub mod stability;
mod table_memory;
pub mod threads;
pub mod time;
pub mod tt;

use othello_sdk::{Bot, Move, MoveValue, SearchInfo, ThinkRequest};

pub use endgame::Solution;
pub use level::{LEVEL_COUNT, Level};
pub use search::{Limits, SearchResult, Searcher};

use crate::eval::score_to_discs;
use crate::time::{Clock, solvable_empties};

/// The bot the plugin exports.
pub struct AlphaBetaBot {
    searcher: Searcher,
    level: Level,
    rng: u64,
    info: Option<SearchInfo>,
}

impl Default for AlphaBetaBot {
    fn default() -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x1234_5678, |d| d.as_nanos() as u64);
        AlphaBetaBot::with_seed(seed)
    }
}

impl AlphaBetaBot {
    /// A bot whose level noise is reproducible.
    pub fn with_seed(seed: u64) -> AlphaBetaBot {
        let mut searcher = Searcher::new();
        searcher.set_threads(threads::threads_from_env());
        AlphaBetaBot { searcher, level: Level::strongest(), rng: seed | 1, info: None }
    }

    /// The next pseudo-random number (xorshift64).
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Root noise for this move, or `None` at levels without noise.
    fn noise(&mut self) -> Option<[i32; 64]> {
        let amplitude = self.level.noise;
        if amplitude == 0 {
            return None;
        }
        let mut noise = [0i32; 64];
        for value in &mut noise {
            *value = (self.next_random() % (2 * amplitude as u64 + 1)) as i32 - amplitude;
        }
        Some(noise)
    }

    /// The level in use.
    pub fn level(&self) -> Level {
        self.level
    }
}

impl Bot for AlphaBetaBot {
    const NAME: &'static str = "Alpha-beta";
    const LEVELS: u32 = LEVEL_COUNT;

    fn new_game(&mut self) {
        // Keep the tables (costly to allocate) but forget their contents.
        self.searcher.clear();
        self.info = None;
    }

    fn set_level(&mut self, level: u32) {
        self.level = Level::get(level);
    }

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let clock = Clock::start(request.time_limit);
        let position = request.position;
        if position.legal_moves().is_empty() {
            self.info = Some(SearchInfo { nodes: Some(0), ..SearchInfo::default() });
            return Move::Pass;
        }
        if self.level.book
            && let Some((book_move, score, depth)) = book::builtin_move(&position)
        {
            self.info = Some(SearchInfo {
                eval: Some(score_to_discs(score)),
                exact: false,
                depth: Some(depth),
                nodes: Some(0),
                win_rate: None,
            });
            return book_move;
        }
        let empties = position.empty().count();
        let solve = empties <= self.level.solve_empties.min(solvable_empties(clock.hard_budget()));
        let noise = self.noise();
        self.searcher.set_root_noise(noise);

        // The midgame search: the move to play, or the fallback should the solve not finish.
        let soft_deadline = if solve { clock.fallback_deadline() } else { clock.soft_deadline() };
        let limits = Limits {
            max_depth: self.level.max_depth,
            hard_deadline: Some(clock.hard_deadline()),
            soft_deadline: Some(soft_deadline),
            max_nodes: None,
        };
        let result = self.searcher.search(&position, &limits);
        self.searcher.set_root_noise(None);
        self.info = Some(SearchInfo {
            eval: Some(score_to_discs(result.score)),
            exact: false,
            depth: Some(result.depth),
            nodes: Some(result.nodes),
            win_rate: None,
        });
        if !solve {
            return result.best_move;
        }
        match self.searcher.solve_until(&position, Some(clock.hard_deadline())) {
            Some(solution) => {
                self.info = Some(SearchInfo {
                    eval: Some(solution.score as f64),
                    exact: true,
                    depth: Some(empties),
                    nodes: Some(result.nodes + solution.nodes),
                    win_rate: None,
                });
                solution.best_move
            }
            None => result.best_move,
        }
    }

    fn search_info(&self) -> Option<SearchInfo> {
        self.info
    }

    fn analyze(&mut self, request: &ThinkRequest) -> Option<Vec<MoveValue>> {
        Some(analyze::analyze(&mut self.searcher, &request.position, request.time_limit))
    }
}

othello_sdk::export_bot!(AlphaBetaBot, analysis);
