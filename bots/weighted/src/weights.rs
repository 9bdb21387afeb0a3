//! The classic beginner's table: how good it is to own each square.

use othello_sdk::Square;

/// A corner can never be flipped back: take it.
pub const CORNER: i32 = 150;
/// A square diagonally next to a corner (b2, g2, b7, g7): playing it usually
/// hands the corner to the opponent.
pub const X_SQUARE: i32 = -64;
/// Any other edge square: harder to flip than inner ones.
pub const EDGE: i32 = 10;
/// Every other square.
pub const INNER: i32 = 0;

/// The weight of every square, a1..h8.
pub const WEIGHTS: [i32; 64] = table();

/// The weight of owning `square`.
pub const fn weight(square: Square) -> i32 {
    WEIGHTS[square.index()]
}

const fn table() -> [i32; 64] {
    let mut weights = [INNER; 64];
    let mut index = 0;
    while index < 64 {
        let (row, col) = (index / 8, index % 8);
        let row_on_edge = row == 0 || row == 7;
        let col_on_edge = col == 0 || col == 7;
        let row_next_to_edge = row == 1 || row == 6;
        let col_next_to_edge = col == 1 || col == 6;
        weights[index] = if row_on_edge && col_on_edge {
            CORNER
        } else if row_next_to_edge && col_next_to_edge {
            X_SQUARE
        } else if row_on_edge || col_on_edge {
            EDGE
        } else {
            INNER
        };
        index += 1;
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weight_of(name: &str) -> i32 {
        weight(name.parse().unwrap())
    }

    #[test]
    fn the_table_is_the_classic_one() {
        for corner in ["a1", "h1", "a8", "h8"] {
            assert_eq!(weight_of(corner), CORNER);
        }
        for x_square in ["b2", "g2", "b7", "g7"] {
            assert_eq!(weight_of(x_square), X_SQUARE);
        }
        for edge in ["b1", "c1", "g1", "a2", "h2", "a7", "b8", "g8", "h7", "d1", "a4"] {
            assert_eq!(weight_of(edge), EDGE, "{edge}");
        }
        for inner in ["c3", "d4", "b3", "c2", "f7", "g6"] {
            assert_eq!(weight_of(inner), INNER, "{inner}");
        }
        let count = |w| WEIGHTS.iter().filter(|&&x| x == w).count();
        assert_eq!((count(CORNER), count(X_SQUARE), count(EDGE), count(INNER)), (4, 4, 24, 32));
    }
}
