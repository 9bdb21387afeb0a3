//! Text forms: move transcripts (`f5d6c3d3c4`) and 64-character board strings.

use std::fmt;

use crate::{Bitboard, Color, IllegalMove, Move, Position, Square};

/// What is wrong with a transcript, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptError {
    /// Byte offset of the offending text in the input.
    pub offset: usize,
    /// 1-based number of the move in the transcript (passes not counted).
    pub move_number: usize,
    pub kind: TranscriptErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptErrorKind {
    /// Text that is not a square or a pass.
    NotAMove(String),
    /// A well-formed move that is illegal where it stands.
    Illegal { mv: Move, reason: IllegalMove },
}

impl fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} (at character {}): ", self.move_number, self.offset + 1)?;
        match &self.kind {
            TranscriptErrorKind::NotAMove(text) => {
                write!(f, "`{text}` is not a move (expected a square a1..h8, or PA for a pass)")
            }
            TranscriptErrorKind::Illegal { mv, reason } => write!(f, "{mv} is illegal: {reason}"),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// Parses a transcript played from the start position.
///
/// Moves are squares, case-insensitive, optionally separated by whitespace,
/// commas or dashes; passes may be written `PA` and are otherwise inserted
/// where the side to move has no legal move. The returned moves include every
/// pass.
///
/// ```
/// use othello_sdk::{parse_transcript, format_transcript};
/// let moves = parse_transcript("F5d6 c3").unwrap();
/// assert_eq!(format_transcript(&moves), "f5d6c3");
/// let err = parse_transcript("f5d6a1").unwrap_err();
/// assert_eq!(err.to_string(), "move 3 (at character 5): a1 is illegal: a1 flips no disc");
/// ```
pub fn parse_transcript(text: &str) -> Result<Vec<Move>, TranscriptError> {
    parse_transcript_from(Position::start(), text).map(|(moves, _)| moves)
}

/// Parses a transcript from `start`; returns the moves (passes included) and
/// the position reached.
pub fn parse_transcript_from(start: Position, text: &str) -> Result<(Vec<Move>, Position), TranscriptError> {
    let mut position = start;
    let mut moves = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut move_number = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() || c == b',' || c == b'-' && bytes.get(i + 1) != Some(&b'-') {
            i += 1;
            continue;
        }
        move_number += 1;
        // A move token is two characters (a square, `pa`, `ps` or `--`).
        let end = text[i..].char_indices().nth(2).map_or(text.len(), |(n, _)| i + n);
        let token = &text[i..end];
        let error = |kind| TranscriptError { offset: i, move_number, kind };
        let mv: Move = token.parse().map_err(|_| error(TranscriptErrorKind::NotAMove(token.to_owned())))?;
        if mv != Move::Pass && position.must_pass() {
            position.play_unchecked(Move::Pass);
            moves.push(Move::Pass);
        }
        position.try_play(mv).map_err(|reason| error(TranscriptErrorKind::Illegal { mv, reason }))?;
        moves.push(mv);
        i = end;
    }
    Ok((moves, position))
}

/// Writes moves as a compact lower-case transcript; passes are left out.
pub fn format_transcript(moves: &[Move]) -> String {
    moves.iter().filter_map(|m| m.square()).map(|s| s.to_string()).collect()
}

/// What is wrong with a board string, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardStringError {
    /// Byte offset in the input.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for BoardStringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board string, character {}: {}", self.offset + 1, self.message)
    }
}

impl std::error::Error for BoardStringError {}

impl Position {
    /// Parses 64 squares (a1, b1, … h1, a2, … h8) and the side to move, as in
    /// the FFO test suite: `X` or `*` black, `O` white, `-` or `.` empty, then
    /// whitespace and `X`/`O` (also `*`, `B`, `W`) for the side to move.
    /// Whitespace between squares is ignored.
    ///
    /// ```
    /// use othello_sdk::{Color, Position};
    /// let text = "---------------------------OX------XO--------------------------- X";
    /// let pos = Position::from_board_string(text).unwrap();
    /// assert_eq!(pos, Position::start());
    /// assert_eq!(pos.to_board_string(), text);
    /// assert!(Position::from_board_string("XO? X").is_err());
    /// ```
    pub fn from_board_string(text: &str) -> Result<Position, BoardStringError> {
        let (mut black, mut white, mut squares) = (0u64, 0u64, 0usize);
        let mut chars = text.char_indices();
        let err = |offset, message: String| BoardStringError { offset, message };
        for (offset, c) in chars.by_ref() {
            if c.is_whitespace() {
                continue;
            }
            match c {
                'X' | 'x' | '*' | 'B' | 'b' => black |= 1 << squares,
                'O' | 'o' | '0' | 'W' | 'w' => white |= 1 << squares,
                '-' | '.' | '_' => {}
                _ => return Err(err(offset, format!("`{c}` is not a square (X/* black, O white, -/. empty)"))),
            }
            squares += 1;
            if squares == 64 {
                break;
            }
        }
        if squares < 64 {
            return Err(err(text.len(), format!("only {squares} squares; a board has 64")));
        }
        let side = chars.find(|(_, c)| !c.is_whitespace());
        let side_to_move = match side {
            Some((_, 'X' | 'x' | '*' | 'B' | 'b')) => Color::Black,
            Some((_, 'O' | 'o' | '0' | 'W' | 'w')) => Color::White,
            Some((offset, c)) => return Err(err(offset, format!("`{c}` is not a side to move (X or O)"))),
            None => return Err(err(text.len(), "the side to move (X or O) is missing".to_owned())),
        };
        if let Some((offset, c)) = chars.find(|(_, c)| !c.is_whitespace() && *c != ';') {
            return Err(err(offset, format!("unexpected `{c}` after the side to move")));
        }
        Ok(Position::from_discs(Bitboard(black), Bitboard(white), side_to_move).expect("disjoint by construction"))
    }

    /// The 64-character board string and side to move, e.g. `---…OX…--- X`.
    pub fn to_board_string(&self) -> String {
        let mut text: String = Square::all()
            .map(|s| match self.color_on(s) {
                Some(color) => color.to_char(),
                None => '-',
            })
            .collect();
        text.push(' ');
        text.push(self.side_to_move().to_char());
        text
    }
}
