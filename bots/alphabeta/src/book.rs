//! The opening book: the best move of the positions of the usual openings,
//! found by this bot's own search ahead of time and shipped inside the
//! library (`book/book.bin`, `include_bytes!`), so the plugin stays one file.
//!
//! Building ([`build`], the `build_book` example): from the start position,
//! every legal move is searched to the book's depth (each child one ply
//! less); the position's entry is the best move and its score. The children
//! are expanded in turn: all of them in the first [`BuildSettings::full_plies`]
//! plies, later only those within [`BuildSettings::margin`] discs of the best
//! (the moves a strong opponent plays), until [`BuildSettings::plies`] moves
//! have been played. Positions are stored once for their eight symmetric
//! images (the smallest image, the move in its frame), so transpositions and
//! mirrored openings share one entry.
//!
//! The file: the magic `OTHBOOK1`, the search depth and the number of entries
//! (each a little-endian `u32`), then the entries sorted by position, 18 bytes
//! each: the mover's and the opponent's discs (`u64` each, little-endian), the
//! move's square (0 = a1 … 63 = h8) and the score in discs (`i8`, mover's
//! view). A lookup is a binary search.

use std::collections::HashMap;
use std::sync::OnceLock;

use othello_sdk::{Move, Position, Square, flips, legal_moves};

use crate::board::{Bits, SCORE_MAX, final_score, play};
use crate::eval::{EVAL_SCALE, score_to_discs};
use crate::patterns::{inverse_symmetry, symmetry};
use crate::search::{Limits, Searcher};

/// The first bytes of a book file.
pub const MAGIC: &[u8; 8] = b"OTHBOOK1";
const HEADER_SIZE: usize = 16;
const RECORD_SIZE: usize = 18;

/// The book shipped in the library (built by `cargo run --release -p
/// bot-alphabeta --example build_book`).
static BUILTIN_BYTES: &[u8] = include_bytes!("../book/book.bin");

/// A book entry found for a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookMove {
    pub square: Square,
    /// The search's score of the move in discs, the mover's view.
    pub score: i32,
}

/// A parsed book: borrowed bytes, checked once.
#[derive(Debug, Clone, Copy)]
pub struct Book<'a> {
    records: &'a [u8],
    /// The depth every entry was searched to.
    pub depth: u32,
}

/// The smallest of the eight symmetric images of the position, and the
/// symmetry that makes it.
pub fn canonical(player: u64, opponent: u64) -> (u64, u64, usize) {
    let mut best = (player, opponent, 0);
    for s in 1..8 {
        let image = (symmetry(player, s), symmetry(opponent, s));
        if image < (best.0, best.1) {
            best = (image.0, image.1, s);
        }
    }
    best
}

impl<'a> Book<'a> {
    /// Checks a book file: its header, its size and the order of its entries.
    pub fn parse(bytes: &'a [u8]) -> Result<Book<'a>, String> {
        if bytes.len() < HEADER_SIZE || &bytes[..8] != MAGIC {
            return Err("not an opening book (it does not start with OTHBOOK1)".to_owned());
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"));
        let (depth, count) = (word(8), word(12) as usize);
        let records = &bytes[HEADER_SIZE..];
        if records.len() != count.saturating_mul(RECORD_SIZE) {
            return Err(format!(
                "the book is cut or padded: {count} entries need {} bytes after the header, it has {}",
                count.saturating_mul(RECORD_SIZE),
                records.len()
            ));
        }
        let book = Book { records, depth };
        for i in 0..count {
            let (player, opponent, square, _) = book.record(i);
            if player & opponent != 0 || square >= 64 || (player | opponent) & (1u64 << square) != 0 {
                return Err(format!("entry {i} is not a position with a move on an empty square"));
            }
            if i > 0 && book.key(i - 1) >= (player, opponent) {
                return Err(format!("entry {i} is out of order (the entries must be sorted, each once)"));
            }
        }
        Ok(book)
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.records.len() / RECORD_SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn record(&self, i: usize) -> (u64, u64, u8, i8) {
        let r = &self.records[i * RECORD_SIZE..(i + 1) * RECORD_SIZE];
        let word = |at: usize| u64::from_le_bytes(r[at..at + 8].try_into().expect("eight bytes"));
        (word(0), word(8), r[16], r[17] as i8)
    }

    fn key(&self, i: usize) -> (u64, u64) {
        let (player, opponent, _, _) = self.record(i);
        (player, opponent)
    }

    /// The book move of the position (whichever of its symmetric images is
    /// stored), if the book has it and the move is legal there.
    pub fn lookup(&self, position: &Position) -> Option<BookMove> {
        let (player, opponent) = (position.player().0, position.opponent().0);
        let (key_player, key_opponent, s) = canonical(player, opponent);
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.key(middle).cmp(&(key_player, key_opponent)) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => {
                    let (_, _, square, score) = self.record(middle);
                    let mv = inverse_symmetry(1u64 << square, s);
                    if mv & legal_moves(player, opponent) == 0 {
                        return None;
                    }
                    let square = Square::new(mv.trailing_zeros() as u8)?;
                    return Some(BookMove { square, score: score as i32 });
                }
            }
        }
        None
    }
}

/// The book shipped in the library; `None` only if its file were malformed
/// (a test makes sure it is not).
pub fn builtin() -> Option<&'static Book<'static>> {
    static BUILTIN: OnceLock<Option<Book<'static>>> = OnceLock::new();
    BUILTIN.get_or_init(|| Book::parse(BUILTIN_BYTES).ok()).as_ref()
}

/// How a book is built (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct BuildSettings {
    /// Moves from the start position: positions after this many are not stored.
    pub plies: u32,
    /// Every move is followed up to this many plies.
    pub full_plies: u32,
    /// Later, moves at most this many discs worse than the best are followed.
    pub margin: i32,
    /// Search depth of a position (its moves are searched one ply less deep).
    pub depth: u32,
}

