//! WTHOR game databases (`.wtb`, the French Othello federation's format, which Egaroucid, NBoard
//! and most Othello programs read) and the opening tree built from their games.
//!
//! The format: a 16-byte header (bytes 0–3 the file's creation date: century, year, month, day;
//! 4–7 the number of games, little-endian; 8–9 a count used by the player and tournament files,
//! 0 here; 10–11 the games' year; 12 the board size, 0 or 8 for 8×8; 13 the game type; 14 the
//! depth of the theoretical scores; 15 reserved), then one 68-byte record per game (0–1 the
//! tournament's number, 2–3 Black's player number, 4–5 White's, 6 Black's discs at the end, 7
//! Black's theoretical score, 8–67 the 60 moves, each `10 × row + column` from 11 = a1 to
//! 88 = h8, 0 after the last). Passes are not written: a side without a legal move passes.
//!
//! The tree counts, for every position reached in the first [`TREE_PLIES`] moves of the games
//! (any of its eight symmetries alike, so a game opened with d3 counts for f5), the games
//! through it and how they ended.

use std::collections::HashMap;
use std::path::Path;

use othello_sdk::{Move, Position, Square};

/// Bytes of the header and of a game.
pub const HEADER_BYTES: usize = 16;
pub const GAME_BYTES: usize = 68;
/// The largest file read (a year of WTHOR is under 2 MB; the whole base since 1977 about 10 MB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Plies of each game entered in the opening tree.
pub const TREE_PLIES: usize = 24;

/// One game of the base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WthorGame {
    pub tournament: u16,
    pub black_player: u16,
    pub white_player: u16,
    /// Black's discs at the end, as the record gives them.
    pub black_discs: u8,
    /// The moves, passes included where a side had none.
    pub moves: Vec<Move>,
}

impl WthorGame {
    /// Black's disc difference at the end (+ = Black won).
    pub fn black_margin(&self) -> i32 {
        2 * i32::from(self.black_discs) - 64
    }
}

/// A `.wtb` file read: its games, and how many records could not be replayed.
#[derive(Debug, Clone, Default)]
pub struct Base {
    pub year: u16,
    pub games: Vec<WthorGame>,
    /// Records with an illegal or unreadable move (left out).
    pub skipped: usize,
}

/// Reads the games of a `.wtb` file's bytes.
pub fn parse(bytes: &[u8]) -> Result<Base, String> {
    let header = bytes.get(..HEADER_BYTES).ok_or_else(|| {
        format!("{} bytes: too short for a WTHOR file (a {HEADER_BYTES}-byte header comes first)", bytes.len())
    })?;
    let count = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let year = u16::from_le_bytes([header[10], header[11]]);
    let board = header[12];
    if board != 0 && board != 8 {
        return Err(format!("a {board}×{board} board: only 8×8 games are read"));
    }
    let body = &bytes[HEADER_BYTES..];
    if body.len() != count.saturating_mul(GAME_BYTES) {
        return Err(format!(
            "the header says {count} games ({} bytes) but {} bytes follow: not a .wtb game file, or cut short",
            count.saturating_mul(GAME_BYTES),
            body.len()
        ));
    }
    let mut base = Base { year, ..Base::default() };
    for record in body.chunks_exact(GAME_BYTES) {
        match game(record) {
            Some(game) => base.games.push(game),
            None => base.skipped += 1,
        }
    }
    Ok(base)
}

/// Reads a `.wtb` file.
pub fn read(path: &Path) -> Result<Base, String> {
    let size = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.len();
    if size > MAX_FILE_BYTES {
        return Err(format!("{}: {size} bytes, more than a WTHOR file has", path.display()));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|why| format!("{}: {why}", path.display()))
}

/// One record, replayed from the start (`None` if a move is illegal or unreadable).
fn game(record: &[u8]) -> Option<WthorGame> {
    let number = |at: usize| u16::from_le_bytes([record[at], record[at + 1]]);
    let mut position = Position::start();
    let mut moves = Vec::new();
    for &code in &record[8..GAME_BYTES] {
        if code == 0 {
            break;
        }
        let (row, column) = (code / 10, code % 10);
        if !(1..=8).contains(&row) || !(1..=8).contains(&column) {
            return None;
        }
        let square = Square::from_row_col(row - 1, column - 1)?;
        if position.legal_moves().is_empty() && !position.is_game_over() {
            position.play(Move::Pass);
            moves.push(Move::Pass);
        }
        position.try_play(Move::Play(square)).ok()?;
        moves.push(Move::Play(square));
    }
    Some(WthorGame {
        tournament: number(0),
        black_player: number(2),
        white_player: number(4),
        black_discs: record[6],
        moves,
    })
}

