//! Random playouts per second from the start position, one thread:
//! `cargo run --release -p bot-mcts --example playouts [SECONDS_PER_ROUND]`.
//!
//! Prints every round and the median of the rounds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcts::playout::random_playout;
use mcts::rng::SplitMix64;
use othello_sdk::Position;

const ROUNDS: usize = 7;
const DEFAULT_SECONDS_PER_ROUND: f64 = 1.0;
/// Playouts between clock reads.
const BATCH: u32 = 1000;

fn main() {
    let seconds: f64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: playouts [SECONDS_PER_ROUND]  (not a number: {arg:?})");
            std::process::exit(2)
        }),
        None => DEFAULT_SECONDS_PER_ROUND,
    };
    let round_time = Duration::from_secs_f64(seconds);
    let start = Position::start();
    let (player, opponent) = (start.player().0, start.opponent().0);
    let mut rng = SplitMix64::new(1);

    let mut rates = Vec::with_capacity(ROUNDS);
    let mut black_points = 0u64;
    let mut total = 0u64;
    for round in 1..=ROUNDS {
        let started = Instant::now();
        let mut playouts = 0u64;
        while started.elapsed() < round_time {
            for _ in 0..BATCH {
                black_points += u64::from(random_playout(black_box(player), black_box(opponent), &mut rng));
            }
            playouts += u64::from(BATCH);
        }
        let rate = playouts as f64 / started.elapsed().as_secs_f64();
        total += playouts;
        println!("round {round}: {playouts} playouts, {rate:.0} playouts/s");
        rates.push(rate);
    }
    rates.sort_by(f64::total_cmp);
    println!("median: {:.0} random playouts/s from the start position ({ROUNDS} rounds)", rates[ROUNDS / 2]);
    // Also a sanity check that the games were real: black's share of the points.
    println!("black scored {:.1} % of {total} games", 50.0 * black_points as f64 / total as f64);
}
