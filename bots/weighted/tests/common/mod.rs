//! Helpers shared by this crate's tests.
#![allow(dead_code)] // each test file uses a different part

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use othello_sdk::{Bot, Move, Position, ThinkRequest};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Every position of `games` random games from the start, the game-over ones
/// excepted: openings, middle games, endgames and forced passes.
pub fn random_game_positions(games: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut position = Position::start();
        while !position.is_game_over() {
            positions.push(position);
            let moves = position.legal_moves();
            let mv = if moves.is_empty() {
                Move::Pass
            } else {
                Move::Play(moves.into_iter().nth(rng.random_range(0..moves.count() as usize)).unwrap())
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

/// The built plugin library of package `bot-<name>` (lib name `<name>`) in this
/// build's target folder, building it first if this test run did not.
pub fn plugin_library(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test exe>: the libraries are in target/<profile>.
    let profile_dir = exe.parent().and_then(Path::parent).unwrap().to_owned();
    let path = profile_dir.join(format!("{}{name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "-p", &format!("bot-{name}")]);
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "building bot-{name}");
    }
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// Plays one game between two bots from `position` (each told a new game
/// starts) and returns black's points: 1 for a win, ½ for a draw, 0 for a loss.
pub fn play_game(black: &mut impl Bot, white: &mut impl Bot, mut position: Position) -> f64 {
    black.new_game();
    white.new_game();
    while !position.is_game_over() {
        let request = ThinkRequest { position, time_limit: None };
        let mv = match position.side_to_move() {
            othello_sdk::Color::Black => black.think(&request),
            othello_sdk::Color::White => white.think(&request),
        };
        position.try_play(mv).unwrap_or_else(|e| panic!("{mv} is illegal ({e}) in\n{position}"));
    }
    match position.outcome() {
        Some(othello_sdk::Outcome::Win(othello_sdk::Color::Black)) => 1.0,
        Some(othello_sdk::Outcome::Draw) => 0.5,
        _ => 0.0,
    }
}
