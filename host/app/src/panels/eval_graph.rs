//! The bots' evaluations per move from one side's point of view (the app's point of view; see
//! [`EvalView::line_side`](crate::analysis::EvalView::line_side)): in discs (green) and, for bots
//! that report one, the win rate (blue, 50 % on the middle line). Hover for values, click to view
//! that move.

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, Sense, Stroke, Ui, Vec2};

use othello_sdk::Color;

use crate::game::{Game, PlayedMove};
use crate::review::{GameReview, Severity, Unit};

/// Height of the graph in points.
const GRAPH_HEIGHT: f32 = 110.0;
/// The disc scale covers at least ± this many discs.
const MIN_EVAL_RANGE: f64 = 8.0;
/// The graph spans at least this many plies (a typical game) so it does not jump as it grows.
const MIN_PLIES: usize = 60;
/// Share of the half-height the values use (room for the labels).
const VALUE_HEIGHT_SHARE: f32 = 0.45;
const BACKGROUND: Color32 = Color32::from_rgb(0x1c, 0x24, 0x1f);
const AXIS: Color32 = Color32::from_gray(90);
const DISCS_LINE: Color32 = Color32::from_rgb(0x6c, 0xc0, 0x80);
const WIN_RATE_LINE: Color32 = Color32::from_rgb(0x70, 0xa8, 0xf0);
const CURSOR: Color32 = Color32::from_rgb(0xe0, 0xc0, 0x40);
/// The game analysis's values of the played moves.
const REVIEW_LINE: Color32 = Color32::from_rgb(0xc0, 0xc0, 0xc0);

