//! What the training, fitting and test-set examples share: a reproducible random stream,
//! self-play moves and a small linear solver.

#![allow(dead_code)] // each example uses its part

use alphabeta::{Limits, Searcher};
use othello_sdk::{Move, Position};

/// xorshift64: the next number of a reproducible stream seeded by `state`.
pub fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The move a self-play game plays at `position`, its `ply`-th: one of the first
/// `opening_random_moves` plies at random, later the bot's search to `depth` with uniform noise
/// of ±`noise` centi-discs on each root move, so that the games differ. A pass takes no random
/// number.
pub fn self_play_move(
    searcher: &mut Searcher,
    position: &Position,
    ply: u32,
    rng: &mut u64,
    opening_random_moves: u32,
    depth: u32,
    noise: i32,
) -> Move {
    let moves = position.legal_moves();
    if moves.is_empty() {
        return Move::Pass;
    }
    if ply < opening_random_moves {
        let squares: Vec<_> = moves.into_iter().collect();
        return Move::Play(squares[(next(rng) % squares.len() as u64) as usize]);
    }
    let mut root_noise = [0i32; 64];
    for value in &mut root_noise {
        *value = (next(rng) % (2 * noise as u64 + 1)) as i32 - noise;
    }
    searcher.set_root_noise(Some(root_noise));
    let result = searcher.search(position, &Limits::depth(depth));
    searcher.set_root_noise(None);
    result.best_move
}

/// Solves `a x = b` (small, dense) by Gaussian elimination with pivoting.
#[allow(clippy::needless_range_loop)] // indices read as the textbook algorithm
pub fn solve_linear(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap();
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            for k in col..n {
                a[row][k] -= factor * a[col][k];
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let sum: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - sum) / a[row][row];
    }
    x
}
