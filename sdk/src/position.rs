use std::fmt;
use std::str::FromStr;

use crate::{Bitboard, Color, ParseSquareError, Square, flips, legal_moves};

/// A move: a disc placed on a square, or a pass (only legal with no other move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    Play(Square),
    Pass,
}

impl Move {
    /// The ABI byte that means "pass".
    pub const PASS_BYTE: u8 = 0xFF;

    /// The ABI's move byte: `(row << 4) | col`, or `0xFF` for a pass.
    pub const fn to_byte(self) -> u8 {
        match self {
            Move::Play(square) => square.to_move_byte(),
            Move::Pass => Move::PASS_BYTE,
        }
    }

    /// Decodes an ABI move byte. Anything but a square or `0xFF` is an error.
    ///
    /// ```
    /// use othello_sdk::Move;
    /// assert_eq!(Move::from_byte(0x23).unwrap().to_string(), "d3");
    /// assert_eq!(Move::from_byte(0xFF), Ok(Move::Pass));
    /// assert!(Move::from_byte(0x38).is_err()); // column 8 does not exist
    /// ```
    pub const fn from_byte(byte: u8) -> Result<Move, InvalidMoveByte> {
        if byte == Move::PASS_BYTE {
            return Ok(Move::Pass);
        }
        match Square::from_row_col(byte >> 4, byte & 0x0F) {
            Some(square) => Ok(Move::Play(square)),
            None => Err(InvalidMoveByte(byte)),
        }
    }

    /// The square played, or `None` for a pass.
    pub const fn square(self) -> Option<Square> {
        match self {
            Move::Play(square) => Some(square),
            Move::Pass => None,
        }
    }
}

impl From<Square> for Move {
    fn from(square: Square) -> Move {
        Move::Play(square)
    }
}

impl fmt::Display for Move {
    /// `d3`, or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(square) => square.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Move {
    type Err = ParseSquareError;

    /// A square (`d3`) or a pass (`pass`, `pa`, `ps`, `--`), case-insensitive.
    fn from_str(s: &str) -> Result<Move, ParseSquareError> {
        match s.to_ascii_lowercase().as_str() {
            "pass" | "pa" | "ps" | "--" => Ok(Move::Pass),
            _ => s.parse().map(Move::Play),
        }
    }
}

/// A move byte that is neither a square nor `0xFF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidMoveByte(pub u8);

impl fmt::Display for InvalidMoveByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move byte {:#04x} is off the board (row {}, column {}; both must be 0..7, or 0xff to pass)",
            self.0,
            self.0 >> 4,
            self.0 & 0x0F
        )
    }
}

impl std::error::Error for InvalidMoveByte {}

/// Why a move is illegal in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalMove {
    /// Neither side can move any more.
    GameOver,
    /// The square already holds a disc.
    Occupied(Square),
    /// The side to move has no legal move, so it must pass.
    MustPass(Square),
    /// The square is empty but flips no disc.
    NoFlips(Square),
    /// A pass while legal moves exist (`moves` lists them).
    PassWithMoves(Bitboard),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver => f.write_str("the game is over"),
            IllegalMove::Occupied(s) => write!(f, "{s} is occupied"),
            IllegalMove::MustPass(s) => {
                write!(f, "{s} is not legal: the side to move has no legal move and must pass")
            }
            IllegalMove::NoFlips(s) => write!(f, "{s} flips no disc"),
            IllegalMove::PassWithMoves(moves) => {
                let list: Vec<String> = moves.into_iter().map(|s| s.to_string()).collect();
                write!(f, "cannot pass with legal moves ({})", list.join(", "))
            }
        }
    }
}

impl std::error::Error for IllegalMove {}

/// Discs on the board and the side to move.
///
/// Stored as the mover's and the opponent's bitboards, as engines do.
///
/// ```
/// use othello_sdk::{Color, Move, Position};
/// let mut pos = Position::start();
/// assert_eq!(pos.side_to_move(), Color::Black);
/// pos.play("f5".parse().unwrap());
/// assert_eq!(pos.side_to_move(), Color::White);
/// assert_eq!((pos.black().count(), pos.white().count()), (4, 1));
/// assert!(pos.try_play(Move::Pass).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    player: u64,
    opponent: u64,
    side_to_move: Color,
}

/// Why a set of discs does not make a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlappingDiscs(pub Bitboard);

impl fmt::Display for OverlappingDiscs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.0.into_iter().map(|s| s.to_string()).collect();
        write!(f, "squares hold both a black and a white disc: {}", list.join(", "))
    }
}

impl std::error::Error for OverlappingDiscs {}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl Position {
    /// The start position: white d4, e5; black d5, e4; black to move.
    pub const fn start() -> Position {
        let d4 = 1u64 << 27;
        let e5 = 1u64 << 36;
        let e4 = 1u64 << 28;
        let d5 = 1u64 << 35;
        Position { player: d5 | e4, opponent: d4 | e5, side_to_move: Color::Black }
    }

    /// A position from each colour's discs. Fails if a square holds both.
    pub fn from_discs(black: Bitboard, white: Bitboard, side_to_move: Color) -> Result<Position, OverlappingDiscs> {
        if !(black & white).is_empty() {
            return Err(OverlappingDiscs(black & white));
        }
        Ok(match side_to_move {
            Color::Black => Position { player: black.0, opponent: white.0, side_to_move },
            Color::White => Position { player: white.0, opponent: black.0, side_to_move },
        })
    }

    /// A position from the mover's and the opponent's discs. They must not overlap.
    pub const fn from_player_opponent(player: u64, opponent: u64, side_to_move: Color) -> Position {
        debug_assert!(player & opponent == 0);
        Position { player, opponent, side_to_move }
    }

