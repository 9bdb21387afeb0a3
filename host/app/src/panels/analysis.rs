//! Move evaluations: the "Show evaluations" toggle, the analysis bot, how to read the values, and
//! how far the search has got.
//!
//! Values are shown from the point of view the player chooses here (Black's, White's or the side
//! to move's), like everywhere in the app; the ring marks the best move for the side to move.

use egui::{RichText, Ui};
use othello_arena::seat::library_stem;

use crate::analysis::{EvalView, Status, shown_value};
use crate::review::Status as ReviewStatus;
use crate::{Action, OthelloApp};

/// Colour of an analysis failure.
const ERROR_COLOR: egui::Color32 = egui::Color32::from_rgb(0xd0, 0x40, 0x40);
/// Widest and narrowest the bot drop-down gets, in points.
const MAX_COMBO_WIDTH: f32 = 190.0;
const MIN_COMBO_WIDTH: f32 = 60.0;
/// Room beside the drop-down for its label ("Analysis bot"), in points.
const COMBO_LABEL_ROOM: f32 = 90.0;

/// The Analysis panel: its settings and the values of the position viewed. Reads the app only;
/// returns the settings as edited here.
pub fn show(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    let mut settings = app.settings.clone();
    settings_and_values(app, &mut settings, ui);
    (settings != app.settings).then(|| Action::ChangeSettings(Box::new(settings)))
}

fn settings_and_values(app: &OthelloApp, settings: &mut crate::Settings, ui: &mut Ui) {
    ui.heading("Analysis");
    ui.checkbox(&mut settings.show_evaluations, "Show evaluations")
        .on_hover_text("Values of every legal move on the board, from the analysis bot");
    let analysers: Vec<(std::path::PathBuf, String)> =
        app.plugins().iter().filter(|p| p.is_ok() && p.analysis).map(|p| (p.path.clone(), p.name.clone())).collect();
    let selected = settings.analysis_bot.as_ref().map(|path| {
        analysers.iter().find(|(p, _)| p == path).map_or_else(|| library_stem(path), |(_, name)| name.clone())
    });
    // Room is left for the label beside the drop-down, or it is squeezed in a narrow panel.
    egui::ComboBox::new("analysis-bot", "Analysis bot")
        .width((ui.available_width() - COMBO_LABEL_ROOM).clamp(MIN_COMBO_WIDTH, MAX_COMBO_WIDTH))
        .selected_text(selected.unwrap_or_else(|| "choose…".to_owned()))
        .show_ui(ui, |ui| {
            for (path, name) in &analysers {
                ui.selectable_value(&mut settings.analysis_bot, Some(path.clone()), name);
            }
        })
        .response
        .on_hover_text("The bot that values every legal move (a bot with the analysis export)");
    if analysers.is_empty() && !app.is_scanning_plugins() {
        ui.weak("No loaded bot has the analysis export (Alpha-beta and MCTS have it).");
    }
    ui.checkbox(&mut settings.practice, "Practice (no hints until the game is over)").on_hover_text(
        "While your game goes on: no evaluations, best line or bots' values. Once it is over they all show, and Analyse game reviews it.",
    );
    if !settings.show_evaluations {
        return;
    }
    search_controls(settings, ui);
    view_choice(&mut settings.eval_view, ui);
    if app.hints_hidden() {
        ui.weak("Practice: the hints show once the game is over.");
        return;
    }
    let legend = settings.eval_view.legend();
    ui.label(format!("{legend} · gold = exact · ring = best move for the side to move"));
    let position = app.game().viewed();
    let values = app.workers.analysis.values_for(&position);
    if let Some(best) = values.first() {
        let view = shown_value(best, position.side_to_move(), settings.eval_view);
        let side = crate::color_name(position.side_to_move());
        // An exact value says so in its description; a searched one gives its depth.
        let depth = best.depth.filter(|_| !best.exact).map_or(String::new(), |d| format!(", depth {d}"));
        ui.label(format!("Best for {side}: {} — {}{depth}", best.square, view.description()));
    }
    let line = app.workers.analysis.line_for(&position);
    if !line.is_empty() {
        let view = settings.eval_view;
        let text = line.iter().map(|m| m.text(view)).collect::<Vec<_>>().join("  ");
        ui.add(egui::Label::new(RichText::new(format!("Best line: {text}")).monospace()).wrap()).on_hover_text(
            "The principal variation: each move the analysis bot's best, with its value (this point of view)",
        );
    }
    match app.workers.analysis.status() {
        Status::Off => {
            if settings.analysis_bot.is_none() {
                ui.weak("Choose an analysis bot to see the values.");
            }
        }
        Status::Searching => {
            ui.weak("Searching…");
        }
        Status::Deepening { budget_ms } => {
            ui.weak(format!("Deepening (last search {budget_ms} ms)…"));
        }
        Status::Done => {
            ui.weak("Search finished.");
        }
        Status::Paused => {
            ui.weak("Paused while a bot thinks (its cores are the bot's).");
        }
        Status::Failed(why) => {
            ui.label(RichText::new(format!("Analysis failed: {why}")).color(ERROR_COLOR));
        }
    }
    if let Some(first) = app.workers.analysis.rejected().first() {
        let count = app.workers.analysis.rejected().len();
        ui.label(RichText::new(format!("{count} value(s) from the bot left out: {first}")).color(ERROR_COLOR));
    }
}

