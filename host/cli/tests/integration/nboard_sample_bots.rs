//! The sample bots through the NBoard protocol: `othello match` between `nboard:` seats that run
//! `othello nboard random` and `othello nboard alphabeta@LEVEL` plays exactly the games of the
//! direct match with the same seeds, both ways round.
//!
//! `random` replays its moves from `OTHELLO_SEED`; alpha-beta at a level with no noise and no time
//! limit searches to a fixed depth, so both are deterministic and the two routes must agree move
//! for move.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use othello_arena::ggf;
use serde_json::Value;

/// Alpha-beta's level in these games: a fixed depth and no random noise (see its `level.rs`).
const ALPHABETA_LEVEL: u32 = 7;
/// The seed every random game starts from (read by the sample bots from the environment).
const BOT_SEED: &str = "1234";

fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

/// A scratch folder whose `plugins/` holds the sample bots this `cargo test` built.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bots = [("bot-random", "random"), ("bot-alphabeta", "alphabeta")];
    othello_testkit::install_plugins(
        dir.path(),
        bots.map(|(package, lib)| othello_sdk::testing::plugin_library(package, lib)),
    );
    dir
}

/// One game of a match: number, transcript (passes omitted), score and termination.
type GameSummary = (u64, String, Value, String);

/// `othello match BLACK WHITE` with no time limit, 4 games from random 8-ply openings, returning
/// the games by number and the GGF moves (passes included) of each, sorted.
fn play(dir: &Path, black: &str, white: &str) -> (Vec<GameSummary>, Vec<String>) {
    let output = Command::new(othello_exe())
        .current_dir(dir)
        .env("OTHELLO_SEED", BOT_SEED)
        .args(["--time-ms", "0", "match", black, white, "--json", "--out", "games.ggf"])
        .args(["--games", "4", "--openings", "random:8", "--seed", "3"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut games: Vec<GameSummary> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line.get("game").is_some())
        .map(|game| {
            (
                game["game"].as_u64().unwrap(),
                game["moves"].as_str().unwrap().to_owned(),
                game["score"].clone(),
                game["termination"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    games.sort_by_key(|game| game.0);
    let mut moves: Vec<String> = ggf::read_file(&dir.join("games.ggf"))
        .unwrap()
        .iter()
        .map(|record| record.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>().join(" "))
        .collect();
    moves.sort();
    (games, moves)
}

/// The `nboard:` seat that serves `bot` through `othello nboard` with no time limit.
fn through_nboard(bot: &str) -> String {
    format!("nboard:'{}' --time-ms 0 nboard {bot}", othello_exe().display())
}

#[test]
fn random_and_alphabeta_through_the_nboard_protocol_play_the_direct_matchs_games() {
    let dir = workspace();
    let alphabeta = format!("alphabeta@{ALPHABETA_LEVEL}");
    for (black, white) in [("random", alphabeta.as_str()), (alphabeta.as_str(), "random")] {
        let direct = play(dir.path(), black, white);
        assert_eq!(direct.0.len(), 4);
        assert!(direct.0.iter().all(|game| game.3 == "normal"), "{direct:?}");
        let nboard = play(dir.path(), &through_nboard(black), &through_nboard(white));
        assert_eq!(nboard, direct, "{black} vs {white}: the same games through the protocol");
    }
}
