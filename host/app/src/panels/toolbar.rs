//! Game commands: new game, swap, undo / redo, resign / abort, pause / step, and the message line.

use egui::{Color32, RichText, Ui};

use crate::{Action, OthelloApp, shortcuts};

const ERROR_COLOR: Color32 = Color32::from_rgb(0xff, 0x70, 0x60);
const INFO_COLOR: Color32 = Color32::from_rgb(0x90, 0xd0, 0x90);
const HINT_COLOR: Color32 = Color32::from_rgb(0xf0, 0xd0, 0x70);

/// The toolbar. Reads the app only; returns the command clicked.
pub fn show(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    let ctx = ui.ctx().clone();
    let mut chosen = None;
    ui.horizontal_wrapped(|ui| {
        let mut button = |ui: &mut Ui, label: &str, action: Action, enabled: bool, hint: &str| {
            let hover = match shortcuts::text(&ctx, &action) {
                Some(keys) => format!("{hint} ({keys})"),
                None => hint.to_owned(),
            };
            if ui.add_enabled(enabled, egui::Button::new(label)).on_hover_text(hover).clicked() {
                chosen = Some(action);
            }
        };
        let over = app.game().is_over();
        button(ui, "New game", Action::NewGame, true, "Start a new game with these players");
        button(ui, "Swap colours", Action::SwapColours, true, "Swap the players and start a new game");
        ui.separator();
        button(ui, "Undo", Action::Undo, app.session.can_undo(), "Take back to your last turn");
        let redo = app.session.has_human() && app.game().can_redo();
        button(ui, "Redo", Action::Redo, redo, "Replay what was taken back");
        let resign_hint = if app.game().moves().is_empty() { "Play a move first" } else { "The side to move resigns" };
        button(ui, "Resign", Action::Resign, app.can_resign(), resign_hint);
        button(ui, "Abort", Action::Abort, !over, "Stop the game without a result");
        if app.can_pause() || app.session.paused {
            ui.separator();
            let label = if app.session.paused { "Resume" } else { "Pause" };
            button(ui, label, Action::TogglePause, app.can_pause(), "Pause or resume the game: its bots and its clock");
            if !app.session.has_human() {
                button(ui, "Step", Action::Step, !over && app.session.paused, "Play one move");
            }
        }
        if app.session.lost_on_time().is_some() {
            ui.separator();
            let hint = "The game was lost on time: take it back with the time of that turn restored";
            button(ui, "Take back loss on time", Action::TakeBackTimeLoss, true, hint);
        }
    });
    chosen
}

/// The message line at the bottom: the last error (red) or confirmation until dismissed, else a
/// hint for what to do next. Reads the app only; returns the dismissal.
pub fn message_line(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    ui.horizontal(|ui| match app.message() {
        Some(message) => {
            let color = if message.is_error { ERROR_COLOR } else { INFO_COLOR };
            let dismissed = ui.small_button("x").on_hover_text("Dismiss").clicked();
            ui.add(egui::Label::new(RichText::new(&message.text).color(color)).truncate());
            dismissed.then_some(Action::DismissMessage)
        }
        None => {
            let hint = next_step_hint(app);
            ui.add(egui::Label::new(RichText::new(hint).color(HINT_COLOR)).truncate());
            None
        }
    })
    .inner
}

/// What to do now, in one line.
fn next_step_hint(app: &OthelloApp) -> &'static str {
    let game = app.game();
    match app.session.human_to_move() {
        Some(_) if app.session.game.live().must_pass() => "No legal move: the pass is played for you.",
        Some(_) if app.settings.show_legal_moves => "Your move: the dots are your legal moves.",
        Some(_) => "Your move: click an empty square that flips discs.",
        None if game.is_over() => "Game over: New game (Ctrl+N) to play again, or step through the moves.",
        None => "Arrow keys: step through the moves. Home / End: first / last position.",
    }
}
