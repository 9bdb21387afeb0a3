//! Perft: counting the leaves of the game tree, to check move generation.

use crate::{Position, legal_moves, movegen::flips};

/// Leaves of the game tree `depth` plies below `position`, in the usual
/// convention (Aart Bik's): a pass counts as a ply, and a game that ends
/// before `depth` is one leaf.
///
/// ```
/// use othello_sdk::{perft, Position};
/// assert_eq!(perft(&Position::start(), 1), 4);
/// assert_eq!(perft(&Position::start(), 5), 1396);
/// ```
pub fn perft(position: &Position, depth: u32) -> u64 {
    let (player, opponent) = (position.player().0, position.opponent().0);
    if depth == 0 {
        return 1;
    }
    // A pass into this position is only known to end the game if the opponent
    // has no move either; the inner recursion tracks that with a flag.
    let passed = legal_moves(opponent, player) == 0;
    perft_inner(player, opponent, depth, passed)
}

/// `passed`: the previous ply was a pass (so no move here means game over).
fn perft_inner(player: u64, opponent: u64, depth: u32, passed: bool) -> u64 {
    let mut moves = legal_moves(player, opponent);
    if depth == 1 {
        // Bulk counting: each move is a leaf; no move is one leaf either way
        // (a pass, or the end of the game).
        return u64::from(moves.count_ones().max(1));
    }
    if moves == 0 {
        return if passed { 1 } else { perft_inner(opponent, player, depth - 1, true) };
    }
    let mut leaves = 0;
    while moves != 0 {
        let square = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let flipped = flips(player, opponent, square);
        let next_player = opponent & !flipped;
        let next_opponent = player | flipped | 1 << square;
        leaves += perft_inner(next_player, next_opponent, depth - 1, false);
    }
    leaves
}
