//! Times the static evaluation: nanoseconds per call of the full evaluation
//! (hand-written features plus the trained patterns), of the endgame
//! ordering's one (plus the edge and corner patterns only) and of the
//! hand-written part alone, on random positions of 10 to 29 empties.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example eval_speed
//! ```
//!
//! Prints one line per round (the median is the figure to quote) and a
//! checksum of the values, which must not change when only speed is worked on.

use std::hint::black_box;
use std::time::Instant;

use alphabeta::eval::{evaluate, hand_evaluate, ordering_evaluate};
use othello_sdk::{Position, flips, legal_moves};

const POSITIONS: usize = 20_000;
const REPEATS: usize = 20;
const ROUNDS: usize = 5;

/// Positions from random playouts (a fixed xorshift stream), 10 to 29 empties.
fn random_positions() -> Vec<(u64, u64)> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let start = Position::start();
    (0..POSITIONS)
        .map(|_| {
            let (mut player, mut opponent) = (start.player().0, start.opponent().0);
            let empties = 10 + (next() % 20) as u32;
            while (!(player | opponent)).count_ones() > empties {
                let moves = legal_moves(player, opponent);
                if moves == 0 {
                    if legal_moves(opponent, player) == 0 {
                        break;
                    }
                    (player, opponent) = (opponent, player);
                    continue;
                }
                let mut pick = moves;
                for _ in 0..next() % u64::from(moves.count_ones()) {
                    pick &= pick - 1;
                }
                let square = pick.trailing_zeros() as usize;
                let flipped = flips(player, opponent, square);
                (player, opponent) = (opponent ^ flipped, player | flipped | 1 << square);
            }
            (player, opponent)
        })
        .collect()
}

/// Nanoseconds per call of `eval` over `positions`, and the sum of its values.
fn time_per_call(positions: &[(u64, u64)], eval: fn(u64, u64) -> i32) -> (f64, i64) {
    let start = Instant::now();
    let mut sum = 0i64;
    for _ in 0..REPEATS {
        for &(player, opponent) in positions {
            sum += i64::from(eval(black_box(player), black_box(opponent)));
        }
    }
    (start.elapsed().as_nanos() as f64 / (REPEATS * positions.len()) as f64, sum)
}

fn main() {
    let positions = random_positions();
    let (mut full, mut ordering, mut hand) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let (full_ns, full_sum) = time_per_call(&positions, evaluate);
        let (ordering_ns, ordering_sum) = time_per_call(&positions, ordering_evaluate);
        let (hand_ns, hand_sum) = time_per_call(&positions, hand_evaluate);
        println!(
            "round {round}: evaluate {full_ns:6.1} ns   ordering_evaluate {ordering_ns:6.1} ns   hand_evaluate {hand_ns:6.1} ns   (checksums {full_sum} {ordering_sum} {hand_sum})"
        );
        full.push(full_ns);
        ordering.push(ordering_ns);
        hand.push(hand_ns);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "median: evaluate {:.1} ns, ordering_evaluate {:.1} ns, hand_evaluate {:.1} ns",
        median(&mut full),
        median(&mut ordering),
        median(&mut hand)
    );
}
