//! # weighted — the classic beginner's bot
//!
//! Knows one thing about Othello: some squares are worth more than others.
//! It plays the legal move whose square has the highest weight in this table,
//! breaking ties at random, and passes when it has no move:
//!
//! ```text
//!     a    b    c    d    e    f    g    h
//! 1  150   10   10   10   10   10   10  150     corners          150
//! 2   10  -64    0    0    0    0  -64   10     X-squares (b2…)  -64
//! 3   10    0    0    0    0    0    0   10     other edges       10
//! …                                             the rest           0
//! 7   10  -64    0    0    0    0  -64   10
//! 8  150   10   10   10   10   10   10  150
//! ```
//!
//! Corners can never be flipped back; an X-square usually gives the opponent
//! the corner next to it. Against uniformly random play this wins about 70 %
//! of the points; it does not look ahead at all.
//!
//! ## Seeding
//! Ties are broken with a random generator seeded from the clock at every game.
//! Fix the seed for reproducible games with [`WeightedBot::with_seed`], or for
//! the loaded plugin with the environment variable `OTHELLO_SEED` (an unsigned
//! integer, read when a game starts).
//!
//! ```
//! use othello_sdk::{Bot, Position, ThinkRequest};
//! use weighted::WeightedBot;
//!
//! // Black (X) can take the corner a1 (flipping b2) or play e3 (flipping d3).
//! let board = format!("-{0}O{0}XO{1} X", "-".repeat(8), "-".repeat(44));
//! let position = Position::from_board_string(&board).unwrap();
//! assert_eq!(position.legal_moves().count(), 2);
//! let mv = WeightedBot::with_seed(1).think(&ThinkRequest { position, time_limit: None });
//! assert_eq!(mv.to_string(), "a1");
//! ```

mod weights;

use othello_sdk::{Bot, Move, Square, ThinkRequest};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

pub use othello_sdk::SEED_ENV_VAR;
pub use weights::{CORNER, EDGE, INNER, WEIGHTS, X_SQUARE, weight};

/// Plays the legal move with the best square weight.
pub struct WeightedBot {
    /// Set by [`WeightedBot::with_seed`]; `None` = `OTHELLO_SEED` or the clock.
    fixed_seed: Option<u64>,
    rng: SmallRng,
}

impl WeightedBot {
    /// A bot that starts every game from `seed`: reproducible.
    pub fn with_seed(seed: u64) -> WeightedBot {
        WeightedBot { fixed_seed: Some(seed), rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Default for WeightedBot {
    /// Seeded from the clock until a game starts (`new_game`).
    fn default() -> WeightedBot {
        WeightedBot { fixed_seed: None, rng: SmallRng::seed_from_u64(othello_sdk::clock_seed()) }
    }
}

impl Bot for WeightedBot {
    const NAME: &'static str = "Weighted";

    fn new_game(&mut self) {
        self.rng = SmallRng::seed_from_u64(othello_sdk::game_seed(self.fixed_seed));
    }

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let moves = request.position.legal_moves();
        let Some(best_weight) = moves.into_iter().map(weight).max() else {
            return Move::Pass;
        };
        let best: Vec<Square> = moves.into_iter().filter(|&square| weight(square) == best_weight).collect();
        Move::Play(best[self.rng.random_range(0..best.len())])
    }
}

othello_sdk::export_bot!(WeightedBot);
