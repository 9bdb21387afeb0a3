//! Perft's inner loop on CPUs with AVX-512: two moves of one position at a time, each in one half
//! of a 512-bit register (its four lanes the four line directions, as in the AVX2 code of
//! [`movegen`](crate::movegen)).
//!
//! The builds target AVX2 CPUs, so this code is compiled for AVX-512 on its own and chosen at run
//! time ([`available`]), once per perft call.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::{
    __m512i, _mm_cvtsi128_si64, _mm256_castsi256_si128, _mm256_load_si256, _mm512_add_epi64, _mm512_and_si512,
    _mm512_andnot_si512, _mm512_castsi256_si512, _mm512_castsi512_si256, _mm512_cmpgt_epi64_mask,
    _mm512_cmpneq_epi64_mask, _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_maskz_mov_epi64, _mm512_or_si512,
    _mm512_permutex_epi64, _mm512_set_epi64, _mm512_set1_epi64, _mm512_sllv_epi64, _mm512_srlv_epi64, _mm512_xor_si512,
};

use crate::movegen::RAYS;

/// Runs of opponent discs never cross columns a and h, except vertically.
const NOT_EDGE_COLUMNS: i64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Whether this CPU runs the AVX-512 code, and the environment has not
/// refused it: `OTHELLO_SDK_AVX512=0` keeps the AVX2 or portable code on an
/// AVX-512 CPU (to measure what a CPU without AVX-512 gets, on the same
/// machine). Looked up once per process.
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let refused = std::env::var_os(REFUSE_VARIABLE).is_some_and(|value| value == "0");
        !refused && std::arch::is_x86_feature_detected!("avx512f")
    })
}

/// The environment variable that, set to `0`, turns the AVX-512 code off.
pub(crate) const REFUSE_VARIABLE: &str = "OTHELLO_SDK_AVX512";

/// The leaves two plies below a position with legal `moves` (not zero): for each move, the
/// opponent's replies after it, or one leaf for a pass or the end of the game.
///
/// # Safety
/// Only to be called when [`available`] said so.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn leaves_two_plies(player: u64, opponent: u64, mut moves: u64) -> u64 {
    let p = _mm512_set1_epi64(player as i64);
    let o = _mm512_set1_epi64(opponent as i64);
    let empty = !(player | opponent);
    let mut leaves = 0;
    while moves != 0 {
        let first = moves.trailing_zeros();
        moves &= moves - 1;
        // A lone last move takes both halves (the second's count is dropped).
        let second = if moves == 0 { first } else { moves.trailing_zeros() };
        moves &= moves.wrapping_sub(1);
        let (a, b) = (1u64 << first, 1u64 << second);
        let start = _mm512_set_epi64(b as i64, b as i64, b as i64, b as i64, a as i64, a as i64, a as i64, a as i64);
        let flipped = or_halves_broadcast(flip_lanes_rays(p, o, first as usize, second as usize));
        let next_player = _mm512_andnot_si512(flipped, o);
        let next_opponent = _mm512_or_si512(_mm512_or_si512(p, flipped), start);
        let replies = or_halves_broadcast(move_lanes(next_player, run_lanes(next_opponent)));
        let (replies_a, replies_b) = halves(replies);
        leaves += u64::from((replies_a & empty & !a).count_ones().max(1));
        if second != first {
            leaves += u64::from((replies_b & empty & !b).count_ones().max(1));
        }
    }
    leaves
}

/// Shift per lane: horizontal, vertical, the two diagonals, in both halves.
#[inline]
#[target_feature(enable = "avx512f")]
fn shifts() -> __m512i {
    _mm512_set_epi64(9, 7, 8, 1, 9, 7, 8, 1)
}

/// Twice [`shifts`], for the doubling steps.
#[inline]
#[target_feature(enable = "avx512f")]
fn double_shifts() -> __m512i {
    _mm512_set_epi64(18, 14, 16, 2, 18, 14, 16, 2)
}

/// Four times [`shifts`], for the last step of a fill 7 squares long.
#[inline]
#[target_feature(enable = "avx512f")]
fn quadruple_shifts() -> __m512i {
    _mm512_set_epi64(36, 28, 32, 4, 36, 28, 32, 4)
}

/// The opponent's discs that can lie inside a run, per lane (see [`NOT_EDGE_COLUMNS`]).
#[inline]
#[target_feature(enable = "avx512f")]
fn run_lanes(opponent: __m512i) -> __m512i {
    let edges = NOT_EDGE_COLUMNS;
    _mm512_and_si512(opponent, _mm512_set_epi64(edges, edges, -1, edges, edges, edges, -1, edges))
}

/// The OR of each half's four lanes, in every lane of that half.
#[inline]
#[target_feature(enable = "avx512f")]
fn or_halves_broadcast(v: __m512i) -> __m512i {
    // `permutex` moves 64-bit lanes within each 256-bit half; the second step swaps neighbours.
    let v = _mm512_or_si512(v, _mm512_permutex_epi64::<0b01_00_11_10>(v));
    _mm512_or_si512(v, _mm512_permutex_epi64::<0b10_11_00_01>(v))
}