/// One stored position (its canonical image).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookEntry {
    pub player: u64,
    pub opponent: u64,
    /// In the frame of the canonical image.
    pub square: u8,
    pub score: i8,
}

/// The value of each legal move of `(player, opponent)` in discs (mover's
/// view), by a search of the position after it to `depth - 1`.
fn move_values(searcher: &mut Searcher, player: u64, opponent: u64, depth: u32) -> Vec<(usize, i32, u64, u64)> {
    let mut values = Vec::new();
    for square in Bits(legal_moves(player, opponent)) {
        let (next_player, next_opponent) = play(player, opponent, square, flips(player, opponent, square));
        // The searched position and the sign that turns its score into ours.
        let (searched, sign) = if legal_moves(next_player, next_opponent) != 0 {
            ((next_player, next_opponent), -1)
        } else if legal_moves(next_opponent, next_player) != 0 {
            ((next_opponent, next_player), 1)
        } else {
            values.push((square, -final_score(next_player, next_opponent), next_player, next_opponent));
            continue;
        };
        // The colour only names the sides; the search reads the mover's discs.
        let position = Position::from_player_opponent(searched.0, searched.1, othello_sdk::Color::Black);
        let result = searcher.search(&position, &Limits::depth(depth.saturating_sub(1).max(1)));
        let discs = (score_to_discs(result.score * sign).round() as i32).clamp(-SCORE_MAX, SCORE_MAX);
        values.push((square, discs, next_player, next_opponent));
    }
    values
}

/// Builds a book; after each ply, `progress` gets the ply, its number of new
/// positions and the book so far (sorted), so that a long build can be saved
/// as it goes.
pub fn build(settings: &BuildSettings, mut progress: impl FnMut(u32, usize, &[BookEntry])) -> Vec<BookEntry> {
    let mut searcher = Searcher::new();
    let mut entries: HashMap<(u64, u64), BookEntry> = HashMap::new();
    let start = Position::start();
    let mut frontier = vec![(start.player().0, start.opponent().0)];
    for ply in 0..settings.plies {
        let mut next_frontier = Vec::new();
        let mut new_positions = 0;
        for (player, opponent) in frontier {
            let (key_player, key_opponent, s) = canonical(player, opponent);
            if entries.contains_key(&(key_player, key_opponent)) {
                continue;
            }
            let values = move_values(&mut searcher, player, opponent, settings.depth);
            let Some(&(best_square, best_score, _, _)) = values.iter().max_by_key(|v| (v.1, std::cmp::Reverse(v.0)))
            else {
                continue; // a pass or the end: not in an opening book
            };
            entries.insert(
                (key_player, key_opponent),
                BookEntry {
                    player: key_player,
                    opponent: key_opponent,
                    square: symmetry(1u64 << best_square, s).trailing_zeros() as u8,
                    score: best_score as i8,
                },
            );
            new_positions += 1;
            for &(_, score, next_player, next_opponent) in &values {
                let followed = ply < settings.full_plies || score >= best_score - settings.margin;
                if followed && legal_moves(next_player, next_opponent) != 0 {
                    next_frontier.push((next_player, next_opponent));
                }
            }
        }
        progress(ply, new_positions, &sorted(&entries));
        frontier = next_frontier;
    }
    sorted(&entries)
}

