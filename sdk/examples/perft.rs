//! Counts perft leaves from the start position and prints the speed.
//!
//! `cargo run --release -p othello-sdk --example perft -- 12` (`OTHELLO_SDK_AVX512=0` keeps
//! the AVX2 code on an AVX-512 CPU).

use std::time::Instant;

use othello_sdk::{Position, perft, perft_uses_avx512};

fn main() {
    let depth: u32 = match std::env::args().nth(1).map(|arg| arg.parse()) {
        None => 10,
        Some(Ok(depth)) => depth,
        Some(Err(_)) => {
            eprintln!("usage: perft [DEPTH]   (DEPTH a whole number, default 10)");
            std::process::exit(2);
        }
    };
    let code = if perft_uses_avx512() { "AVX-512" } else { "AVX2 or portable (OTHELLO_SDK_AVX512=0 or no AVX-512)" };
    println!("last two plies: {code}");
    let start = Instant::now();
    let leaves = perft(&Position::start(), depth);
    let seconds = start.elapsed().as_secs_f64();
    println!("depth {depth}  leaves {leaves}  seconds {seconds:.3}  leaves/s {:.0}", leaves as f64 / seconds.max(1e-9));
}
