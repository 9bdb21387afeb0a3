//! Benchmark (not a test): what the CPU-time clock costs against the wall clock, for isolated
//! seats in the sandbox: random-vs-random games per second with a time limit, and the median
//! `think` round trip, the two clocks measured alternately in short slices (a busy machine's
//! drift hits both alike). Medians of the slices.
//!
//! `cargo run --release -p othello-arena --example clock_cost [SECONDS]`

use std::time::{Duration, Instant};

use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{Clock, RunnerCommand, Seat, SeatOptions, SeatSpec, open_seat};
use othello_sdk::Position;

const DEFAULT_SECONDS: f64 = 3.0;
const SLICES: u32 = 6;
const LIMIT: Duration = Duration::from_secs(1);
const ROUND_TRIPS: usize = 5_000;

fn main() {
    othello_runner::main_if_runner();
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SECONDS);
    let slice = Duration::from_secs_f64(seconds) / SLICES;
    let bot = othello_testkit::random_bot();
    let runner =
        RunnerCommand::new(std::env::current_exe().expect("own path")).with_arg(othello_runner::RUNNER_SUBCOMMAND);
    let seats = |clock| -> [Box<dyn Seat>; 2] {
        let spec =
            SeatSpec::isolated(&bot, runner.clone()).with_options(SeatOptions { clock, ..SeatOptions::default() });
        [open_seat(&spec).expect("loads"), open_seat(&spec).expect("loads")]
    };
    let (mut wall, mut cpu) = (seats(Clock::Wall), seats(Clock::Cpu));
    let (mut wall_rates, mut cpu_rates) = (Vec::new(), Vec::new());
    for _ in 0..SLICES {
        wall_rates.push(games_per_second(&mut wall, slice));
        cpu_rates.push(games_per_second(&mut cpu, slice));
    }
    println!(
        "isolated, sandbox auto, {} ms a move: wall clock {:.0} games/s, CPU-time clock {:.0} games/s (medians of {SLICES} slices)",
        LIMIT.as_millis(),
        median(&mut wall_rates),
        median(&mut cpu_rates)
    );
    let (mut wall_trips, mut cpu_trips) = (Vec::new(), Vec::new());
    for _ in 0..SLICES {
        wall_trips.extend(round_trips(wall[0].as_mut()));
        cpu_trips.extend(round_trips(cpu[0].as_mut()));
    }
    println!(
        "think round trip, median: wall clock {:.1} µs, CPU-time clock {:.1} µs",
        median(&mut wall_trips) * 1e6,
        median(&mut cpu_trips) * 1e6
    );
}

fn games_per_second(seats: &mut [Box<dyn Seat>; 2], budget: Duration) -> f64 {
    let started = Instant::now();
    let mut games = 0u64;
    while started.elapsed() < budget {
        let [black, white] = seats;
        let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(LIMIT));
        assert!(record.result.failure().is_none(), "{:?}", record.result);
        games += 1;
    }
    games as f64 / started.elapsed().as_secs_f64()
}

fn round_trips(seat: &mut dyn Seat) -> Vec<f64> {
    seat.new_game().expect("init");
    let position = Position::start();
    (0..ROUND_TRIPS / SLICES as usize)
        .map(|_| {
            let started = Instant::now();
            seat.think(&position, Some(LIMIT)).expect("think");
            started.elapsed().as_secs_f64()
        })
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
