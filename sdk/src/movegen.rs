//! Move generation on raw `u64` bitboards: the hot path of every search.
//!
//! Both functions are branch-free: [`legal_moves`] shifts and masks whole
//! boards, [`flips`] looks up the eight rays from its square and finds the
//! first non-opponent square on each with a bit trick (no loop along a ray).
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

/// The eight rays from one square: the squares from (excluding) the square
/// to the board's edge, in each direction.
///
/// `up[k]` goes towards higher bit indices and `down[k]` towards lower ones,
/// both along the line whose one-step shift is `LINE_SHIFTS[k]`, so a vector
/// of four lanes lines up with the AVX2 code's per-lane shifts. Aligned to a
/// cache line: the AVX2 code loads each half as one vector, and one square's
/// rays never straddle two lines.
#[repr(C, align(64))]
pub(crate) struct SquareRays {
    pub(crate) up: [u64; 4],
    pub(crate) down: [u64; 4],
}

/// The bit-index step of each line, in lane order: horizontal, vertical and
/// the two diagonals (a1-h8 is 9, h1-a8 is 7).
#[cfg_attr(not(all(target_arch = "x86_64", target_feature = "avx2")), allow(dead_code))]
const LINE_SHIFTS: [u32; 4] = [1, 8, 7, 9];

/// [`SquareRays`] of every square (4 KiB): looking the rays up is cheaper
/// than computing them and lets each direction find its first non-opponent
/// square with one bit trick instead of a fill.
pub(crate) static RAYS: [SquareRays; 64] = rays();

const fn rays() -> [SquareRays; 64] {
    // (row step, column step) per lane, matching `LINE_SHIFTS`.
    const UP: [(i32, i32); 4] = [(0, 1), (1, 0), (1, -1), (1, 1)];
    const DOWN: [(i32, i32); 4] = [(0, -1), (-1, 0), (-1, 1), (-1, -1)];
    let mut table = [const { SquareRays { up: [0; 4], down: [0; 4] } }; 64];
    let mut square = 0;
    while square < 64 {
        let mut lane = 0;
        while lane < 4 {
            table[square].up[lane] = ray(square, UP[lane]);
            table[square].down[lane] = ray(square, DOWN[lane]);
            lane += 1;
        }
        square += 1;
    }
    table
}

