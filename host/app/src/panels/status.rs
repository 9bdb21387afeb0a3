//! Whose turn, disc counts, pass notices, the thinking indicator, the search read-out and the
//! result banner.
//!
//! Evaluations follow the app's one point of view (the player's choice, see
//! [`EvalView`](crate::analysis::EvalView)), in discs to one decimal; win rates are that side's
//! chance. Bots report the mover's view; the app turns it.

use egui::{Color32, Frame, RichText, Stroke, Ui};
use othello_sdk::{Color, Move, Position, SearchInfo};

use crate::game::{Ending, Game, PlayedMove};
use crate::players::WorkerState;
use crate::session::Seat;
use crate::{OthelloApp, color_name};

const BANNER_FILL: Color32 = Color32::from_rgb(0x26, 0x4d, 0x7a);
const FORFEIT_FILL: Color32 = Color32::from_rgb(0x7a, 0x2a, 0x26);
const PASS_FILL: Color32 = Color32::from_rgb(0x6a, 0x50, 0x10);
const PAUSED_COLOR: Color32 = Color32::from_rgb(0xff, 0xb0, 0x40);
const TO_MOVE_STROKE: Color32 = Color32::from_rgb(0xf0, 0xc8, 0x40);
const BUSY_TURNS_PER_SECOND: f32 = 1.0;
/// How much of a circle the busy mark draws, and with how many segments.
const BUSY_ARC_SHARE: f32 = 0.7;
const BUSY_ARC_POINTS: usize = 12;
/// Size of the disc counts, in points.
const COUNT_SIZE: f32 = 26.0;
/// Width of the frame around the side to move's count.
const TO_MOVE_STROKE_WIDTH: f32 = 2.0;
/// Characters of a read-out value (monospace, so the panel keeps its width as numbers change).
const READOUT_WIDTH: usize = 8;
/// Size of the clocks' digits, in points.
const CLOCK_SIZE: f32 = 18.0;
/// A clock with less than this left is shown red.
const LOW_TIME: std::time::Duration = std::time::Duration::from_secs(60);
const LOW_TIME_COLOR: Color32 = Color32::from_rgb(0xf0, 0x60, 0x50);
/// Text shown for a value the search did not report.
const NO_VALUE: &str = "—";

/// The status of the player's game; returns what the user asked for (the pass seen).
pub fn show(app: &OthelloApp, ui: &mut Ui) -> Option<crate::Action> {
    let mut action = None;
    let game = &app.session.game;
    if let Some(result) = game.result() {
        result_banner(ui, &result);
    }
    // A pass is news while the game goes on; once it is over the result banner says it all.
    let game_on = !game.is_over();
    if let Some(notice) = app.session.pass_notice().filter(|_| app.session.game.is_viewing_live() && game_on) {
        let mut acknowledged = false;
        Frame::new().fill(PASS_FILL).inner_margin(6.0).corner_radius(4.0).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(|ui| {
                let who = seat_name(app, notice.color);
                ui.label(
                    RichText::new(format!("{} has no legal move and passes", color_name(notice.color)))
                        .strong()
                        .color(Color32::WHITE),
                )
                .on_hover_text(format!("{who} had no legal move at move {}", notice.ply));
                acknowledged = ui.button("OK").on_hover_text("Dismiss the notice").clicked();
            });
        });
        if acknowledged {
            action = Some(crate::Action::AcknowledgePass);
        }
    }

    let game = &app.session.game;
    let live_turn = game.is_viewing_live().then(|| game.to_move()).flatten();
    let names = [seat_name(app, Color::Black), seat_name(app, Color::White)];
    // While editing, the counts are the draft's, as it changes.
    let shown = app.panels.editor.as_ref().map_or_else(|| game.viewed(), |editor| editor.draft());
    score_row(ui, &shown, live_turn.filter(|_| app.panels.editor.is_none()), &names);
    clocks(app, ui);
    opening_line(ui, game);

    if !game.is_viewing_live() {
    } else if let Some(color) = game.to_move() {
        ui.label(
            RichText::new(format!("{} to move ({})", color_name(color), names[usize::from(color == Color::White)]))
                .strong(),
        );
    }
    if app.session.human_to_move().is_some() && game.moves().is_empty() && app.settings.show_legal_moves {
        ui.label(RichText::new("Click a dotted square to move.").strong().color(TO_MOVE_STROKE));
    }
    if app.session.paused && !game.is_over() {
        ui.label(RichText::new("Paused").strong().size(16.0).color(PAUSED_COLOR))
            .on_hover_text("Bots make no move until you press Resume or Step");
    }
    if !game.is_viewing_live() {
        ui.label(format!("Viewing move {} of {}", game.cursor(), game.moves().len()));
        if let Some(last) = game.viewed_last_move()
            && last.mv == Move::Pass
        {
            ui.label(RichText::new(format!("{} passed here", color_name(last.color))).strong());
        }
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
                    ui.label(format!("{} is thinking…", seat_name(app, color)));
                    ui.label(RichText::new(format!("{:>6.1} s", since.elapsed().as_secs_f64())).monospace());
                });
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
    if !app.hints_hidden() {
        search_readout(ui, game, app.settings.eval_view);
    }
    action
}

