//! WebAssembly bots: a module built from C in the test plays full games, its games are the same
//! on a busy machine, and every way a module can misbehave ends as a named loss. Skipped (said on
//! stderr) where no clang builds WebAssembly.
#![cfg(target_os = "linux")]

use std::time::Duration;

use othello_arena::plugins;
use othello_arena::record::GameRecord;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{SeatOptions, Termination, open_seat};
use othello_sdk::Color;
use othello_testkit::*;

/// A short limit: the searcher uses 60 % of it (120 million units of fuel a move).
const WASM_TIME_LIMIT: Duration = Duration::from_millis(10);

fn searcher() -> Option<std::path::PathBuf> {
    wasm_fixture("searcher", "default", &[])
}

fn hostile(mode: &str) -> Option<std::path::PathBuf> {
    wasm_fixture("hostile", mode, &[("HOSTILE", mode.to_owned())])
}

fn openings() -> [Opening; 2] {
    [Opening::parse("f5d6c3d3c4").unwrap(), Opening::parse("f5f6e6f4").unwrap()]
}

/// Two games of each opening between two seats of `bot`, colours swapped.
fn match_of(bot: &std::path::Path) -> Vec<GameRecord> {
    let mut black = open_seat(&isolated(bot)).expect("the module loads");
    let mut white = open_seat(&isolated(bot)).expect("the module loads");
    let mut games = Vec::new();
    for opening in openings() {
        games.push(play_game(black.as_mut(), white.as_mut(), &opening, Some(WASM_TIME_LIMIT)));
        games.push(play_game(white.as_mut(), black.as_mut(), &opening, Some(WASM_TIME_LIMIT)));
    }
    games
}

#[test]
fn a_wasm_bot_built_from_c_plays_full_games_against_a_library() {
    let Some(bot) = searcher() else { return };
    let mut wasm = open_seat(&isolated(&bot)).expect("the module loads");
    let mut native = open_seat(&isolated(&fixture("first_legal"))).expect("the library loads");
    for game in [
        play_game(wasm.as_mut(), native.as_mut(), &Opening::none(), Some(WASM_TIME_LIMIT)),
        play_game(native.as_mut(), wasm.as_mut(), &Opening::none(), Some(WASM_TIME_LIMIT)),
    ] {
        assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
        assert!(game.final_position().is_game_over());
        assert!(game.black == "Searcher" || game.white == "Searcher", "{} vs {}", game.black, game.white);
        // The module's moves carry its search report and its virtual time (fuel), within the limit.
        let color = if game.black == "Searcher" { Color::Black } else { Color::White };
        for record in game.moves.iter().filter(|m| m.color == color) {
            let info = record.info.as_ref().expect("the searcher reports its search");
            assert!(info.nodes.is_some() && info.depth.is_some(), "{info:?}");
            let virtual_time = record.cpu.expect("a module's move carries its virtual time");
            assert!(virtual_time <= WASM_TIME_LIMIT, "{virtual_time:?}");
        }
    }
}

#[test]
fn a_wasm_file_is_a_bot_in_the_plugin_folders() {
    let Some(bot) = searcher() else { return };
    let folder = tempfile::tempdir().unwrap();
    let copy = folder.path().join("searcher.wasm");
    std::fs::copy(&bot, &copy).unwrap();
    let found = plugins::scan(&[folder.path().to_path_buf()]);
    assert_eq!(found.len(), 1, "{found:?}");
    let info = plugins::probe(&found[0], &runner_command(), &seat_options());
    assert!(info.is_ok(), "{info:?}");
    assert_eq!((info.name.as_str(), info.abi_version), ("Searcher", Some(1)));
    let resolved = plugins::resolve("Searcher", &[folder.path().to_path_buf()], &runner_command(), &seat_options());
    assert_eq!(resolved.unwrap(), found[0]);
}

#[test]
fn the_same_wasm_match_gives_the_same_moves_on_a_busy_machine() {
    let Some(bot) = searcher() else { return };
    let idle = match_of(&bot);
    let busy = {
        let burners = CpuBurners::on_every_core();
        assert!(burners.count() > 0);
        match_of(&bot)
    };
    assert_eq!(idle.len(), 4);
    for (quiet, loaded) in idle.iter().zip(&busy) {
        assert_eq!(quiet.result.termination(), Termination::Normal, "{:?}", quiet.result);
        assert_eq!(quiet.transcript(), loaded.transcript());
        // The virtual clocks and the search reports are the same too, move by move.
        let virtual_times = |game: &GameRecord| game.moves.iter().map(|m| (m.cpu, m.info)).collect::<Vec<_>>();
        assert_eq!(virtual_times(quiet), virtual_times(loaded));
    }
    // The games differ from each other: the seed and the openings matter, the clock does not.
    assert_ne!(idle[0].transcript(), idle[2].transcript());
}

/// Plays the hostile module as black against a library, then with colours swapped: the first
/// game is a named loss, the second is played out.
fn check_hostile(mode: &str, termination: Termination, detail: &str) {
    let Some(bot) = hostile(mode) else { return };
    let mut bad = open_seat(&isolated(&bot)).expect("the module loads");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).expect("the library loads");
    let lost = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(Duration::from_millis(100)));
    let result = &lost.result;
    assert_eq!(result.termination(), termination, "{result:?}");
    assert_eq!(result.loser(), Some(Color::Black), "{result:?}");
    assert!(result.detail().contains(detail), "detail {:?} lacks {detail:?}", result.detail());
    let failure = result.failure().unwrap();
    assert!(failure.stderr_tail.iter().any(|line| line == "about to misbehave"), "{failure:?}");
    let next = play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(Duration::from_millis(100)));
    assert_eq!(next.result.termination(), Termination::Normal, "{:?}", next.result);
}

