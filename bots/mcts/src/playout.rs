//! Random playouts: the game played to its end with uniformly random moves,
//! on raw bitboards, as fast as possible (this is where MCTS spends its time).

use othello_sdk::{flips, legal_moves};

use crate::rng::SplitMix64;

/// Points ×2, so a draw is a whole number: a win, a draw and a loss.
pub const WIN: u32 = 2;
pub const DRAW: u32 = 1;
pub const LOSS: u32 = 0;

/// Plays random moves from the position (`player` to move) to the end and
/// returns the result for `player`: [`WIN`], [`DRAW`] or [`LOSS`].
#[inline]
pub fn random_playout(mut player: u64, mut opponent: u64, rng: &mut SplitMix64) -> u32 {
    // `player` always holds the side to move; `swapped` says whether that is
    // the starting side's opponent.
    let mut swapped = false;
    let mut moves = legal_moves(player, opponent);
    loop {
        if moves == 0 {
            // Pass, or the game is over if the opponent has no move either.
            let replies = legal_moves(opponent, player);
            if replies == 0 {
                break;
            }
            (player, opponent, moves) = (opponent, player, replies);
            swapped = !swapped;
            continue;
        }
        let square = nth_set_bit(moves, rng.below(moves.count_ones()));
        let flipped = flips(player, opponent, square as usize);
        (player, opponent) = (opponent ^ flipped, player | flipped | (1 << square));
        swapped = !swapped;
        moves = legal_moves(player, opponent);
    }
    let (mine, theirs) = if swapped { (opponent, player) } else { (player, opponent) };
    result(mine, theirs)
}

/// The result for the side owning `mine` of a finished game.
#[inline]
pub fn result(mine: u64, theirs: u64) -> u32 {
    match mine.count_ones().cmp(&theirs.count_ones()) {
        std::cmp::Ordering::Greater => WIN,
        std::cmp::Ordering::Equal => DRAW,
        std::cmp::Ordering::Less => LOSS,
    }
}

/// The index of the `n`-th (from 0, lowest first) set bit of `bits`; `n` <
/// `bits.count_ones()`.
#[inline]
pub fn nth_set_bit(bits: u64, n: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // PDEP deposits the single bit 1 << n into the n-th set bit of `bits`.
        // SAFETY: this code is only compiled when the build targets CPUs with
        // BMI2 (`target_feature = "bmi2"`, e.g. x86-64-v3 as this workspace sets).
        unsafe { std::arch::x86_64::_pdep_u64(1 << n, bits) }.trailing_zeros()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut bits = bits;
        for _ in 0..n {
            bits &= bits - 1; // drop the lowest set bit
        }
        bits.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::Position;

    #[test]
    fn nth_set_bit_counts_from_the_lowest() {
        let bits = 0b1011_0100_u64 | (1 << 63);
        let indices: Vec<u32> = (0..bits.count_ones()).map(|n| nth_set_bit(bits, n)).collect();
        assert_eq!(indices, [2, 4, 5, 7, 63]);
    }

    #[test]
    fn a_finished_game_is_scored_without_moving() {
        // A full board, all black but b1: black wins.
        let black = !2u64;
        let position = Position::from_player_opponent(black, 2, othello_sdk::Color::Black);
        assert!(position.is_game_over());
        let mut rng = SplitMix64::new(1);
        assert_eq!(random_playout(black, 2, &mut rng), WIN);
        assert_eq!(random_playout(2, black, &mut rng), LOSS);
    }

    #[test]
    fn playouts_from_the_start_give_both_results() {
        let start = Position::start();
        let mut rng = SplitMix64::new(3);
        let mut counts = [0u32; 3];
        for _ in 0..2000 {
            counts[random_playout(start.player().0, start.opponent().0, &mut rng) as usize] += 1;
        }
        // Random play from the start: roughly even, draws rare.
        assert!(counts[WIN as usize] > 800 && counts[LOSS as usize] > 800, "{counts:?}");
        assert!(counts[DRAW as usize] < 200, "{counts:?}");
    }
}