/// The graph of `game`; returns the ply clicked (to view).
pub fn show_game(game: &Game, review: Option<&GameReview>, side: Color, ui: &mut Ui) -> Option<usize> {
    let review = review.filter(|r| r.is_for(game));
    let (me, other) = (crate::color_name(side), crate::color_name(!side));
    ui.heading("Evaluation");
    ui.add(egui::Label::new(egui::RichText::new(format!("For {me}, in discs: + = {me} ahead")).small().weak()).wrap());
    let series = |value: &dyn Fn(&PlayedMove) -> Option<f64>| -> Vec<(usize, f64)> {
        game.moves().iter().enumerate().filter_map(|(i, m)| value(m).map(|v| (i + 1, v))).collect()
    };
    let evals = series(&|m| m.eval_for(side));
    let win_rates = series(&|m| m.win_rate_for(side));

    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), GRAPH_HEIGHT * growth(ui)), Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, BACKGROUND);
    let plies = game.moves().len().max(MIN_PLIES) as f32;
    let x_of = |ply: usize| rect.left() + rect.width() * ply as f32 / plies;
    // `share` is -1..1: the bottom to the top of the value area.
    let y_of = |share: f64| rect.center().y - share as f32 * rect.height() * VALUE_HEIGHT_SHARE;
    let middle = [Pos2::new(rect.left(), rect.center().y), Pos2::new(rect.right(), rect.center().y)];
    painter.line_segment(middle, Stroke::new(1.0, AXIS));
    let cursor_x = x_of(game.cursor());
    painter
        .line_segment([Pos2::new(cursor_x, rect.top()), Pos2::new(cursor_x, rect.bottom())], Stroke::new(1.0, CURSOR));

    // The disc scale covers the bots' values and the game analysis's alike.
    let reviewed_discs =
        review.iter().flat_map(|r| r.reviews()).filter(|v| v.unit == Unit::Discs).filter_map(|v| v.played_for(side));
    let range = evals.iter().map(|(_, e)| e.abs()).chain(reviewed_discs.map(f64::abs)).fold(MIN_EVAL_RANGE, f64::max);
    let plot = |points: &[(usize, f64)], share: &dyn Fn(f64) -> f64, color: Color32| {
        let points: Vec<Pos2> = points.iter().map(|&(ply, v)| Pos2::new(x_of(ply), y_of(share(v)))).collect();
        painter.line(points.clone(), Stroke::new(2.0, color));
        for point in points {
            painter.circle_filled(point, 2.5, color);
        }
    };
    plot(&win_rates, &|rate| 2.0 * rate - 1.0, WIN_RATE_LINE);
    plot(&evals, &|eval| eval / range, DISCS_LINE);
    // The game analysis: the played moves' values (the same view) and the mistakes ringed.
    let mut reviewed: Vec<(usize, f64)> = Vec::new();
    let mut mistakes = Vec::new();
    for verdict in review.iter().flat_map(|r| r.reviews()) {
        let Some(value) = verdict.played_for(side) else { continue };
        let share = match verdict.unit {
            Unit::Discs => (value / range).clamp(-1.0, 1.0),
            Unit::WinPercent => value / 50.0 - 1.0,
        };
        reviewed.push((verdict.ply, share));
        if verdict.severity() > Severity::Fine {
            mistakes.push((verdict.ply, share, verdict.severity()));
        }
    }
    plot(&reviewed, &|share| share, REVIEW_LINE);
    for &(ply, share, severity) in &mistakes {
        let color =
            if severity == Severity::Blunder { super::moves::BLUNDER_COLOR } else { super::moves::MISTAKE_COLOR };
        painter.circle_stroke(Pos2::new(x_of(ply), y_of(share)), 5.0, Stroke::new(2.0, color));
    }
    let small = FontId::proportional(10.0);
    if evals.is_empty() && win_rates.is_empty() && reviewed.is_empty() {
        painter.text(rect.center(), Align2::CENTER_CENTER, "no evaluations reported", FontId::proportional(12.0), AXIS);
    }
    if !evals.is_empty() {
        scale_labels(
            &painter,
            rect,
            &format!("+{range:.0} discs {me}"),
            &format!("−{range:.0} {other}"),
            Align2::LEFT_TOP,
            DISCS_LINE,
            &small,
        );
    }
    if !win_rates.is_empty() {
        let (top, bottom) = (format!("100% {me}"), format!("100% {other}"));
        scale_labels(&painter, rect, &top, &bottom, Align2::RIGHT_TOP, WIN_RATE_LINE, &small);
    }

    let ply_at =
        |x: f32| (((x - rect.left()) / rect.width() * plies).round().max(0.0) as usize).min(game.moves().len());
    let latest = match evals.last() {
        Some(&(ply, eval)) => format!(", move {ply}: {} discs for {me}", super::status::format_eval(eval)),
        None => String::new(),
    };
    let marked = match mistakes.len() {
        0 if review.is_some() => ", no mistake found".to_owned(),
        0 => String::new(),
        _ => format!(", mistakes at moves {}", mistakes.iter().map(|m| m.0.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let response = response.accessible_name(format!("Evaluation graph{latest}{marked}")).on_hover_ui_at_pointer(|ui| {
        let Some(pointer) = ui.ctx().pointer_hover_pos() else { return };
        let ply = ply_at(pointer.x);
        match ply.checked_sub(1).map(|i| &game.moves()[i]) {
            Some(played) => {
                let mut values = Vec::new();
                if let Some(eval) = played.eval_for(side) {
                    values.push(format!("{} discs", super::status::format_eval(eval)));
                }
                if let Some(rate) = played.win_rate_for(side) {
                    values.push(format!("win {:.0}%", rate * 100.0));
                }
                let values =
                    if values.is_empty() { "no evaluation".to_owned() } else { values.join(", ") + " for " + me };
                ui.label(format!("{ply}. {} {}: {values}", crate::color_name(played.color), played.mv));
                if let Some(verdict) = review.and_then(|r| r.of_ply(ply)) {
                    ui.label(format!("Analysis: {}", verdict.describe_for(side)));
                }
            }
            None => {
                ui.label("Start position");
            }
        }
    });
    response.interact_pointer_pos().filter(|_| response.clicked()).map(|pos| ply_at(pos.x))
}

/// The top and bottom labels of a scale, on the left or the right (`anchor` says which).
fn scale_labels(painter: &Painter, rect: Rect, top: &str, bottom: &str, anchor: Align2, color: Color32, font: &FontId) {
    let left = anchor == Align2::LEFT_TOP;
    let (x, top_anchor, bottom_anchor) = if left {
        (rect.left() + 4.0, Align2::LEFT_TOP, Align2::LEFT_BOTTOM)
    } else {
        (rect.right() - 4.0, Align2::RIGHT_TOP, Align2::RIGHT_BOTTOM)
    };
    let faded = color.gamma_multiply(0.7);
    // On the graph's background, so the cursor line and the curves pass behind the labels.
    for (text, y, anchor) in [(top, rect.top() + 2.0, top_anchor), (bottom, rect.bottom() - 2.0, bottom_anchor)] {
        let galley = painter.layout_no_wrap(text.to_owned(), font.clone(), faded);
        let at = anchor.anchor_size(Pos2::new(x, y), galley.size());
        painter.rect_filled(at.expand(1.0), 2.0, BACKGROUND);
        painter.galley(at.min, galley, faded);
    }
}

/// Height of the loss graph in points.
const LOSS_GRAPH_HEIGHT: f32 = 70.0;
/// The loss scale covers at least this much.
const MIN_LOSS_RANGE: f64 = 4.0;
/// Black's and White's lines on the loss graph.
const BLACK_LOSS: Color32 = Color32::from_rgb(0xb0, 0xb0, 0xb0);
const WHITE_LOSS: Color32 = Color32::from_rgb(0xf0, 0xf0, 0xf0);

/// Each player's loss against the best moves, added up move by move (the game analysis's), in
/// the analysis's unit: `(ply, total so far)` per colour, Black's first.
pub fn cumulative_losses(review: &GameReview) -> [Vec<(usize, f64)>; 2] {
    let mut totals = [0.0, 0.0];
    let mut lines: [Vec<(usize, f64)>; 2] = [vec![(0, 0.0)], vec![(0, 0.0)]];
    for verdict in review.reviews() {
        let Some(loss) = verdict.loss() else { continue };
        let side = usize::from(verdict.color == Color::White);
        totals[side] += loss;
        lines[side].push((verdict.ply, totals[side]));
    }
    lines
}

/// The cumulative loss of each player, once the game analysis of `game` has values; returns the
/// ply clicked (to view).
pub fn show_losses(game: &Game, review: Option<&GameReview>, ui: &mut Ui) -> Option<usize> {
    let review = review.filter(|r| r.is_for(game) && r.reviews().next().is_some())?;
    let unit = match review.reviews().next().map(|r| r.unit) {
        Some(Unit::WinPercent) => "points",
        _ => "discs",
    };
    ui.heading("Loss");
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!("What each player lost against the best moves, added up ({unit})"))
                .small()
                .weak(),
        )
        .wrap(),
    );
    let lines = cumulative_losses(review);
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), LOSS_GRAPH_HEIGHT * growth(ui)), Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, BACKGROUND);
    let plies = game.moves().len().max(MIN_PLIES) as f32;
    let x_of = |ply: usize| rect.left() + rect.width() * ply as f32 / plies;
    let total = |side: usize| lines[side].last().map_or(0.0, |p| p.1);
    let range = total(0).max(total(1)).max(MIN_LOSS_RANGE);
    let y_of = |value: f64| rect.bottom() - 4.0 - (value / range) as f32 * (rect.height() - 8.0);
    let cursor_x = x_of(game.cursor());
    painter
        .line_segment([Pos2::new(cursor_x, rect.top()), Pos2::new(cursor_x, rect.bottom())], Stroke::new(1.0, CURSOR));
    for (side, color) in [(0, BLACK_LOSS), (1, WHITE_LOSS)] {
        // A step line: the total holds until the player's next move.
        let mut points = Vec::new();
        for window in lines[side].windows(2) {
            let (ply, value) = window[1];
            points.push(Pos2::new(x_of(ply), y_of(window[0].1)));
            points.push(Pos2::new(x_of(ply), y_of(value)));
        }
        if let Some(&(_, last)) = lines[side].last() {
            points.insert(0, Pos2::new(x_of(0), y_of(0.0)));
            points.push(Pos2::new(x_of(game.moves().len()), y_of(last)));
        }
        let stroke = if side == 0 { Stroke::new(2.0, color) } else { Stroke::new(1.5, color) };
        painter.line(points, stroke);
    }
    let small = FontId::proportional(10.0);
    let label = |side: usize| {
        format!("{} {:.1}", crate::color_name(if side == 0 { Color::Black } else { Color::White }), total(side))
    };
    scale_labels(&painter, rect, &label(0), "", Align2::LEFT_TOP, BLACK_LOSS, &small);
    scale_labels(&painter, rect, &label(1), "", Align2::RIGHT_TOP, WHITE_LOSS, &small);
    let name = format!("Loss graph: Black lost {:.1} {unit}, White lost {:.1} {unit} in all", total(0), total(1));
    let response = response.accessible_name(name);
    let ply_at =
        |x: f32| (((x - rect.left()) / rect.width() * plies).round().max(0.0) as usize).min(game.moves().len());
    response.interact_pointer_pos().filter(|_| response.clicked()).map(|pos| ply_at(pos.x))
}

/// How much larger than usual the text is drawn (a large window's): the graphs grow with it.
fn growth(ui: &Ui) -> f32 {
    let usual = egui::Style::default().text_styles.get(&egui::TextStyle::Body).map_or(1.0, |f| f.size);
    (ui.text_style_height(&egui::TextStyle::Body) / usual.max(1.0)).max(1.0)
}