fn sorted(entries: &HashMap<(u64, u64), BookEntry>) -> Vec<BookEntry> {
    let mut entries: Vec<BookEntry> = entries.values().copied().collect();
    entries.sort_by_key(|e| (e.player, e.opponent));
    entries
}

/// The book file of `entries` (sorted, as [`build`] returns them).
pub fn encode(entries: &[BookEntry], depth: u32) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_SIZE + entries.len() * RECORD_SIZE);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&depth.to_le_bytes());
    bytes.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        bytes.extend_from_slice(&e.player.to_le_bytes());
        bytes.extend_from_slice(&e.opponent.to_le_bytes());
        bytes.push(e.square);
        bytes.push(e.score as u8);
    }
    bytes
}

/// The book's move for `position` as a [`Move`] with its score in
/// centi-discs, from the built-in book.
pub fn builtin_move(position: &Position) -> Option<(Move, i32, u32)> {
    let book = builtin()?;
    let hit = book.lookup(position)?;
    Some((Move::Play(hit.square), hit.score * EVAL_SCALE, book.depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn images(player: u64, opponent: u64) -> impl Iterator<Item = (u64, u64)> {
        (0..8).map(move |s| (symmetry(player, s), symmetry(opponent, s)))
    }

    #[test]
    fn symmetries_invert() {
        let b = 0x0123_4567_89AB_CDEFu64;
        for s in 0..8 {
            assert_eq!(inverse_symmetry(symmetry(b, s), s), b, "symmetry {s}");
        }
    }

    #[test]
    fn a_built_book_answers_every_image_of_its_positions() {
        let settings = BuildSettings { plies: 4, full_plies: 2, margin: 2, depth: 3 };
        let entries = build(&settings, |_, _, _| {});
        assert!(entries.len() > 5, "{} entries", entries.len());
        let bytes = encode(&entries, settings.depth);
        let book = Book::parse(&bytes).expect("a valid book");
        assert_eq!((book.len(), book.depth), (entries.len(), 3));
        let after = |player: u64, opponent: u64, square: usize| {
            let (p, o) = play(player, opponent, square, flips(player, opponent, square));
            let (p, o, _) = canonical(p, o);
            (p, o)
        };
        for e in &entries {
            let stored_result = after(e.player, e.opponent, e.square as usize);
            for (player, opponent) in images(e.player, e.opponent) {
                let position = Position::from_player_opponent(player, opponent, othello_sdk::Color::White);
                let hit = book.lookup(&position).expect("every image is found");
                assert!(position.legal_moves().contains(hit.square));
                // The same move up to symmetry (a symmetric position has several images of it).
                assert_eq!(after(player, opponent, hit.square.index()), stored_result);
                assert_eq!(hit.score, e.score as i32);
            }
        }
        // The start position's four moves are one up to symmetry: the book has its reply.
        assert!(book.lookup(&Position::start()).is_some());
    }

    #[test]
    fn malformed_books_are_refused_with_the_reason() {
        assert!(Book::parse(b"nonsense").unwrap_err().contains("OTHBOOK1"));
        let entries = build(&BuildSettings { plies: 2, full_plies: 2, margin: 0, depth: 1 }, |_, _, _| {});
        let bytes = encode(&entries, 1);
        assert!(Book::parse(&bytes[..bytes.len() - 1]).unwrap_err().contains("cut or padded"));
        let mut swapped = bytes.clone();
        if entries.len() >= 2 {
            swapped[HEADER_SIZE..HEADER_SIZE + 2 * RECORD_SIZE].rotate_left(RECORD_SIZE);
            assert!(Book::parse(&swapped).unwrap_err().contains("out of order"));
        }
    }

    #[test]
    fn the_shipped_book_is_valid_and_answers_the_start() {
        let book = builtin().expect("the shipped book parses");
        assert!(book.len() > 100, "{} entries", book.len());
        let hit = book.lookup(&Position::start()).expect("the start position is in the book");
        assert!(Position::start().legal_moves().contains(hit.square));
    }
}