/// The result of an ended game in a coloured banner, with the forfeiting bot's last output.
pub fn result_banner(ui: &mut Ui, result: &crate::GameResult) {
    let fill = if matches!(result.ending, Ending::Forfeit { .. }) { FORFEIT_FILL } else { BANNER_FILL };
    Frame::new().fill(fill).inner_margin(8.0).corner_radius(4.0).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.label(RichText::new(result.headline()).strong().size(16.0).color(Color32::WHITE));
        let how = match &result.ending {
            Ending::Normal => "Neither side can move.".to_owned(),
            Ending::Aborted => "No result.".to_owned(),
            Ending::Resigned(_) => format!("Scored {}–{}, as a resignation is.", result.score.0, result.score.1),
            Ending::Forfeit { .. } => format!("Scored {}–{}, as a forfeit is.", result.score.0, result.score.1),
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

/// Both disc counts, large, each with its player's name; the side to move (`turn`) is framed and
/// says so.
pub fn score_row(ui: &mut Ui, position: &Position, turn: Option<Color>, names: &[String; 2]) {
    let (black, white) = position.disc_counts();
    ui.columns(2, |columns| {
        for (ui, (color, count)) in columns.iter_mut().zip([(Color::Black, black), (Color::White, white)]) {
            let to_move = turn == Some(color);
            let stroke = if to_move {
                Stroke::new(TO_MOVE_STROKE_WIDTH, TO_MOVE_STROKE)
            } else {
                Stroke::new(TO_MOVE_STROKE_WIDTH, Color32::TRANSPARENT)
            };
            let name = &names[usize::from(color == Color::White)];
            let response = Frame::new()
                .stroke(stroke)
                .inner_margin(4.0)
                .corner_radius(4.0)
                .show(ui, |ui| {
                    ui.set_width(ui.available_width());
                    ui.horizontal(|ui| {
                        disc_icon(ui, color, COUNT_SIZE);
                        ui.label(RichText::new(format!("{count:>2}")).monospace().size(COUNT_SIZE).strong());
                    });
                    ui.add(egui::Label::new(RichText::new(name).small()).truncate());
                    let turn_text = if to_move { "to move" } else { "" };
                    ui.label(RichText::new(turn_text).strong().color(TO_MOVE_STROKE));
                })
                .response;
            let turn_text = if to_move { ", to move" } else { "" };
            response.widget_info(|| {
                egui::WidgetInfo::labeled(
                    egui::Role::Label,
                    true,
                    format!("{} {count} discs ({name}){turn_text}", color_name(color)),
                )
            });
        }
    });
}

/// The name of the opening played up to the viewed move, if it is a named one.
pub fn opening_line(ui: &mut Ui, game: &Game) {
    if let Some((_, opening)) = crate::openings::opening_at(game, game.cursor()) {
        ui.add(egui::Label::new(RichText::new(format!("Opening: {}", opening.name)).italics()).truncate())
            .on_hover_text(format!("{} in its f5 form", opening.moves));
    }
}

/// Both sides' game clocks, when a clock runs: the running one is bright, one under a minute red.
fn clocks(app: &OthelloApp, ui: &mut Ui) {
    let Some(clock) = app.clock() else { return };
    ui.columns(2, |columns| {
        for (ui, color) in columns.iter_mut().zip(Color::ALL) {
            let Some(left) = app.clock_left(color) else { continue };
            let running = clock.running() == Some(color);
            let mut text = RichText::new(crate::clock::format_clock(left)).monospace().size(CLOCK_SIZE);
            text = if left < LOW_TIME {
                text.color(LOW_TIME_COLOR)
            } else if running {
                text.strong()
            } else {
                text.weak()
            };
            let response = ui.label(text);
            let state = if running { ", running" } else { "" };
            response.widget_info(|| {
                egui::WidgetInfo::labeled(
                    egui::Role::Label,
                    true,
                    format!("{}'s clock {}{state}", color_name(color), crate::clock::format_clock(left)),
                )
            });
        }
    });
}

/// While a replay is on the board, the running clock of the player's own game, so that its time
/// does not run out unseen.
pub fn own_clock_line(app: &OthelloApp, ui: &mut Ui) {
    let Some(color) = app.clock().and_then(crate::clock::GameClock::running) else { return };
    let Some(left) = app.clock_left(color) else { return };
    let text = format!("Your game: {}'s clock {} is running", color_name(color), crate::clock::format_clock(left));
    let text = RichText::new(text).strong();
    ui.label(if left < LOW_TIME { text.color(LOW_TIME_COLOR) } else { text })
        .on_hover_text("Back to my game returns to it");
}

/// The search behind the viewed position's last move, in fixed rows of fixed-width values so the
/// panel keeps its size as the numbers change.
pub fn search_readout(ui: &mut Ui, game: &Game, view: crate::analysis::EvalView) {
    let played = game.viewed_last_move();
    // A played move's value, for the side to move's view, is its mover's.
    let side = view.side(played.map_or(game.viewed().side_to_move(), |m| m.color));
    let side_name = color_name(side);
    let title = match played {
        Some(m) if m.info.is_some() => {
            format!("Search for {} {} ({:.2} s)", color_name(m.color), m.mv, m.elapsed.as_secs_f64())
        }
        Some(m) => format!("{} {}: no search reported", color_name(m.color), m.mv),
        None => "No move yet".to_owned(),
    };
    ui.add(egui::Label::new(RichText::new(title).strong()).truncate());
    ui.label(RichText::new(format!("In discs for {side_name}: + = {side_name} ahead")).small().weak());
    let values = Readout::of(played, side);
    let eval_hint =
        format!("In discs from {side_name}'s point of view: + = {side_name} ahead; = marks an exact (solved) score");
    let wins_hint = format!("The bot's estimate of {side_name}'s chance to win");
    let wins_label = format!("{side_name} wins");
    for (label, value, hint) in [
        ("Eval", values.eval, eval_hint.as_str()),
        (wins_label.as_str(), values.win_rate, wins_hint.as_str()),
        ("Depth", values.depth, "Plies searched"),
        ("Nodes", values.nodes, "Positions (or playouts) searched"),
    ] {
        // The value is right-aligned in a fixed-width monospace field: digits stay put and the
        // panel keeps its size as they change.
        ui.horizontal(|ui| {
            ui.label(label).on_hover_text(hint);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                // Clear of the panel's scroll bar, which floats over the content's right edge
                // when the panel is too short (a solid bar would take the width the disc counts
                // need in the smallest window).
                let scroll = &ui.spacing().scroll;
                ui.add_space(scroll.bar_width + scroll.bar_outer_margin);
                ui.label(RichText::new(format!("{value:>READOUT_WIDTH$}")).monospace()).on_hover_text(hint);
            });
        });
    }
}

