//! # mcts — Monte Carlo tree search
//!
//! Knows nothing about Othello strategy: it plays many games to the end with
//! random moves and prefers the moves that won most often. Each iteration of
//! UCT (Kocsis and Szepesvári 2006) does four steps on a tree of positions
//! rooted at the position to play:
//!
//! 1. **Select**: from the root, go down to the child with the highest UCB1
//!    value `x̄ᵢ + √(2 ln N / nᵢ)`, where `x̄ᵢ` is the share of points the
//!    child's mover won, `nᵢ` its visits and `N` its parent's. Rarely tried
//!    moves get a bonus, so the search balances checking promising moves
//!    (exploitation) against trying the others (exploration).
//! 2. **Expand**: a leaf visited before gets one child per legal move (or a
//!    single pass).
//! 3. **Simulate**: play a random game from the new node to the end
//!    ([`playout`], on raw bitboards: about a million games a second).
//! 4. **Back up**: add the result to every node on the path, from the view of
//!    the side that moved into it.
//!
//! When the time is up it plays the most visited move. Nodes live in one
//! arena (`Vec`, linked by indices: [`tree`]), and the tree is kept between
//! moves: the next search starts from the node of the position after our move
//! and the opponent's reply, with all the playouts already made below it.
//!
//! It searches for 90 % of the host's time limit (1 s with no limit).
//! Levels 1..=5 cap the playouts per move (see [`PLAYOUTS_PER_LEVEL`]); level
//! 5, the default, has no cap. The search info reports the win rate of the
//! move played (the mover's view), the playouts of this move as `nodes` and
//! the deepest leaf as `depth`.
//!
//! ## Analysis
//! [`analyze`] gives the win rate of every legal move (the optional analysis export), searched
//! at full strength for the time given.
//!
//! ## Seeding
//! The playouts' random generator is seeded from the clock at every game. Fix
//! the seed with [`MctsBot::with_seed`] or, for the loaded plugin, with the
//! environment variable `OTHELLO_SEED` (an unsigned integer, read when a game
//! starts). A fixed seed gives the same moves only if the playout cap, not the
//! clock, ends each search ([`MctsBot::with_playout_budget`]).
//!
//! ```
//! use othello_sdk::{Bot, Position, ThinkRequest};
//! use mcts::MctsBot;
//!
//! let mut bot = MctsBot::with_seed(1).with_playout_budget(2000);
//! let position = Position::start();
//! let mv = bot.think(&ThinkRequest { position, time_limit: None });
//! assert!(position.is_legal(mv));
//! let info = bot.search_info().unwrap();
//! assert_eq!(info.nodes, Some(2000));
//! ```

pub mod analyze;
pub mod playout;
pub mod tree;

use std::time::{Duration, Instant};

use othello_sdk::{Bot, Move, MoveValue, SearchInfo, Square, ThinkRequest};

use crate::playout::LANES;
use crate::tree::{Node, Tree};
use othello_sdk::SplitMix64;

pub use othello_sdk::SEED_ENV_VAR;

/// Playouts per move at levels 1..=5 (the host's time limit applies too).
pub const PLAYOUTS_PER_LEVEL: [u64; 5] = [100, 1_000, 10_000, 100_000, u64::MAX];

/// The search time when the host sets no limit.
pub const DEFAULT_THINK_TIME: Duration = Duration::from_secs(1);

/// The share of the host's time limit to search for; the rest covers choosing
/// the move, returning and the host's own bookkeeping.
pub const TIME_LIMIT_SHARE: f64 = 0.9;

/// Reading the clock costs about as much as a few moves of a playout: read it
/// once per this many playouts (well under a millisecond).
pub const PLAYOUTS_PER_CLOCK_CHECK: u64 = 64;

/// A UCT player with random playouts.
#[derive(Debug)]
pub struct MctsBot {
    /// Set by [`MctsBot::with_seed`]; `None` = `OTHELLO_SEED` or the clock.
    fixed_seed: Option<u64>,
    rng: SplitMix64,
    tree: Tree,
    playout_budget: u64,
    last_search: Option<SearchInfo>,
}

