//! Small bitboard helpers shared by the evaluation, the searches and the solver.
//!
//! Positions are handled as raw `(player, opponent)` pairs of `u64`: the side
//! to move first. Playing a move swaps them, so every function is written from
//! the mover's point of view (negamax).

/// The four corners a1, h1, a8, h8.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Columns b..h: a shift left by one must not wrap a disc from column h into column a.
const NOT_COLUMN_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
/// Columns a..g: the mirror of [`NOT_COLUMN_A`] for shifts right.
const NOT_COLUMN_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The largest possible disc difference; also "infinity" for exact scores.
pub const SCORE_MAX: i32 = 64;

/// The position after the mover plays on `square`, flipping `flipped`:
/// `(player, opponent)` for the *next* mover.
#[inline(always)]
pub fn play(player: u64, opponent: u64, square: usize, flipped: u64) -> (u64, u64) {
    (opponent ^ flipped, player | flipped | (1u64 << square))
}

/// Squares next to any disc of `discs` (in the eight directions).
#[inline(always)]
pub fn neighbours(discs: u64) -> u64 {
    let horizontal = ((discs << 1) & NOT_COLUMN_A) | ((discs >> 1) & NOT_COLUMN_H);
    let row = discs | horizontal;
    horizontal | (row << 8) | (row >> 8)
}

/// Empty squares next to `discs`: where the other side may one day play
/// (potential mobility).
#[inline(always)]
pub fn frontier_empties(discs: u64, empty: u64) -> u64 {
    neighbours(discs) & empty
}

/// The final disc difference of a finished game from the mover's view; the
/// empty squares go to the winner (the standard convention, as in the FFO set).
#[inline]
pub fn final_score(player: u64, opponent: u64) -> i32 {
    let mine = player.count_ones() as i32;
    let theirs = opponent.count_ones() as i32;
    let empties = 64 - mine - theirs;
    let difference = mine - theirs;
    match difference.signum() {
        1 => difference + empties,
        -1 => difference - empties,
        _ => 0,
    }
}

/// Iterates the squares (bit indices) of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(square)
    }
}

/// A cheap, well-mixed 64-bit hash of a position (for the transposition table
/// and for deterministic per-position noise).
#[inline(always)]
pub fn hash(player: u64, opponent: u64) -> u64 {
    const MIX_PLAYER: u64 = 0x9E37_79B9_7F4A_7C15;
    const MIX_OPPONENT: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let h = player.wrapping_mul(MIX_PLAYER) ^ opponent.rotate_left(29).wrapping_mul(MIX_OPPONENT);
    h ^ (h >> 31)
}

/// One step of a xorshift generator (the tests' reproducible random stream):
/// advances `state` and returns it.
#[cfg(test)]
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_do_not_wrap_round_the_board() {
        let h1 = 1u64 << 7;
        let expected = (1u64 << 6) | (1u64 << 14) | (1u64 << 15);
        assert_eq!(neighbours(h1), expected);
        let a2 = 1u64 << 8;
        assert_eq!(neighbours(a2), (1 << 0) | (1 << 1) | (1 << 9) | (1 << 16) | (1 << 17));
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        // 10 discs to 4, 50 empties: 10 - 4 + 50.
        assert_eq!(final_score(0x3FF, 0xF << 20), 56);
        assert_eq!(final_score(0xF << 20, 0x3FF), -56);
        assert_eq!(final_score(0xF, 0xF0), 0);
    }
}