/// Game analysis: the command, its progress, and the mistakes found. Reads the app only; returns
/// what the user asked for (analyse, or view a mistake's move).
pub fn game_analysis(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    ui.heading("Game analysis");
    let mut action = None;
    let can = app.analysis_bot().is_some() && !app.board_game().moves().is_empty();
    let button = ui
        .add_enabled(can, egui::Button::new("Analyse game"))
        .on_hover_text("Search every position of the game on the board with the analysis bot")
        .on_disabled_hover_text("Play or load a game first (and load a bot with the analysis export)");
    if button.clicked() {
        action = Some(Action::AnalyseGame);
    }
    let game = app.board_game();
    let Some(review) = app.workers.review.as_ref().filter(|r| r.is_for(game)) else { return action };
    let (done, total) = review.progress();
    match review.status() {
        ReviewStatus::Running => {
            ui.add(egui::ProgressBar::new(done as f32 / total.max(1) as f32).text(format!("{done} / {total} moves")));
        }
        ReviewStatus::Done => {
            ui.weak(format!("All {total} moves analysed."));
        }
        ReviewStatus::Failed(why) => {
            ui.label(RichText::new(format!("Game analysis failed: {why}")).color(ERROR_COLOR));
        }
    }
    if let Some(verdict) = review.of_ply(game.cursor()) {
        ui.label(format!("This move: {}", verdict.describe_for(app.settings.eval_view.side(verdict.color))));
    }
    let eval_view = app.settings.eval_view;
    let mistakes: Vec<(usize, String)> =
        review.mistakes().map(|m| (m.ply, m.describe_for(eval_view.side(m.color)))).collect();
    if mistakes.is_empty() {
        if *review.status() == ReviewStatus::Done {
            ui.label("No mistake found.");
        }
        return action;
    }
    ui.label(RichText::new(format!("Mistakes ({})", mistakes.len())).strong());
    for (ply, line) in mistakes {
        if ui.selectable_label(game.cursor() == ply, line).clicked() {
            action = Some(Action::View(ply));
        }
    }
    action
}

/// The point of view of every value in the app (board, lists, graph, read-outs, tooltips, help).
fn view_choice(eval_view: &mut EvalView, ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Values for");
        for view in EvalView::ALL {
            ui.selectable_value(eval_view, view, view.name()).on_hover_text(view.legend());
        }
    });
}

/// Longest analysis offered, in seconds.
const MAX_ANALYSIS_S: f64 = 600.0;

/// How long the analysis searches a position, when it solves exactly, and how long a best line.
fn search_controls(settings: &mut crate::Settings, ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        let mut seconds = settings.analysis_max_ms as f64 / 1000.0;
        ui.label("Search up to");
        ui.add(egui::DragValue::new(&mut seconds).range(0.1..=MAX_ANALYSIS_S).speed(0.1).suffix(" s"))
            .accessible_name("Analysis time")
            .on_hover_text("The longest search of a position (values deepen up to it)");
        settings.analysis_max_ms = (seconds * 1000.0).round() as u64;
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Exact from");
        ui.add(egui::DragValue::new(&mut settings.solve_from_empties).range(0..=30).suffix(" empties"))
            .accessible_name("Exact from empties")
            .on_hover_text(
                "With this many empty squares or fewer the search goes on until every value is exact (0 = never)",
            );
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Best line");
        ui.add(egui::DragValue::new(&mut settings.best_line_plies).range(0..=20).suffix(" moves"))
            .accessible_name("Best line moves")
            .on_hover_text("Moves of the principal variation shown with their values (0 = none)");
    });
}
