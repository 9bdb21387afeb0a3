//! Opening names: the standard names of Othello openings (`data/openings.txt`, where they come
//! from is said in its header), matched against the game's positions in all eight symmetries of
//! the board.

use std::collections::HashMap;
use std::sync::OnceLock;

use othello_sdk::{Bitboard, Color, Position, parse_transcript_from};

use crate::game::Game;

/// The table: the moves from the standard start, a tab, the name.
const TABLE: &str = include_str!("../data/openings.txt");

/// A named opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// The first name of its line in the table ("Tiger").
    pub name: &'static str,
    /// Its moves from the standard start, as the table writes them (the f5 form).
    pub moves: &'static str,
}

/// The positions of the named openings, each in its eight symmetries.
fn table() -> &'static HashMap<(u64, u64, bool), Opening> {
    static TABLE_MAP: OnceLock<HashMap<(u64, u64, bool), Opening>> = OnceLock::new();
    TABLE_MAP.get_or_init(|| {
        let mut map = HashMap::new();
        for line in TABLE.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let Some((moves, names)) = line.split_once('\t') else { continue };
            let name = names.split(',').next().unwrap_or(names).trim();
            // A line the rules refuse is left out (the unit test makes sure there is none).
            let Ok((_, position)) = parse_transcript_from(Position::start(), moves) else { continue };
            for symmetry in 0..8 {
                map.insert(key(&position, symmetry), Opening { name, moves });
            }
        }
        map
    })
}

/// The same key for a position in any of its eight symmetries (the least of their keys).
pub(crate) fn canonical(position: &Position) -> (u64, u64, bool) {
    (0..8).map(|symmetry| key(position, symmetry)).min().expect("eight symmetries")
}

/// Square `index` (0..64) turned by `symmetry` (0..8: the identity, turns and mirrors).
pub(crate) fn turn_index(index: u8, symmetry: u8) -> u8 {
    let (row, column) = (index / 8, index % 8);
    let (row, column) = match symmetry {
        0 => (row, column),
        1 => (column, row),
        2 => (7 - row, 7 - column),
        3 => (7 - column, 7 - row),
        4 => (row, 7 - column),
        5 => (7 - row, column),
        6 => (column, 7 - row),
        _ => (7 - column, row),
    };
    row * 8 + column
}

/// The symmetries (1..8) that leave `position` as it is (none for most positions).
pub(crate) fn symmetries_of(position: &Position) -> Vec<u8> {
    (1..8).filter(|&symmetry| key(position, symmetry) == key(position, 0)).collect()
}

/// `position` turned by `symmetry` (0..8: the identity, turns and mirrors), as a map key.
fn key(position: &Position, symmetry: u8) -> (u64, u64, bool) {
    let turn = |board: Bitboard| {
        let mut out = 0u64;
        for index in 0..64u8 {
            if board.0 >> index & 1 == 1 {
                out |= 1 << turn_index(index, symmetry);
            }
        }
        out
    };
    (turn(position.black()), turn(position.white()), position.side_to_move() == Color::Black)
}

/// The named opening of `position`, if it is one.
pub fn name_of(position: &Position) -> Option<&'static Opening> {
    table().get(&key(position, 0))
}

/// The opening of `game` up to its ply `ply`: the last named position reached on the way, and
/// the ply where it was reached. Only for a game from the standard start.
pub fn opening_at(game: &Game, ply: usize) -> Option<(usize, &'static Opening)> {
    if game.start() != Position::start() {
        return None;
    }
    (1..=ply.min(game.moves().len())).rev().find_map(|p| name_of(&game.position_at(p)).map(|o| (p, o)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_is_a_legal_opening_with_a_name() {
        let lines: Vec<&str> = TABLE.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
        assert!(lines.len() >= 70, "{}", lines.len());
        for line in lines {
            let (moves, name) = line.split_once('\t').unwrap_or_else(|| panic!("no tab: {line}"));
            assert!(!name.trim().is_empty(), "{line}");
            parse_transcript_from(Position::start(), moves).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
    }

    #[test]
    fn openings_are_named_in_every_symmetry_and_the_longest_line_wins() {
        let tiger = Game::from_transcript("f5d6c3d3c4").unwrap();
        assert_eq!(opening_at(&tiger, 5).map(|(p, o)| (p, o.name)), Some((5, "Tiger")));
        assert_eq!(opening_at(&tiger, 4).map(|(p, o)| (p, o.name)), Some((2, "Perpendicular")));
        // The same Tiger, started d3 (the board mirrored along the diagonal).
        let mirrored = Game::from_transcript("d3c5f6f5e6").unwrap();
        assert_eq!(opening_at(&mirrored, 5).map(|(_, o)| o.name), Some("Tiger"));
        let rose = Game::from_transcript("f5d6c5f4e3c6d3f6e6d7g3").unwrap();
        assert_eq!(opening_at(&rose, 11).map(|(_, o)| o.name), Some("Rose"), "Rose-Birth needs c4 too");
        assert_eq!(opening_at(&Game::default(), 0), None);
    }
}
