//! Helpers for a bot's own tests (feature `testing`): positions from random
//! games, legality checks, games between bots, and the built plugin library.
//!
//! ```
//! use othello_sdk::testing::{legal_reply, random_game_positions};
//! # #[derive(Default)] struct First;
//! # impl othello_sdk::Bot for First {
//! #     const NAME: &'static str = "First";
//! #     fn think(&mut self, r: &othello_sdk::ThinkRequest) -> othello_sdk::Move {
//! #         r.position.legal_moves().first().map_or(othello_sdk::Move::Pass, othello_sdk::Move::Play)
//! #     }
//! # }
//! for position in random_game_positions(5, 1) {
//!     legal_reply(&mut First, position, None); // panics on an illegal reply
//! }
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::{Bot, Color, Move, Outcome, Position, SplitMix64, ThinkRequest};

/// Every position of `games` uniformly random games from the start, the
/// finished ones excepted: openings, middle games, endgames and forced passes.
/// The same `seed` gives the same positions.
pub fn random_game_positions(games: usize, seed: u64) -> Vec<Position> {
    let mut rng = SplitMix64::new(seed);
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut position = Position::start();
        while !position.is_game_over() {
            positions.push(position);
            let moves = position.legal_moves();
            let mv = match moves.count() {
                0 => Move::Pass,
                n => Move::Play(moves.into_iter().nth(rng.below(n) as usize).expect("n moves")),
            };
            position.play(mv);
        }
    }
    positions
}

/// Asks `bot` for a move in `position`, asserting it is legal.
pub fn legal_reply(bot: &mut impl Bot, position: Position, time_limit: Option<Duration>) -> Move {
    let mv = bot.think(&ThinkRequest { position, time_limit });
    assert!(position.is_legal(mv), "{mv} is illegal in\n{position}");
    mv
}

/// The time `bot` takes to answer `position` with `limit`.
pub fn think_time(bot: &mut impl Bot, position: Position, limit: Duration) -> Duration {
    let started = Instant::now();
    legal_reply(bot, position, Some(limit));
    started.elapsed()
}

/// Plays one game between two bots from `position` (each told a new game
/// starts) and returns black's points: 1 for a win, ½ for a draw, 0 for a loss.
///
/// The two bots must be in the same crate or test: one binary can't link two
/// crates that use `export_bot!`. Play another crate's bot as a plugin.
pub fn play_game(black: &mut impl Bot, white: &mut impl Bot, mut position: Position) -> f64 {
    black.new_game();
    white.new_game();
    while !position.is_game_over() {
        let request = ThinkRequest { position, time_limit: None };
        let mv = match position.side_to_move() {
            Color::Black => black.think(&request),
            Color::White => white.think(&request),
        };
        position.try_play(mv).unwrap_or_else(|e| panic!("{mv} is illegal ({e}) in\n{position}"));
    }
    match position.outcome() {
        Some(Outcome::Win(Color::Black)) => 1.0,
        Some(Outcome::Draw) => 0.5,
        _ => 0.0,
    }
}

/// The plugin library of workspace package `package`, whose library is named
/// `lib_name`, as the running `cargo test` built it; no cargo is run.
///
/// `cargo test` builds a library with `crate-type = ["cdylib", "rlib"]` for
/// the package's tests, both crate types, into the folder of the test
/// executables, `target/<profile>/deps/`. So the plugin is looked for there,
/// beside [`std::env::current_exe`], and is the one built for this very test
/// run. (`cargo test` does not copy it up to `target/<profile>/` as `cargo
/// build` does; the file there may be from another build.)
///
/// A `cdylib` has no hash in its file name, so builds of the package with
/// different features (of the sdk, say) write the same file. That is safe
/// here: one cargo invocation resolves one feature set per package, so it
/// builds the library once and tests load exactly what their own invocation
/// built; a later invocation with other features rebuilds it before running
/// any test. That is also why no second build may run inside a test: it would
/// overwrite the library, and the `.rlib` doc tests link against, mid-run.
///
/// Another package's plugin is there only if the same invocation tests that
/// package too (`cargo test -p mine -p other`, or `--workspace`).
///
/// # Panics
/// If the library is not there: `package` is not under test in this cargo
/// invocation, or its library has no `cdylib` crate type. The message says
/// which command builds it.
pub fn plugin_library(package: &str, lib_name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    // target/<profile>/deps/<test exe>
    let deps_dir = exe.parent().expect("the test executable's folder");
    let file = format!("{}{lib_name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    let path = deps_dir.join(file);
    assert!(
        path.is_file(),
        "the plugin library {} is missing: a `cargo test` that tests {package} builds it beside this \
         test executable (`cargo test -p {package}`, plus `-p` this test's package if another), \
         if its [lib] has crate-type = [\"cdylib\", \"rlib\"]",
        path.display()
    );
    path
}

/// Checks a built plugin's `OTHELLO_SEED` contract: the same seed replays the
/// same moves, a malformed seed fails the game start and `last_error` says
/// why, and (if `clock_seeded_games_differ`) without a seed two runs differ.
/// `play` starts a game (`init`) and returns the bot's moves in `positions`.
///
/// # Safety
/// It sets and removes [`SEED_ENV_VAR`](crate::SEED_ENV_VAR): no other thread
/// may read or write the environment meanwhile (make it the only test of its
/// test binary).
#[cfg(feature = "loader")]
pub unsafe fn assert_obeys_othello_seed(
    bot: &crate::loader::BotLibrary,
    positions: &[Position],
    play: impl Fn(&crate::loader::BotLibrary, &[Position]) -> Vec<Move>,
    clock_seeded_games_differ: bool,
) {
    use crate::SEED_ENV_VAR;
    // SAFETY: the caller promises that no other thread touches the environment.
    unsafe { std::env::set_var(SEED_ENV_VAR, "1234") };
    let seeded = play(bot, positions);
    assert_eq!(play(bot, positions), seeded, "the same seed replays the same moves");

    for malformed in ["not-a-number", "-1"] {
        // SAFETY: as above.
        unsafe { std::env::set_var(SEED_ENV_VAR, malformed) };
        assert_eq!(bot.init(), None, "a malformed seed ({malformed}) fails the game start");
        let error = bot.last_error().expect("and says why");
        assert!(error.contains(SEED_ENV_VAR) && error.contains(malformed), "{error}");
    }

    // SAFETY: as above.
    unsafe { std::env::remove_var(SEED_ENV_VAR) };
    if clock_seeded_games_differ {
        let clock_seeded = play(bot, positions);
        // Clock seeds have nanosecond resolution: 2 ms apart, they differ.
        std::thread::sleep(Duration::from_millis(2));
        assert_ne!(play(bot, positions), clock_seeded, "without a seed games differ");
    }
}
