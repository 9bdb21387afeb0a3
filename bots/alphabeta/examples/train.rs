//! Trains the pattern weights of the evaluation and writes the weights file.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example train -- --small
//! cargo run --release -p bot-alphabeta --example train -- --full [--seed 1] [--threads 2] [--out PATH]
//! cargo run --release -p bot-alphabeta --example train -- --games 20000 --test 100 --epochs 30
//! cargo run --release -p bot-alphabeta --example train -- --midgame --games 4000 --threads 2
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
//! 5. Midgame phases (30 empties and more), one phase at a time upwards:
//!    each position of the phase is labelled by a search of
//!    [`MIDGAME_LABEL_DEPTH`] plies (`--label-depth`) with the weights fitted so far (its leaves
//!    lie mostly in the phase below, which is already fitted), and the phase's
//!    tables are fitted to those labels. `--midgame` does this step alone, on
//!    top of the weights the program was built with (their endgame phases
//!    kept), from self-play games that need no solving.
//! 6. Writes the weights (default `bots/alphabeta/weights/patterns.bin`);
//!    rebuild the bot to ship them.
//!
//! Everything follows from `--seed` (and the weights the program was built
//! with, which play the self-play games): the same seed and setting give the
//! same file whatever `--threads`.

use std::time::Instant;

use alphabeta::Searcher;
use alphabeta::eval::{EVAL_LIMIT, EVAL_SCALE, evaluate, hand_evaluate};
use alphabeta::patterns::{
    EMPTIES_PER_PHASE, PATTERN_COUNT, PHASE_COUNT, PLACEMENTS, PatternWeights, SHIPPED, TRAINED_PHASE_COUNT,
    WEIGHTS_PER_PHASE, pattern_offsets, phase, placement_indices, replace_weights,
};
use alphabeta::search::Limits;
use othello_sdk::{Bitboard, Color, Position};

#[path = "shared/fitting.rs"]
mod fitting;
use fitting::{next, self_play_move};

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
/// Depth of the searches that label midgame positions (30 empties and more).
const MIDGAME_LABEL_DEPTH: u32 = 8;
/// Passes over the midgame phases: from the second on, the leaves of a label search that stay
/// in the phase being fitted are evaluated with its weights of the pass before.
const MIDGAME_PASSES: usize = 2;
/// Midgame positions labelled per phase, at most (every game's positions of the phase are
/// thinned evenly to this).
const MIDGAME_POSITIONS_PER_PHASE: usize = 60_000;

#[derive(Clone, Copy)]
struct Setting {
    games: u64,
    test_positions: u64,
    epochs: usize,
    midgame_positions: usize,
    label_depth: u32,
    passes: usize,
}

const SMALL: Setting =
    Setting { games: 2000, test_positions: 20, epochs: EPOCHS, midgame_positions: 5_000, label_depth: 6, passes: 1 };
const FULL: Setting = Setting {
    games: 8000,
    test_positions: 40,
    epochs: EPOCHS,
    midgame_positions: MIDGAME_POSITIONS_PER_PHASE,
    label_depth: MIDGAME_LABEL_DEPTH,
    passes: MIDGAME_PASSES,
};

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
        let chosen =
            self_play_move(searcher, &position, ply, &mut rng, OPENING_RANDOM_MOVES, SELF_PLAY_DEPTH, SELF_PLAY_NOISE);
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
    sample_of(position.player, position.opponent, position.label * EVAL_SCALE)
}

/// The sample of a position whose value is `target` centi-discs.
fn sample_of(player: u64, opponent: u64, target: i32) -> Sample {
    let offsets = const { pattern_offsets() };
    let empties = (!(player | opponent)).count_ones();
    let slots = placement_indices(player, opponent)
        .iter()
        .zip(PLACEMENTS.iter())
        .map(|(&index, placement)| (offsets[placement.pattern] + index as usize) as u32)
        .collect();
    Sample { phase: phase(empties), slots, residual: target as f32 - hand_evaluate(player, opponent) as f32 }
}

