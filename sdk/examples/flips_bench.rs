//! Times `flips` (the discs a move flips) against the portable code and the
//! AVX2 code it replaced, on the same inputs, and checks they all agree.
//!
//! `cargo run --release -p othello-sdk --example flips_bench [-- CALLS]`
//!
//! The inputs are what a search asks: positions met in random games from the
//! start (every number of empties, a fixed seed) and, in each, every empty
//! square next to an opponent disc (legal or not). Two figures per function,
//! each the median of several passes over all inputs:
//! - throughput: independent calls, as when a move list is scored;
//! - latency: each call's board depends on the previous call's result, as
//!   when a search plays the move and recurses.
//!
//! Exits with status 1 if any two functions disagree on any input.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use othello_sdk::movegen::{flips_and_replies, flips_portable};
use othello_sdk::{Position, SplitMix64, flips, legal_moves};

/// Inputs by default: a few MB, enough for every kind of position and quick to time.
const DEFAULT_CALLS: usize = 200_000;
/// Seed of the random games the inputs come from (fixed: same inputs every run).
const SEED: u64 = 0x5EED_F11F;
/// Passes over the inputs per figure; the median is printed.
const PASSES: usize = 9;

/// A flip function under test.
type FlipFn = fn(u64, u64, usize) -> u64;

/// One call's arguments.
#[derive(Clone, Copy)]
struct Input {
    player: u64,
    opponent: u64,
    square: usize,
}

/// The squares next to `square`.
fn neighbours(square: usize) -> u64 {
    let (row, col) = ((square / 8) as i32, (square % 8) as i32);
    let mut around = 0;
    for dr in -1..=1 {
        for dc in -1..=1 {
            let (r, c) = (row + dr, col + dc);
            if (dr, dc) != (0, 0) && (0..8).contains(&r) && (0..8).contains(&c) {
                around |= 1u64 << (r * 8 + c);
            }
        }
    }
    around
}

/// `count` inputs from random games played from the start.
fn inputs(count: usize, seed: u64) -> Vec<Input> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(count);
    let start = Position::start();
    loop {
        let (mut player, mut opponent) = (start.player().0, start.opponent().0);
        loop {
            let mut empties = !(player | opponent);
            while empties != 0 {
                let square = empties.trailing_zeros() as usize;
                empties &= empties - 1;
                if neighbours(square) & opponent != 0 {
                    out.push(Input { player, opponent, square });
                    if out.len() == count {
                        return out;
                    }
                }
            }
            let mut moves = legal_moves(player, opponent);
            if moves == 0 {
                if legal_moves(opponent, player) == 0 {
                    break;
                }
                (player, opponent) = (opponent, player);
                continue;
            }
            for _ in 0..rng.below(moves.count_ones()) {
                moves &= moves - 1;
            }
            let square = moves.trailing_zeros() as usize;
            let flipped = flips(player, opponent, square);
            (player, opponent) = (opponent & !flipped, player | flipped | 1 << square);
        }
    }
}

/// Median throughput and latency of `f` over `inputs`, in ns per call.
fn time(inputs: &[Input], f: impl Fn(u64, u64, usize) -> u64) -> (f64, f64) {
    let per_call = |start: Instant| start.elapsed().as_secs_f64() * 1e9 / inputs.len() as f64;
    let (mut throughput, mut latency) = (Vec::new(), Vec::new());
    for _ in 0..PASSES {
        let start = Instant::now();
        let mut all = 0u64;
        for input in inputs {
            all ^= f(black_box(input.player), black_box(input.opponent), black_box(input.square));
        }
        black_box(all);
        throughput.push(per_call(start));

        // `link` is always zero, but the compiler can't know: each call waits for the last one.
        let zero = black_box(0u64);
        let start = Instant::now();
        let mut last = 0u64;
        for input in inputs {
            let link = last & zero;
            last = f(input.player ^ link, input.opponent ^ link, input.square);
        }
        black_box(last);
        latency.push(per_call(start));
    }
    throughput.sort_by(f64::total_cmp);
    latency.sort_by(f64::total_cmp);
    (throughput[PASSES / 2], latency[PASSES / 2])
}

