//! Stable discs: discs that can never be flipped again, whatever is played.
//!
//! Two uses: the evaluation counts edge-anchored stable discs, and the endgame
//! solver cuts off when the opponent's stable discs already cap the mover's
//! best result below alpha ("stability cutoff").
//!
//! The method is the classic one (Edax, Zebra): exact stability of each edge
//! from a precomputed table over all 3^8 edge configurations, then inner discs
//! become stable when each of their four lines is full or has a stable
//! neighbour of the same colour, repeated until nothing changes.

use crate::instruction_set::Baseline;

/// Inner squares (b2..g7): the only ones the propagation step may add; the
/// edges come exactly from the edge table.
const INNER: u64 = 0x007E_7E7E_7E7E_7E00;
const COLUMN_A: u64 = 0x0101_0101_0101_0101;

/// A byte of eight column-a bits (bit k = row k) spread back onto column a.
const COLUMN_A_FROM_BYTE: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut row = 0;
        while row < 8 {
            if byte & (1 << row) != 0 {
                table[byte] |= 1u64 << (8 * row);
            }
            row += 1;
        }
        byte += 1;
    }
    table
};

/// Column a gathered into a byte (bit k = row k): a carry-free multiplication.
#[inline(always)]
fn column_a_to_byte(bits: u64) -> usize {
    ((bits & COLUMN_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

/// `TERNARY[bits]`: the base-3 number with digit 1 where `bits` has a bit
/// (digit k for bit k). An edge with `mine` and `theirs` is then
/// `TERNARY[mine] + 2 * TERNARY[theirs]`: each square 0 (empty), 1 or 2.
const TERNARY: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut value, mut power, mut k) = (0u16, 1u16, 0);
        while k < 8 {
            if bits & (1 << k) != 0 {
                value += power;
            }
            power *= 3;
            k += 1;
        }
        table[bits] = value;
        bits += 1;
    }
    table
};

/// Edge configurations: 3^8.
const EDGE_CONFIGURATIONS: usize = 6561;

#[inline(always)]
const fn edge_index(mine: u8, theirs: u8) -> usize {
    TERNARY[mine as usize] as usize + 2 * TERNARY[theirs as usize] as usize
}

/// `EDGE_STABLE[edge_index(mine, theirs)]`: the discs of `mine` on an
/// 8-square edge that no sequence of moves on that edge can flip. Indexed by
/// the 3^8 configurations (6.4 KiB, built at compile time) rather than by
/// `mine * 256 + theirs` (64 KiB, mostly unused pairs): it stays in the L1
/// cache next to the solver's other tables, and needs no lazy initialisation.
/// Measured on FFO #45 and #49: 0.996x the time (4 pairs, within the noise).
static EDGE_STABLE: [u8; EDGE_CONFIGURATIONS] = edge_stability_table();

/// Places a disc of `mine` on `square` (0..8) of an edge, flipping the runs of
/// `theirs` it brackets along the edge. Returns the new `(mine, theirs)`.
const fn edge_play(mine: u8, theirs: u8, square: u32) -> (u8, u8) {
    let mut flipped = 0u8;
    let mut direction = 0;
    while direction < 2 {
        let step = if direction == 0 { -1i32 } else { 1 };
        let mut run = 0u8;
        let mut at = square as i32 + step;
        while at >= 0 && at < 8 && theirs & (1 << at) != 0 {
            run |= 1 << at;
            at += step;
        }
        if at >= 0 && at < 8 && mine & (1 << at) != 0 {
            flipped |= run;
        }
        direction += 1;
    }
    (mine | flipped | (1 << square), theirs & !flipped)
}

