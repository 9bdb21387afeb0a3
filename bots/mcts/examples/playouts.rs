//! Random playouts per second from the start position, on one thread:
//!
//! ```text
//! cargo run --release -p bot-mcts --example playouts [SECONDS_PER_ROUND]
//! ```
//!
//! Times several rounds of the playouts the bot runs ([`LANES`] games side by
//! side) and prints each round and the median; then the same for one game at a
//! time, for comparison.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcts::playout::{LANES, WIN, random_playouts};
use othello_sdk::Position;
use othello_sdk::SplitMix64;

const ROUNDS: usize = 7;
const DEFAULT_SECONDS_PER_ROUND: f64 = 1.0;
/// Batches of playouts between clock reads.
const BATCHES_PER_CLOCK_READ: u32 = 250;

/// Runs rounds of `round_time` of `N` playouts side by side from the start;
/// prints them and returns the median rate.
fn measure<const N: usize>(label: &str, round_time: Duration) -> f64 {
    let start = Position::start();
    let starts = [(start.player().0, start.opponent().0); N];
    let mut rng = SplitMix64::new(1);
    let mut rates = Vec::with_capacity(ROUNDS);
    let (mut games, mut black_points) = (0u64, 0u64);
    for round in 1..=ROUNDS {
        let started = Instant::now();
        let mut playouts = 0u64;
        while started.elapsed() < round_time {
            for _ in 0..BATCHES_PER_CLOCK_READ {
                let results = random_playouts(black_box(starts), &mut rng);
                black_points += results.iter().map(|&r| u64::from(r)).sum::<u64>();
            }
            playouts += u64::from(BATCHES_PER_CLOCK_READ) * N as u64;
        }
        let rate = playouts as f64 / started.elapsed().as_secs_f64();
        println!("{label} round {round}: {playouts} playouts, {rate:.0} playouts/s");
        rates.push(rate);
        games += playouts;
    }
    rates.sort_by(f64::total_cmp);
    // A sanity check that real games were played: black's share of the points
    // in random games from the start is a little under half.
    let black_share = 100.0 * black_points as f64 / (f64::from(WIN) * games as f64);
    println!("{label} median: {:.0} playouts/s ({ROUNDS} rounds; black scored {black_share:.1} %)", rates[ROUNDS / 2]);
    rates[ROUNDS / 2]
}

fn main() {
    let seconds: f64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: playouts [SECONDS_PER_ROUND]  ({arg:?} is not a number)");
            std::process::exit(2)
        }),
        None => DEFAULT_SECONDS_PER_ROUND,
    };
    let round_time = Duration::from_secs_f64(seconds);
    let side_by_side = measure::<LANES>(&format!("{LANES} side by side:"), round_time);
    let one_at_a_time = measure::<1>("one at a time:", round_time);
    println!(
        "random playouts/s from the start position (median): {side_by_side:.0} as the bot runs them \
         ({LANES} side by side), {one_at_a_time:.0} one at a time"
    );
}
