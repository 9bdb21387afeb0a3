//! The board widget: sized to the space it gets, one clickable (and accessible) cell per square,
//! coordinates a–h / 1–8 on the edges, the view turned or mirrored ([`Orientation`]; the
//! coordinates follow), and move evaluations drawn on the legal squares with the best move ringed.
//!
//! Written as egui widgets are: size → allocate → interact → paint.

use egui::{Align2, Color32, FontId, Pos2, Rect, Role, Sense, Shape, Stroke, StrokeKind, Ui, Vec2, WidgetInfo};
use othello_sdk::{Bitboard, Color, Position, Square};
use serde::{Deserialize, Serialize};

use super::analysis::ShownValue;

/// Smallest board drawn, in points.
const MIN_BOARD_SIDE: f32 = 80.0;
/// Room around the grid for the coordinates, as a fraction of the board side.
const MARGIN_FRACTION: f32 = 0.06;
/// Disc radius as a fraction of a cell.
const DISC_RADIUS: f32 = 0.42;
/// Radius of a legal-move hint as a fraction of a cell.
const HINT_RADIUS: f32 = 0.12;
/// Radius of the last-move marker as a fraction of a cell.
const LAST_MOVE_RADIUS: f32 = 0.08;
/// Radius of a star point as a fraction of a cell.
const STAR_RADIUS: f32 = 0.06;

const FELT: Color32 = Color32::from_rgb(0x1f, 0x7a, 0x3c);
const FELT_HOVER: Color32 = Color32::from_rgb(0x2a, 0x8f, 0x4b);
const FRAME: Color32 = Color32::from_rgb(0x3b, 0x2a, 0x1a);
const GRID: Color32 = Color32::from_rgb(0x0b, 0x3d, 0x1c);
const COORDINATES: Color32 = Color32::from_rgb(0xe8, 0xdc, 0xc0);
const BLACK_DISC: Color32 = Color32::from_rgb(0x14, 0x14, 0x14);
const WHITE_DISC: Color32 = Color32::from_rgb(0xf4, 0xf4, 0xee);
const DISC_EDGE: Color32 = Color32::from_rgb(0x50, 0x50, 0x50);
const LAST_MOVE: Color32 = Color32::from_rgb(0xe0, 0x30, 0x30);
const FLIPPED_RING: Color32 = Color32::from_rgba_premultiplied(0x90, 0x70, 0x20, 0xa0);
/// Radius and width of the ring on flipped discs, as fractions of the disc radius and of a cell.
const FLIPPED_RING_RADIUS: f32 = 0.72;
const FLIPPED_RING_WIDTH: f32 = 0.025;
/// Evaluation text height as a fraction of a cell.
const EVAL_TEXT_SIZE: f32 = 0.34;
/// Values longer than this many characters (`+32.8`) are drawn at [`LONG_VALUE_SHARE`] of the size.
const SHORT_VALUE_CHARS: usize = 4;
const LONG_VALUE_SHARE: f32 = 0.8;
/// Smallest evaluation text, in points (still legible at the smallest window).
const EVAL_TEXT_MIN: f32 = 9.0;
/// Ring around the best move: radius and width as fractions of a cell.
const BEST_RING_RADIUS: f32 = 0.42;
const BEST_RING_WIDTH: f32 = 0.05;
const EVAL_TEXT: Color32 = Color32::from_rgb(0xf2, 0xf2, 0xe8);
/// Exact (solved) values are drawn in this colour.
const EVAL_EXACT_TEXT: Color32 = Color32::from_rgb(0xff, 0xd8, 0x4a);
const BEST_RING: Color32 = Color32::from_rgb(0xff, 0xd8, 0x4a);

/// How the board is turned on screen: quarter turns clockwise after an optional mirror
/// (left–right). The coordinates on the edges follow the squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Orientation {
    /// Quarter turns clockwise, 0..=3.
    pub quarter_turns: u8,
    pub mirrored: bool,
}

