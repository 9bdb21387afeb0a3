//! Checks the endgame ProbCut's error model against exact scores.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example mpc_check -- bots/alphabeta/tests/data/ffo.txt \
//!     bots/alphabeta/tests/data/selfplay-24.txt bots/alphabeta/tests/data/selfplay-26.txt
//! ```
//!
//! Reads positions with known exact scores from files in the FFO format the
//! `ffo` example reads (`id board side best-moves score [move:score,...]`; the
//! optional scores of each move give the positions after them too), runs the
//! shallow pattern searches ProbCut uses ([`shallow_search`] at depths
//! 0..=[`MAX_DEPTH`]) and prints, for every two numbers of empties and each
//! depth, the mean and the spread of the error `exact − shallow` in discs,
//! beside the spread [`mpc::sigma`] assumes, then the mean error at even and
//! at odd depths. `fit_mpc` fits the model on self-play positions of 12–20
//! empties; this checks it on harder positions, as deep as the files go.

use std::collections::BTreeMap;
use std::process::ExitCode;

use alphabeta::eval::EVAL_SCALE;
use alphabeta::mpc;
use alphabeta::ordering::shallow_search;
use othello_sdk::{Move, Position};

#[path = "shared/ffo_file.rs"]
mod ffo_file;
use ffo_file::{Problem, read_problems};

/// The deepest shallow search checked: ProbCut's own deepest and the even
/// depth above it (ProbCut rounds even depths down, see
/// [`mpc::ODD_SHALLOW_DEPTHS_ONLY`]; this shows why).
const MAX_DEPTH: u32 = mpc::MAX_SHALLOW_DEPTH + 1;
/// Positions with fewer empties are left out (no ProbCut there).
const MIN_EMPTIES: u32 = mpc::MIN_EMPTIES;
/// Beyond any evaluation.
const WINDOW: i32 = 1 << 20;

/// Sums of the errors of one (empties, depth) cell.
#[derive(Default)]
struct Errors {
    sum: f64,
    squares: f64,
    count: u32,
}

impl Errors {
    fn add(&mut self, error: f64) {
        self.sum += error;
        self.squares += error * error;
        self.count += 1;
    }

    fn mean(&self) -> f64 {
        self.sum / f64::from(self.count)
    }

    fn spread(&self) -> f64 {
        (self.squares / f64::from(self.count) - self.mean().powi(2)).max(0.0).sqrt()
    }
}

/// Every position of a problem with its exact score, mover's view: the
/// position itself and, where the line scores its moves, the position after
/// each.
fn scored_positions(problem: &Problem) -> Result<Vec<(Position, i32)>, String> {
    let mut scored = vec![(problem.position, problem.score)];
    for &(square, score) in &problem.move_scores {
        let mut child = problem.position;
        child.try_play(Move::Play(square)).map_err(|why| format!("#{}: {square}: {why}", problem.id))?;
        scored.push((child, -score));
    }
    Ok(scored)
}

fn run() -> Result<(), String> {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        return Err("usage: mpc_check FILE... (FFO-format files with exact scores)".into());
    }
    let mut positions = Vec::new();
    for file in &files {
        for problem in read_problems(file)? {
            positions.extend(scored_positions(&problem).map_err(|e| format!("{file}: {e}"))?);
        }
    }
    let mut cells: BTreeMap<(u32, u32), Errors> = BTreeMap::new();
    let mut by_parity = [Errors::default(), Errors::default()];
    for (position, exact) in &positions {
        let empties = position.empty().count();
        if empties < MIN_EMPTIES {
            continue;
        }
        let (player, opponent) = (position.player().0, position.opponent().0);
        for depth in 0..=MAX_DEPTH {
            let shallow = shallow_search::<true>(player, opponent, depth, -WINDOW, WINDOW);
            let error = f64::from(*exact) - f64::from(shallow) / f64::from(EVAL_SCALE);
            cells.entry((empties / 2 * 2, depth)).or_default().add(error);
            if depth > 0 {
                by_parity[(depth % 2) as usize].add(error);
            }
        }
    }
    println!("error exact − shallow search, discs: mean / spread (samples) [the model's sigma]");
    for ((empties, depth), errors) in &cells {
        let model = mpc::sigma(empties + 1, *depth) / f64::from(EVAL_SCALE);
        println!(
            "empties {empties:2}-{:2} depth {depth}: {:+5.2} / {:5.2} ({:4}) [{model:5.2}]",
            empties + 1,
            errors.mean(),
            errors.spread(),
            errors.count
        );
    }
    for (parity, errors) in ["even", "odd"].iter().zip(&by_parity) {
        println!("{parity} depths from 1: mean {:+.2} discs over {} searches", errors.mean(), errors.count);
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mpc_check: {message}");
            ExitCode::FAILURE
        }
    }
}
