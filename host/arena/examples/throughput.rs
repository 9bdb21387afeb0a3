//! Benchmark (not a test): random-vs-random games per second in process and
//! with isolated runners (sandbox off and on, measured alternately in short
//! slices so that a busy machine's drift hits both alike; the median of the
//! slices and of the on/off ratios are printed), with one pair of seats and
//! with [`PAIRS`] pairs playing at once on their own threads (as `othello match
//! --concurrency 2` plays), the median `think` round trip to a runner and the
//! set-up time of one runner, in both sandbox modes. Then the same with the
//! sandbox on and each pair's thread (and so its runners) pinned to a processor
//! of its own, as `othello match --affinity` plays. Last, the cost of the CPU share (`--threads
//! 1`, the default, against `--threads 0`): pinned games/s and round trips, the two alternated.
//!
//! `cargo run --release -p othello-arena --example throughput [SECONDS]`
//!
//! The random bot is the sdk's C example, compiled with `cc`. Targets: in
//! process ≥ 50,000 games/s; isolated (sandbox on) ≥ 1,000 games/s on 2 cores
//! with a median round trip ≤ 30 µs; the sandbox's set-up is paid once per
//! runner.

use std::time::{Duration, Instant};

use othello_arena::event::affinity::pin_current_thread;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{RunnerCommand, SandboxMode, Seat, SeatOptions, SeatSpec, open_seat};
use othello_sdk::Position;

/// How long each measurement runs unless given on the command line.
const DEFAULT_SECONDS: f64 = 3.0;
/// Round trips timed for the latency figure.
const ROUND_TRIPS: usize = 20_000;
/// Runners started for the set-up figure.
const SETUPS: usize = 30;
/// Time limit of the timed round trips (the random bot answers at once).
const TIMED_LIMIT: Duration = Duration::from_secs(1);
/// Slices of the budget in which sandbox off and on take turns.
const SLICES: u32 = 10;
/// Pairs of seats playing at once for the concurrent figure (one per core of a 2-core machine).
const PAIRS: usize = 2;
/// Games played between two looks at the clock.
const GAMES_PER_CHECK: u64 = 20;

fn main() {
    // The isolated seats start this same executable as their runner (`throughput runner …`).
    othello_runner::main_if_runner();
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SECONDS);
    let budget = Duration::from_secs_f64(seconds);
    let bot = othello_testkit::random_bot();

    let mut in_process_seats = [
        open_seat(&SeatSpec::in_process(&bot)).expect("the random bot loads"),
        open_seat(&SeatSpec::in_process(&bot)).expect("the random bot loads"),
    ];
    let in_process = games_per_second(&mut in_process_seats, budget);
    println!("in process: {in_process:>10.0} games/s (target ≥ 50,000)");
    let spec =
        |sandbox| SeatSpec::isolated(&bot, runner()).with_options(SeatOptions { sandbox, ..SeatOptions::default() });
    let (off, on) = (spec(SandboxMode::Off), spec(SandboxMode::Auto));
    let mut off_seats =
        [open_seat(&off).expect("the random bot loads"), open_seat(&off).expect("the random bot loads")];
    let mut on_seats = [open_seat(&on).expect("the random bot loads"), open_seat(&on).expect("the random bot loads")];
    let (mut off_rates, mut on_rates, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..SLICES {
        let off_rate = games_per_second(&mut off_seats, budget / SLICES);
        let on_rate = games_per_second(&mut on_seats, budget / SLICES);
        off_rates.push(off_rate);
        on_rates.push(on_rate);
        ratios.push(on_rate / off_rate);
    }
    drop((off_seats, on_seats));
    println!("isolated, sandbox  off: {:>10.0} games/s (one pair, median of {SLICES} slices)", median(&mut off_rates));
    println!("isolated, sandbox auto: {:>10.0} games/s (one pair)", median(&mut on_rates));
    println!("isolated, sandbox on/off: {:.2} (one pair, median ratio of the alternated slices)", median(&mut ratios));
    let pairs = |spec: &SeatSpec| -> Vec<[Box<dyn Seat>; 2]> {
        (0..PAIRS)
            .map(|_| [open_seat(spec).expect("the random bot loads"), open_seat(spec).expect("the random bot loads")])
            .collect()
    };
    let (mut off_pairs, mut on_pairs) = (pairs(&off), pairs(&on));
    let (mut off_rates, mut on_rates) = (Vec::new(), Vec::new());
    for _ in 0..SLICES {
        off_rates.push(concurrent_games_per_second(&mut off_pairs, budget / SLICES));
        on_rates.push(concurrent_games_per_second(&mut on_pairs, budget / SLICES));
    }
    drop((off_pairs, on_pairs));
    println!(
        "isolated, sandbox  off: {:>10.0} games/s ({PAIRS} pairs at once, median of {SLICES} slices)",
        median(&mut off_rates)
    );
    println!(
        "isolated, sandbox auto: {:>10.0} games/s ({PAIRS} pairs at once; target ≥ 1,000 on 2 cores)",
        median(&mut on_rates)
    );
    for sandbox in [SandboxMode::Off, SandboxMode::Auto] {
        let spec = spec(sandbox);

        let mut seat = open_seat(&spec).expect("the random bot loads");
        print_round_trips(seat.as_mut(), &format!("sandbox {sandbox:>4}"));
        drop(seat);

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

    // Pinned: each pair's thread opens its seats after pinning itself, so its runners share its
    // processor (round trips are context switches, not wake-ups of an idle processor).
    let on = spec(SandboxMode::Auto);
    for pairs in [1, PAIRS] {
        let started = Instant::now();
        let games: u64 = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..pairs)
                .map(|worker| {
                    let on = &on;
                    scope.spawn(move || {
                        let cpu = pin_current_thread(worker);
                        let mut pair = [
                            open_seat(on).expect("the random bot loads"),
                            open_seat(on).expect("the random bot loads"),
                        ];
                        (cpu.is_ok(), play_for(&mut pair, budget))
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| {
                    let (pinned, games) = thread.join().expect("a pair's thread");
                    if !pinned {
                        println!("(could not pin a thread to a processor: the figure below is unpinned)");
                    }
                    games
                })
                .sum()
        });
        let rate = games as f64 / started.elapsed().as_secs_f64();
        println!("isolated, sandbox auto, pinned: {rate:>10.0} games/s ({pairs} pair(s), one processor each)");
    }
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = pin_current_thread(0);
            let mut seat = open_seat(&on).expect("the random bot loads");
            print_round_trips(seat.as_mut(), "sandbox auto, pinned");
        });
    });
    print_cpu_share_cost(&bot, budget);
}

