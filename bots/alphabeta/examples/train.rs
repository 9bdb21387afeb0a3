//! Trains the pattern weights of the evaluation and writes the weights file.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example train -- --small
//! cargo run --release -p bot-alphabeta --example train -- --full [--seed 1] [--threads 2] [--out PATH]
//! cargo run --release -p bot-alphabeta --example train -- --games 20000 --test 100 --epochs 30
//! ```
//!
//! 1. Self-play: games of this bot (a random opening of a few moves, then a
//!    shallow search with noise on the root moves, so the games differ).
//! 2. Labels: every position with at most [`EXACT_EMPTIES`] empties is solved
//!    exactly; earlier positions get the exact score of their game's first
//!    position with [`EXACT_EMPTIES`] empties (what perfect play from there
//!    gives; a noisy but unbiased label).
//! 3. Fit: the pattern tables of each phase below 30 empties by stochastic gradient descent on
//!    the squared error of "hand-written evaluation + pattern correction"
//!    against the label, with a small weight decay (unseen configurations
//!    stay at zero).
//! 4. Held-out check: positions with 20–24 empties from games of another
//!    seed, solved exactly; prints the mean absolute error of the evaluation
//!    before (hand-written only) and after (with the new patterns).
//! 5. Writes the weights (default `bots/alphabeta/weights/patterns.bin`);
//!    rebuild the bot to ship them.
//!
//! Everything follows from `--seed` (and the weights the program was built
//! with, which play the self-play games): the same seed and setting give the
//! same file whatever `--threads`.

use std::time::Instant;

use alphabeta::Searcher;
use alphabeta::eval::{EVAL_SCALE, evaluate, hand_evaluate};
use alphabeta::patterns::{
    EMPTIES_PER_PHASE, PATTERN_COUNT, PHASE_COUNT, PLACEMENTS, PatternWeights, TRAINED_PHASE_COUNT, WEIGHTS_PER_PHASE,
    pattern_offsets, phase, placement_indices,
};
use alphabeta::search::Limits;
use othello_sdk::{Move, Position};

#[path = "shared/fitting.rs"]
mod fitting;
use fitting::next;

/// Positions with at most this many empties are labelled by an exact solve.
const EXACT_EMPTIES: u32 = 16;
/// Random moves at the start of each self-play game.
const OPENING_RANDOM_MOVES: u32 = 8;
/// Depth of the self-play search.
const SELF_PLAY_DEPTH: u32 = 3;
/// Uniform noise on the self-play root moves, ± centi-discs.
const SELF_PLAY_NOISE: i32 = 300;
/// Held-out positions have this many empties.
const TEST_EMPTIES: std::ops::RangeInclusive<u32> = 20..=24;
/// Gradient step per unit of error (centi-discs) for each touched weight.
const LEARNING_RATE: f32 = 0.002;
/// Weight decay per touched update (pulls rarely seen weights to zero).
const WEIGHT_DECAY: f32 = 0.001;
/// Passes over the training positions.
const EPOCHS: usize = 12;
/// Transposition tables of the self-play searchers (log2 entries): small, as
/// every thread has its own and the solves are small.
const SELF_PLAY_TABLE_BITS: u32 = 18;
/// The held-out solves (20–24 empties) need the bot's full-size tables.
const TEST_TABLE_BITS: u32 = 20;

#[derive(Clone, Copy)]
struct Setting {
    games: u64,
    test_positions: u64,
    epochs: usize,
}

const SMALL: Setting = Setting { games: 2000, test_positions: 20, epochs: EPOCHS };
const FULL: Setting = Setting { games: 8000, test_positions: 40, epochs: EPOCHS };

/// A training or test position with its exact-or-game label (disc difference, mover's view).
#[derive(Clone, Copy)]
struct Labelled {
    player: u64,
    opponent: u64,
    label: i32,
}

/// One self-play game from `seed`: the positions in order (mover first).
fn self_play(searcher: &mut Searcher, seed: u64) -> Vec<Position> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut position = Position::start();
    let mut positions = vec![position];
    let mut ply = 0;
    while !position.is_game_over() {
        let moves = position.legal_moves();
        let chosen = if moves.is_empty() {
            Move::Pass
        } else if ply < OPENING_RANDOM_MOVES {
            let squares: Vec<_> = moves.into_iter().collect();
            Move::Play(squares[(next(&mut rng) % squares.len() as u64) as usize])
        } else {
            let mut noise = [0i32; 64];
            for value in &mut noise {
                *value = (next(&mut rng) % (2 * SELF_PLAY_NOISE as u64 + 1)) as i32 - SELF_PLAY_NOISE;
            }
            searcher.set_root_noise(Some(noise));
            let result = searcher.search(&position, &Limits::depth(SELF_PLAY_DEPTH));
            searcher.set_root_noise(None);
            result.best_move
        };
        position.play(chosen);
        positions.push(position);
        ply += 1;
    }
    positions
}

