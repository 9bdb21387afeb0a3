//! The CPU-time clock: a move is charged the CPU time of the bot's process tree, so programs
//! beside it never make a bot lose on time; a bot that sleeps still loses at the wall-clock cap,
//! and one that spins at its CPU allowance.
#![cfg(target_os = "linux")]

use std::time::Duration;

use othello_arena::record::GameRecord;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{Clock, SeatOptions, Termination, open_seat};
use othello_sdk::Color;
use othello_testkit::*;

const LIMIT: Duration = Duration::from_millis(200);

/// The CPU-time clock with a small grace (20 ms), as the `othello` program's defaults give it.
fn cpu_clock() -> SeatOptions {
    SeatOptions { clock: Clock::Cpu, grace: Duration::from_millis(20), grace_percent: 0, ..seat_options() }
}

fn game(black: &std::path::Path, white: &std::path::Path) -> GameRecord {
    let mut black = open_seat(&isolated(black).with_options(cpu_clock())).expect("loads");
    let mut white = open_seat(&isolated(white).with_options(cpu_clock())).expect("loads");
    play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(LIMIT))
}

#[test]
fn a_bot_using_60_percent_of_its_cpu_time_loses_no_game_beside_burners() {
    // 120 ms of its own CPU time a move for a 200 ms limit; a busy loop on every core beside it.
    let burner_bot = fixture_with("burns_cpu", "120ms", &[("BURN_MS", "120".to_owned())]);
    let good = fixture("first_legal");
    let burners = CpuBurners::on_every_core();
    let opening = Opening::parse("f5d6c3").unwrap();
    let mut bot = open_seat(&isolated(&burner_bot).with_options(cpu_clock())).expect("loads");
    let mut other = open_seat(&isolated(&good).with_options(cpu_clock())).expect("loads");
    let games = [
        play_game(bot.as_mut(), other.as_mut(), &opening, Some(LIMIT)),
        play_game(other.as_mut(), bot.as_mut(), &opening, Some(LIMIT)),
    ];
    drop(burners);
    for (game, color) in games.iter().zip([Color::Black, Color::White]) {
        assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
        // Its moves were charged their CPU time: what it burned, measured.
        for record in game.moves.iter().filter(|m| m.color == color) {
            let cpu = record.cpu.expect("the CPU time of an isolated bot's move is measured");
            assert!(cpu >= Duration::from_millis(100), "{cpu:?}");
        }
    }
}

#[test]
fn a_sleeping_bot_loses_on_time_at_the_wall_clock_cap() {
    let record = game(&fixture("sleeps"), &fixture("first_legal"));
    let result = &record.result;
    assert_eq!(result.termination(), Termination::Timeout, "{result:?}");
    assert_eq!(result.loser(), Some(Color::Black));
    // 3 × 200 ms + 100 ms + 20 ms of grace.
    assert!(result.detail().starts_with("no move within the wall-clock cap of 720 ms"), "{}", result.detail());
}

#[test]
fn a_spinning_bot_loses_on_its_cpu_time() {
    let record = game(&fixture("hang"), &fixture("first_legal"));
    let result = &record.result;
    assert_eq!(result.termination(), Termination::Timeout, "{result:?}");
    assert!(
        result.detail().contains("ms of CPU time (CPU-time clock: limit 200 ms + grace 20 ms)"),
        "{}",
        result.detail()
    );
}

#[test]
fn in_process_a_bot_is_held_to_its_threads_cpu_time() {
    let burner_bot = fixture_with("burns_cpu", "120ms", &[("BURN_MS", "120".to_owned())]);
    let spec = |library: &std::path::Path| in_process(library).with_options(cpu_clock());
    let burners = CpuBurners::on_every_core();
    let mut bot = open_seat(&spec(&burner_bot)).expect("loads");
    let mut other = open_seat(&spec(&fixture("first_legal"))).expect("loads");
    let game = play_game(bot.as_mut(), other.as_mut(), &Opening::parse("f5d6c3").unwrap(), Some(LIMIT));
    drop(burners);
    assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
    for record in game.moves.iter().filter(|m| m.color == Color::Black) {
        assert!(record.cpu.expect("the thread's CPU clock") >= Duration::from_millis(120), "{record:?}");
    }
    // Over its CPU time: a loss, named on the CPU-time clock (known once the bot returns).
    let greedy = fixture_with("burns_cpu", "300ms", &[("BURN_MS", "300".to_owned())]);
    let mut bot = open_seat(&spec(&greedy)).expect("loads");
    let game = play_game(bot.as_mut(), other.as_mut(), &Opening::none(), Some(LIMIT));
    assert_eq!(game.result.termination(), Termination::Timeout, "{:?}", game.result);
    assert!(
        game.result.detail().contains("ms of CPU time (CPU-time clock: limit 200 ms + grace 20 ms)"),
        "{}",
        game.result.detail()
    );
}

#[test]
fn a_bot_given_two_threads_gets_twice_the_limit_in_cpu_time() {
    // Two threads that each burn 120 ms of their own CPU time: at least 240 ms a move in all.
    let two_threads =
        fixture_with("burns_cpu", "2x120ms", &[("BURN_MS", "120".to_owned()), ("THREADS", "2".to_owned())]);
    let play = |threads: u32| {
        let options = SeatOptions { threads, ..cpu_clock() };
        let mut bot = open_seat(&isolated(&two_threads).with_options(options)).expect("loads");
        let mut other = open_seat(&isolated(&fixture("first_legal")).with_options(cpu_clock())).expect("loads");
        play_game(bot.as_mut(), other.as_mut(), &Opening::parse("f5d6c3").unwrap(), Some(LIMIT))
    };
    // --threads 2: 2 × 200 ms + 20 ms of CPU time a move, well over the 240 ms it uses.
    let allowed = play(2);
    assert_eq!(allowed.result.termination(), Termination::Normal, "{:?}", allowed.result);
    for record in allowed.moves.iter().filter(|m| m.color == Color::Black) {
        let cpu = record.cpu.expect("the CPU time of an isolated bot's move is measured");
        assert!(cpu >= Duration::from_millis(240), "both threads' CPU time is charged: {cpu:?}");
    }
    // --threads 1: 220 ms, which its first move's 240 ms exceed whatever the machine's load.
    let held = play(1);
    assert_eq!(held.result.termination(), Termination::Timeout, "{:?}", held.result);
    assert_eq!(held.result.loser(), Some(Color::Black));
    assert!(
        held.result.detail().contains("ms of CPU time (CPU-time clock: limit 200 ms + grace 20 ms)"),
        "{}",
        held.result.detail()
    );
}
