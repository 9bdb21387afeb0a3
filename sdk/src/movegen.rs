//! Move generation on raw `u64` bitboards: the hot path of every search.
//!
//! Both functions are branch-free shift-and-mask code (no per-square loops).
//! `player` and `opponent` are the discs of the side to move and of the other
//! side; bit `8 * row + col`.
//!
//! With AVX2 (the release build's default CPU level, see
//! `.cargo/config.toml`) the four line directions are computed at once in the
//! four 64-bit lanes of one vector register; without it the same steps run
//! one direction at a time (the portable code, also the tests' reference).

/// Opponent discs that may lie *between* two squares in a horizontal or
/// diagonal line: columns a and h can't, and masking them stops shifts from
/// wrapping round to the next row.
const NOT_EDGE_COLUMNS: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Squares reachable from `player` along one line direction (both ways) over
/// an unbroken run of `opponent` discs, before masking with the empty squares.
#[inline(always)]
fn moves_along(player: u64, opponent: u64, shift: u32) -> u64 {
    // Kogge–Stone style doubling: runs of 1, 2, then up to 6 opponent discs.
    let mut up = opponent & (player << shift);
    up |= opponent & (up << shift);
    let pairs_up = opponent & (opponent << shift);
    up |= pairs_up & (up << (2 * shift));
    up |= pairs_up & (up << (2 * shift));

    let mut down = opponent & (player >> shift);
    down |= opponent & (down >> shift);
    let pairs_down = pairs_up >> shift;
    down |= pairs_down & (down >> (2 * shift));
    down |= pairs_down & (down >> (2 * shift));

    (up << shift) | (down >> shift)
}

/// The legal moves of `player`: empty squares that flip at least one disc.
///
/// ```
/// use othello_sdk::{legal_moves, Position};
/// let start = Position::start();
/// let moves = legal_moves(start.player().0, start.opponent().0);
/// assert_eq!(moves.count_ones(), 4);
/// ```
#[inline]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    // SAFETY: this code is only compiled when the build targets AVX2 CPUs.
    unsafe {
        simd::legal_moves(player, opponent)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        legal_moves_portable(player, opponent)
    }
}

/// [`legal_moves`] one direction at a time, on any CPU.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx2"), allow(dead_code))]
#[inline]
pub(crate) fn legal_moves_portable(player: u64, opponent: u64) -> u64 {
    let inner = opponent & NOT_EDGE_COLUMNS;
    let moves = moves_along(player, inner, 1)
        | moves_along(player, opponent, 8)
        | moves_along(player, inner, 7)
        | moves_along(player, inner, 9);
    moves & !(player | opponent)
}

/// One ray per direction and square: the squares from (excluding) the square
/// to the board's edge. `RAYS_UP` go towards higher bit indices (E, SW, S, SE),
/// `RAYS_DOWN` towards lower ones (W, NE, N, NW).
const RAYS_UP: [[u64; 64]; 4] = rays([(0, 1), (1, -1), (1, 0), (1, 1)]);
const RAYS_DOWN: [[u64; 64]; 4] = rays([(0, -1), (-1, 1), (-1, 0), (-1, -1)]);

const fn rays(directions: [(i32, i32); 4]) -> [[u64; 64]; 4] {
    let mut table = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let (dr, dc) = directions[d];
        let mut square = 0;
        while square < 64 {
            let (mut r, mut c) = ((square / 8) as i32 + dr, (square % 8) as i32 + dc);
            let mut ray = 0u64;
            while r >= 0 && r < 8 && c >= 0 && c < 8 {
                ray |= 1u64 << (r * 8 + c);
                r += dr;
                c += dc;
            }
            table[d][square] = ray;
            square += 1;
        }
        d += 1;
    }
    table
}

/// The opponent discs that `player` flips by playing on `square` (0..64).
/// Zero if the move is illegal. The square is assumed empty.
///
/// ```
/// use othello_sdk::{flips, Position, Square};
/// let start = Position::start();
/// let d3: Square = "d3".parse().unwrap();
/// let flipped = flips(start.player().0, start.opponent().0, d3.index());
/// assert_eq!(flipped, "d4".parse::<Square>().unwrap().bitboard().0);
/// ```
#[inline]
pub fn flips(player: u64, opponent: u64, square: usize) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    // SAFETY: this code is only compiled when the build targets AVX2 CPUs.
    unsafe {
        simd::flips(player, opponent, square)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        flips_portable(player, opponent, square)
    }
}