    pub const fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// Discs of the side to move.
    pub const fn player(&self) -> Bitboard {
        Bitboard(self.player)
    }

    /// Discs of the side not to move.
    pub const fn opponent(&self) -> Bitboard {
        Bitboard(self.opponent)
    }

    pub const fn discs(&self, color: Color) -> Bitboard {
        if color as u8 == self.side_to_move as u8 { Bitboard(self.player) } else { Bitboard(self.opponent) }
    }

    pub const fn black(&self) -> Bitboard {
        self.discs(Color::Black)
    }

    pub const fn white(&self) -> Bitboard {
        self.discs(Color::White)
    }

    pub const fn empty(&self) -> Bitboard {
        Bitboard(!(self.player | self.opponent))
    }

    /// The colour of the disc on `square`, if any.
    pub const fn color_on(&self, square: Square) -> Option<Color> {
        if self.black().contains(square) {
            Some(Color::Black)
        } else if self.white().contains(square) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Legal moves of the side to move (empty: it must pass, or the game is over).
    #[inline]
    pub fn legal_moves(&self) -> Bitboard {
        Bitboard(legal_moves(self.player, self.opponent))
    }

    /// The discs a move on `square` would flip (empty if it is illegal).
    #[inline]
    pub fn flips(&self, square: Square) -> Bitboard {
        if self.empty().contains(square) {
            Bitboard(flips(self.player, self.opponent, square.index()))
        } else {
            Bitboard::EMPTY
        }
    }

    /// The side to move has no legal move but the game goes on.
    pub fn must_pass(&self) -> bool {
        self.legal_moves().is_empty() && legal_moves(self.opponent, self.player) != 0
    }

    /// Neither side can move.
    pub fn is_game_over(&self) -> bool {
        legal_moves(self.player, self.opponent) == 0 && legal_moves(self.opponent, self.player) == 0
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(mv).is_ok()
    }

    /// Checks a move; on success returns the discs it flips.
    pub fn check(&self, mv: Move) -> Result<Bitboard, IllegalMove> {
        let moves = self.legal_moves();
        match mv {
            Move::Pass if moves.is_empty() && !self.is_game_over() => Ok(Bitboard::EMPTY),
            Move::Pass if moves.is_empty() => Err(IllegalMove::GameOver),
            Move::Pass => Err(IllegalMove::PassWithMoves(moves)),
            Move::Play(square) => {
                if moves.contains(square) {
                    Ok(self.flips(square))
                } else if self.is_game_over() {
                    Err(IllegalMove::GameOver)
                } else if !self.empty().contains(square) {
                    Err(IllegalMove::Occupied(square))
                } else if moves.is_empty() {
                    Err(IllegalMove::MustPass(square))
                } else {
                    Err(IllegalMove::NoFlips(square))
                }
            }
        }
    }

    /// Plays a move if it is legal and returns the flipped discs; otherwise
    /// leaves the position unchanged and says why the move is illegal.
    pub fn try_play(&mut self, mv: Move) -> Result<Bitboard, IllegalMove> {
        let flipped = self.check(mv)?;
        self.apply(mv, flipped.0);
        Ok(flipped)
    }

    /// Plays a legal move and returns the flipped discs.
    ///
    /// # Panics
    /// If the move is illegal; use [`Position::try_play`] for untrusted input.
    pub fn play(&mut self, mv: Move) -> Bitboard {
        match self.try_play(mv) {
            Ok(flipped) => flipped,
            Err(why) => panic!("illegal move {mv}: {why}"),
        }
    }

    /// Plays a move without checking it. An illegal move leaves a position
    /// that cannot arise in a game (but no undefined behaviour).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        let flipped = match mv {
            Move::Play(square) => flips(self.player, self.opponent, square.index()),
            Move::Pass => 0,
        };
        self.apply(mv, flipped);
    }

    #[inline]
    fn apply(&mut self, mv: Move, flipped: u64) {
        if let Move::Play(square) = mv {
            let placed = 1u64 << square.index();
            let player = self.player | placed | flipped;
            self.player = self.opponent & !flipped;
            self.opponent = player;
        } else {
            std::mem::swap(&mut self.player, &mut self.opponent);
        }
        self.side_to_move = !self.side_to_move;
    }

    /// Disc counts `(black, white)` as they stand.
    pub fn disc_counts(&self) -> (u32, u32) {
        (self.black().count(), self.white().count())
    }

    /// The final score `(black, white)` by the standard convention: empty
    /// squares go to the winner (a draw splits none: both have 32 or fewer).
    pub fn final_score(&self) -> (u32, u32) {
        let (black, white) = self.disc_counts();
        let empties = 64 - black - white;
        match black.cmp(&white) {
            std::cmp::Ordering::Greater => (black + empties, white),
            std::cmp::Ordering::Less => (black, white + empties),
            std::cmp::Ordering::Equal => (black, white),
        }
    }

    /// The outcome if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_game_over() {
            return None;
        }
        let (black, white) = self.disc_counts();
        Some(match black.cmp(&white) {
            std::cmp::Ordering::Greater => Outcome::Win(Color::Black),
            std::cmp::Ordering::Less => Outcome::Win(Color::White),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_board_string())
    }
}

impl fmt::Display for Position {
    /// A picture of the board with coordinates, `X` black, `O` white, `.` empty, `*` legal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves = self.legal_moves();
        writeln!(f, "  a b c d e f g h")?;
        for row in 0..8u8 {
            write!(f, "{}", row + 1)?;
            for col in 0..8u8 {
                let square = Square::from_row_col(row, col).expect("on the board");
                let c = match self.color_on(square) {
                    Some(color) => color.to_char(),
                    None if moves.contains(square) => '*',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.side_to_move)
    }
}
