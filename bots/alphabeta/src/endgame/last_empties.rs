//! The last empties of the exact solver: from [`super::SHALLOW_MAX_EMPTIES`] empties
//! down, plain alpha-beta without the transposition table or move sorting,
//! moves tried isolated empties first, then in quadrant-parity order, and at
//! 4 empties and fewer
//! hand-unrolled solvers that generate no move lists. Most of the solver's
//! nodes are here.

use othello_sdk::{flips, legal_moves};

use super::{STABILITY_THRESHOLD, Solver, SolverInstructions};
use crate::board::{Bits, SCORE_MAX, final_score, play};
use crate::ordering::{QUADRANTS, odd_quadrants};
use crate::stability::StabilityInstructions;

/// Squares tried first within a parity region in the shallow search: corners
/// and the edge squares away from corners (X- and C-squares come last).
const GOOD_SQUARES: u64 = 0x8100_0000_0000_0081 | 0x3C00_0000_0000_003C | 0x0000_8181_8181_0000;

/// Squares next to each square: a move there can only flip if one of them
/// holds an opponent disc (a cheap test before computing flips).
const NEIGHBOURS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        let (row, col) = ((square / 8) as i32, (square % 8) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (r, c) = (row + dr, col + dc);
                if (dr != 0 || dc != 0) && r >= 0 && r < 8 && c >= 0 && c < 8 {
                    table[square] |= 1u64 << (r * 8 + c);
                }
                dc += 1;
            }
            dr += 1;
        }
        square += 1;
    }
    table
};

/// `LAST_FLIP_COUNT[position][line]`: how many discs a move at `position` of a
/// *full* line of 8 flips, where `line` has a bit set for each own disc (the
/// others are the opponent's). Bits outside a short diagonal are zero and
/// act like opponent discs up to the board's edge, which flips nothing: right.
const LAST_FLIP_COUNT: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut position = 0;
    while position < 8 {
        let mut line = 0;
        while line < 256 {
            let mut total = 0;
            // Towards lower positions, then higher ones.
            let mut at = position as i32 - 1;
            let mut run = 0;
            while at >= 0 && line & (1 << at) == 0 {
                run += 1;
                at -= 1;
            }
            if at >= 0 {
                total += run;
            }
            let mut at = position as i32 + 1;
            let mut run = 0;
            while at < 8 && line & (1 << at) == 0 {
                run += 1;
                at += 1;
            }
            if at < 8 {
                total += run;
            }
            table[position][line] = total;
            line += 1;
        }
        position += 1;
    }
    table
};

/// The two diagonals through each square (a1-h8 kind, h1-a8 kind).
const DIAGONALS_THROUGH: [[u64; 2]; 64] = {
    let mut table = [[0u64; 2]; 64];
    let mut square = 0;
    while square < 64 {
        let (row, col) = ((square / 8) as i32, (square % 8) as i32);
        let mut other = 0;
        while other < 64 {
            let (r, c) = (other / 8, other % 8);
            if r - c == row - col {
                table[square][0] |= 1u64 << other;
            }
            if r + c == row + col {
                table[square][1] |= 1u64 << other;
            }
            other += 1;
        }
        square += 1;
    }
    table
};