#[test]
fn a_trap_is_a_crash_with_its_message() {
    check_hostile("TRAP", Termination::Crash, "trapped: wasm `unreachable` instruction executed in think");
}

#[test]
fn an_endless_loop_runs_out_of_fuel_and_loses_on_time() {
    check_hostile(
        "LOOP",
        Termination::Timeout,
        "used all its fuel in think: 2000000000 units (100 ms on the virtual clock at 20000000 units per ms)",
    );
}

#[test]
fn growing_memory_past_the_limit_is_out_of_memory() {
    check_hostile(
        "GROW",
        Termination::OutOfMemory,
        &format!("over the memory limit of {TEST_MEMORY_LIMIT_MB} MB in think"),
    );
}

#[test]
fn exit_is_a_crash_with_its_code() {
    check_hostile("EXIT", Termination::Crash, "exited with code 3 in think");
}

#[test]
fn a_module_importing_files_does_not_load() {
    let Some(bot) = hostile("FILE_OPEN") else { return };
    let failure = open_seat(&isolated(&bot)).err().expect("a module that opens files is refused");
    assert_eq!(failure.termination, Termination::LoadError);
    assert!(failure.detail.contains("`wasi_snapshot_preview1::path_open`"), "{}", failure.detail);
    assert!(failure.detail.starts_with("the module imports `wasi_snapshot_preview1::"), "{}", failure.detail);
    // Nothing of the file was read: it never ran.
    assert!(failure.stderr_tail.is_empty(), "{failure:?}");
}

#[test]
fn the_memory_limit_is_the_modules() {
    let Some(bot) = hostile("GROW") else { return };
    let small = SeatOptions { memory_limit_mb: 8, ..seat_options() };
    let mut bad = open_seat(&isolated(&bot).with_options(small)).expect("the module loads");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).expect("the library loads");
    let lost = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), None);
    assert_eq!(lost.result.termination(), Termination::OutOfMemory, "{:?}", lost.result);
    assert!(lost.result.detail().contains("over the memory limit of 8 MB"), "{}", lost.result.detail());
}

#[test]
fn a_game_replays_from_the_module_bytes_alone() {
    let Some(bot) = searcher() else { return };
    let bytes = std::fs::read(&bot).unwrap();
    let opening = &openings()[0];
    let seed = othello_arena::seat::wasm_base_seed();
    let played = {
        let mut black = open_seat(&isolated(&bot)).unwrap();
        let mut white = open_seat(&isolated(&bot)).unwrap();
        play_game(black.as_mut(), white.as_mut(), opening, Some(WASM_TIME_LIMIT))
    };
    let replayed =
        othello_arena::seat::replay_wasm_game(&bytes, &bytes, opening, seed, Some(WASM_TIME_LIMIT), seat_options())
            .unwrap();
    assert_eq!(played.result.termination(), Termination::Normal, "{:?}", played.result);
    assert_eq!(played.transcript(), replayed.transcript());
    // A forged result (one move changed) is caught by the comparison.
    let mut forged = played.clone();
    let last = forged.moves.len() - 1;
    forged.moves.truncate(last);
    assert_ne!(forged.transcript(), replayed.transcript());
}

/// The processes of the tree under `root` (itself included).
fn process_tree(root: u32) -> Vec<u32> {
    let parent_of = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // After the command's closing parenthesis: state, then the parent's id.
        stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
    };
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    let mut tree = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for &pid in &all {
            if !tree.contains(&pid) && parent_of(pid).is_some_and(|parent| tree.contains(&parent)) {
                tree.push(pid);
                grew = true;
            }
        }
    }
    tree
}

/// The most seccomp filters a process of the tree under `root` is under.
fn most_seccomp_filters(root: u32) -> u32 {
    process_tree(root)
        .iter()
        .filter_map(|pid| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            status.lines().find_map(|line| line.strip_prefix("Seccomp_filters:")?.trim().parse().ok())
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn a_wasm_bot_runs_in_the_sandboxed_runner_narrowed_to_the_runtimes_calls() {
    let Some(bot) = searcher() else { return };
    if !sandbox_has_layers("wasm in the runner", &["seccomp"]) {
        return;
    }
    let library = othello_arena::seat::IsolatedSeat::open(&isolated(&fixture("first_legal")), &runner_command())
        .expect("the library loads");
    let module = othello_arena::seat::IsolatedSeat::open(&isolated(&bot), &runner_command()).expect("the module loads");
    // The module's runner is a sandboxed runner like a library's, with the allow-list on top.
    let native = most_seccomp_filters(library.runner_id().unwrap());
    let wasm = most_seccomp_filters(module.runner_id().unwrap());
    assert!(native >= 1, "a sandboxed runner is under the sandbox's seccomp filters");
    assert_eq!(wasm, native + 1, "the module's runner is under one filter more (the allow-list)");
    // And it plays there, named by its own init.
    let mut module: Box<dyn othello_arena::seat::Seat> = Box::new(module);
    let mut other = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let game = play_game(module.as_mut(), other.as_mut(), &Opening::none(), Some(WASM_TIME_LIMIT));
    assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
    assert_eq!(game.black, "Searcher");
}