/// Training positions of one game, labelled.
fn training_game(searcher: &mut Searcher, seed: u64) -> Vec<Labelled> {
    let positions = self_play(searcher, seed);
    let mut out = Vec::new();
    let mut anchor: Option<(Position, i32)> = None;
    for position in &positions {
        if position.empty().count() > EXACT_EMPTIES || position.is_game_over() {
            continue;
        }
        let score = searcher.solve(position).score;
        if anchor.is_none() {
            anchor = Some((*position, score));
        }
        out.push(Labelled { player: position.player().0, opponent: position.opponent().0, label: score });
    }
    let Some((anchor, anchor_score)) = anchor else { return out };
    for position in positions.iter().filter(|p| p.empty().count() > EXACT_EMPTIES && !p.is_game_over()) {
        let label = if position.side_to_move() == anchor.side_to_move() { anchor_score } else { -anchor_score };
        out.push(Labelled { player: position.player().0, opponent: position.opponent().0, label });
    }
    out
}

/// One held-out position with 20–24 empties from a game of `seed`, solved exactly.
fn test_position(searcher: &mut Searcher, seed: u64) -> Option<Labelled> {
    let positions = self_play(searcher, seed);
    let candidates: Vec<_> =
        positions.iter().filter(|p| TEST_EMPTIES.contains(&p.empty().count()) && !p.legal_moves().is_empty()).collect();
    let position = candidates.get((seed as usize * 7919) % candidates.len().max(1))?;
    let score = searcher.solve(position).score;
    Some(Labelled { player: position.player().0, opponent: position.opponent().0, label: score })
}