/// Discs flipped by a move on `square`, the board's only empty square, for the
/// side owning `discs` (all other squares belong to the other side). Each line
/// through the square is gathered into a byte and looked up.
#[inline(always)]
fn count_last_flips(discs: u64, square: usize) -> i32 {
    const COLUMN_A: u64 = 0x0101_0101_0101_0101;
    let (row, col) = (square >> 3, square & 7);
    let row_bits = ((discs >> (8 * row)) & 0xFF) as usize;
    let column_bits = (((discs >> col) & COLUMN_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
    // One disc per column on a diagonal: summing the rows into the top byte cannot carry.
    let [down, up] = DIAGONALS_THROUGH[square];
    let diagonal_9 = ((discs & down).wrapping_mul(COLUMN_A) >> 56) as usize;
    let diagonal_7 = ((discs & up).wrapping_mul(COLUMN_A) >> 56) as usize;
    (LAST_FLIP_COUNT[col][row_bits]
        + LAST_FLIP_COUNT[row][column_bits]
        + LAST_FLIP_COUNT[col][diagonal_9]
        + LAST_FLIP_COUNT[col][diagonal_7]) as i32
}

/// The flips of a move on `square`, zero if illegal (skipping the full test
/// when no opponent disc is adjacent).
#[inline(always)]
fn flips_if_adjacent(player: u64, opponent: u64, square: usize) -> u64 {
    if NEIGHBOURS[square] & opponent == 0 { 0 } else { flips(player, opponent, square) }
}

/// The most the mover can score given the opponent's stable discs, found
/// only as far as deciding whether that is at most `alpha` (a cutoff) needs.
#[inline(always)]
fn stability_ceiling<I: StabilityInstructions>(isa: I, player: u64, opponent: u64, alpha: i32) -> i32 {
    // SCORE_MAX - 2 * stable <= alpha  <=>  stable >= (SCORE_MAX - alpha) / 2, rounded up.
    let needed = ((SCORE_MAX - alpha + 1) / 2).max(0) as u32;
    SCORE_MAX - 2 * isa.stable_discs_for_cut(opponent, player, needed).count_ones() as i32
}

/// The empty squares with no empty neighbour: a move there fills a region of
/// its own, so its side keeps that region's last move; they are tried first,
/// as Egaroucid does. FFO #45–#52: 6.2 % fewer nodes, 0.983x the time
/// (3 pairs); at 5–6 empties most of the gain, at 3 empties none.
#[inline(always)]
fn isolated_empties(empty: u64) -> u64 {
    let sideways = ((empty & 0x7F7F_7F7F_7F7F_7F7F) << 1) | ((empty & 0xFEFE_FEFE_FEFE_FEFE) >> 1);
    let row_and_sideways = empty | sideways;
    empty & !(sideways | row_and_sideways << 8 | row_and_sideways >> 8)
}

/// `squares` split in the order the last empties try them: isolated
/// empties, then the odd quadrants' squares, then the rest, good squares
/// before the others within each.
#[inline(always)]
fn in_trial_order(squares: u64, isolated: u64, odd: u64) -> [u64; 5] {
    let rest = squares & !isolated;
    [
        squares & isolated,
        rest & odd & GOOD_SQUARES,
        rest & odd & !GOOD_SQUARES,
        rest & !odd & GOOD_SQUARES,
        rest & !odd & !GOOD_SQUARES,
    ]
}

/// The quadrant (index into [`QUADRANTS`]) of each square.
const QUADRANT_OF: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut square = 0;
    while square < 64 {
        table[square] = ((square / 32) * 2 + (square % 8) / 4) as u8;
        square += 1;
    }
    table
};

/// The squares of the quadrant holding each square.
const QUADRANT_OF_SQUARE: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut square = 0;
    while square < 64 {
        table[square] = QUADRANTS[QUADRANT_OF[square] as usize];
        square += 1;
    }
    table
};

/// Three empties in parity order: when two share a quadrant, the third is
/// the only one in an odd quadrant and goes first (the order of the 4-empties
/// parent no longer holds once its move changed a quadrant's parity). The
/// order is otherwise kept (Edax and Egaroucid sort their 3 empties so).
/// Measured on FFO #45 and #49: 414.3M -> 412.6M nodes, 0.995x the time
/// (4 pairs, within the noise).
#[inline(always)]
fn alone_first(s: [usize; 3]) -> [usize; 3] {
    let [q0, q1, q2] = s.map(|square| QUADRANT_OF[square]);
    if q0 == q1 && q2 != q0 {
        [s[2], s[0], s[1]]
    } else if q0 == q2 && q1 != q0 {
        [s[1], s[0], s[2]]
    } else {
        s
    }
}

