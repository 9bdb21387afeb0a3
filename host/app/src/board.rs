//! The board widget: sized to the space it gets, one clickable (and accessible) cell per square.
//!
//! Written as egui widgets are: size → allocate → interact → paint.

use egui::{Align2, Color32, FontId, Pos2, Rect, Role, Sense, Shape, Stroke, StrokeKind, Ui, Vec2, WidgetInfo};
use othello_sdk::{Bitboard, Color, Position, Square};

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
        let cell_rect = |square: Square| {
            let min = grid.min + Vec2::new(square.col() as f32, square.row() as f32) * cell;
            Rect::from_min_size(min, Vec2::splat(cell))
        };

        let mut clicked = None;
        let mut hovered = None;
        for square in Square::all() {
            let id = ui.make_persistent_id(("board-cell", square.index()));
            let response = ui.interact(cell_rect(square), id, Sense::click());
            let enabled = self.interactive;
            response.widget_info(|| WidgetInfo::labeled(Role::Button, enabled, square.to_string()));
            if self.interactive && response.hovered() {
                hovered = Some(square);
            }
            if self.interactive && response.clicked() {
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
        let center = |square: Square| grid.min + Vec2::new(square.col() as f32 + 0.5, square.row() as f32 + 0.5) * cell;

        painter.rect_filled(board_rect, cell * 0.15, FRAME);
        painter.rect_filled(grid, 0.0, FELT);
        if let Some(square) = hovered.filter(|s| self.hints.contains(*s)) {
            let min = grid.min + Vec2::new(square.col() as f32, square.row() as f32) * cell;
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
        for i in 0..8 {
            let along = (i as f32 + 0.5) * cell;
            let letter = char::from(b'a' + i as u8).to_string();
            let number = (i + 1).to_string();
            for y in [board_rect.top() + margin / 2.0, board_rect.bottom() - margin / 2.0] {
                painter.text(
                    Pos2::new(grid.left() + along, y),
                    Align2::CENTER_CENTER,
                    &letter,
                    font.clone(),
                    COORDINATES,
                );
            }
            for x in [board_rect.left() + margin / 2.0, board_rect.right() - margin / 2.0] {
                painter.text(
                    Pos2::new(x, grid.top() + along),
                    Align2::CENTER_CENTER,
                    &number,
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
            painter.circle_filled(center(square), cell * HINT_RADIUS, hint_color);
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
