//! Benchmark (not a test): the `think` round trip of an NBoard seat (an engine process spoken to
//! in text: `go` → `=== F5/…`) beside the isolated plugin seat it wraps, for the sdk's C random bot.
//!
//! `cargo run --release -p othello-arena --example nboard_round_trip [ROUND_TRIPS]`
//!
//! The engine is this same executable serving the bot with [`serve`] (as `othello nboard` does),
//! so the NBoard figure is the plugin seat's round trip plus one text exchange over pipes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use othello_arena::nboard::engine::{ServeOptions, serve};
use othello_arena::seat::{NboardSeat, RunnerCommand, Seat, SeatOptions, SeatSpec, open_seat};
use othello_sdk::Position;

/// Round trips timed per seat kind unless given on the command line.
const DEFAULT_ROUND_TRIPS: usize = 5_000;
/// The argument that makes this executable an NBoard engine for the bot library that follows.
const SERVE_ARGUMENT: &str = "serve-nboard";

fn main() {
    // The isolated seats start this same executable as their runner (`nboard_round_trip runner …`).
    othello_runner::main_if_runner();
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(SERVE_ARGUMENT) {
        let library = PathBuf::from(&args[2]);
        let mut open = |level| open_seat(&SeatSpec::isolated(&library, runner()).with_level(level));
        serve(&mut open, ServeOptions::default(), std::io::stdin().lock(), std::io::stdout().lock(), std::io::stderr())
            .expect("the host's pipes work");
        return;
    }
    let round_trips: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_ROUND_TRIPS);
    let bot = othello_testkit::random_bot();

    let mut plugin = open_seat(&SeatSpec::isolated(&bot, runner())).expect("the random bot loads");
    report("plugin seat (isolated runner)", plugin.as_mut(), round_trips);

    let me = std::env::current_exe().expect("own path");
    let command = format!("'{}' {SERVE_ARGUMENT} '{}'", me.display(), bot.display());
    let spec = othello_arena::nboard::EngineSpec::from_command(&command).expect("a command line");
    let mut engine = NboardSeat::open(&spec, None, SeatOptions::default(), None).expect("the engine starts");
    report("nboard seat (engine process)", &mut engine, round_trips);

    drop((plugin, engine));
}

/// Times `round_trips` thinks in the start position and prints the median and 99th percentile.
fn report(label: &str, seat: &mut dyn Seat, round_trips: usize) {
    seat.new_game().expect("a new game");
    let position = Position::start();
    let mut times: Vec<Duration> = (0..round_trips)
        .map(|_| {
            let started = Instant::now();
            seat.think(&position, None).expect("think");
            started.elapsed()
        })
        .collect();
    times.sort();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{label:32} median {:>8.1} µs, p99 {:>8.1} µs ({round_trips} round trips)",
        micros(times[times.len() / 2]),
        micros(times[times.len() * 99 / 100])
    );
}

/// This executable, serving the runner.
fn runner() -> RunnerCommand {
    RunnerCommand::new(std::env::current_exe().expect("own path")).with_arg(othello_runner::RUNNER_SUBCOMMAND)
}
