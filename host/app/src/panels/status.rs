//! Whose turn, disc counts, pass notices, the thinking indicator and the result banner.

use egui::{Color32, Frame, RichText, Ui};
use othello_sdk::{Color, Move, SearchInfo};

use crate::game::Ending;
use crate::players::WorkerState;
use crate::session::Seat;
use crate::{OthelloApp, color_name};

const BANNER_FILL: Color32 = Color32::from_rgb(0x26, 0x4d, 0x7a);
const FORFEIT_FILL: Color32 = Color32::from_rgb(0x7a, 0x2a, 0x26);
const PASS_COLOR: Color32 = Color32::from_rgb(0xff, 0xc8, 0x50);
const BUSY_TURNS_PER_SECOND: f32 = 1.0;
/// How much of a circle the busy mark draws, and with how many segments.
const BUSY_ARC_SHARE: f32 = 0.7;
const BUSY_ARC_POINTS: usize = 12;

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    let game = &app.session.game;
    let viewed = game.viewed();
    let (black, white) = viewed.disc_counts();

    if let Some(result) = game.result() {
        let fill = if matches!(result.ending, Ending::Forfeit { .. }) { FORFEIT_FILL } else { BANNER_FILL };
        Frame::new().fill(fill).inner_margin(8.0).corner_radius(4.0).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new(result.headline()).strong().size(16.0).color(Color32::WHITE));
            let how = match &result.ending {
                Ending::Normal => "Neither side can move.".to_owned(),
                Ending::Aborted => "No result.".to_owned(),
                Ending::Resigned(_) | Ending::Forfeit { .. } => {
                    format!("Scored {}–{}, as a forfeit is.", result.score.0, result.score.1)
                }
            };
            ui.label(RichText::new(how).color(Color32::WHITE));
            if let Ending::Forfeit { failure, .. } = &result.ending
                && !failure.stderr_tail.is_empty()
            {
                let title = format!("The bot's last output ({} lines)", failure.stderr_tail.len());
                egui::CollapsingHeader::new(RichText::new(title).color(Color32::WHITE)).show(ui, |ui| {
                    for line in &failure.stderr_tail {
                        ui.label(RichText::new(line).monospace().small().color(Color32::LIGHT_GRAY));
                    }
                });
            }
        });
        ui.add_space(4.0);
    }

    ui.horizontal(|ui| {
        disc_icon(ui, Color::Black);
        ui.label(RichText::new(format!("Black {black}")).size(16.0));
        ui.add_space(8.0);
        disc_icon(ui, Color::White);
        ui.label(RichText::new(format!("White {white}")).size(16.0));
    });

    if !game.is_viewing_live() {
        ui.label(format!("Viewing move {} of {}", game.cursor(), game.moves().len()));
    } else if let Some(color) = game.to_move() {
        ui.label(RichText::new(format!("{} to move ({})", color_name(color), seat_name(app, color))).strong());
    }

    if let Some(last) = game.viewed_last_move()
        && last.mv == Move::Pass
    {
        ui.label(
            RichText::new(format!("{} has no legal move and passes", color_name(last.color)))
                .color(PASS_COLOR)
                .strong(),
        );
    }

    for color in Color::ALL {
        let Seat::Bot(worker) = app.session.seat(color) else { continue };
        match worker.state() {
            WorkerState::Opening => {
                ui.label(format!("{}: starting {}…", color_name(color), seat_name(app, color)));
            }
            WorkerState::Thinking { since, .. } => {
                ui.horizontal(|ui| {
                    busy_indicator(ui, *since);
                    ui.label(format!("{} is thinking… {:.1} s", seat_name(app, color), since.elapsed().as_secs_f64()));
                });
                if let Some(info) = &worker.last_info {
                    ui.small(format!("last search: {}", describe_info(info)));
                }
            }
            WorkerState::Failed(failure) if !game.is_over() => {
                ui.colored_label(
                    Color32::LIGHT_RED,
                    format!("{}: {} — {}", color_name(color), failure.termination, failure.detail),
                );
            }
            _ => {}
        }
    }
    if let Some(info) = game.viewed_last_move().and_then(|m| m.info.as_ref().map(|i| (m, i))) {
        let (played, info) = info;
        let time = format!(" in {:.2} s", played.elapsed.as_secs_f64());
        ui.small(format!("{} {}{time}: {}", color_name(played.color), played.mv, describe_info(info)));
    }
}

/// A busy mark turning with the time since `since`. Unlike egui's spinner it asks for no repaint
/// of its own: the app redraws a few times a second while a bot thinks, which keeps it turning.
pub fn busy_indicator(ui: &mut Ui, since: std::time::Instant) {
    let size = ui.text_style_height(&egui::TextStyle::Body);
    let (rect, _) = ui.allocate_exact_size(egui::Vec2::splat(size), egui::Sense::hover());
    let turn = since.elapsed().as_secs_f32() * BUSY_TURNS_PER_SECOND * std::f32::consts::TAU;
    let radius = size * 0.38;
    let points: Vec<egui::Pos2> = (0..=BUSY_ARC_POINTS)
        .map(|i| {
            let angle = turn + i as f32 / BUSY_ARC_POINTS as f32 * BUSY_ARC_SHARE * std::f32::consts::TAU;
            rect.center() + radius * egui::Vec2::angled(angle)
        })
        .collect();
    ui.painter().line(points, egui::Stroke::new(2.0, ui.visuals().strong_text_color()));
}

/// A small disc of `color` in the text line.
pub fn disc_icon(ui: &mut Ui, color: Color) {
    let size = ui.text_style_height(&egui::TextStyle::Body);
    let (rect, _) = ui.allocate_exact_size(egui::Vec2::splat(size), egui::Sense::hover());
    let fill = match color {
        Color::Black => Color32::from_gray(20),
        Color::White => Color32::from_gray(240),
    };
    ui.painter().circle(rect.center(), size * 0.4, fill, egui::Stroke::new(1.0, Color32::GRAY));
}

fn seat_name(app: &OthelloApp, color: Color) -> String {
    match app.session.seat(color) {
        Seat::Human => "Human".to_owned(),
        Seat::Bot(worker) => worker
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| othello_arena::seat::library_stem(&worker.spec().library)),
    }
}

/// "depth 12 · eval +3.5 · 1.2 M nodes".
pub fn describe_info(info: &SearchInfo) -> String {
    let mut parts = Vec::new();
    if let Some(depth) = info.depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(eval) = info.eval {
        let exact = if info.exact { " (exact)" } else { "" };
        parts.push(format!("eval {eval:+.1}{exact}"));
    }
    if let Some(rate) = info.win_rate {
        parts.push(format!("win {:.0}%", rate * 100.0));
    }
    if let Some(nodes) = info.nodes {
        parts.push(format!("{} nodes", human_count(nodes)));
    }
    if parts.is_empty() { "no details".to_owned() } else { parts.join(" · ") }
}

fn human_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1} k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} M", n as f64 / 1e6),
        _ => format!("{:.1} G", n as f64 / 1e9),
    }
}