/// The squares from `square` (excluded) to the edge, one `(row, column)` step at a time.
const fn ray(square: usize, (dr, dc): (i32, i32)) -> u64 {
    let (mut r, mut c) = ((square / 8) as i32 + dr, (square % 8) as i32 + dc);
    let mut ray = 0u64;
    while r >= 0 && r < 8 && c >= 0 && c < 8 {
        ray |= 1u64 << (r * 8 + c);
        r += dr;
        c += dc;
    }
    ray
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

/// [`flips`] one direction at a time, on any CPU: the code [`flips`] runs
/// without AVX2, and the reference its vector code is tested and benchmarked
/// against.
///
/// ```
/// use othello_sdk::{flips, movegen::flips_portable, Position};
/// let start = Position::start();
/// let (player, opponent) = (start.player().0, start.opponent().0);
/// for square in 0..64 {
///     if (player | opponent) & 1 << square == 0 {
///         assert_eq!(flips_portable(player, opponent, square), flips(player, opponent, square));
///     }
/// }
/// ```
#[inline]
pub fn flips_portable(player: u64, opponent: u64, square: usize) -> u64 {
    let rays = &RAYS[square];
    let mut flipped = 0;
    let not_opponent = !opponent;
    for d in 0..4 {
        // Towards higher indices: the first non-opponent square is the lowest set bit.
        let ray = rays.up[d];
        let blockers = not_opponent & ray;
        let outflank = blockers & blockers.wrapping_neg() & player;
        let between = outflank.wrapping_sub(1) & ray;
        flipped |= between & 0u64.wrapping_sub((outflank != 0) as u64);

        // Towards lower indices: the first non-opponent square is the highest set
        // bit. `| 1` keeps leading_zeros < 64; bit 0 is then either off the ray
        // (masked out below) or an opponent disc (not in `player`).
        let ray = rays.down[d];
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
/// Lane `k` shifts by `LINE_SHIFTS[k]` (horizontal, vertical and the two
/// diagonals); the "up" half of each function moves towards higher bit
/// indices (`<<`), the "down" half towards lower ones (`>>`). The legal-move
/// steps are the portable code's steps, four directions wide; `flips` uses
/// the same ray table as the portable code but finds the end of each run
/// without a scan (see `flip_lanes`).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod simd {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64, _mm256_add_epi64, _mm256_and_si256,
        _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64, _mm256_cmpgt_epi64, _mm256_extracti128_si256,
        _mm256_load_si256, _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_set_epi64x, _mm256_set1_epi64x,
        _mm256_shuffle_epi32, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_xor_si256,
    };

    use super::{LINE_SHIFTS, NOT_EDGE_COLUMNS, RAYS};

    /// `LINE_SHIFTS` times `factor` in the four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn scaled_shifts(factor: u32) -> __m256i {
        let [a, b, c, d] = LINE_SHIFTS.map(|shift| i64::from(shift * factor));
        // `set` takes the last lane first.
        _mm256_set_epi64x(d, c, b, a)
    }

    /// Shift per lane: horizontal, vertical, the two diagonals.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shifts() -> __m256i {
        scaled_shifts(1)
    }

    /// Twice [`shifts`], for the doubling steps.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn double_shifts() -> __m256i {
        scaled_shifts(2)
    }

    /// Four times [`shifts`], for the last step of a fill 7 squares long.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn quadruple_shifts() -> __m256i {
        scaled_shifts(4)
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
        let o = _mm256_set1_epi64x(opponent as i64);
        or_lanes(flip_lanes(p, o, square))
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn flips_and_replies(player: u64, opponent: u64, square: usize) -> (u64, u64) {
        let p = _mm256_set1_epi64x(player as i64);
        let o = _mm256_set1_epi64x(opponent as i64);
        let start = _mm256_set1_epi64x((1u64 << square) as i64);
        let flipped = or_lanes_broadcast(flip_lanes(p, o, square));
        // The next mover is the opponent, minus the flipped discs.
        let next_player = _mm256_andnot_si256(flipped, o);
        let next_opponent = _mm256_or_si256(_mm256_or_si256(p, flipped), start);
        let replies = or_lanes(move_lanes(next_player, run_lanes(next_opponent)));
        // The move fills its square and flips nothing else empty.
        let empty = !(player | opponent | 1 << square);
        (_mm_cvtsi128_si64(_mm256_castsi256_si128(flipped)) as u64, replies & empty)
    }

    /// One half of a square's [`SquareRays`] as a vector, lane `k` the line of `LINE_SHIFTS[k]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_rays(rays: &[u64; 4]) -> __m256i {
        // SAFETY: `rays` is 32 readable bytes, aligned to 32 (`SquareRays` is
        // aligned to 64 and both halves are 32 bytes long).
        unsafe { _mm256_load_si256(rays.as_ptr().cast()) }
    }

    /// The discs each line's lane flips for a move on `square`, `p` and `o`
    /// the player's and the opponent's discs in every lane.
    ///
    /// No fill along the runs of opponent discs (Toshihiko Okuhara's Edax
    /// `flip_avx_acepck.c`, after acepck's idea for Egaroucid): each ray's
    /// first non-opponent square, seen from `square`, decides alone whether
    /// the discs before it flip.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flip_lanes(p: __m256i, o: __m256i, square: usize) -> __m256i {
        let rays = &RAYS[square];

        // Towards higher indices the first non-opponent square is the lowest
        // set bit of `ray & !o`: `x ^ (x - 1)` keeps it and everything below
        // (all of the ray when there is none). Those are the flips plus that
        // square if it is the player's disc, and nothing flips otherwise.
        let ray = load_rays(&rays.up);
        let not_o = _mm256_andnot_si256(o, ray);
        let upto_blocker =
            _mm256_and_si256(_mm256_xor_si256(_mm256_add_epi64(not_o, _mm256_set1_epi64x(-1)), not_o), ray);
        let run = _mm256_andnot_si256(p, upto_blocker);
        let blocked_by_player = _mm256_cmpeq_epi64(run, upto_blocker);
        let up = _mm256_andnot_si256(blocked_by_player, run);

        // Towards lower indices the first non-opponent square is the highest
        // set bit, which AVX2 can't find directly. Instead: the squares above
        // the player's highest disc on the ray (a right fill of it, ≤ 7 steps,
        // removed from the ray) flip if that disc is above every empty square
        // of the ray. No ray reaches bit 63, so the signed compare is a plain
        // one.
        let ray = load_rays(&rays.down);
        let own = _mm256_and_si256(p, ray);
        let mut below_own = _mm256_or_si256(own, _mm256_srlv_epi64(own, shifts()));
        below_own = _mm256_or_si256(below_own, _mm256_srlv_epi64(below_own, double_shifts()));
        below_own = _mm256_or_si256(below_own, _mm256_srlv_epi64(below_own, quadruple_shifts()));
        let empty = _mm256_xor_si256(_mm256_andnot_si256(o, ray), own);
        let closed = _mm256_cmpgt_epi64(own, empty);
        let down = _mm256_and_si256(_mm256_andnot_si256(below_own, ray), closed);

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

    /// The eight (row, column) steps of the lines through a square.
    const DIRECTIONS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

    /// The squares from `(row, col)` (excluded) to the edge, one step at a
    /// time, walked here independently of the ray table under test.
    fn walk(row: i32, col: i32, (dr, dc): (i32, i32)) -> Vec<u64> {
        let (mut r, mut c) = (row + dr, col + dc);
        let mut squares = Vec::new();
        while (0..8).contains(&r) && (0..8).contains(&c) {
            squares.push(1u64 << (r * 8 + c));
            r += dr;
            c += dc;
        }
        squares
    }

    /// Every square, with every line through it filled to the edge: opponent
    /// discs and a player disc at the end. All of those opponent discs flip,
    /// in every direction at once (a corner's 3 lines, an edge's 5, ...).
    #[test]
    fn full_lines_flip_in_every_direction_from_every_square() {
        for square in 0..64 {
            let (row, col) = ((square / 8) as i32, (square % 8) as i32);
            let (mut player, mut opponent, mut expected) = (0u64, 0u64, 0u64);
            for direction in DIRECTIONS {
                let line = walk(row, col, direction);
                if let Some((&end, run)) = line.split_last() {
                    player |= end;
                    for &disc in run {
                        opponent |= disc;
                        expected |= disc;
                    }
                }
            }
            assert_eq!(flips(player, opponent, square), expected, "square {square}");
            assert_eq!(flips_portable(player, opponent, square), expected, "square {square}");
            assert_eq!(flips_and_replies(player, opponent, square).0, expected, "square {square}");
            // Without the closing player discs nothing flips: the runs reach the edge.
            assert_eq!(flips(0, opponent | player, square), 0, "square {square}");
        }
    }

    /// A run of opponent discs flips only when the first square after it
    /// holds a player disc: not an empty square, not the edge.
    #[test]
    fn a_run_flips_only_when_a_player_disc_closes_it() {
        for square in 0..64 {
            let (row, col) = ((square / 8) as i32, (square % 8) as i32);
            for direction in DIRECTIONS {
                let line = walk(row, col, direction);
                for run in 1..line.len() {
                    let opponent: u64 = line[..run].iter().sum();
                    let closing = line[run];
                    let beyond: u64 = line[run + 1..].iter().sum();
                    // Player discs beyond the closing square change nothing.
                    assert_eq!(flips(closing | beyond, opponent, square), opponent, "{square} {direction:?} {run}");
                    // An empty square where the player disc was: no flip, even
                    // with player discs further on.
                    assert_eq!(flips(beyond, opponent, square), 0, "{square} {direction:?} {run}");
                }
            }
        }
    }

    /// Positions of random games (every stage, from the start to the last
    /// empty square), each empty square: the vector code agrees with the
    /// portable one, and the inputs include what matters (corner and edge
    /// moves, flips along several lines at once).
    #[test]
    fn flips_agree_with_the_portable_code_on_random_games() {
        let mut rng = crate::SplitMix64::new(0xF11B5);
        let (mut corner_moves, mut edge_moves, mut multi_line_moves) = (0, 0, 0);
        for _ in 0..2_000 {
            let (mut player, mut opponent) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            loop {
                let mut empties = !(player | opponent);
                while empties != 0 {
                    let square = empties.trailing_zeros() as usize;
                    empties &= empties - 1;
                    let flipped = flips_portable(player, opponent, square);
                    assert_eq!(flips(player, opponent, square), flipped, "{player:#x} {opponent:#x} {square}");
                    assert_eq!(flips_and_replies(player, opponent, square).0, flipped);
                    if flipped != 0 {
                        let (row, col) = (square / 8, square % 8);
                        corner_moves += usize::from((row == 0 || row == 7) && (col == 0 || col == 7));
                        edge_moves += usize::from(row == 0 || row == 7 || col == 0 || col == 7);
                        let (r, c) = (row as i32, col as i32);
                        let lines = DIRECTIONS
                            .iter()
                            .filter(|&&direction| walk(r, c, direction).iter().any(|&disc| disc & flipped != 0))
                            .count();
                        multi_line_moves += usize::from(lines >= 3);
                    }
                }
                let mut moves = legal_moves(player, opponent);
                if moves == 0 {
                    if legal_moves(opponent, player) == 0 {
                        break;
                    }
                    (player, opponent) = (opponent, player);
                    continue;
                }
                for _ in 0..rng.below(moves.count_ones()) {
                    moves &= moves - 1;
                }
                let square = moves.trailing_zeros() as usize;
                let flipped = flips(player, opponent, square);
                (player, opponent) = (opponent & !flipped, player | flipped | 1 << square);
            }
        }
        assert!(corner_moves > 1_000 && edge_moves > 10_000 && multi_line_moves > 1_000);
    }
}