/// [`flips`] one direction at a time, on any CPU.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx2"), allow(dead_code))]
#[inline]
pub(crate) fn flips_portable(player: u64, opponent: u64, square: usize) -> u64 {
    let mut flipped = 0;
    let not_opponent = !opponent;
    for d in 0..4 {
        // Towards higher indices: the first non-opponent square is the lowest set bit.
        let ray = RAYS_UP[d][square];
        let blockers = not_opponent & ray;
        let outflank = blockers & blockers.wrapping_neg() & player;
        let between = outflank.wrapping_sub(1) & ray;
        flipped |= between & 0u64.wrapping_sub((outflank != 0) as u64);

        // Towards lower indices: the first non-opponent square is the highest set
        // bit. `| 1` keeps leading_zeros < 64; bit 0 is then either off the ray
        // (masked out below) or an opponent disc (not in `player`).
        let ray = RAYS_DOWN[d][square];
        let blockers = (not_opponent & ray) | 1;
        let outflank = (1u64 << 63 >> blockers.leading_zeros()) & player & ray;
        flipped |= outflank.wrapping_neg() << 1 & ray;
    }
    flipped
}

/// The discs `player` flips by playing on `square`, and the legal moves of
/// the opponent (the next mover) in the position after it: `(flipped,
/// replies)`. `flipped` is zero if the move is illegal (then `replies` means
/// nothing). The square is assumed empty.
///
/// One call does what [`flips`] and [`legal_moves`] on the next position do,
/// without moving the flipped discs out of the vector registers and back in
/// between (perft's and move ordering's inner loop).
///
/// ```
/// use othello_sdk::{flips, legal_moves, movegen::flips_and_replies, Position, Square};
/// let start = Position::start();
/// let (player, opponent) = (start.player().0, start.opponent().0);
/// let d3 = "d3".parse::<Square>().unwrap().index();
/// let (flipped, replies) = flips_and_replies(player, opponent, d3);
/// assert_eq!(flipped, flips(player, opponent, d3));
/// assert_eq!(replies, legal_moves(opponent & !flipped, player | flipped | 1 << d3));
/// ```
#[inline]
pub fn flips_and_replies(player: u64, opponent: u64, square: usize) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    // SAFETY: this code is only compiled when the build targets AVX2 CPUs.
    unsafe {
        simd::flips_and_replies(player, opponent, square)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        let flipped = flips_portable(player, opponent, square);
        (flipped, legal_moves_portable(opponent & !flipped, player | flipped | 1 << square))
    }
}

