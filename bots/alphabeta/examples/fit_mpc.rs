//! Fits the Multi-ProbCut error model of the endgame solver to exact results.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example fit_mpc -- [GAMES]
//! ```
//!
//! Plays GAMES (default 200) noisy shallow self-play games and solves
//! positions with [`MIN_EMPTIES`]..=[`MAX_EMPTIES`] empties exactly. For each
//! one it also runs the shallow pattern searches ProbCut uses
//! ([`shallow_search`] at depths 0..=[`MAX_SHALLOW_DEPTH`]) and collects the
//! error `exact − shallow` in discs. It prints the error's mean and standard
//! deviation per (empties, depth), and the least-squares fit
//! `sigma = a + b·empties + c·depth` that `src/mpc.rs` uses: copy the three
//! numbers into [`alphabeta::mpc`]'s constants by hand.
//!
//! The midgame search cuts with the same test, but against a deeper search
//! rather than an exact solve: positions with [`MIDGAME_MIN_EMPTIES`]..=
//! [`MIDGAME_MAX_EMPTIES`] empties are searched to each depth of
//! [`MIDGAME_DEPTHS`] and to half of it, and the error's spread is fitted as
//! `sigma = a + b·empties + c·depth` (depth: the deep search's) for the
//! `MIDGAME_SIGMA_*` constants.

// Matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use alphabeta::Searcher;
use alphabeta::eval::score_to_discs;
use alphabeta::ordering::shallow_search;
use alphabeta::search::Limits;
use othello_sdk::{Move, Position};

#[path = "shared/fitting.rs"]
mod fitting;
use fitting::{next, solve_linear};

const MIN_EMPTIES: u32 = 12;
const MAX_EMPTIES: u32 = 20;
const MAX_SHALLOW_DEPTH: u32 = 6;
/// Root noise of the self-play moves, in centi-discs: varied, plausible games.
const MOVE_NOISE: u64 = 300;
const MOVE_DEPTH: u32 = 2;
/// One position in this many is solved (positions of one game are alike).
const SAMPLE_ONE_IN: u64 = 3;
/// Beyond any evaluation.
const WINDOW: i32 = 1 << 20;
const MIDGAME_MIN_EMPTIES: u32 = 22;
const MIDGAME_MAX_EMPTIES: u32 = 52;
/// Deep searches of the midgame fit (the shallow one is half as deep).
const MIDGAME_DEPTHS: [u32; 3] = [4, 6, 8];
/// Table size of the midgame fit's searches (cleared before each).
const PROBE_TABLE_BITS: u32 = 16;

fn main() {
    let games: usize = std::env::args().nth(1).map_or(200, |s| s.parse().expect("GAMES is a number"));
    let started = std::time::Instant::now();
    let mut searcher = Searcher::new();
    let mut probe = Searcher::with_table_bits(PROBE_TABLE_BITS, 1);
    let mut state = 0x3C6E_F372_FE94_F82Bu64;
    let depths = MAX_SHALLOW_DEPTH as usize + 1;
    // errors[empties][depth]: exact − shallow, in discs.
    let mut errors = vec![vec![Vec::<f64>::new(); depths]; MAX_EMPTIES as usize + 1];
    // (empties, deep depth, deep − shallow in discs).
    let mut midgame = Vec::<(f64, f64, f64)>::new();
    for game in 0..games {
        let mut pos = Position::start();
        while !pos.is_game_over() {
            if pos.legal_moves().is_empty() {
                pos.play(Move::Pass);
                continue;
            }
            let empties = pos.empty().count();
            if (MIN_EMPTIES..=MAX_EMPTIES).contains(&empties) && next(&mut state).is_multiple_of(SAMPLE_ONE_IN) {
                let (p, o) = (pos.player().0, pos.opponent().0);
                let exact = searcher.solve(&pos).score as f64;
                for depth in 0..depths {
                    let value = shallow_search::<true>(p, o, depth as u32, -WINDOW, WINDOW);
                    errors[empties as usize][depth].push(exact - score_to_discs(value));
                }
            }
            if (MIDGAME_MIN_EMPTIES..=MIDGAME_MAX_EMPTIES).contains(&empties)
                && next(&mut state).is_multiple_of(2 * SAMPLE_ONE_IN)
            {
                for depth in MIDGAME_DEPTHS {
                    // Fresh tables for each: a shallow search must not read the deep one's bounds.
                    probe.clear();
                    let deep = probe.search(&pos, &Limits::depth(depth)).score;
                    probe.clear();
                    let shallow = probe.search(&pos, &Limits::depth(depth / 2)).score;
                    midgame.push((empties as f64, depth as f64, score_to_discs(deep) - score_to_discs(shallow)));
                }
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
        if game % 20 == 19 {
            eprintln!("{} games, {:.0} s", game + 1, started.elapsed().as_secs_f64());
        }
    }

    println!("error exact − shallow search, discs: mean / standard deviation (samples)");
    print!("{:>7}", "empties");
    for depth in 0..depths {
        print!(" {:>15}", format!("depth {depth}"));
    }
    println!();
    let (mut normal, mut rhs) = (vec![vec![0.0; 3]; 3], vec![0.0; 3]);
    for empties in MIN_EMPTIES as usize..=MAX_EMPTIES as usize {
        print!("{empties:>7}");
        for depth in 0..depths {
            let e = &errors[empties][depth];
            let n = e.len() as f64;
            let mean = e.iter().sum::<f64>() / n.max(1.0);
            let sigma = (e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
            print!(" {:>15}", format!("{mean:+.1}/{sigma:.1} ({})", e.len()));
            if e.len() >= 2 {
                // Weighted by the samples behind each cell.
                let x = [1.0, empties as f64, depth as f64];
                for i in 0..3 {
                    rhs[i] += n * x[i] * sigma;
                    for j in 0..3 {
                        normal[i][j] += n * x[i] * x[j];
                    }
                }
            }
        }
        println!();
    }
    let fit = solve_linear(normal, rhs);
    println!("sigma = {:.4} + {:.4} * empties + {:.4} * depth   (discs)", fit[0], fit[1], fit[2]);

    // Midgame: squared errors regressed on (1, empties, depth) estimate the
    // variance; sigma is fitted on absolute errors scaled to a normal's
    // (E|x| = sigma · sqrt(2/pi)), robust to the odd proven score.
    let (mut normal, mut rhs) = (vec![vec![0.0; 3]; 3], vec![0.0; 3]);
    let abs_to_sigma = (std::f64::consts::PI / 2.0).sqrt();
    for &(empties, depth, error) in &midgame {
        if error.abs() > 64.0 {
            continue;
        }
        let x = [1.0, empties, depth];
        for i in 0..3 {
            rhs[i] += x[i] * error.abs() * abs_to_sigma;
            for j in 0..3 {
                normal[i][j] += x[i] * x[j];
            }
        }
    }
    let mid = solve_linear(normal, rhs);
    let mean = midgame.iter().map(|m| m.2).sum::<f64>() / midgame.len().max(1) as f64;
    println!(
        "midgame: {} samples, mean error {mean:+.2}; sigma = {:.4} + {:.4} * empties + {:.4} * depth   (discs)",
        midgame.len(),
        mid[0],
        mid[1],
        mid[2]
    );
    println!("{games} games in {:.0} s", started.elapsed().as_secs_f64());
}