/// Runs `work(i)` for i in 0..count on `threads` threads; results in order of i.
fn parallel<T: Send>(
    count: u64,
    threads: usize,
    table_bits: u32,
    work: impl Fn(&mut Searcher, u64) -> T + Sync,
) -> Vec<T> {
    let mut results: Vec<(u64, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let work = &work;
                scope.spawn(move || {
                    let mut searcher = Searcher::with_table_bits(table_bits, table_bits);
                    (t..count).step_by(threads).map(|i| (i, work(&mut searcher, i))).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a worker thread")).collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// A sample ready for the fit: its phase, the weight slots it reads, and the
/// residual it must learn (label minus hand-written evaluation, centi-discs).
struct Sample {
    phase: usize,
    slots: Vec<u32>,
    residual: f32,
}

fn sample(position: &Labelled) -> Sample {
    let offsets = const { pattern_offsets() };
    let empties = (!(position.player | position.opponent)).count_ones();
    let slots = placement_indices(position.player, position.opponent)
        .iter()
        .zip(PLACEMENTS.iter())
        .map(|(&index, placement)| (offsets[placement.pattern] + index as usize) as u32)
        .collect();
    let target = (position.label * EVAL_SCALE) as f32;
    Sample { phase: phase(empties), slots, residual: target - hand_evaluate(position.player, position.opponent) as f32 }
}

/// Stochastic gradient descent, one table set per phase.
fn fit(samples: &[Sample], seed: u64, epochs: usize) -> Vec<f32> {
    let mut weights = vec![0f32; PHASE_COUNT * WEIGHTS_PER_PHASE];
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut rng = seed | 1;
    for epoch in 0..epochs {
        // Fisher–Yates shuffle, reproducible.
        for i in (1..order.len()).rev() {
            order.swap(i, (next(&mut rng) % (i as u64 + 1)) as usize);
        }
        let mut total_error = 0f64;
        for &i in &order {
            let s = &samples[i];
            let table = &mut weights[s.phase * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE];
            let prediction: f32 = s.slots.iter().map(|&slot| table[slot as usize]).sum();
            let error = s.residual - prediction;
            total_error += error.abs() as f64;
            for &slot in &s.slots {
                let w = &mut table[slot as usize];
                *w += LEARNING_RATE * error - WEIGHT_DECAY * *w;
            }
        }
        println!(
            "  epoch {:>2}: training mean absolute error {:.2} discs",
            epoch + 1,
            total_error / samples.len().max(1) as f64 / EVAL_SCALE as f64
        );
    }
    weights
}

fn mean_absolute_error(positions: &[Labelled], eval: impl Fn(u64, u64) -> i32) -> f64 {
    let sum: f64 =
        positions.iter().map(|p| (eval(p.player, p.opponent) as f64 / EVAL_SCALE as f64 - p.label as f64).abs()).sum();
    sum / positions.len().max(1) as f64
}

fn run() -> Result<(), String> {
    let mut setting = SMALL;
    let mut seed = 1u64;
    let mut threads = 1usize;
    let mut out = String::from("bots/alphabeta/weights/patterns.bin");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--small" => setting = SMALL,
            "--full" => setting = FULL,
            "--games" => setting.games = value("--games")?.parse().map_err(|e| format!("--games: {e}"))?,
            "--test" => setting.test_positions = value("--test")?.parse().map_err(|e| format!("--test: {e}"))?,
            "--epochs" => setting.epochs = value("--epochs")?.parse().map_err(|e| format!("--epochs: {e}"))?,
            "--seed" => seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--threads" => threads = value("--threads")?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--out" => out = value("--out")?,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (expected --small | --full, --games N, --test N, --epochs N, --seed N, --threads N, --out PATH)"
                ));
            }
        }
    }
    let threads = threads.max(1);
    let start = Instant::now();

    println!("self-play and labelling: {} games, seed {seed}, {threads} thread(s)", setting.games);
    let games = parallel(setting.games, threads, SELF_PLAY_TABLE_BITS, |searcher, i| {
        training_game(searcher, seed.wrapping_mul(1_000_003) + i)
    });
    let positions: Vec<Labelled> = games.into_iter().flatten().collect();
    let exact = positions.iter().filter(|p| (!(p.player | p.opponent)).count_ones() <= EXACT_EMPTIES).count();
    println!("  {} positions ({exact} solved exactly) in {:.1} s", positions.len(), start.elapsed().as_secs_f64());

    let test_start = Instant::now();
    let test_seed = seed.wrapping_mul(1_000_003).wrapping_add(1 << 40);
    let test: Vec<Labelled> = parallel(setting.test_positions, threads, TEST_TABLE_BITS, |searcher, i| {
        test_position(searcher, test_seed + i)
    })
    .into_iter()
    .flatten()
    .collect();
    println!(
        "held-out set: {} positions with 20-24 empties solved in {:.1} s",
        test.len(),
        test_start.elapsed().as_secs_f64()
    );

    let fit_start = Instant::now();
    // Only the phases the bot uses (see `TRAINED_PHASE_COUNT`); the others stay zero.
    let samples: Vec<Sample> = positions.iter().map(sample).filter(|s| s.phase < TRAINED_PHASE_COUNT).collect();
    println!(
        "fit: {} positions with fewer than {} empties",
        samples.len(),
        TRAINED_PHASE_COUNT as u32 * EMPTIES_PER_PHASE
    );
    let weights = fit(&samples, seed, setting.epochs);
    let weights = PatternWeights {
        values: weights.iter().map(|w| w.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16).collect(),
    };
    println!("fit: {:.1} s", fit_start.elapsed().as_secs_f64());

    let hand = |p, o| hand_evaluate(p, o);
    let shipped = |p, o| evaluate(p, o);
    let new = |p, o| {
        (hand_evaluate(p, o) + weights.correction(p, o))
            .clamp(-alphabeta::eval::EVAL_LIMIT, alphabeta::eval::EVAL_LIMIT)
    };
    println!("held-out mean absolute error (discs), 20-24 empties:");
    println!("  hand-written evaluation only      {:.2}", mean_absolute_error(&test, hand));
    println!("  with the weights built in         {:.2}", mean_absolute_error(&test, shipped));
    println!("  with the new weights              {:.2}", mean_absolute_error(&test, new));

    let bytes = weights.to_bytes();
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    let nonzero = weights.values.iter().filter(|&&w| w != 0).count();
    println!(
        "wrote {out}: {} bytes, {nonzero} of {} weights non-zero ({PATTERN_COUNT} patterns x {PHASE_COUNT} phases); total {:.1} s",
        bytes.len(),
        weights.values.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::ExitCode::from(2)
        }
    }
}
