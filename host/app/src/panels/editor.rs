//! The position editor and the board view: set up any position (discs, side to move) and play or
//! analyse from it; copy and paste a position as the OBF-style line Edax and Egaroucid use (64
//! squares a1…h8, `X` black, `O` white, `-` empty, a space and the side to move, optionally `;`
//! and anything after it); turn or mirror the board view.

use egui::Ui;
use othello_sdk::{Bitboard, Color, Position, Square};

use crate::{Action, OthelloApp};

/// Characters of one square in a pasted position.
const BLACK_SQUARE: [char; 3] = ['X', 'x', '*'];
const WHITE_SQUARE: [char; 3] = ['O', 'o', '0'];
const EMPTY_SQUARE: [char; 2] = ['-', '.'];
/// Width of the position text field, in points at most.
const POSITION_FIELD_WIDTH: f32 = 260.0;

/// What a click on the board does while editing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Black,
    White,
    Empty,
}

/// A position being set up.
#[derive(Debug, Clone, PartialEq)]
pub struct EditorState {
    black: Bitboard,
    white: Bitboard,
    pub side_to_move: Color,
    pub tool: Tool,
}

impl EditorState {
    /// Starts editing from `position`.
    pub fn new(position: &Position) -> EditorState {
        EditorState {
            black: position.black(),
            white: position.white(),
            side_to_move: position.side_to_move(),
            tool: Tool::Black,
        }
    }

    /// The position as set up so far.
    pub fn draft(&self) -> Position {
        Position::from_discs(self.black, self.white, self.side_to_move).expect("the editor keeps the discs apart")
    }

    /// Applies the tool to `square`.
    pub fn apply(&mut self, square: Square) {
        let bit = square.bitboard();
        self.black = Bitboard(self.black.0 & !bit.0);
        self.white = Bitboard(self.white.0 & !bit.0);
        match self.tool {
            Tool::Black => self.black = Bitboard(self.black.0 | bit.0),
            Tool::White => self.white = Bitboard(self.white.0 | bit.0),
            Tool::Empty => {}
        }
    }

    pub fn clear(&mut self) {
        self.black = Bitboard::EMPTY;
        self.white = Bitboard::EMPTY;
    }

    /// Whether the draft can be played from: someone has a move, and it is the side to move.
    pub fn check(&self) -> Result<Position, String> {
        playable(self.draft())
    }
}

/// A position the game can start from: the side to move has a legal move.
fn playable(position: Position) -> Result<Position, String> {
    if position.is_game_over() {
        return Err("neither side has a legal move in this position: there is nothing to play".to_owned());
    }
    if position.must_pass() {
        let side = crate::color_name(position.side_to_move());
        return Err(format!("{side} has no legal move here: make the other side the one to move"));
    }
    Ok(position)
}

/// Reads a position line: 64 squares a1…h8 row by row (`X`/`*` black, `O` white, `-`/`.`
/// empty), whitespace, the side to move (`X`/`B` black, `O`/`W` white), optionally `;` and
/// anything after it (OBF's move list, a comment). Refused with the reason otherwise.
pub fn parse_position(text: &str) -> Result<Position, String> {
    let line = text.trim();
    let before_comment = line.split(';').next().unwrap_or_default();
    let mut words = before_comment.split_whitespace();
    let Some(board) = words.next() else {
        return Err("nothing to read: paste 64 squares and the side to move, e.g. `--XXXXX--OOO…  X`".to_owned());
    };
    let count = board.chars().count();
    if count != 64 {
        return Err(format!("the board has {count} squares; it needs 64 (a1…h8, row by row)"));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (index, c) in board.chars().enumerate() {
        let bit = 1u64 << index;
        let square = Square::new(index as u8).expect("64 squares");
        if BLACK_SQUARE.contains(&c) {
            black |= bit;
        } else if WHITE_SQUARE.contains(&c) {
            white |= bit;
        } else if !EMPTY_SQUARE.contains(&c) {
            return Err(format!("square {} ({square}) is `{c}`: use X for black, O for white, - for empty", index + 1));
        }
    }
    let side = match words.next() {
        None => return Err("the side to move is missing after the 64 squares (X or O)".to_owned()),
        Some("X" | "x" | "B" | "b" | "*") => Color::Black,
        Some("O" | "o" | "W" | "w" | "0") => Color::White,
        Some(other) => return Err(format!("`{other}` is not a side to move (X or O)")),
    };
    if let Some(extra) = words.next() {
        return Err(format!("unexpected `{extra}` after the side to move (a comment goes after `;`)"));
    }
    let position = Position::from_discs(Bitboard(black), Bitboard(white), side).expect("disjoint by construction");
    playable(position)
}

/// The position as one line: 64 squares, a space, the side to move.
pub fn format_position(position: &Position) -> String {
    position.to_board_string()
}

/// The Position panel: its own state is the position line being typed. The draft being edited
/// (`editor`) is the app's, as the board draws it; the panel edits the draft's tools and returns
/// everything else as actions.
pub fn show(
    app: &OthelloApp,
    editor: &mut Option<EditorState>,
    position_input: &mut String,
    ui: &mut Ui,
) -> Option<Action> {
    ui.heading("Position");
    let mut action = None;
    match editor {
        None => {
            ui.horizontal_wrapped(|ui| {
                if ui.button("Edit position").on_hover_text("Set up discs and the side to move").clicked() {
                    action = Some(Action::EditPosition);
                }
                if ui.button("Copy position").on_hover_text("The board as an OBF line (Edax, Egaroucid)").clicked() {
                    let text = format_position(&app.game().viewed());
                    ui.ctx().copy_text(text.clone());
                    *position_input = text;
                    action = Some(Action::Tell("Position copied".to_owned()));
                }
            });
        }
        Some(draft) => action = editing_controls(ui, draft),
    }
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(position_input)
                .desired_width(ui.available_width().min(POSITION_FIELD_WIDTH))
                .hint_text("--XXXXX--OOOXX-O…  X"),
        )
        .accessible_name("Paste a position");
    });
    if ui.button("Set up pasted position").clicked() {
        action = Some(Action::LoadPosition(position_input.clone()));
    }
    let orientation = app.settings.orientation;
    ui.horizontal_wrapped(|ui| {
        ui.label("Board view");
        if ui.button("Rotate").on_hover_text("A quarter turn clockwise").clicked() {
            action = Some(Action::Orient(orientation.rotated()));
        }
        if ui.button("Mirror").on_hover_text("Left and right swapped").clicked() {
            action = Some(Action::Orient(orientation.mirrored()));
        }
        if orientation != Default::default() && ui.button("Reset view").clicked() {
            action = Some(Action::Orient(Default::default()));
        }
    });
    action
}