/// Builds the edge table from full edges down to empty ones: a disc is stable
/// if it stays `mine` and stable after either side plays on any empty square
/// (any placement is assumed possible: it may be legal through another line).
const fn edge_stability_table() -> [u8; EDGE_CONFIGURATIONS] {
    let mut table = [0u8; EDGE_CONFIGURATIONS];
    let mut occupied = 9u32;
    while occupied > 0 {
        occupied -= 1;
        let mut mine = 0u32;
        while mine < 256 {
            // Every `theirs` disjoint from `mine`: the subsets of the rest.
            let free = !mine & 0xFF;
            let mut theirs = free;
            loop {
                if (mine | theirs).count_ones() == occupied {
                    let (mine, theirs) = (mine as u8, theirs as u8);
                    let mut stable = mine;
                    let empty = !(mine | theirs);
                    let mut square = 0;
                    while square < 8 && stable != 0 {
                        if empty & (1 << square) != 0 {
                            let (m, t) = edge_play(mine, theirs, square);
                            stable &= table[edge_index(m, t)];
                            let (t, m) = edge_play(theirs, mine, square);
                            stable &= m & table[edge_index(m, t)];
                        }
                        square += 1;
                    }
                    table[edge_index(mine, theirs)] = stable;
                }
                if theirs == 0 {
                    break;
                }
                theirs = (theirs - 1) & free;
            }
            mine += 1;
        }
    }
    table
}

/// The discs of `player` that are stable along the board's four edges.
/// Always inlined: as a call it was 2.5 % of the FFO samples; inlined,
/// FFO #45 and #49 took 0.990x the time (4 pairs).
#[inline(always)]
pub fn edge_stable(player: u64, opponent: u64) -> u64 {
    let lookup = |mine: usize, theirs: usize| EDGE_STABLE[edge_index(mine as u8, theirs as u8)];
    let row_1 = lookup((player & 0xFF) as usize, (opponent & 0xFF) as usize) as u64;
    let row_8 = (lookup((player >> 56) as usize, (opponent >> 56) as usize) as u64) << 56;
    let column_a = COLUMN_A_FROM_BYTE[lookup(column_a_to_byte(player), column_a_to_byte(opponent)) as usize];
    let column_h =
        COLUMN_A_FROM_BYTE[lookup(column_a_to_byte(player >> 7), column_a_to_byte(opponent >> 7)) as usize] << 7;
    row_1 | row_8 | column_a | column_h
}

/// `EDGE_STABLE_DIFFERENCE[edge_index(mine, theirs)]`: the stable discs of
/// `mine` minus those of `theirs` on that edge, for the evaluation, which
/// needs only that difference: one lookup per edge instead of two
/// [`edge_stable`] calls of four each (6.4 KiB).
static EDGE_STABLE_DIFFERENCE: [i8; EDGE_CONFIGURATIONS] = {
    let mut table = [0i8; EDGE_CONFIGURATIONS];
    let mut mine = 0usize;
    while mine < 256 {
        let mut theirs = 0usize;
        while theirs < 256 {
            if mine & theirs == 0 {
                let (m, t) = (mine as u8, theirs as u8);
                table[edge_index(m, t)] =
                    EDGE_STABLE[edge_index(m, t)].count_ones() as i8 - EDGE_STABLE[edge_index(t, m)].count_ones() as i8;
            }
            theirs += 1;
        }
        mine += 1;
    }
    table
};

/// `count(edge_stable(player, opponent)) - count(edge_stable(opponent, player))`,
/// computed with half the lookups (the evaluation's edge-stability feature).
#[inline(always)]
pub fn edge_stable_difference(player: u64, opponent: u64) -> i32 {
    let lookup = |mine: usize, theirs: usize| EDGE_STABLE_DIFFERENCE[edge_index(mine as u8, theirs as u8)] as i32;
    let edges = lookup((player & 0xFF) as usize, (opponent & 0xFF) as usize)
        + lookup((player >> 56) as usize, (opponent >> 56) as usize)
        + lookup(column_a_to_byte(player), column_a_to_byte(opponent))
        + lookup(column_a_to_byte(player >> 7), column_a_to_byte(opponent >> 7));
    // An occupied corner is always stable and lies on two edges: counted twice.
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    edges - ((player & CORNERS).count_ones() as i32 - (opponent & CORNERS).count_ones() as i32)
}