/// A move's search as the read-out shows it.
pub struct Readout {
    pub eval: String,
    pub win_rate: String,
    pub depth: String,
    pub nodes: String,
}

impl Readout {
    /// The read-out of `played`, its values from `side`'s point of view.
    pub fn of(played: Option<&PlayedMove>, side: Color) -> Readout {
        let info: Option<&SearchInfo> = played.and_then(|m| m.info.as_ref());
        let eval = played.and_then(|m| m.eval_for(side)).map_or(NO_VALUE.to_owned(), |eval| {
            let exact = if info.is_some_and(|i| i.exact) { " =" } else { "" };
            format!("{}{exact}", format_eval(eval))
        });
        Readout {
            eval,
            win_rate: played
                .and_then(|m| m.win_rate_for(side))
                .map_or(NO_VALUE.to_owned(), |rate| format!("{:.1} %", rate * 100.0)),
            depth: info.and_then(|i| i.depth).map_or(NO_VALUE.to_owned(), |d| d.to_string()),
            nodes: info.and_then(|i| i.nodes).map_or(NO_VALUE.to_owned(), human_count),
        }
    }
}

/// An evaluation in discs, signed, to one decimal: `+3.5`, `-12.0`, `0.0`.
pub fn format_eval(eval: f64) -> String {
    crate::analysis::format_discs(eval, false)
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

/// A disc of `color`, `size` points across, in the text line.
pub fn disc_icon(ui: &mut Ui, color: Color, size: f32) {
    let (rect, _) = ui.allocate_exact_size(egui::Vec2::splat(size), egui::Sense::hover());
    let fill = match color {
        Color::Black => Color32::from_gray(20),
        Color::White => Color32::from_gray(240),
    };
    ui.painter().circle(rect.center(), size * 0.4, fill, egui::Stroke::new(1.0, Color32::GRAY));
}

fn seat_name(app: &OthelloApp, color: Color) -> String {
    app.player_name(color)
}

fn human_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1} k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} M", n as f64 / 1e6),
        _ => format!("{:.1} G", n as f64 / 1e9),
    }
}