fn main() -> ExitCode {
    let calls = match std::env::args().nth(1).map(|arg| arg.parse()) {
        None => DEFAULT_CALLS,
        Some(Ok(calls)) if calls > 0 => calls,
        Some(_) => {
            eprintln!("usage: flips_bench [CALLS]   (CALLS a positive whole number, default {DEFAULT_CALLS})");
            return ExitCode::from(2);
        }
    };
    let inputs = inputs(calls, SEED);

    #[cfg_attr(not(all(target_arch = "x86_64", target_feature = "avx2")), allow(unused_mut))]
    let mut candidates: Vec<(&str, FlipFn)> = vec![
        ("flips", flips),
        ("flips_portable", flips_portable),
        ("flips_and_replies", |player, opponent, square| flips_and_replies(player, opponent, square).0),
    ];
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    candidates.push(("kogge_stone (old)", kogge_stone::flips));

    let mut disagreements = 0;
    for input in &inputs {
        let want = flips_portable(input.player, input.opponent, input.square);
        for (name, f) in &candidates {
            let got = f(input.player, input.opponent, input.square);
            if got != want {
                disagreements += 1;
                if disagreements <= 10 {
                    eprintln!(
                        "{name} disagrees: player {:#018x} opponent {:#018x} square {}: {got:#018x}, portable {want:#018x}",
                        input.player, input.opponent, input.square
                    );
                }
            }
        }
    }
    let legal = inputs.iter().filter(|i| flips_portable(i.player, i.opponent, i.square) != 0).count();
    println!("{} inputs ({legal} legal moves), seed {SEED:#x}, median of {PASSES} passes", inputs.len());
    // One call per function (not a loop over `candidates`): each timed loop
    // gets its own copy of `time` with the function inlined, as in a search.
    let report = |name: &str, (throughput, latency): (f64, f64)| {
        println!("{name:18} throughput {throughput:6.2} ns/call   latency {latency:6.2} ns/call");
    };
    report("flips", time(&inputs, flips));
    report("flips_portable", time(&inputs, flips_portable));
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    report("kogge_stone (old)", time(&inputs, kogge_stone::flips));
    if disagreements > 0 {
        eprintln!("{disagreements} disagreements");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The AVX2 `flips` this crate had before the ray-table version: a
/// Kogge–Stone fill along the runs of opponent discs, four lines at a time.
/// Kept here as the baseline the figures are compared with.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod kogge_stone {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_castsi256_si128, _mm256_cmpeq_epi64, _mm256_extracti128_si256, _mm256_or_si256, _mm256_set_epi64x,
        _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_sllv_epi64, _mm256_srlv_epi64,
    };

    /// Opponent discs that can lie inside a run off the vertical: not on columns a and h.
    const NOT_EDGE_COLUMNS: i64 = 0x7E7E_7E7E_7E7E_7E7E;

    #[inline]
    pub fn flips(player: u64, opponent: u64, square: usize) -> u64 {
        // SAFETY: this module is only compiled when the build targets AVX2 CPUs.
        unsafe { flips_avx2(player, opponent, square) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn flips_avx2(player: u64, opponent: u64, square: usize) -> u64 {
        let p = _mm256_set1_epi64x(player as i64);
        let o = _mm256_and_si256(
            _mm256_set1_epi64x(opponent as i64),
            _mm256_set_epi64x(NOT_EDGE_COLUMNS, NOT_EDGE_COLUMNS, -1, NOT_EDGE_COLUMNS),
        );
        let start = _mm256_set1_epi64x((1u64 << square) as i64);
        let (shift, shift2) = (_mm256_set_epi64x(9, 7, 8, 1), _mm256_set_epi64x(18, 14, 16, 2));
        let zero = _mm256_setzero_si256();

        let mut up = _mm256_and_si256(o, _mm256_sllv_epi64(start, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(o, _mm256_sllv_epi64(up, shift)));
        let pairs_up = _mm256_and_si256(o, _mm256_sllv_epi64(o, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));
        let closed_up = _mm256_and_si256(p, _mm256_sllv_epi64(up, shift));
        up = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed_up, zero), up);

        let mut down = _mm256_and_si256(o, _mm256_srlv_epi64(start, shift));
        down = _mm256_or_si256(down, _mm256_and_si256(o, _mm256_srlv_epi64(down, shift)));
        let pairs_down = _mm256_srlv_epi64(pairs_up, shift);
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));
        let closed_down = _mm256_and_si256(p, _mm256_srlv_epi64(down, shift));
        down = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed_down, zero), down);

        let v: __m256i = _mm256_or_si256(up, down);
        let halves = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        _mm_cvtsi128_si64(_mm_or_si128(halves, _mm_unpackhi_epi64(halves, halves))) as u64
    }
}
