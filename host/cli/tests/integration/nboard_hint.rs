//! `othello nboard BOT` answering `hint N` as NBoard GUIs expect: with the bot's analysis export,
//! one `search MOVE EVAL 0 DEPTH` line for each of the N best moves (depth `100%` when exact, the
//! mark NBoard's `Depth.isExact` and `Hint.IsExact` read),
//! then `status`; without it, the bot's chosen move as before.

use std::path::Path;

use othello_sdk::{Position, Square, parse_transcript_from};
use othello_testkit::fixture_workspace;

/// Runs `othello nboard BOT` on `script` and returns its output lines.
fn session(dir: &Path, bot: &str, script: &[String]) -> Vec<String> {
    othello_testkit::nboard_session(Path::new(env!("CARGO_BIN_EXE_othello")), dir, bot, script)
}

/// The `set game` line of a game starting at `position` with no moves.
fn set_game(position: &Position) -> String {
    othello_arena::nboard::protocol::format_set_game(position, "A", "B", None)
}

fn upper(square: Square) -> String {
    square.to_string().to_uppercase()
}

#[test]
fn hint_lists_the_best_moves_of_the_analysis() {
    let dir = fixture_workspace(&["analyzes"]);
    let position = parse_transcript_from(Position::start(), "f5d6c3d3c4").unwrap().1;
    // The fixture values each move by its flips; the host lists them best first (ties in square
    // order, as the fixture gives them).
    let mut expected: Vec<(Square, u32)> =
        position.legal_moves().into_iter().map(|s| (s, position.flips(s).count())).collect();
    expected.sort_by_key(|&(_, flips)| std::cmp::Reverse(flips));
    assert!(expected.len() > 3);
    let lines = session(dir.path(), "analyzes", &[set_game(&position), "hint 3".to_owned()]);
    let wanted: Vec<String> = expected[..3]
        .iter()
        .map(|(square, flips)| format!("search {} {flips}.00 0 1", upper(*square)))
        .chain(["status".to_owned()])
        .collect();
    assert_eq!(lines, wanted);
}

#[test]
fn an_exact_value_is_marked_100_percent_as_nboard_reads_it() {
    let dir = fixture_workspace(&["analyzes"]);
    // One empty square, a1: black's last move flips b1.
    let position = Position::from_board_string(&format!("-O{} X", "X".repeat(62))).unwrap();
    let lines = session(dir.path(), "analyzes", &[set_game(&position), "hint 5".to_owned()]);
    assert_eq!(lines, ["search A1 1.00 0 100%", "status"]);
}

#[test]
fn a_bot_without_the_export_hints_its_chosen_move_and_garbage_is_left_out() {
    let dir = fixture_workspace(&["first_legal", "analysis_garbage"]);
    let position = parse_transcript_from(Position::start(), "f5d6").unwrap().1;
    let first = position.legal_moves().first().unwrap();
    let lines = session(dir.path(), "first_legal", &[set_game(&position), "hint 3".to_owned()]);
    assert_eq!(lines, [format!("search {} 0.00 0 0", upper(first)), "status".to_owned()]);
    // Only the garbage bot's one sound value is shown.
    let lines = session(dir.path(), "analysis_garbage", &[set_game(&position), "hint 3".to_owned()]);
    assert_eq!(lines, [format!("search {} 2.00 0 3", upper(first)), "status".to_owned()]);
}
