//! The FFO-format test files the endgame examples read (`tests/data/ffo.txt`
//! and the self-play sets): one position per line, `id board side
//! best_moves score [move:score,...]` (see the header of `tests/data/ffo.txt`).

#![allow(dead_code)] // each example uses its part

use othello_sdk::{Position, Square};

/// One line of the file.
pub struct Problem {
    pub id: u32,
    pub position: Position,
    /// The best moves, or `*` where the file does not say.
    pub best_moves: Vec<String>,
    /// The exact score, mover's view.
    pub score: i32,
    /// The exact score after each move, mover's view, where the line gives them.
    pub move_scores: Vec<(Square, i32)>,
}

/// The problem on `line`, `None` for a blank or `#` comment line.
pub fn parse_line(line: &str) -> Result<Option<Problem>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 5 {
        return Err(format!("expected `id board side best_moves score ...`, got `{line}`"));
    }
    let id = fields[0].parse().map_err(|e| format!("bad id `{}`: {e}", fields[0]))?;
    let position = Position::from_board_string(&format!("{} {}", fields[1], fields[2]))
        .map_err(|e| format!("#{id}: bad board: {e}"))?;
    let best_moves = fields[3].split(',').map(str::to_owned).collect();
    let score = fields[4].parse().map_err(|e| format!("#{id}: bad score `{}`: {e}", fields[4]))?;
    let mut move_scores = Vec::new();
    for item in fields.get(5).map(|list| list.split(',')).into_iter().flatten() {
        let bad = || format!("#{id}: bad move score `{item}` (expected e.g. `g8:+18`)");
        let (square, score) = item.split_once(':').ok_or_else(bad)?;
        move_scores.push((square.parse().map_err(|_| bad())?, score.parse().map_err(|_| bad())?));
    }
    Ok(Some(Problem { id, position, best_moves, score, move_scores }))
}

/// Every problem in `file`.
pub fn read_problems(file: &str) -> Result<Vec<Problem>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let mut problems = Vec::new();
    for line in text.lines() {
        problems.extend(parse_line(line).map_err(|e| format!("{file}: {e}"))?);
    }
    Ok(problems)
}