/// The squares from which a walk of `steps` squares along `shift` (9: one
/// row and one column at a time, 7: one row and one column back) towards
/// lower indices (`towards_lower`) or higher ones leaves the board.
const fn edge_band(shift: u32, steps: u32, towards_lower: bool) -> u64 {
    let mut band = 0u64;
    let mut square = 0;
    while square < 64 {
        let (row, col) = (square / 8, square % 8);
        let leaves = if towards_lower {
            row < steps || if shift == 9 { col < steps } else { col > 7 - steps }
        } else {
            row > 7 - steps || if shift == 9 { col > 7 - steps } else { col < steps }
        };
        if leaves {
            band |= 1u64 << square;
        }
        square += 1;
    }
    band
}

/// The squares whose whole diagonal along `SHIFT` (9: a1-h8 kind, 7: h1-a8
/// kind) is occupied: each half-diagonal is checked by doubling steps (1, 2,
/// 4 squares), squares whose walk leaves the board counting as filled.
#[inline(always)]
fn full_diagonals<const SHIFT: u32>(occupied: u64) -> u64 {
    let mut lower = occupied & ((occupied << SHIFT) | const { edge_band(SHIFT, 1, true) });
    lower &= (lower << (2 * SHIFT)) | const { edge_band(SHIFT, 2, true) };
    lower &= (lower << (4 * SHIFT)) | const { edge_band(SHIFT, 4, true) };
    let mut upper = occupied & ((occupied >> SHIFT) | const { edge_band(SHIFT, 1, false) });
    upper &= (upper >> (2 * SHIFT)) | const { edge_band(SHIFT, 2, false) };
    upper &= (upper >> (4 * SHIFT)) | const { edge_band(SHIFT, 4, false) };
    lower & upper
}

/// For each line direction, the squares whose whole line in that direction is
/// occupied: `[horizontal, vertical, a1-h8 diagonal, h1-a8 diagonal]`.
#[inline]
fn full_lines(occupied: u64) -> [u64; 4] {
    let mut rows = occupied;
    rows &= rows >> 1;
    rows &= rows >> 2;
    rows &= rows >> 4;
    let horizontal = (rows & COLUMN_A).wrapping_mul(0xFF);

    let mut columns = occupied;
    columns &= columns >> 8;
    columns &= columns >> 16;
    columns &= columns >> 32;
    let vertical = (columns & 0xFF).wrapping_mul(COLUMN_A);

    [horizontal, vertical, full_diagonals::<9>(occupied), full_diagonals::<7>(occupied)]
}

/// All stable discs of `player` found by edge tables and propagation (a lower
/// bound on the truly stable discs, never an overestimate).
#[inline]
pub fn stable_discs(player: u64, opponent: u64) -> u64 {
    stable_discs_for_cut(player, opponent, u32::MAX)
}

/// Stable discs of `player` for a stability cutoff that needs `needed` of
/// them: a subset of [`stable_discs`] that has at least `needed` discs if
/// that has, and otherwise fewer (a lower bound still: every disc returned is
/// stable): the propagation stops as soon as `needed` is reached. The
/// returned ceiling may then be less tight than the full set's, which costs
/// a few nodes elsewhere (+0.27 % on FFO #45 and #49), but every cut is
/// still found. Measured 0.993x the time on those two (4 pairs, within the
/// noise); adding a skip of the propagation when even every inner disc that
/// could join would leave the count short measured 0.982x, the skip alone
/// 1.023x: left out.
#[inline]
pub fn stable_discs_for_cut(player: u64, opponent: u64, needed: u32) -> u64 {
    stable_discs_for_cut_inlined(player, opponent, needed)
}