impl Orientation {
    /// Where `square` is drawn: (column, row) on screen, 0..8 each.
    pub fn to_screen(self, square: Square) -> (u8, u8) {
        let (mut x, mut y) = (square.col(), square.row());
        if self.mirrored {
            x = 7 - x;
        }
        for _ in 0..self.quarter_turns % 4 {
            (x, y) = (7 - y, x);
        }
        (x, y)
    }

    /// The square drawn at screen cell (`x`, `y`).
    pub fn square_at(self, x: u8, y: u8) -> Square {
        Square::all().find(|&s| self.to_screen(s) == (x, y)).expect("the orientation is a bijection")
    }

    /// The label of screen column `x` (`top`: along the top and bottom edges) or screen row `x`
    /// (along the left and right edges): a letter where the cells of the line share a board
    /// column, a number where they share a board row.
    pub fn edge_label(self, index: u8, along_columns: bool) -> String {
        let (first, second) = if along_columns {
            (self.square_at(index, 0), self.square_at(index, 1))
        } else {
            (self.square_at(0, index), self.square_at(1, index))
        };
        if first.col() == second.col() {
            char::from(b'a' + first.col()).to_string()
        } else {
            (first.row() + 1).to_string()
        }
    }

    /// A quarter turn clockwise more.
    pub fn rotated(self) -> Orientation {
        Orientation { quarter_turns: (self.quarter_turns + 1) % 4, ..self }
    }

    /// Mirrored left–right on screen.
    pub fn mirrored(self) -> Orientation {
        // Mirroring the screen after the turns is mirroring the board and turning the other way.
        Orientation { mirrored: !self.mirrored, quarter_turns: (4 - self.quarter_turns % 4) % 4 }
    }
}

/// A move's value drawn on its square.
pub struct Evaluation {
    pub square: Square,
    pub value: ShownValue,
}

/// What to draw, and whether clicks count.
pub struct BoardView {
    pub position: Position,
    /// Squares to mark as legal moves (empty to hide the hints).
    pub hints: Bitboard,
    pub last_move: Option<Square>,
    /// Discs the last move flipped, animated while `flip_progress` < 1.
    pub flipped: Bitboard,
    /// 0 = the flip just started, 1 = done.
    pub flip_progress: f32,
    /// Cells can be clicked (a human's turn).
    pub interactive: bool,
    /// Every cell can be clicked, legal or not (the position editor).
    pub editing: bool,
    pub orientation: Orientation,
    /// Values of the legal moves (Black's view), drawn on their squares.
    pub evaluations: Vec<Evaluation>,
    /// The best move for the side to move, ringed.
    pub best: Option<Square>,
}

impl BoardView {
    /// Draws the board in the space available and returns the square clicked, if any.
    pub fn show(self, ui: &mut Ui) -> Option<Square> {
        let available = ui.available_size();
        let side = available.x.min(available.y).max(MIN_BOARD_SIDE);
        let (board_rect, _) = ui.allocate_exact_size(Vec2::splat(side), Sense::hover());
        let margin = side * MARGIN_FRACTION;
        let grid = board_rect.shrink(margin);
        let cell = grid.width() / 8.0;
        let orientation = self.orientation;
        let cell_rect = |square: Square| {
            let (x, y) = orientation.to_screen(square);
            let min = grid.min + Vec2::new(x as f32, y as f32) * cell;
            Rect::from_min_size(min, Vec2::splat(cell))
        };

        let mut clicked = None;
        let mut hovered = None;
        let clickable = self.interactive || self.editing;
        for square in Square::all() {
            let id = ui.make_persistent_id(("board-cell", square.index()));
            let response = ui.interact(cell_rect(square), id, Sense::click());
            let label = match self.evaluations.iter().find(|e| e.square == square) {
                Some(evaluation) => {
                    let best = if self.best == Some(square) { ", best move" } else { "" };
                    format!("{square}, evaluation {}{best}", evaluation.value.description())
                }
                None => square.to_string(),
            };
            response.widget_info(|| WidgetInfo::labeled(Role::Button, clickable, label.clone()));
            if clickable && response.hovered() {
                hovered = Some(square);
            }
            if clickable && response.clicked() {
                clicked = Some(square);
            }
        }

        if ui.is_rect_visible(board_rect) {
            self.paint(ui, board_rect, grid, hovered);
        }
        clicked
    }