/// How the games through a position ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub games: u32,
    pub black_wins: u32,
    pub draws: u32,
    /// Black's disc differences added up.
    pub black_margin_sum: i64,
}

impl Stats {
    /// Black's share of the points (a draw is half), 0..1.
    pub fn black_score(&self) -> f64 {
        (f64::from(self.black_wins) + f64::from(self.draws) / 2.0) / f64::from(self.games.max(1))
    }

    /// Black's average disc difference.
    pub fn black_margin(&self) -> f64 {
        self.black_margin_sum as f64 / f64::from(self.games.max(1))
    }
}

/// The opening tree of a base: the games through each position of their first moves.
#[derive(Debug, Clone, Default)]
pub struct OpeningTree {
    /// Where the games come from ("WTH_2023.wtb").
    pub source: String,
    pub games: usize,
    pub skipped: usize,
    positions: HashMap<(u64, u64, bool), Stats>,
}

impl OpeningTree {
    /// The tree of `base`'s games, named after `source`.
    pub fn new(base: &Base, source: String) -> OpeningTree {
        let mut tree = OpeningTree { source, games: base.games.len(), skipped: base.skipped, ..OpeningTree::default() };
        for game in &base.games {
            let margin = game.black_margin();
            let mut position = Position::start();
            for (ply, &mv) in game.moves.iter().enumerate().take(TREE_PLIES) {
                position.play(mv);
                // A pass leaves the same discs: the position after it counts once, as the next.
                if mv == Move::Pass && ply + 1 < game.moves.len() {
                    continue;
                }
                let stats = tree.positions.entry(crate::openings::canonical(&position)).or_default();
                stats.games += 1;
                stats.black_wins += u32::from(margin > 0);
                stats.draws += u32::from(margin == 0);
                stats.black_margin_sum += i64::from(margin);
            }
        }
        tree
    }

    /// The games through `position` (in any symmetry).
    pub fn stats(&self, position: &Position) -> Option<Stats> {
        self.positions.get(&crate::openings::canonical(position)).copied()
    }

    /// The moves of `position` the base's games played, most played first, with their games.
    pub fn moves(&self, position: &Position) -> Vec<(Square, Stats)> {
        let mut moves: Vec<(Square, Stats)> = position
            .legal_moves()
            .into_iter()
            .filter_map(|square| {
                let mut next = *position;
                next.play(Move::Play(square));
                Some((square, self.stats(&next)?))
            })
            .collect();
        moves.sort_by_key(|(square, stats)| (std::cmp::Reverse(stats.games), square.index()));
        moves
    }
}