/// [`stable_discs_for_cut`], inlined into its caller (the solver's copies
/// for each instruction set, [`crate::instruction_set`]).
#[inline(always)]
pub(crate) fn stable_discs_for_cut_inlined(player: u64, opponent: u64, needed: u32) -> u64 {
    let [horizontal, vertical, diagonal_9, diagonal_7] = full_lines(player | opponent);
    let inner = player & INNER;
    let mut stable = edge_stable(player, opponent) | (inner & horizontal & vertical & diagonal_9 & diagonal_7);
    if stable.count_ones() >= needed {
        return stable;
    }
    loop {
        let before = stable;
        let along_h = (stable >> 1) | (stable << 1) | horizontal;
        let along_v = (stable >> 8) | (stable << 8) | vertical;
        let along_9 = (stable >> 9) | (stable << 9) | diagonal_9;
        let along_7 = (stable >> 7) | (stable << 7) | diagonal_7;
        stable |= along_h & along_v & along_9 & along_7 & inner;
        if stable == before || stable.count_ones() >= needed {
            return stable;
        }
    }
}

/// The stable discs compiled for one instruction set ([`crate::instruction_set`]):
/// the provided methods are [`Baseline`]'s; `crate::dispatch` gives the
/// AVX-512 copy.
pub(crate) trait StabilityInstructions: Copy {
    /// [`stable_discs_for_cut`].
    #[inline(always)]
    fn stable_discs_for_cut(self, player: u64, opponent: u64, needed: u32) -> u64 {
        stable_discs_for_cut(player, opponent, needed)
    }

    /// [`stable_discs`]: the cut's search, never stopped early.
    #[inline(always)]
    fn stable_discs(self, player: u64, opponent: u64) -> u64 {
        self.stable_discs_for_cut(player, opponent, u32::MAX)
    }
}

impl StabilityInstructions for Baseline {}

