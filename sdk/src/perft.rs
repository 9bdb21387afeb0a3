//! Perft: counting the leaves of the game tree, to check move generation.

use crate::movegen::flips_and_replies;
use crate::{Position, legal_moves};

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
    #[cfg(target_arch = "x86_64")]
    if crate::movegen_avx512::available() {
        return perft_inner::<Avx512>(player, opponent, depth, passed);
    }
    perft_inner::<OneMoveAtATime>(player, opponent, depth, passed)
}

/// Whether [`perft`] counts the last two plies with AVX-512 on this machine
/// (an AVX-512 CPU, and `OTHELLO_SDK_AVX512` not `0`); else one move at a time.
#[cfg(target_arch = "x86_64")]
pub fn perft_uses_avx512() -> bool {
    crate::movegen_avx512::available()
}

/// Never: AVX-512 exists only on x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn perft_uses_avx512() -> bool {
    false
}

/// How the last two plies are counted: the bulk of perft's work.
trait LastTwoPlies {
    /// The leaves two plies below a position with legal `moves` (not zero).
    fn leaves(player: u64, opponent: u64, moves: u64) -> u64;
}

/// One move at a time, on any CPU ([`last_two_plies`]).
struct OneMoveAtATime;

impl LastTwoPlies for OneMoveAtATime {
    #[inline(always)]
    fn leaves(player: u64, opponent: u64, moves: u64) -> u64 {
        last_two_plies(player, opponent, moves)
    }
}

/// Two moves at a time in 512-bit registers, on CPUs with AVX-512.
#[cfg(target_arch = "x86_64")]
struct Avx512;

#[cfg(target_arch = "x86_64")]
impl LastTwoPlies for Avx512 {
    #[inline(always)]
    fn leaves(player: u64, opponent: u64, moves: u64) -> u64 {
        // SAFETY: perft chooses this only when the CPU has AVX-512.
        unsafe { crate::movegen_avx512::leaves_two_plies(player, opponent, moves) }
    }
}

/// `passed`: the previous ply was a pass (so no move here means game over).
fn perft_inner<L: LastTwoPlies>(player: u64, opponent: u64, depth: u32, passed: bool) -> u64 {
    perft_with_moves::<L>(player, opponent, legal_moves(player, opponent), depth, passed)
}

/// [`perft_inner`] with the legal `moves` of the position already known: each move's flips and
/// the replies after it come from one [`flips_and_replies`], so no node computes its moves twice.
fn perft_with_moves<L: LastTwoPlies>(player: u64, opponent: u64, mut moves: u64, depth: u32, passed: bool) -> u64 {
    if depth == 1 {
        // Bulk counting: each move is a leaf; no move is one leaf either way
        // (a pass, or the end of the game).
        return u64::from(moves.count_ones().max(1));
    }
    if moves == 0 {
        return if passed { 1 } else { perft_inner::<L>(opponent, player, depth - 1, true) };
    }
    if depth == 2 {
        return L::leaves(player, opponent, moves);
    }
    let mut leaves = 0;
    while moves != 0 {
        let square = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let (flipped, replies) = flips_and_replies(player, opponent, square);
        let next_player = opponent & !flipped;
        let next_opponent = player | flipped | 1 << square;
        leaves += perft_with_moves::<L>(next_player, next_opponent, replies, depth - 1, false);
    }
    leaves
}

/// The leaves two plies below a position with legal `moves` (not zero), in
/// one loop: no recursion, no depth tests, and each move's flips and the
/// replies after it in one step ([`flips_and_replies`]). This loop runs once
/// per node two plies above the leaves: the bulk of the work.
#[inline(always)]
fn last_two_plies(player: u64, opponent: u64, mut moves: u64) -> u64 {
    let mut leaves = 0;
    while moves != 0 {
        let square = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        leaves += leaves_after(player, opponent, square);
    }
    leaves
}

/// The leaves below one move two plies above them: the opponent's replies,
/// or one leaf for a pass or the end of the game.
///
/// Inlined into the loop above, so that the position's broadcast to the
/// vector registers is made once per loop rather than once per move. An
/// earlier flips code measured 1.6 times slower so; with today's ray-table
/// flips, perft(12) on the AVX2 code (`OTHELLO_SDK_AVX512=0`, AMD EPYC,
/// family 25) took 0.91 times the time of the out-of-line call (5 alternated
/// pairs of whole processes, CPU time).
#[inline(always)]
fn leaves_after(player: u64, opponent: u64, square: usize) -> u64 {
    let (_, replies) = flips_and_replies(player, opponent, square);
    u64::from(replies.count_ones().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published counts from the start (Aart Bik's), for both ways of counting the last two plies:
    /// [`perft`] takes one of them on a given CPU.
    #[test]
    fn both_inner_loops_count_the_published_leaves() {
        const COUNTS: [(u32, u64); 3] = [(7, 55_092), (8, 390_216), (9, 3_005_288)];
        let start = Position::start();
        let (player, opponent) = (start.player().0, start.opponent().0);
        for (depth, count) in COUNTS {
            assert_eq!(perft_inner::<OneMoveAtATime>(player, opponent, depth, false), count, "depth {depth}");
            #[cfg(target_arch = "x86_64")]
            if crate::movegen_avx512::available() {
                assert_eq!(perft_inner::<Avx512>(player, opponent, depth, false), count, "depth {depth}");
            }
        }
    }
}
