//! Move ordering: which move to search first.
//!
//! Alpha-beta is fastest when the best move comes first. Cheap knowledge does
//! most of the work: the move stored in the transposition table, then moves
//! that leave the opponent few replies ("fastest first"), few potential
//! replies, and that make our corners stable. Near the root of big searches a
//! shallow search with the evaluation sharpens the order further.

use othello_sdk::{flips, legal_moves};

use crate::board::{Bits, CORNERS, final_score, frontier_empties, play};
use crate::eval::{EvalInstructions, terminal_score};
use crate::instruction_set::Baseline;
use crate::stability::corner_stable_count;
use crate::tt::NO_MOVE;

/// The move the transposition table remembers goes first.
pub const HASH_MOVE_BONUS: i32 = 1 << 28;
/// A move that takes all the opponent's discs wins at once.
pub const WIPEOUT_BONUS: i32 = 1 << 27;
/// Per reply left to the opponent (corner replies count twice), in eval units.
pub const OPPONENT_MOBILITY_WEIGHT: i32 = 200;
/// Per empty square next to our discs after the move (the opponent's potential moves).
pub const OPPONENT_POTENTIAL_WEIGHT: i32 = 20;
/// Per own disc made stable by a corner.
pub const CORNER_STABILITY_WEIGHT: i32 = 60;
/// For a move into a region with an odd number of empties (endgame parity).
pub const PARITY_WEIGHT: i32 = 60;

/// From this depth on, the ordering search sorts its own moves. 2 rather
/// than 3: at depth 2 the sort's cut-offs already save more evaluations than
/// it costs (instructions, callgrind: FFO #46–#47 0.933x, #27, #29, #31
/// 0.981x, same nodes); 1 (1.12x) and 4 (1.09x) cost more.
pub const SHALLOW_SEARCH_SORT_MIN_DEPTH: u32 = 2;

/// Most legal moves any position can have (a safe bound: one per empty square).
pub const MAX_MOVES: usize = 64;

/// The four 4x4 quadrants: a1-d4, e1-h4, a5-d8, e5-h8.
pub const QUADRANTS: [u64; 4] =
    [0x0000_0000_0F0F_0F0F, 0x0000_0000_F0F0_F0F0, 0x0F0F_0F0F_0000_0000, 0xF0F0_F0F0_0000_0000];

/// The squares of quadrants holding an odd number of empties: playing there
/// first tends to leave us the last move of each region.
#[inline(always)]
pub fn odd_quadrants(empty: u64) -> u64 {
    let mut odd = 0;
    for quadrant in QUADRANTS {
        if (empty & quadrant).count_ones() & 1 == 1 {
            odd |= quadrant;
        }
    }
    odd
}

/// A legal move with what searching it needs.
#[derive(Clone, Copy, Default)]
pub struct ScoredMove {
    pub square: u8,
    pub flipped: u64,
    pub value: i32,
}

/// A list of legal moves, picked best-value first.
///
/// Kept as separate arrays of plain numbers: a new list then costs a few
/// wide zeroing stores, which matters at millions of nodes per second.
pub struct MoveList {
    squares: [u8; MAX_MOVES],
    flipped: [u64; MAX_MOVES],
    values: [i32; MAX_MOVES],
    len: usize,
    next: usize,
}

impl MoveList {
    /// The legal moves of `player` (`moves` is their bitboard), unscored.
    #[inline(always)]
    pub fn new(player: u64, opponent: u64, moves: u64) -> MoveList {
        let mut list =
            MoveList { squares: [0; MAX_MOVES], flipped: [0; MAX_MOVES], values: [0; MAX_MOVES], len: 0, next: 0 };
        for square in Bits(moves) {
            list.squares[list.len] = square as u8;
            list.flipped[list.len] = flips(player, opponent, square);
            list.len += 1;
        }
        list
    }

    fn get(&self, i: usize) -> ScoredMove {
        ScoredMove { square: self.squares[i], flipped: self.flipped[i], value: self.values[i] }
    }

    /// Scores every move with `value` (higher = searched earlier).
    #[inline]
    pub fn score(&mut self, mut value: impl FnMut(&ScoredMove) -> i32) {
        for i in 0..self.len {
            self.values[i] = value(&self.get(i));
        }
    }

    /// The best remaining move (selection sort, one step at a time: cutoffs
    /// often come after the first move or two, so a full sort is wasted).
    #[inline]
    pub fn next_best(&mut self) -> Option<ScoredMove> {
        if self.next >= self.len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.len {
            if self.values[i] > self.values[best] {
                best = i;
            }
        }
        self.squares.swap(self.next, best);
        self.flipped.swap(self.next, best);
        self.values.swap(self.next, best);
        self.next += 1;
        Some(self.get(self.next - 1))
    }
}

