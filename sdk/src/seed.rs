//! Where a bot's random numbers start: a fixed seed for reproducible games,
//! else the clock (like the classic `srand(time(NULL))`).
//!
//! The convention the sample bots follow: a plugin reads `OTHELLO_SEED` when a
//! game starts, so `OTHELLO_SEED=42 othello match …` replays the same games.

use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable that fixes the seed of the loaded plugin.
pub const SEED_ENV_VAR: &str = "OTHELLO_SEED";

/// The seed of a new game: `fixed` if given, else `$OTHELLO_SEED` if set, else the clock.
///
/// ```
/// assert_eq!(othello_sdk::game_seed(Some(7)), 7);
/// ```
///
/// # Panics
/// If `$OTHELLO_SEED` is set but not an unsigned integer: the user asked for
/// reproducible games and would silently get others. In the plugin the panic
/// becomes a failed `init` whose `othello_last_error` says why.
pub fn game_seed(fixed: Option<u64>) -> u64 {
    fixed.or_else(seed_from_env).unwrap_or_else(clock_seed)
}

fn seed_from_env() -> Option<u64> {
    let value = std::env::var_os(SEED_ENV_VAR)?;
    let text = value.to_string_lossy();
    match text.trim().parse() {
        Ok(seed) => Some(seed),
        Err(_) => panic!("{SEED_ENV_VAR}={text:?} is not a seed: expected an unsigned integer such as 42"),
    }
}

/// Nanoseconds since the epoch: differs from game to game.
pub fn clock_seed() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64)
}