impl Default for MctsBot {
    /// Full strength, seeded from the clock until a game starts (`new_game`).
    fn default() -> MctsBot {
        MctsBot {
            fixed_seed: None,
            rng: SplitMix64::new(othello_sdk::clock_seed()),
            tree: Tree::default(),
            playout_budget: PLAYOUTS_PER_LEVEL[PLAYOUTS_PER_LEVEL.len() - 1],
            last_search: None,
        }
    }
}

impl MctsBot {
    /// A bot that starts every game from `seed`.
    pub fn with_seed(seed: u64) -> MctsBot {
        MctsBot { fixed_seed: Some(seed), rng: SplitMix64::new(seed), ..MctsBot::default() }
    }

    /// Caps the playouts per move (the time limit still applies).
    pub fn with_playout_budget(mut self, playouts: u64) -> MctsBot {
        self.playout_budget = playouts;
        self
    }

    /// The search tree, as the last `think` left it (for tests and tools).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Runs playouts until the budget is spent or the deadline passes;
    /// returns the playouts run and the deepest leaf reached.
    fn search(&mut self, deadline: Instant) -> (u64, usize) {
        let (mut playouts, mut deepest) = (0, 0);
        let mut next_clock_check = PLAYOUTS_PER_CLOCK_CHECK;
        while playouts < self.playout_budget {
            // Whole batches of side-by-side playouts, then single ones to
            // spend the budget exactly.
            let depth = if self.playout_budget - playouts >= LANES as u64 {
                playouts += LANES as u64;
                self.tree.iterate::<LANES>(&mut self.rng)
            } else {
                playouts += 1;
                self.tree.iterate::<1>(&mut self.rng)
            };
            deepest = deepest.max(depth);
            if playouts >= next_clock_check {
                if Instant::now() >= deadline {
                    break;
                }
                next_clock_check += PLAYOUTS_PER_CLOCK_CHECK;
            }
        }
        (playouts, deepest)
    }

    /// The most visited move at the root (ties: the better mean).
    fn most_visited(&self) -> Option<&Node> {
        self.tree.root_children().iter().max_by(|a, b| a.visits.cmp(&b.visits).then(a.mean().total_cmp(&b.mean())))
    }
}

impl Bot for MctsBot {
    const NAME: &'static str = "MCTS";
    const LEVELS: u32 = PLAYOUTS_PER_LEVEL.len() as u32;

    /// Forgets the tree (keeping its memory) and reseeds; keeps the level.
    fn new_game(&mut self) {
        self.tree.clear();
        self.rng = SplitMix64::new(othello_sdk::game_seed(self.fixed_seed));
        self.last_search = None;
    }

    fn set_level(&mut self, level: u32) {
        let index = (level.clamp(1, Self::LEVELS) - 1) as usize;
        self.playout_budget = PLAYOUTS_PER_LEVEL[index];
    }

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let started = Instant::now();
        let position = request.position;
        self.tree.set_root(position.player().0, position.opponent().0);
        let moves = position.legal_moves();

        // With one move or none there is nothing to search.
        let playouts = if moves.count() > 1 {
            let time = request.time_limit.unwrap_or(DEFAULT_THINK_TIME).mul_f64(TIME_LIMIT_SHARE);
            Some(self.search(started + time))
        } else {
            None
        };

        let chosen = self.most_visited().copied();
        let mv = match chosen {
            Some(node) => Square::new(node.mv).map_or(Move::Pass, Move::Play),
            // Not searched (or not even one expansion in time): any legal move.
            None => moves.first().map_or(Move::Pass, Move::Play),
        };
        self.last_search = Some(SearchInfo {
            win_rate: chosen.filter(|node| node.visits > 0 && mv != Move::Pass).map(|node| node.mean()),
            nodes: Some(playouts.map_or(0, |(playouts, _)| playouts)),
            depth: playouts.map(|(_, deepest)| deepest as u32),
            ..SearchInfo::default()
        });
        mv
    }

    fn search_info(&self) -> Option<SearchInfo> {
        self.last_search
    }

    /// The win rate of every legal move ([`analyze`]); the visits of each move are its "depth".
    fn analyze(&mut self, request: &ThinkRequest) -> Option<Vec<MoveValue>> {
        Some(analyze::analyze(&mut self.tree, &mut self.rng, &request.position, request.time_limit))
    }
}

othello_sdk::export_bot!(MctsBot, analysis);