/// Discs of `player` made stable by the corners alone (a corner and the edge
/// squares next to it): a very cheap stability estimate for move ordering.
#[inline(always)]
pub fn corner_stable_count(player: u64) -> u32 {
    let stable = (((0x0100_0000_0000_0001 & player) << 1)
        | ((0x8000_0000_0000_0080 & player) >> 1)
        | ((0x0000_0000_0000_0081 & player) << 8)
        | ((0x8100_0000_0000_0000 & player) >> 8)
        | 0x8100_0000_0000_0081)
        & player;
    stable.count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;

    /// Masks of the 15 diagonals in each direction (a1-h8 and h1-a8 kinds).
    const DIAGONALS: [[u64; 15]; 2] = {
        let mut masks = [[0u64; 15]; 2];
        let mut square = 0;
        while square < 64 {
            let (row, col) = (square / 8, square % 8);
            masks[0][row + 7 - col] |= 1u64 << square; // a1-h8 direction: row - col constant
            masks[1][row + col] |= 1u64 << square; // h1-a8 direction: row + col constant
            square += 1;
        }
        masks
    };

    /// The full diagonals found mask by mask (the reference for the shifts).
    fn full_diagonals_by_masks(occupied: u64) -> [u64; 2] {
        let mut diagonals = [0u64; 2];
        for (full, masks) in diagonals.iter_mut().zip(DIAGONALS.iter()) {
            for &mask in masks {
                if occupied & mask == mask {
                    *full |= mask;
                }
            }
        }
        diagonals
    }

    #[test]
    fn full_diagonals_match_the_masks() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..100_000 {
            xorshift(&mut state);
            // Mostly full boards: full diagonals are common there.
            let occupied = !(state & state.rotate_left(23) & state.rotate_left(41));
            let expected = full_diagonals_by_masks(occupied);
            assert_eq!([full_diagonals::<9>(occupied), full_diagonals::<7>(occupied)], expected, "{occupied:#x}");
        }
        assert_eq!(full_diagonals::<9>(u64::MAX), u64::MAX);
        assert_eq!(full_diagonals::<7>(0), 0);
    }

    #[test]
    fn stable_discs_for_a_cut_decide_like_the_full_set() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            xorshift(&mut state);
            // Mostly full boards, as in the last-empties solver.
            let empty = state & state.rotate_left(23) & state.rotate_left(41);
            let player = state.rotate_left(11) & !empty;
            let opponent = !player & !empty;
            let full = stable_discs(player, opponent);
            for needed in [0, 5, 10, 20, 30, 40] {
                let found = stable_discs_for_cut(player, opponent, needed);
                assert_eq!(found & !full, 0, "{player:#x} {opponent:#x}");
                assert_eq!(found.count_ones() >= needed, full.count_ones() >= needed, "{player:#x} {opponent:#x}");
            }
        }
    }

    /// Whether a disc of `mine` at `square` can be flipped by some sequence
    /// of placements on the edge (either side, any empty square): the
    /// definition the table is built from, searched plainly.
    fn flippable(mine: u8, theirs: u8, square: u32, memo: &mut std::collections::HashMap<(u8, u8), u8>) -> bool {
        unstable(mine, theirs, memo) & (1 << square) != 0
    }

    fn unstable(mine: u8, theirs: u8, memo: &mut std::collections::HashMap<(u8, u8), u8>) -> u8 {
        if let Some(&known) = memo.get(&(mine, theirs)) {
            return known;
        }
        let mut lost = 0u8;
        for square in 0..8 {
            if (mine | theirs) & (1 << square) != 0 {
                continue;
            }
            let (m, t) = edge_play(mine, theirs, square);
            lost |= mine & !m | (mine & unstable(m, t, memo));
            let (t, m) = edge_play(theirs, mine, square);
            lost |= mine & !m | (mine & m & unstable(m, t, memo));
        }
        memo.insert((mine, theirs), lost);
        lost
    }

    #[test]
    fn the_edge_table_matches_a_plain_search() {
        let mut memo = std::collections::HashMap::new();
        for mine in 0..=255u8 {
            for theirs in 0..=255u8 {
                if mine & theirs != 0 {
                    continue;
                }
                let expected = (0..8).filter(|&k| mine & (1 << k) != 0 && !flippable(mine, theirs, k, &mut memo));
                let expected = expected.fold(0u8, |bits, k| bits | (1 << k));
                assert_eq!(EDGE_STABLE[edge_index(mine, theirs)], expected, "{mine:08b} {theirs:08b}");
            }
        }
    }

    #[test]
    fn a_lone_corner_is_stable_and_a_lone_edge_disc_is_not() {
        let a1 = 1u64;
        let c1 = 1u64 << 2;
        assert_eq!(edge_stable(a1, 0), a1);
        assert_eq!(edge_stable(c1, 0), 0);
        assert_eq!(stable_discs(a1 | c1, 1 << 3), a1);
    }

    #[test]
    fn a_full_board_is_all_stable() {
        let player = 0x0F0F_0F0F_0F0F_0F0F;
        assert_eq!(stable_discs(player, !player), player);
        assert_eq!(stable_discs(!player, player), !player);
    }

    #[test]
    fn corner_runs_along_edges_are_stable() {
        // a1, b1, c1 and a2, a3 black; d1 white; rest empty.
        let black = 0b111 | (1 << 8) | (1 << 16);
        let white = 1 << 3;
        assert_eq!(stable_discs(black, white), black);
        // White d1 is not: black e1 would flip it (bracketed by c1).
        assert_eq!(stable_discs(white, black), 0);
    }

    #[test]
    fn the_edge_stability_difference_matches_the_edge_stable_discs() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            xorshift(&mut state);
            let occupied = state | state.rotate_left(23);
            xorshift(&mut state);
            let (player, opponent) = (occupied & state, occupied & !state);
            let expected =
                edge_stable(player, opponent).count_ones() as i32 - edge_stable(opponent, player).count_ones() as i32;
            assert_eq!(edge_stable_difference(player, opponent), expected);
        }
    }

    #[test]
    fn column_gather_round_trips() {
        for (byte, &column) in COLUMN_A_FROM_BYTE.iter().enumerate() {
            assert_eq!(column_a_to_byte(column), byte);
        }
    }
}