/// Lane 0 of each half.
#[inline]
#[target_feature(enable = "avx512f")]
fn halves(v: __m512i) -> (u64, u64) {
    let low = _mm_cvtsi128_si64(_mm256_castsi256_si128(_mm512_castsi512_si256(v))) as u64;
    let high = _mm_cvtsi128_si64(_mm256_castsi256_si128(_mm512_extracti64x4_epi64::<1>(v))) as u64;
    (low, high)
}

/// The squares each lane's direction makes legal for `p` against the run discs `o`.
#[inline]
#[target_feature(enable = "avx512f")]
fn move_lanes(p: __m512i, o: __m512i) -> __m512i {
    let (shift, shift2) = (shifts(), double_shifts());

    let mut up = _mm512_and_si512(o, _mm512_sllv_epi64(p, shift));
    up = _mm512_or_si512(up, _mm512_and_si512(o, _mm512_sllv_epi64(up, shift)));
    let pairs_up = _mm512_and_si512(o, _mm512_sllv_epi64(o, shift));
    up = _mm512_or_si512(up, _mm512_and_si512(pairs_up, _mm512_sllv_epi64(up, shift2)));
    up = _mm512_or_si512(up, _mm512_and_si512(pairs_up, _mm512_sllv_epi64(up, shift2)));

    let mut down = _mm512_and_si512(o, _mm512_srlv_epi64(p, shift));
    down = _mm512_or_si512(down, _mm512_and_si512(o, _mm512_srlv_epi64(down, shift)));
    let pairs_down = _mm512_srlv_epi64(pairs_up, shift);
    down = _mm512_or_si512(down, _mm512_and_si512(pairs_down, _mm512_srlv_epi64(down, shift2)));
    down = _mm512_or_si512(down, _mm512_and_si512(pairs_down, _mm512_srlv_epi64(down, shift2)));

    _mm512_or_si512(_mm512_sllv_epi64(up, shift), _mm512_srlv_epi64(down, shift))
}

/// Both squares' rays, one square per half.
#[inline]
#[target_feature(enable = "avx512f")]
fn ray_pair(first: &[u64; 4], second: &[u64; 4]) -> __m512i {
    // SAFETY: both are 32 readable bytes aligned to 32 (halves of a `SquareRays`).
    unsafe {
        let low = _mm256_load_si256(first.as_ptr().cast());
        let high = _mm256_load_si256(second.as_ptr().cast());
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
    }
}

/// The discs each lane's direction flips for a move on `first` (low half)
/// and on `second` (high half): the AVX2 `flips` method (`movegen`), with no
/// fill along the runs. Towards higher indices the first non-opponent square
/// on the ray is its lowest set bit; towards lower indices the run flips if
/// the player's highest disc on the ray is above every empty square, and the
/// flips are the ray's squares above that disc.
#[inline]
#[target_feature(enable = "avx512f")]
fn flip_lanes_rays(p: __m512i, o: __m512i, first: usize, second: usize) -> __m512i {
    let (a, b) = (&RAYS[first], &RAYS[second]);
    let ray = ray_pair(&a.up, &b.up);
    let not_o = _mm512_andnot_si512(o, ray);
    let upto_blocker = _mm512_and_si512(_mm512_xor_si512(_mm512_add_epi64(not_o, _mm512_set1_epi64(-1)), not_o), ray);
    let run = _mm512_andnot_si512(p, upto_blocker);
    let up = _mm512_maskz_mov_epi64(_mm512_cmpneq_epi64_mask(run, upto_blocker), run);

    let ray = ray_pair(&a.down, &b.down);
    let own = _mm512_and_si512(p, ray);
    let mut below_own = _mm512_or_si512(own, _mm512_srlv_epi64(own, shifts()));
    below_own = _mm512_or_si512(below_own, _mm512_srlv_epi64(below_own, double_shifts()));
    below_own = _mm512_or_si512(below_own, _mm512_srlv_epi64(below_own, quadruple_shifts()));
    let empty = _mm512_xor_si512(_mm512_andnot_si512(o, ray), own);
    let down = _mm512_maskz_mov_epi64(_mm512_cmpgt_epi64_mask(own, empty), _mm512_andnot_si512(below_own, ray));
    _mm512_or_si512(up, down)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::{flips, legal_moves};

    #[test]
    fn two_moves_at_a_time_count_what_one_at_a_time_counts() {
        if !available() {
            return; // nothing to compare on this CPU
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..100_000 {
            let (a, b) = (next(), next());
            let (player, opponent) = match a % 3 {
                0 => (a & b, !a & b.rotate_left(7)),
                1 => (a & !b, !a & b),
                _ => (a | b.rotate_left(3), !(a | b.rotate_left(3)) & next()),
            };
            let opponent = opponent & !player;
            let moves = legal_moves(player, opponent);
            if moves == 0 {
                continue;
            }
            let mut expected = 0;
            let mut rest = moves;
            while rest != 0 {
                let square = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let flipped = flips(player, opponent, square);
                let replies = legal_moves(opponent & !flipped, player | flipped | 1 << square);
                expected += u64::from(replies.count_ones().max(1));
            }
            // SAFETY: `available` said this CPU runs it.
            assert_eq!(unsafe { leaves_two_plies(player, opponent, moves) }, expected);
        }
    }
}
