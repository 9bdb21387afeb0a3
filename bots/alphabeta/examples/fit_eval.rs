//! Fits the endgame side of the evaluation weights to exact results.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example fit_eval -- [GAMES]
//! ```
//!
//! Plays GAMES (default 300) noisy shallow self-play games, solves positions
//! with 8 to 18 empties exactly, then fits by least squares the endgame
//! weights (the opening weights held fixed) so that the evaluation predicts
//! the final disc difference. Prints the old and new weights and errors; copy
//! the new `end` values into `src/eval.rs` by hand.

// Matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use alphabeta::Searcher;
use alphabeta::eval::{EVAL_SCALE, FEATURE_COUNT, FEATURE_NAMES, evaluate, features, weight_table};
use alphabeta::search::Limits;
use othello_sdk::{Move, Position};

#[path = "shared/fitting.rs"]
mod fitting;
use fitting::{next, solve_linear};

const MIN_EMPTIES: u32 = 8;
const MAX_EMPTIES: u32 = 18;
/// Root noise of the self-play moves, in centi-discs: varied, plausible games.
const MOVE_NOISE: u64 = 300;
const MOVE_DEPTH: u32 = 2;

struct Sample {
    empties: i32,
    features: [i32; FEATURE_COUNT],
    /// Exact final disc difference times EVAL_SCALE.
    target: f64,
    old_eval: f64,
}

fn main() {
    let games: usize = std::env::args().nth(1).map_or(300, |s| s.parse().expect("GAMES is a number"));
    let mut searcher = Searcher::new();
    let mut state = 0x5EED_1234_ABCDu64;
    let mut samples = Vec::new();
    for game in 0..games {
        let mut pos = Position::start();
        while !pos.is_game_over() {
            if pos.legal_moves().is_empty() {
                pos.play(Move::Pass);
                continue;
            }
            let empties = pos.empty().count();
            if (MIN_EMPTIES..=MAX_EMPTIES).contains(&empties) && next(&mut state).is_multiple_of(2) {
                let (p, o) = (pos.player().0, pos.opponent().0);
                let score = searcher.solve(&pos).score;
                samples.push(Sample {
                    empties: empties as i32,
                    features: features(p, o),
                    target: (score * EVAL_SCALE) as f64,
                    old_eval: evaluate(p, o) as f64,
                });
            }
            let mut noise = [0i32; 64];
            for value in &mut noise {
                *value = (next(&mut state) % (2 * MOVE_NOISE + 1)) as i32 - MOVE_NOISE as i32;
            }
            searcher.set_root_noise(Some(noise));
            let result = searcher.search(&pos, &Limits::depth(MOVE_DEPTH));
            searcher.set_root_noise(None);
            pos.play(result.best_move);
        }
        if game % 50 == 49 {
            eprintln!("{} games, {} samples", game + 1, samples.len());
        }
    }

    // weight(e) = (opening * e + end * (60 - e)) / 60 with `opening` fixed:
    // regress what is left of the target on feature * (60 - e) / 60.
    let table = weight_table();
    let n = FEATURE_COUNT;
    let mut normal = vec![vec![0.0; n]; n];
    let mut rhs = vec![0.0; n];
    for s in &samples {
        let e = s.empties as f64;
        let fixed: f64 = (0..n).map(|j| table[j].0 as f64 * s.features[j] as f64 * e / 60.0).sum();
        let x: Vec<f64> = (0..n).map(|j| s.features[j] as f64 * (60.0 - e) / 60.0).collect();
        let y = s.target - fixed;
        for i in 0..n {
            rhs[i] += x[i] * y;
            for j in 0..n {
                normal[i][j] += x[i] * x[j];
            }
        }
    }
    for (i, row) in normal.iter_mut().enumerate() {
        row[i] += 1e-6; // keeps the system solvable if a feature never varies
    }
    let end = solve_linear(normal, rhs);

    let predict = |s: &Sample| -> f64 {
        let e = s.empties as f64;
        (0..n).map(|j| (table[j].0 as f64 * e + end[j] * (60.0 - e)) / 60.0 * s.features[j] as f64).sum()
    };
    let mean_abs = |f: &dyn Fn(&Sample) -> f64| {
        samples.iter().map(|s| (f(s) - s.target).abs()).sum::<f64>() / samples.len() as f64 / EVAL_SCALE as f64
    };
    println!("{} samples with {MIN_EMPTIES}..={MAX_EMPTIES} empties", samples.len());
    println!("mean absolute error (discs): old {:.2}, fitted {:.2}", mean_abs(&|s| s.old_eval), mean_abs(&predict));
    println!("{:>20} {:>8} {:>8} {:>8}", "feature", "opening", "old end", "new end");
    for j in 0..n {
        println!("{:>20} {:>8} {:>8} {:>8.0}", FEATURE_NAMES[j], table[j].0, table[j].1, end[j]);
    }
}