    fn paint(&self, ui: &Ui, board_rect: Rect, grid: Rect, hovered: Option<Square>) {
        let painter = ui.painter();
        let cell = grid.width() / 8.0;
        let orientation = self.orientation;
        let center = |square: Square| {
            let (x, y) = orientation.to_screen(square);
            grid.min + Vec2::new(x as f32 + 0.5, y as f32 + 0.5) * cell
        };

        painter.rect_filled(board_rect, cell * 0.15, FRAME);
        painter.rect_filled(grid, 0.0, FELT);
        if let Some(square) = hovered.filter(|s| self.editing || self.hints.contains(*s)) {
            let (x, y) = orientation.to_screen(square);
            let min = grid.min + Vec2::new(x as f32, y as f32) * cell;
            painter.rect_filled(Rect::from_min_size(min, Vec2::splat(cell)), 0.0, FELT_HOVER);
        }

        let grid_stroke = Stroke::new((cell * 0.02).max(1.0), GRID);
        for i in 0..=8 {
            let offset = i as f32 * cell;
            painter.line_segment(
                [grid.left_top() + Vec2::new(offset, 0.0), grid.left_bottom() + Vec2::new(offset, 0.0)],
                grid_stroke,
            );
            painter.line_segment(
                [grid.left_top() + Vec2::new(0.0, offset), grid.right_top() + Vec2::new(0.0, offset)],
                grid_stroke,
            );
        }
        for (col, row) in [(2.0, 2.0), (6.0, 2.0), (2.0, 6.0), (6.0, 6.0)] {
            painter.circle_filled(grid.min + Vec2::new(col, row) * cell, cell * STAR_RADIUS, GRID);
        }
        painter.rect_stroke(grid, 0.0, grid_stroke, StrokeKind::Middle);

        let font = FontId::proportional((board_rect.width() * MARGIN_FRACTION * 0.55).max(8.0));
        let margin = grid.min.x - board_rect.min.x;
        for i in 0..8u8 {
            let along = (i as f32 + 0.5) * cell;
            let column_label = orientation.edge_label(i, true);
            let row_label = orientation.edge_label(i, false);
            for y in [board_rect.top() + margin / 2.0, board_rect.bottom() - margin / 2.0] {
                painter.text(
                    Pos2::new(grid.left() + along, y),
                    Align2::CENTER_CENTER,
                    &column_label,
                    font.clone(),
                    COORDINATES,
                );
            }
            for x in [board_rect.left() + margin / 2.0, board_rect.right() - margin / 2.0] {
                painter.text(
                    Pos2::new(x, grid.top() + along),
                    Align2::CENTER_CENTER,
                    &row_label,
                    font.clone(),
                    COORDINATES,
                );
            }
        }

        let radius = cell * DISC_RADIUS;
        for square in Square::all() {
            let Some(color) = self.position.color_on(square) else { continue };
            let animating = self.flip_progress < 1.0 && self.flipped.contains(square);
            // A flip turns the disc edge-on, then shows the new colour.
            let (shown, squeeze) = if animating {
                let t = self.flip_progress;
                if t < 0.5 { (!color, 1.0 - 2.0 * t) } else { (color, 2.0 * t - 1.0) }
            } else {
                (color, 1.0)
            };
            let size = Vec2::new(radius * squeeze.max(0.05), radius);
            painter.add(Shape::ellipse_filled(center(square), size, disc_color(shown)));
            painter.add(Shape::ellipse_stroke(center(square), size, Stroke::new(1.0, DISC_EDGE)));
            if !animating && self.flipped.contains(square) {
                // The discs the last move turned keep a faint ring.
                let ring = Stroke::new((cell * FLIPPED_RING_WIDTH).max(1.0), FLIPPED_RING);
                painter.circle_stroke(center(square), radius * FLIPPED_RING_RADIUS, ring);
            }
        }

        let hint_color = match self.position.side_to_move() {
            Color::Black => Color32::from_black_alpha(110),
            Color::White => Color32::from_white_alpha(140),
        };
        for square in self.hints {
            if !self.evaluations.iter().any(|e| e.square == square) {
                painter.circle_filled(center(square), cell * HINT_RADIUS, hint_color);
            }
        }
        if let Some(square) = self.best {
            let ring = Stroke::new((cell * BEST_RING_WIDTH).max(1.5), BEST_RING);
            painter.circle_stroke(center(square), cell * BEST_RING_RADIUS, ring);
        }
        let eval_font = FontId::proportional((cell * EVAL_TEXT_SIZE).max(EVAL_TEXT_MIN));
        // A long value (`+32.8`) is drawn smaller so it stays inside its square and its ring.
        let long_font = FontId::proportional((cell * EVAL_TEXT_SIZE * LONG_VALUE_SHARE).max(EVAL_TEXT_MIN));
        for evaluation in &self.evaluations {
            let color = if evaluation.value.exact { EVAL_EXACT_TEXT } else { EVAL_TEXT };
            let text = evaluation.value.label();
            let font = if text.chars().count() > SHORT_VALUE_CHARS { long_font.clone() } else { eval_font.clone() };
            painter.text(center(evaluation.square), Align2::CENTER_CENTER, text, font, color);
        }
        if let Some(square) = self.last_move {
            painter.circle_filled(center(square), cell * LAST_MOVE_RADIUS, LAST_MOVE);
        }
    }
}