/// The four line directions in the four lanes of an AVX2 register.
///
/// Lane `k` shifts by `SHIFTS[k]` (horizontal, vertical and the two
/// diagonals); the "up" half of each function moves towards higher bit
/// indices (`<<`), the "down" half towards lower ones (`>>`). Every step is
/// the portable code's step, four directions wide.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod simd {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_castsi256_si128, _mm256_cmpeq_epi64, _mm256_extracti128_si256, _mm256_or_si256,
        _mm256_permute4x64_epi64, _mm256_set_epi64x, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_shuffle_epi32,
        _mm256_sllv_epi64, _mm256_srlv_epi64,
    };

    use super::NOT_EDGE_COLUMNS;

    /// Shift per lane: horizontal, vertical, the two diagonals (last lane first in `set`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shifts() -> __m256i {
        _mm256_set_epi64x(9, 7, 8, 1)
    }

    /// Twice [`shifts`], for the doubling steps.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn double_shifts() -> __m256i {
        _mm256_set_epi64x(18, 14, 16, 2)
    }

    /// The opponent's discs that can lie inside a run, per lane: all of them
    /// vertically, none on columns a and h otherwise (no wrapping round rows).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn run_discs(opponent: u64) -> __m256i {
        run_lanes(_mm256_set1_epi64x(opponent as i64))
    }

    /// [`run_discs`] of a board already broadcast to the four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn run_lanes(opponent: __m256i) -> __m256i {
        let edges = NOT_EDGE_COLUMNS as i64;
        _mm256_and_si256(opponent, _mm256_set_epi64x(edges, edges, -1, edges))
    }

    /// The OR of the four lanes, in every lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_lanes_broadcast(v: __m256i) -> __m256i {
        let v = _mm256_or_si256(v, _mm256_permute4x64_epi64::<0b01_00_11_10>(v));
        _mm256_or_si256(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v))
    }

    /// The OR of the four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_lanes(v: __m256i) -> u64 {
        let halves = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        _mm_cvtsi128_si64(_mm_or_si128(halves, _mm_unpackhi_epi64(halves, halves))) as u64
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn legal_moves(player: u64, opponent: u64) -> u64 {
        let lanes = move_lanes(_mm256_set1_epi64x(player as i64), run_discs(opponent));
        or_lanes(lanes) & !(player | opponent)
    }

    /// The squares each lane's direction makes legal for `p` (the player's
    /// discs in every lane) against `o` ([`run_lanes`]), empties not yet masked.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn move_lanes(p: __m256i, o: __m256i) -> __m256i {
        let (shift, shift2) = (shifts(), double_shifts());

        let mut up = _mm256_and_si256(o, _mm256_sllv_epi64(p, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(o, _mm256_sllv_epi64(up, shift)));
        let pairs_up = _mm256_and_si256(o, _mm256_sllv_epi64(o, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));

        let mut down = _mm256_and_si256(o, _mm256_srlv_epi64(p, shift));
        down = _mm256_or_si256(down, _mm256_and_si256(o, _mm256_srlv_epi64(down, shift)));
        let pairs_down = _mm256_srlv_epi64(pairs_up, shift);
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));

        _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn flips(player: u64, opponent: u64, square: usize) -> u64 {
        let p = _mm256_set1_epi64x(player as i64);
        let start = _mm256_set1_epi64x((1u64 << square) as i64);
        or_lanes(flip_lanes(p, run_discs(opponent), start))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn flips_and_replies(player: u64, opponent: u64, square: usize) -> (u64, u64) {
        let p = _mm256_set1_epi64x(player as i64);
        let o = _mm256_set1_epi64x(opponent as i64);
        let start = _mm256_set1_epi64x((1u64 << square) as i64);
        let flipped = or_lanes_broadcast(flip_lanes(p, run_lanes(o), start));
        // The next mover is the opponent, minus the flipped discs.
        let next_player = _mm256_andnot_si256(flipped, o);
        let next_opponent = _mm256_or_si256(_mm256_or_si256(p, flipped), start);
        let replies = or_lanes(move_lanes(next_player, run_lanes(next_opponent)));
        // The move fills its square and flips nothing else empty.
        let empty = !(player | opponent | 1 << square);
        (_mm_cvtsi128_si64(_mm256_castsi256_si128(flipped)) as u64, replies & empty)
    }

    /// The discs each lane's direction flips for a move on `start` (the
    /// square's bit in every lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flip_lanes(p: __m256i, o: __m256i, start: __m256i) -> __m256i {
        let (shift, shift2) = (shifts(), double_shifts());
        let zero = _mm256_setzero_si256();

        // The run of opponent discs from the square in each direction (at
        // most 6 long), kept only where a player disc closes it.
        let mut up = _mm256_and_si256(o, _mm256_sllv_epi64(start, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(o, _mm256_sllv_epi64(up, shift)));
        let pairs_up = _mm256_and_si256(o, _mm256_sllv_epi64(o, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, shift2)));
        let closed_up = _mm256_and_si256(p, _mm256_sllv_epi64(up, shift));
        up = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed_up, zero), up);

        let mut down = _mm256_and_si256(o, _mm256_srlv_epi64(start, shift));
        down = _mm256_or_si256(down, _mm256_and_si256(o, _mm256_srlv_epi64(down, shift)));
        let pairs_down = _mm256_srlv_epi64(pairs_up, shift);
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));
        down = _mm256_or_si256(down, _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, shift2)));
        let closed_down = _mm256_and_si256(p, _mm256_srlv_epi64(down, shift));
        down = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed_down, zero), down);

        _mm256_or_si256(up, down)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64: random-looking boards, reproducible.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn the_dispatched_code_agrees_with_the_portable_code() {
        let mut state = 0x2545_F491_4F6C_DD1D;
        for _ in 0..200_000 {
            let a = next(&mut state);
            let b = next(&mut state);
            // Boards of every density: some sparse, some nearly full.
            let (player, opponent) = match a % 3 {
                0 => (a & b, !a & b.rotate_left(7)),
                1 => (a & !b, !a & b),
                _ => (a | b.rotate_left(3), !(a | b.rotate_left(3)) & next(&mut state)),
            };
            let opponent = opponent & !player;
            assert_eq!(legal_moves(player, opponent), legal_moves_portable(player, opponent));
            let empty = !(player | opponent);
            let mut squares = empty;
            while squares != 0 {
                let square = squares.trailing_zeros() as usize;
                squares &= squares - 1;
                let flipped = flips_portable(player, opponent, square);
                assert_eq!(flips(player, opponent, square), flipped);
                let (both_flipped, replies) = flips_and_replies(player, opponent, square);
                assert_eq!(both_flipped, flipped);
                if flipped != 0 {
                    let next = (opponent & !flipped, player | flipped | 1 << square);
                    assert_eq!(replies, legal_moves_portable(next.0, next.1));
                }
            }
        }
    }
}