/// A `.wtb` file's bytes for `games` (each Black's final discs and its moves, passes left out),
/// as the format says: for tests and for writing a base.
pub fn write(year: u16, games: &[(u8, Vec<Square>)]) -> Vec<u8> {
    let mut bytes = vec![20, 26, 12, 7];
    bytes.extend((games.len() as u32).to_le_bytes());
    bytes.extend(0u16.to_le_bytes());
    bytes.extend(year.to_le_bytes());
    bytes.extend([8, 0, 0, 0]);
    for (number, (black_discs, moves)) in games.iter().enumerate() {
        bytes.extend(0u16.to_le_bytes());
        bytes.extend((number as u16 * 2).to_le_bytes());
        bytes.extend((number as u16 * 2 + 1).to_le_bytes());
        bytes.extend([*black_discs, *black_discs]);
        let mut codes = [0u8; 60];
        for (code, square) in codes.iter_mut().zip(moves) {
            *code = 10 * (square.row() + 1) + square.col() + 1;
        }
        bytes.extend(codes);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(text: &str) -> Vec<Square> {
        othello_sdk::parse_transcript(text).unwrap().into_iter().filter_map(|m| m.square()).collect()
    }

    #[test]
    fn a_base_written_from_the_format_reads_back_with_its_games_and_counts() {
        let bytes = write(2026, &[(40, squares("f5d6c3d3c4")), (20, squares("f5f6e6")), (32, squares("d3c5"))]);
        assert_eq!(bytes.len(), HEADER_BYTES + 3 * GAME_BYTES);
        assert_eq!(&bytes[4..8], &[3, 0, 0, 0], "the count, little-endian");
        assert_eq!(bytes[HEADER_BYTES + 8], 56, "f5 is row 5, column 6");
        let base = parse(&bytes).unwrap();
        assert_eq!((base.year, base.games.len(), base.skipped), (2026, 3, 0));
        assert_eq!(base.games[0].moves.len(), 5);
        assert_eq!((base.games[1].black_player, base.games[1].white_player), (2, 3));
        assert_eq!(base.games[0].black_margin(), 16);

        let tree = OpeningTree::new(&base, "test.wtb".to_owned());
        let start = tree.moves(&Position::start());
        // d3 is f5 turned: all three games open the same way, and so does every first move.
        assert_eq!(start.len(), 4, "{start:?}");
        assert!(start.iter().all(|(_, stats)| stats.games == 3 && stats.black_wins == 1 && stats.draws == 1));
        assert!((start[0].1.black_score() - 0.5).abs() < 1e-9);
        let mut after_f5 = Position::start();
        after_f5.play("f5".parse().unwrap());
        let replies = tree.moves(&after_f5);
        let counts: Vec<(String, u32)> = replies.iter().map(|(s, st)| (s.to_string(), st.games)).collect();
        assert_eq!(counts, [("d6".to_owned(), 2), ("f6".to_owned(), 1)], "d3 c5 is f5 d6 turned");
    }

    #[test]
    fn a_broken_file_is_refused_with_the_reason_and_a_bad_game_is_left_out() {
        assert!(parse(&[0; 10]).unwrap_err().contains("too short"));
        let mut bytes = write(2026, &[(40, squares("f5d6"))]);
        bytes.pop();
        assert!(parse(&bytes).unwrap_err().contains("says 1 games"), "cut short");
        let mut ten = write(2026, &[]);
        ten[12] = 10;
        assert!(parse(&ten).unwrap_err().contains("10×10"));
        let mut illegal = write(2026, &[(40, squares("f5d6")), (40, squares("f5"))]);
        illegal[HEADER_BYTES + GAME_BYTES + 8] = 11; // a1 first: illegal
        let base = parse(&illegal).unwrap();
        assert_eq!((base.games.len(), base.skipped), (1, 1));
        let mut garbage = write(2026, &[(40, squares("f5"))]);
        garbage[HEADER_BYTES + 8] = 99;
        assert_eq!(parse(&garbage).unwrap().skipped, 1);
    }
}

/// The app's game database: the opening tree of the `.wtb` file imported, read on a thread of its
/// own (the whole WTHOR base takes a few seconds).
#[derive(Default)]
pub struct Database {
    tree: Option<OpeningTree>,
    loading: Option<std::sync::mpsc::Receiver<Result<OpeningTree, String>>>,
}

impl Database {
    /// Starts reading `path`; `wake` is called when done. The tree so far stays until the new one
    /// is read.
    pub fn import(&mut self, path: &Path, wake: crate::players::Waker) {
        let (sender, receiver) = std::sync::mpsc::channel();
        let path = path.to_path_buf();
        let spawned = std::thread::Builder::new().name("wthor import".to_owned()).spawn(move || {
            let source = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
            let _ = sender.send(read(&path).map(|base| OpeningTree::new(&base, source)));
            wake();
        });
        self.loading = spawned.is_ok().then_some(receiver);
    }

    /// The import's result, once it is done: the number of games, or why it failed.
    pub fn update(&mut self) -> Option<Result<(String, usize, usize), String>> {
        let result = self.loading.as_ref()?.try_recv().ok()?;
        self.loading = None;
        Some(result.map(|tree| {
            let told = (tree.source.clone(), tree.games, tree.skipped);
            self.tree = Some(tree);
            told
        }))
    }

    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }

    pub fn tree(&self) -> Option<&OpeningTree> {
        self.tree.as_ref()
    }
}
