use std::fmt;
use std::str::FromStr;

use crate::Bitboard;

/// One of the 64 squares, `a1`..`h8`.
///
/// Columns `a`–`h` run left to right, rows `1`–`8` top to bottom; the index is
/// `8 * row + col`, so `a1` is 0 and `h8` is 63.
///
/// ```
/// use othello_sdk::Square;
/// let d3: Square = "d3".parse().unwrap();
/// assert_eq!((d3.row(), d3.col()), (2, 3));
/// assert_eq!(d3.index(), 19);
/// assert_eq!(d3.to_string(), "d3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index (0..64), or `None`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 { Some(Square(index)) } else { None }
    }

    /// The square with this index. The caller guarantees `index < 64`.
    pub const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index)
    }

    /// The square at `row` (0 = row 1) and `col` (0 = column a), or `None` if off the board.
    pub const fn from_row_col(row: u8, col: u8) -> Option<Square> {
        if row < 8 && col < 8 { Some(Square(row * 8 + col)) } else { None }
    }

    /// Index `8 * row + col`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Row 0..8 (0 is row `1`, the top).
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }

    /// Column 0..8 (0 is column `a`, the left).
    pub const fn col(self) -> u8 {
        self.0 & 7
    }

    /// The single-bit bitboard of this square.
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// The ABI's move byte: `(row << 4) | col`.
    pub const fn to_move_byte(self) -> u8 {
        (self.row() << 4) | self.col()
    }

    /// All squares in index order.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64u8).map(Square)
    }
}

/// Error parsing a square name such as `d3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a square (expected a1..h8)", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `a1`..`h8`, case-insensitively.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_owned());
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err());
        }
        let col = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let row = b[1].wrapping_sub(b'1');
        Square::from_row_col(row, col).ok_or_else(err)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}
