//! Move generation on raw `u64` bitboards: the hot path of every search.
//!
//! Both functions are branch-free shift-and-mask code (no per-square loops).
//! `player` and `opponent` are the discs of the side to move and of the other
//! side; bit `8 * row + col`.

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