fn disc_color(color: Color) -> Color32 {
    match color {
        Color::Black => BLACK_DISC,
        Color::White => WHITE_DISC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_orientation() -> Vec<Orientation> {
        (0..4).flat_map(|q| [false, true].map(|mirrored| Orientation { quarter_turns: q, mirrored })).collect()
    }

    #[test]
    fn the_standard_view_has_a1_top_left_with_letters_across_and_numbers_down() {
        let view = Orientation::default();
        assert_eq!(view.to_screen("a1".parse().unwrap()), (0, 0));
        assert_eq!(view.to_screen("h8".parse().unwrap()), (7, 7));
        let across: Vec<String> = (0..8).map(|i| view.edge_label(i, true)).collect();
        let down: Vec<String> = (0..8).map(|i| view.edge_label(i, false)).collect();
        assert_eq!(across.concat(), "abcdefgh");
        assert_eq!(down.concat(), "12345678");
    }

    #[test]
    fn the_coordinates_follow_a_turn_and_a_mirror() {
        let turned = Orientation::default().rotated();
        assert_eq!(turned.to_screen("a1".parse().unwrap()), (7, 0), "a1 goes top right");
        assert_eq!((0..8).map(|i| turned.edge_label(i, true)).collect::<String>(), "87654321");
        assert_eq!((0..8).map(|i| turned.edge_label(i, false)).collect::<String>(), "abcdefgh");
        let mirrored = Orientation::default().mirrored();
        assert_eq!((0..8).map(|i| mirrored.edge_label(i, true)).collect::<String>(), "hgfedcba");
    }

    #[test]
    fn turning_and_mirroring_move_the_screen_as_the_buttons_say() {
        for view in every_orientation() {
            for square in Square::all() {
                let (x, y) = view.to_screen(square);
                assert_eq!(view.square_at(x, y), square);
                assert_eq!(view.rotated().to_screen(square), (7 - y, x), "{view:?} {square}");
                assert_eq!(view.mirrored().to_screen(square), (7 - x, y), "{view:?} {square}");
            }
        }
    }
}
