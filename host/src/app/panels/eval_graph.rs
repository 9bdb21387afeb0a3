//! The bots' evaluations per move, from Black's point of view; click to view that move.

use egui::{Color32, Pos2, Sense, Stroke, Ui, Vec2};

use crate::app::OthelloApp;

/// Height of the graph in points.
const GRAPH_HEIGHT: f32 = 110.0;
/// The vertical scale covers at least ± this many discs.
const MIN_EVAL_RANGE: f64 = 8.0;
const BACKGROUND: Color32 = Color32::from_rgb(0x1c, 0x24, 0x1f);
const AXIS: Color32 = Color32::from_gray(90);
const LINE: Color32 = Color32::from_rgb(0x6c, 0xc0, 0x80);
const CURSOR: Color32 = Color32::from_rgb(0xe0, 0xc0, 0x40);

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Evaluation");
    let game = &mut app.session.game;
    let evals: Vec<(usize, f64)> =
        game.moves().iter().enumerate().filter_map(|(i, m)| m.eval_for_black().map(|e| (i + 1, e))).collect();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(ui.available_width(), GRAPH_HEIGHT), Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, BACKGROUND);
    let plies = game.moves().len().max(60) as f32;
    let range = evals.iter().map(|(_, e)| e.abs()).fold(MIN_EVAL_RANGE, f64::max);
    let x_of = |ply: usize| rect.left() + rect.width() * ply as f32 / plies;
    let y_of = |eval: f64| rect.center().y - (eval / range) as f32 * rect.height() * 0.45;
    painter.line_segment(
        [Pos2::new(rect.left(), rect.center().y), Pos2::new(rect.right(), rect.center().y)],
        Stroke::new(1.0, AXIS),
    );
    let cursor_x = x_of(game.cursor());
    painter
        .line_segment([Pos2::new(cursor_x, rect.top()), Pos2::new(cursor_x, rect.bottom())], Stroke::new(1.0, CURSOR));
    if evals.is_empty() {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "no evaluations reported",
            egui::FontId::proportional(12.0),
            AXIS,
        );
    } else {
        let points: Vec<Pos2> = evals.iter().map(|&(ply, eval)| Pos2::new(x_of(ply), y_of(eval))).collect();
        painter.line(points.clone(), Stroke::new(2.0, LINE));
        for point in points {
            painter.circle_filled(point, 2.5, LINE);
        }
        painter.text(
            rect.left_top() + Vec2::new(4.0, 2.0),
            egui::Align2::LEFT_TOP,
            format!("+{range:.0} Black"),
            egui::FontId::proportional(10.0),
            AXIS,
        );
        painter.text(
            rect.left_bottom() + Vec2::new(4.0, -2.0),
            egui::Align2::LEFT_BOTTOM,
            format!("−{range:.0} White"),
            egui::FontId::proportional(10.0),
            AXIS,
        );
    }
    let ply_at =
        |x: f32| (((x - rect.left()) / rect.width() * plies).round().max(0.0) as usize).min(game.moves().len());
    let response = response.accessible_name("Evaluation graph").on_hover_ui_at_pointer(|ui| {
        let Some(pointer) = ui.ctx().pointer_hover_pos() else { return };
        let ply = ply_at(pointer.x);
        match ply.checked_sub(1).map(|i| &game.moves()[i]) {
            Some(played) => {
                let eval = played.eval_for_black().map_or("no evaluation".to_owned(), |e| format!("{e:+.1} for Black"));
                ui.label(format!("{ply}. {} {}: {eval}", crate::app::color_name(played.color), played.mv));
            }
            None => {
                ui.label("Start position");
            }
        }
    });
    if let Some(pos) = response.interact_pointer_pos().filter(|_| response.clicked()) {
        game.view(ply_at(pos.x));
    }
}
