//! Benchmark (not a test): random-vs-random games per second in process and
//! with isolated runners (sandbox off, then on), the median `think` round trip
//! to a runner and the set-up time of one runner, in both sandbox modes.
//!
//! `cargo run --release -p othello-arena --example throughput [SECONDS]`
//!
//! The random bot is the sdk's C example, compiled with `cc`. Targets: in
//! process ≥ 50,000 games/s; isolated (sandbox on) ≥ 1,000 games/s with a
//! median round trip ≤ 30 µs; the sandbox's set-up is paid once per runner.

use std::time::{Duration, Instant};

use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{RunnerCommand, SandboxMode, SeatOptions, SeatSpec, open_seat};
use othello_sdk::Position;

/// How long each measurement runs unless given on the command line.
const DEFAULT_SECONDS: f64 = 3.0;
/// Round trips timed for the latency figure.
const ROUND_TRIPS: usize = 20_000;
/// Runners started for the set-up figure.
const SETUPS: usize = 30;

fn main() {
    // The isolated seats start this same executable as their runner (`throughput runner …`).
    othello_runner::main_if_runner();
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SECONDS);
    let budget = Duration::from_secs_f64(seconds);
    let bot = othello_testkit::random_bot();

    let in_process = games_per_second(&SeatSpec::in_process(&bot), budget);
    println!("in process: {in_process:>10.0} games/s (target ≥ 50,000)");
    for sandbox in [SandboxMode::Off, SandboxMode::Auto] {
        let spec = SeatSpec::isolated(&bot, runner()).with_options(SeatOptions { sandbox, ..SeatOptions::default() });
        let isolated = games_per_second(&spec, budget);
        println!("isolated, sandbox {sandbox:>4}: {isolated:>10.0} games/s (target ≥ 1,000)");

        let mut seat = open_seat(&spec).expect("the random bot loads");
        seat.new_game().expect("init");
        let position = Position::start();
        let mut times: Vec<Duration> = (0..ROUND_TRIPS)
            .map(|_| {
                let started = Instant::now();
                seat.think(&position, None).expect("think");
                started.elapsed()
            })
            .collect();
        drop(seat);
        let (median, p99) = median_and_p99(&mut times);
        println!(
            "isolated, sandbox {sandbox:>4}: think round trip median {:.1} µs, p99 {:.1} µs (target median ≤ 30 µs)",
            median * 1e6,
            p99 * 1e6
        );

        let mut setups: Vec<Duration> = (0..SETUPS)
            .map(|_| {
                let started = Instant::now();
                let seat = open_seat(&spec).expect("the random bot loads");
                let elapsed = started.elapsed();
                drop(seat);
                elapsed
            })
            .collect();
        let (median, p99) = median_and_p99(&mut setups);
        println!(
            "isolated, sandbox {sandbox:>4}: runner set-up (spawn, load, init) median {:.2} ms, p99 {:.2} ms",
            median * 1e3,
            p99 * 1e3
        );
    }
}

/// Median and 99th percentile in seconds.
fn median_and_p99(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    (times[times.len() / 2].as_secs_f64(), times[times.len() * 99 / 100].as_secs_f64())
}

/// This executable, serving the runner.
fn runner() -> RunnerCommand {
    RunnerCommand::new(std::env::current_exe().expect("own path")).with_arg(othello_runner::RUNNER_SUBCOMMAND)
}

/// Plays games between two seats of `spec` for about `budget`.
fn games_per_second(spec: &SeatSpec, budget: Duration) -> f64 {
    let mut black = open_seat(spec).expect("the random bot loads");
    let mut white = open_seat(spec).expect("the random bot loads");
    let opening = Opening::none();
    let started = Instant::now();
    let mut games = 0u64;
    while started.elapsed() < budget {
        for _ in 0..100 {
            let record = play_game(black.as_mut(), white.as_mut(), &opening, None);
            assert!(record.result.loser().is_none(), "{:?}", record.result);
            games += 1;
        }
    }
    games as f64 / started.elapsed().as_secs_f64()
}