/// Fits the midgame phases one at a time upwards on top of `weights` (whose phases below
/// [`TRAINED_PHASE_COUNT`] are kept): each phase's positions (at most `per_phase`, thinned
/// evenly) are labelled by searches of `setting.label_depth` plies that evaluate with the weights
/// fitted so far, then the phase's tables are fitted to the labels.
fn fit_midgame(weights: &mut PatternWeights, positions: &[(u64, u64)], setting: Setting, threads: usize, seed: u64) {
    let (per_phase, depth, epochs) = (setting.midgame_positions, setting.label_depth, setting.epochs);
    let phases = TRAINED_PHASE_COUNT..PHASE_COUNT;
    for (pass, fitted_phase) in (1..=setting.passes.max(1)).flat_map(|pass| phases.clone().map(move |p| (pass, p))) {
        let phase_start = Instant::now();
        replace_weights(PatternWeights::from_values(weights.values.clone()));
        let of_phase: Vec<(u64, u64)> = positions
            .iter()
            .copied()
            .filter(|&(player, opponent)| phase((!(player | opponent)).count_ones()) == fitted_phase)
            .collect();
        let stride = of_phase.len().div_ceil(per_phase.max(1)).max(1);
        let chosen: Vec<(u64, u64)> = of_phase.iter().copied().step_by(stride).collect();
        let labels = parallel(chosen.len() as u64, threads, SELF_PLAY_TABLE_BITS, |searcher, i| {
            let (player, opponent) = chosen[i as usize];
            let position = Position::from_discs(Bitboard(player), Bitboard(opponent), Color::Black)
                .expect("a self-play position has no disc on both sides");
            searcher.search(&position, &Limits::depth(depth)).score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
        });
        let samples: Vec<Sample> = chosen
            .iter()
            .zip(&labels)
            .map(|(&(player, opponent), &label)| sample_of(player, opponent, label))
            .collect();
        println!(
            "midgame pass {pass}, phase {fitted_phase} ({}-{} empties): {} positions labelled by depth-{depth} searches in {:.1} s",
            fitted_phase as u32 * EMPTIES_PER_PHASE,
            fitted_phase as u32 * EMPTIES_PER_PHASE + EMPTIES_PER_PHASE - 1,
            samples.len(),
            phase_start.elapsed().as_secs_f64()
        );
        let fitted = fit(&samples, seed.wrapping_add(fitted_phase as u64), epochs);
        let range = fitted_phase * WEIGHTS_PER_PHASE..(fitted_phase + 1) * WEIGHTS_PER_PHASE;
        for (value, fitted) in weights.values[range.clone()].iter_mut().zip(&fitted[range]) {
            *value = fitted.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        }
        weights.set_used_phases();
    }
    replace_weights(PatternWeights::from_values(weights.values.clone()));
    let start = Position::start();
    println!(
        "  the start position now evaluates to {:+.2} discs (hand-written alone {:+.2})",
        evaluate(start.player().0, start.opponent().0) as f64 / EVAL_SCALE as f64,
        hand_evaluate(start.player().0, start.opponent().0) as f64 / EVAL_SCALE as f64
    );
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
    let mut midgame_only = false;
    let mut out = String::from("bots/alphabeta/weights/patterns.bin");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--small" => setting = SMALL,
            "--full" => setting = FULL,
            "--midgame" => midgame_only = true,
            "--games" => setting.games = value("--games")?.parse().map_err(|e| format!("--games: {e}"))?,
            "--test" => setting.test_positions = value("--test")?.parse().map_err(|e| format!("--test: {e}"))?,
            "--epochs" => setting.epochs = value("--epochs")?.parse().map_err(|e| format!("--epochs: {e}"))?,
            "--midgame-positions" => {
                setting.midgame_positions =
                    value("--midgame-positions")?.parse().map_err(|e| format!("--midgame-positions: {e}"))?
            }
            "--passes" => setting.passes = value("--passes")?.parse().map_err(|e| format!("--passes: {e}"))?,
            "--label-depth" => {
                setting.label_depth = value("--label-depth")?.parse().map_err(|e| format!("--label-depth: {e}"))?
            }
            "--seed" => seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--threads" => threads = value("--threads")?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--out" => out = value("--out")?,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (expected --small | --full, --midgame, --games N, --test N, --epochs N, --midgame-positions N, --label-depth D, --passes N, --seed N, --threads N, --out PATH)"
                ));
            }
        }
    }
    let threads = threads.max(1);
    let start = Instant::now();

    let mut weights = if midgame_only {
        println!("self-play: {} games, seed {seed}, {threads} thread(s) (midgame phases only)", setting.games);
        let games = parallel(setting.games, threads, SELF_PLAY_TABLE_BITS, |searcher, i| {
            self_play(searcher, seed.wrapping_mul(1_000_003) + i)
        });
        let positions = midgame_positions(games.iter().flatten().map(|p| (p.player().0, p.opponent().0)));
        println!("  {} midgame positions in {:.1} s", positions.len(), start.elapsed().as_secs_f64());
        let mut weights = PatternWeights::from_values(SHIPPED.values.clone());
        weights.values[TRAINED_PHASE_COUNT * WEIGHTS_PER_PHASE..].fill(0);
        weights.set_used_phases();
        fit_midgame(&mut weights, &positions, setting, threads, seed);
        weights
    } else {
        endgame_stage(setting, seed, threads, start)?
    };
    weights.set_used_phases();

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

/// The positions of the midgame phases (30 empties and more) among `positions`.
fn midgame_positions(positions: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    positions
        .filter(|&(player, opponent)| phase((!(player | opponent)).count_ones()) >= TRAINED_PHASE_COUNT)
        .filter(|&(player, opponent)| othello_sdk::legal_moves(player, opponent) != 0)
        .collect()
}

/// Steps 1–5: self-play, exact labels, the endgame phases' fit, the held-out check, then the
/// midgame phases on top.
fn endgame_stage(setting: Setting, seed: u64, threads: usize, start: Instant) -> Result<PatternWeights, String> {
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
    // The endgame phases first; the midgame phases are labelled by searches into them below.
    let samples: Vec<Sample> = positions.iter().map(sample).filter(|s| s.phase < TRAINED_PHASE_COUNT).collect();
    println!(
        "fit: {} positions with fewer than {} empties",
        samples.len(),
        TRAINED_PHASE_COUNT as u32 * EMPTIES_PER_PHASE
    );
    let fitted = fit(&samples, seed, setting.epochs);
    let weights = PatternWeights::from_values(
        fitted.iter().map(|w| w.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16).collect(),
    );
    println!("fit: {:.1} s", fit_start.elapsed().as_secs_f64());

    let hand = |p, o| hand_evaluate(p, o);
    let shipped = |p, o| evaluate(p, o);
    let new = |p, o| (hand_evaluate(p, o) + weights.correction(p, o)).clamp(-EVAL_LIMIT, EVAL_LIMIT);
    println!("held-out mean absolute error (discs), 20-24 empties:");
    println!("  hand-written evaluation only      {:.2}", mean_absolute_error(&test, hand));
    println!("  with the weights built in         {:.2}", mean_absolute_error(&test, shipped));
    println!("  with the new weights              {:.2}", mean_absolute_error(&test, new));

    let mut weights = weights;
    let midgame = midgame_positions(positions.iter().map(|p| (p.player, p.opponent)));
    fit_midgame(&mut weights, &midgame, setting, threads, seed);
    Ok(weights)
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