/// Games/s, `think` round trips and runner set-up of one pair pinned to a processor with the
/// default CPU share (`--threads 1`) and without one (`--threads 0`), in alternated slices so that
/// other work on the machine hits both alike.
fn print_cpu_share_cost(bot: &std::path::Path, budget: Duration) {
    let spec = |threads| {
        SeatSpec::isolated(bot, runner()).with_options(SeatOptions {
            sandbox: SandboxMode::Auto,
            threads,
            ..SeatOptions::default()
        })
    };
    let specs = [spec(0), spec(1)];
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let _ = pin_current_thread(0);
            let open = |spec: &SeatSpec| [open_seat(spec).expect("the random bot loads"), open_seat(spec).expect("the random bot loads")];
            let mut pairs = [open(&specs[0]), open(&specs[1])];
            let (mut rates, mut trips, mut setups) = ([vec![], vec![]], [vec![], vec![]], [vec![], vec![]]);
            for _ in 0..SLICES {
                for (i, pair) in pairs.iter_mut().enumerate() {
                    rates[i].push(games_per_second(pair, budget / SLICES));
                    let seat = pair[0].as_mut();
                    seat.new_game().expect("init");
                    for _ in 0..ROUND_TRIPS / SLICES as usize {
                        let started = Instant::now();
                        seat.think(&Position::start(), None).expect("think");
                        trips[i].push(started.elapsed());
                    }
                    for _ in 0..SETUPS / SLICES as usize {
                        let started = Instant::now();
                        let seat = open_seat(&specs[i]).expect("the random bot loads");
                        setups[i].push(started.elapsed());
                        drop(seat);
                    }
                }
            }
            for (i, threads) in [0, 1].into_iter().enumerate() {
                println!(
                    "isolated, sandbox auto, pinned, --threads {threads}: {:>6.0} games/s (one pair), untimed think round \
                     trip median {:.2} µs, runner set-up median {:.2} ms (alternated)",
                    median(&mut rates[i]),
                    median_and_p99(&mut trips[i]).0 * 1e6,
                    median_and_p99(&mut setups[i]).0 * 1e3,
                );
            }
        });
    });
}

/// Times `think` from the start position, untimed and with a clock (where an idle seat is frozen
/// at once after each answer), and prints the median and 99th percentile of each.
fn print_round_trips(seat: &mut dyn Seat, label: &str) {
    seat.new_game().expect("init");
    let position = Position::start();
    for (kind, limit) in [("untimed", None), ("timed", Some(TIMED_LIMIT))] {
        let mut times: Vec<Duration> = (0..ROUND_TRIPS)
            .map(|_| {
                let started = Instant::now();
                seat.think(&position, limit).expect("think");
                started.elapsed()
            })
            .collect();
        let (median, p99) = median_and_p99(&mut times);
        println!(
            "isolated, {label}: {kind} think round trip median {:.1} µs, p99 {:.1} µs (target median ≤ 30 µs)",
            median * 1e6,
            p99 * 1e6
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

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Plays games on every pair at once, one thread each, for about `budget`.
fn concurrent_games_per_second(pairs: &mut [[Box<dyn Seat>; 2]], budget: Duration) -> f64 {
    let started = Instant::now();
    let games: f64 = std::thread::scope(|scope| {
        let threads: Vec<_> = pairs.iter_mut().map(|pair| scope.spawn(move || play_for(pair, budget))).collect();
        threads.into_iter().map(|thread| thread.join().expect("a pair's thread") as f64).sum()
    });
    games / started.elapsed().as_secs_f64()
}

/// Plays games between two seats for about `budget`.
fn games_per_second(seats: &mut [Box<dyn Seat>; 2], budget: Duration) -> f64 {
    let started = Instant::now();
    let games = play_for(seats, budget);
    games as f64 / started.elapsed().as_secs_f64()
}

/// Plays games between two seats for about `budget`; returns how many.
fn play_for(seats: &mut [Box<dyn Seat>; 2], budget: Duration) -> u64 {
    let [black, white] = seats;
    let opening = Opening::none();
    let started = Instant::now();
    let mut games = 0u64;
    while started.elapsed() < budget {
        for _ in 0..GAMES_PER_CHECK {
            let record = play_game(black.as_mut(), white.as_mut(), &opening, None);
            assert!(record.result.loser().is_none(), "{:?}", record.result);
            games += 1;
        }
    }
    games
}