/// The draft's tools; returns "play from here" or "cancel".
fn editing_controls(ui: &mut Ui, editor: &mut EditorState) -> Option<Action> {
    let mut action = None;
    ui.label("Click squares to place or remove discs.");
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut editor.tool, Tool::Black, "Black disc");
        ui.selectable_value(&mut editor.tool, Tool::White, "White disc");
        ui.selectable_value(&mut editor.tool, Tool::Empty, "Empty");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("To move:");
        ui.selectable_value(&mut editor.side_to_move, Color::Black, "Black to move");
        ui.selectable_value(&mut editor.side_to_move, Color::White, "White to move");
    });
    ui.horizontal_wrapped(|ui| {
        if ui.button("Clear board").clicked() {
            editor.clear();
        }
        if ui.button("Start position").clicked() {
            *editor = EditorState { tool: editor.tool, ..EditorState::new(&Position::start()) };
        }
    });
    ui.horizontal_wrapped(|ui| {
        if ui.button("Play from here").clicked() {
            action = Some(match editor.check() {
                // Asks first if a game is in progress; the editor closes once it goes ahead.
                Ok(position) => Action::SetUpPosition(position),
                Err(why) => Action::Refuse(format!("Not set up: {why}")),
            });
        }
        if ui.button("Cancel editing").clicked() {
            action = Some(Action::CancelEditing);
        }
    });
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

    #[test]
    fn an_obf_line_reads_with_or_without_its_move_list() {
        let position = parse_position(FFO_1).unwrap();
        assert_eq!(format_position(&position), FFO_1);
        let with_moves = format!("{FFO_1}; g8:+18 h1:+12");
        assert_eq!(parse_position(&with_moves).unwrap(), position);
        assert_eq!(parse_position(&format!("  {FFO_1};\n")).unwrap(), position);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_reason() {
        let cases = [
            ("", "nothing to read"),
            ("--XX X", "the board has 4 squares; it needs 64"),
            (&FFO_1.replace(" X", ""), "the side to move is missing"),
            (&FFO_1.replace(" X", " Q"), "`Q` is not a side to move"),
            (&FFO_1.replacen('-', "?", 1), "square 1 (a1) is `?`"),
            (&format!("{FFO_1} extra"), "unexpected `extra`"),
            (&format!("{} X", "X".repeat(64)), "neither side has a legal move"),
            (&format!("XXO{} O", "-".repeat(61)), "White has no legal move here"),
        ];
        for (text, reason) in cases {
            let error = parse_position(text).unwrap_err();
            assert!(error.contains(reason), "{text:?}: {error:?} lacks {reason:?}");
        }
    }

    #[test]
    fn the_editor_places_and_removes_discs_and_sets_the_side() {
        let mut editor = EditorState::new(&Position::start());
        editor.clear();
        for (tool, square) in [(Tool::Black, "a1"), (Tool::White, "b1"), (Tool::White, "a1"), (Tool::Black, "c1")] {
            editor.tool = tool;
            editor.apply(square.parse().unwrap());
        }
        editor.tool = Tool::Empty;
        editor.apply("c1".parse().unwrap());
        editor.side_to_move = Color::White;
        assert_eq!(format_position(&editor.draft()), format!("OO{} O", "-".repeat(62)));
        assert!(editor.check().unwrap_err().contains("neither side"));
    }
}