impl Solver<'_> {
    /// 5..=[`super::SHALLOW_MAX_EMPTIES`] empties: alpha-beta, odd quadrants first.
    #[inline(always)]
    pub(super) fn shallow<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        let empty = !(player | opponent);
        let odd = odd_quadrants(empty);
        if empty.count_ones() <= 4 {
            return self.solve_few(isa, player, opponent, alpha, beta, empty, odd);
        }
        isa.shallow_with_parity(self, player, opponent, alpha, beta, passed, odd)
    }

    /// [`Solver::shallow`] (more than 4 empties) given the squares of the
    /// odd quadrants, `odd`: each move flips its quadrant's parity, so the
    /// children's follow without counting the empties again.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn shallow_with_parity_with<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        beta: i32,
        passed: bool,
        odd: u64,
    ) -> i32 {
        let empty = !(player | opponent);
        let empties = empty.count_ones();
        self.nodes += 1;

        if alpha >= STABILITY_THRESHOLD[empties as usize] {
            let ceiling = stability_ceiling(isa, player, opponent, alpha);
            if ceiling <= alpha {
                return ceiling;
            }
        }

        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if passed {
                return final_score(player, opponent);
            }
            return -isa.shallow_with_parity(self, opponent, player, -beta, -alpha, true, odd);
        }
        let mut best_score = -SCORE_MAX - 1;
        for part in in_trial_order(moves, isolated_empties(empty), odd) {
            for square in Bits(part) {
                let (next_player, next_opponent) = play(player, opponent, square, flips(player, opponent, square));
                let child_odd = odd ^ QUADRANT_OF_SQUARE[square];
                let score = if empties == 5 {
                    -self.solve_few(
                        isa,
                        next_player,
                        next_opponent,
                        -beta,
                        -alpha,
                        empty & !(1u64 << square),
                        child_odd,
                    )
                } else {
                    -isa.shallow_with_parity(self, next_player, next_opponent, -beta, -alpha, false, child_odd)
                };
                if score > best_score {
                    best_score = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            return best_score;
                        }
                    }
                }
            }
        }
        best_score
    }

    /// 1 to 4 empties, `odd` the squares of the odd quadrants: sorts the
    /// empties (odd quadrants first) and dispatches
    /// to the unrolled solvers.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn solve_few<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        empty: u64,
        odd: u64,
    ) -> i32 {
        let mut squares = [0usize; 4];
        let mut n = 0;
        for square in in_trial_order(empty, isolated_empties(empty), odd).into_iter().flat_map(Bits) {
            squares[n] = square;
            n += 1;
        }
        if n == 4 && alpha >= STABILITY_THRESHOLD[4] {
            let ceiling = stability_ceiling(isa, player, opponent, alpha);
            if ceiling <= alpha {
                return ceiling;
            }
        }
        match n {
            4 => isa.solve_4(self, player, opponent, alpha, beta, squares, false),
            3 => self.solve_3_or_pass(player, opponent, alpha, beta, [squares[0], squares[1], squares[2]]),
            2 => self.solve_2_or_pass(player, opponent, alpha, beta, squares[0], squares[1]),
            1 => self.solve_1(player, opponent, squares[0], -SCORE_MAX - 1),
            _ => final_score(player, opponent),
        }
    }

    /// Four empties, `s` in trial order.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn solve_4_with<I: SolverInstructions>(
        &mut self,
        isa: I,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        beta: i32,
        s: [usize; 4],
        passed: bool,
    ) -> i32 {
        self.nodes += 1;
        let mut best_score = -SCORE_MAX - 1;
        for i in 0..4 {
            // The other three, in their order, picked by index: building a
            // table of the four orders at every node cost 2 % of the whole
            // solve (FFO #50–#52, 0.981x the time without it, same nodes).
            let rest = [s[(i == 0) as usize], s[1 + (i <= 1) as usize], s[2 + (i <= 2) as usize]];
            let flipped = flips_if_adjacent(player, opponent, s[i]);
            if flipped != 0 {
                let (next_player, next_opponent) = play(player, opponent, s[i], flipped);
                let score = -self.solve_3_or_pass(next_player, next_opponent, -beta, -alpha, rest);
                if score > best_score {
                    best_score = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            return best_score;
                        }
                    }
                }
            }
        }
        if best_score > -SCORE_MAX - 1 {
            return best_score;
        }
        if passed {
            return final_score(player, opponent);
        }
        -isa.solve_4(self, opponent, player, -beta, -alpha, s, true)
    }

    /// Three empties. Inlined into [`Solver::solve_4`], its most frequent
    /// caller (a call saved per node); the rare pass goes out of line.
    /// `None` if `player` has no move.
    #[inline(always)]
    fn solve_3(&mut self, player: u64, opponent: u64, mut alpha: i32, beta: i32, s: [usize; 3]) -> Option<i32> {
        self.nodes += 1;
        let s = alone_first(s);
        let mut best_score = -SCORE_MAX - 1;
        for i in 0..3 {
            // The other two, in their order (by index, as in `solve_4`).
            let (square, a, b) = (s[i], s[(i == 0) as usize], s[1 + (i <= 1) as usize]);
            let flipped = flips_if_adjacent(player, opponent, square);
            if flipped != 0 {
                let (next_player, next_opponent) = play(player, opponent, square, flipped);
                let score = -self.solve_2_or_pass(next_player, next_opponent, -beta, -alpha, a, b);
                if score > best_score {
                    best_score = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            return Some(best_score);
                        }
                    }
                }
            }
        }
        (best_score > -SCORE_MAX - 1).then_some(best_score)
    }

    /// Three empties, `player` to move whether or not it can.
    #[inline(always)]
    fn solve_3_or_pass(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, s: [usize; 3]) -> i32 {
        match self.solve_3(player, opponent, alpha, beta, s) {
            Some(score) => score,
            None => self.solve_3_passed(player, opponent, alpha, beta, s),
        }
    }

    /// Three empties where `player` cannot move: the opponent moves, or the game is over.
    #[inline(never)]
    fn solve_3_passed(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, s: [usize; 3]) -> i32 {
        match self.solve_3(opponent, player, -beta, -alpha, s) {
            Some(score) => -score,
            None => final_score(player, opponent),
        }
    }

    /// Two empties. Inlined into [`Solver::solve_3`], its most frequent
    /// caller, which saves a call per node (most of the solver's nodes are
    /// here); the rare pass goes out of line.
    #[inline(always)]
    fn solve_2(&mut self, player: u64, opponent: u64, beta: i32, a: usize, b: usize) -> Option<i32> {
        self.nodes += 1;
        let mut best_score = -SCORE_MAX - 1;
        let flipped = flips_if_adjacent(player, opponent, a);
        if flipped != 0 {
            let (next_player, next_opponent) = play(player, opponent, a, flipped);
            best_score = -self.solve_1(next_player, next_opponent, b, -beta);
            if best_score >= beta {
                return Some(best_score);
            }
        }
        let flipped = flips_if_adjacent(player, opponent, b);
        if flipped != 0 {
            let (next_player, next_opponent) = play(player, opponent, b, flipped);
            best_score = best_score.max(-self.solve_1(next_player, next_opponent, a, -beta));
        }
        (best_score > -SCORE_MAX - 1).then_some(best_score)
    }

    /// Two empties, `player` to move whether or not it can.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn solve_2_or_pass(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, a: usize, b: usize) -> i32 {
        match self.solve_2(player, opponent, beta, a, b) {
            Some(score) => score,
            None => self.solve_2_passed(player, opponent, alpha, a, b),
        }
    }

    /// Two empties where `player` cannot move: the opponent moves, or the game is over.
    #[inline(never)]
    fn solve_2_passed(&mut self, player: u64, opponent: u64, alpha: i32, a: usize, b: usize) -> i32 {
        match self.solve_2(opponent, player, -alpha, a, b) {
            Some(score) => -score,
            None => final_score(player, opponent),
        }
    }

    /// One empty square: the score follows from the number of discs
    /// flipped. Fail-soft: a score at most `alpha` may be an upper bound.
    #[inline(always)]
    fn solve_1(&mut self, player: u64, opponent: u64, square: usize, alpha: i32) -> i32 {
        self.nodes += 1;
        // 63 discs on the board: the mover has `mine`, the opponent 63 - mine.
        let mine = player.count_ones() as i32;
        let flipped = count_last_flips(player, square);
        if flipped != 0 {
            return 2 * (mine + flipped) - 62;
        }
        // The mover cannot move: the score is at most 2 * mine - 62 (the
        // mover taking the square when nobody can move), and if that is no
        // more than alpha, the opponent's flips need not be counted (a lazy
        // cut-off, as in Zebra and Edax).
        let ceiling = 2 * mine - 62;
        if ceiling <= alpha {
            return ceiling;
        }
        let flipped = count_last_flips(opponent, square);
        if flipped != 0 {
            return 2 * (mine - flipped) - 64;
        }
        // Nobody can move: the empty square goes to the winner.
        let difference = 2 * mine - 63;
        if difference > 0 { difference + 1 } else { difference - 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;
    use crate::endgame::reference_solve;

    #[test]
    fn isolated_empties_have_no_empty_neighbour() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2_000 {
            xorshift(&mut state);
            // About one square in eight empty.
            let empty = state & state.rotate_left(21) & state.rotate_left(42);
            let expected = Bits(empty)
                .filter(|&square| NEIGHBOURS[square] & empty == 0)
                .fold(0, |all, square| all | 1u64 << square);
            assert_eq!(isolated_empties(empty), expected, "{empty:#x}");
        }
        // a1, b1 and c1 touch in a row, h1 and g2 diagonally; h8 is alone.
        let empty = 1 | 1 << 63 | 1 << 1 | 1 << 2 | 1 << 7 | 1 << 14;
        assert_eq!(isolated_empties(empty), 1 << 63);
    }

    /// A full board but for one random square, the discs split at random:
    /// `(player, opponent, empty square)`.
    fn random_board_with_one_empty(state: &mut u64) -> (u64, u64, usize) {
        xorshift(state);
        let square = (*state % 64) as usize;
        let player = state.rotate_left(17) & !(1u64 << square);
        (player, !player & !(1u64 << square), square)
    }

    #[test]
    fn the_last_empty_is_scored_exactly_unless_it_fails_low() {
        let tt = crate::tt::TranspositionTable::new(10);
        let mut solver = Solver::new(&tt);
        let mut state = 0x5851_F42D_4C95_7F2Du64;
        let mut lazy_cuts = 0;
        for _ in 0..20_000 {
            let (player, opponent, square) = random_board_with_one_empty(&mut state);
            let exact = reference_solve(player, opponent);
            for alpha in [-SCORE_MAX - 1, exact - 3, exact - 1, exact + 1, exact + 5] {
                let score = solver.solve_1(player, opponent, square, alpha);
                if score <= alpha {
                    // Fail-soft: an upper bound, never below the true score.
                    assert!(exact <= score, "{player:#x} {square} alpha {alpha}: {score} < {exact}");
                    lazy_cuts += (score != exact) as u32;
                } else {
                    assert_eq!(score, exact, "{player:#x} {square} alpha {alpha}");
                }
            }
        }
        // The lazy cut-off happens (the mover has no move and is behind).
        assert!(lazy_cuts > 0);
    }

    #[test]
    fn last_flip_counts_match_the_move_generator() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            let (player, opponent, square) = random_board_with_one_empty(&mut state);
            assert_eq!(count_last_flips(player, square), flips(player, opponent, square).count_ones() as i32);
        }
    }
}
