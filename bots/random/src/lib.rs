//! # random — the simplest Othello bot
//!
//! Plays a legal move chosen uniformly at random, and passes when it has none.
//! It is the baseline every other bot must beat, and the smallest complete
//! example of a bot written with [`othello_sdk`]: implement [`Bot`] and call
//! [`export_bot!`](othello_sdk::export_bot).
//!
//! ## Seeding
//! Like the C example `sdk/examples/c/random_bot.c` (`srand` in `init`), every
//! game is seeded from the clock unless a seed is fixed. For reproducible games fix the seed:
//! - in Rust, with [`RandomBot::with_seed`];
//! - for the loaded plugin, with the environment variable `OTHELLO_SEED`
//!   (an unsigned integer), read when a game starts (`init`).
//!
//! Either way every game starts from that seed, so the same positions get the
//! same moves.
//!
//! ```
//! use othello_sdk::{Bot, Position, ThinkRequest};
//! use random::RandomBot;
//!
//! let mut bot = RandomBot::with_seed(7);
//! let position = Position::start();
//! let mv = bot.think(&ThinkRequest { position, time_limit: None });
//! assert!(position.is_legal(mv));
//! ```

use othello_sdk::{Bot, Move, ThinkRequest};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

pub use othello_sdk::SEED_ENV_VAR;

/// Plays uniformly random legal moves.
pub struct RandomBot {
    /// Set by [`RandomBot::with_seed`]; `None` = `OTHELLO_SEED` or the clock.
    fixed_seed: Option<u64>,
    rng: SmallRng,
}

impl RandomBot {
    /// A bot that starts every game from `seed`: reproducible.
    pub fn with_seed(seed: u64) -> RandomBot {
        RandomBot { fixed_seed: Some(seed), rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Default for RandomBot {
    /// Seeded from the clock until a game starts (`new_game`).
    fn default() -> RandomBot {
        RandomBot { fixed_seed: None, rng: SmallRng::seed_from_u64(othello_sdk::clock_seed()) }
    }
}

impl Bot for RandomBot {
    const NAME: &'static str = "Random";

    fn new_game(&mut self) {
        self.rng = SmallRng::seed_from_u64(othello_sdk::game_seed(self.fixed_seed));
    }

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let moves = request.position.legal_moves();
        if moves.is_empty() {
            return Move::Pass;
        }
        let pick = self.rng.random_range(0..moves.count() as usize);
        moves.into_iter().nth(pick).map_or(Move::Pass, Move::Play)
    }
}

othello_sdk::export_bot!(RandomBot);