/// The cheap part of a move's value: fewest opponent replies first, then
/// potential mobility, corner stability and parity. `(next_player,
/// next_opponent)` is the position after the move (the opponent to move).
#[inline(always)]
pub fn fastest_first_value(next_player: u64, next_opponent: u64, square: u8, odd_region: u64, hash_move: u8) -> i32 {
    let replies = legal_moves(next_player, next_opponent);
    fastest_first_value_given_replies(next_player, next_opponent, replies, square, odd_region, hash_move)
}

/// Replies to a move, corner replies counted twice.
#[inline(always)]
pub fn weighted_replies(replies: u64) -> i32 {
    (replies.count_ones() + (replies & CORNERS).count_ones()) as i32
}

/// [`fastest_first_value`] given the opponent's `replies` after the move.
#[inline(always)]
pub fn fastest_first_value_given_replies(
    next_player: u64,
    next_opponent: u64,
    replies: u64,
    square: u8,
    odd_region: u64,
    hash_move: u8,
) -> i32 {
    if next_player == 0 {
        return WIPEOUT_BONUS;
    }
    let weighted_replies = weighted_replies(replies);
    let empty = !(next_player | next_opponent);
    let potential = frontier_empties(next_opponent, empty).count_ones() as i32;
    let mut value = -OPPONENT_MOBILITY_WEIGHT * weighted_replies - OPPONENT_POTENTIAL_WEIGHT * potential
        + CORNER_STABILITY_WEIGHT * corner_stable_count(next_opponent) as i32;
    if odd_region & (1u64 << square) != 0 {
        value += PARITY_WEIGHT;
    }
    if square == hash_move && hash_move != NO_MOVE {
        value += HASH_MOVE_BONUS;
    }
    value
}

/// The ordering searches compiled for one instruction set
/// ([`crate::instruction_set`]): the provided method is [`Baseline`]'s;
/// `crate::dispatch` gives the AVX-512 copy.
pub(crate) trait OrderingInstructions: EvalInstructions {
    /// [`shallow_search`].
    fn shallow_search<const WITH_PATTERNS: bool>(
        self,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        shallow_search_with::<_, WITH_PATTERNS>(self, player, opponent, depth, alpha, beta)
    }
}

impl OrderingInstructions for Baseline {}

/// A small fixed-depth alpha-beta search on the evaluation, without a
/// transposition table: the value used to order moves near the root of big
/// searches. `depth` 0 is the evaluation itself: the full one with
/// `WITH_PATTERNS`, else [`ordering_evaluate`](crate::eval::ordering_evaluate) (the hand-written part and the
/// edge and corner patterns: about a third of the cost; the endgame solver's
/// ordering, measured on the FFO set, is faster overall with it).
pub fn shallow_search<const WITH_PATTERNS: bool>(player: u64, opponent: u64, depth: u32, alpha: i32, beta: i32) -> i32 {
    Baseline.shallow_search::<WITH_PATTERNS>(player, opponent, depth, alpha, beta)
}

/// [`shallow_search`]'s body, compiled once per instruction set (see
/// [`OrderingInstructions`]); it recurses through `isa`.
#[inline(always)]
pub(crate) fn shallow_search_with<I: OrderingInstructions, const WITH_PATTERNS: bool>(
    isa: I,
    player: u64,
    opponent: u64,
    depth: u32,
    mut alpha: i32,
    beta: i32,
) -> i32 {
    if depth == 0 {
        return if WITH_PATTERNS { isa.evaluate(player, opponent) } else { isa.ordering_evaluate(player, opponent) };
    }
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return terminal_score(final_score(player, opponent));
        }
        return -isa.shallow_search::<WITH_PATTERNS>(opponent, player, depth, -beta, -alpha);
    }
    let mut best = i32::MIN + 1;
    let mut consider = |square: usize, flipped: u64, alpha: &mut i32| -> bool {
        let (next_player, next_opponent) = play(player, opponent, square, flipped);
        let score = -isa.shallow_search::<WITH_PATTERNS>(next_player, next_opponent, depth - 1, -beta, -*alpha);
        if score > best {
            best = score;
            if score > *alpha {
                *alpha = score;
                return score >= beta;
            }
        }
        false
    };
    if depth >= SHALLOW_SEARCH_SORT_MIN_DEPTH {
        // Fastest first here too: it pays for itself a few plies from the leaves.
        let odd = odd_quadrants(!(player | opponent));
        let mut list = MoveList::new(player, opponent, moves);
        list.score(|m| {
            let (next_player, next_opponent) = play(player, opponent, m.square as usize, m.flipped);
            fastest_first_value(next_player, next_opponent, m.square, odd, NO_MOVE)
        });
        while let Some(m) = list.next_best() {
            if consider(m.square as usize, m.flipped, &mut alpha) {
                break;
            }
        }
    } else {
        for square in Bits(moves) {
            if consider(square, flips(player, opponent, square), &mut alpha) {
                break;
            }
        }
    }
    best
}
