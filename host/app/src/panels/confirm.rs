//! Modal dialogs: the confirmation of an action that discards a game, resigns or replaces a file,
//! and the list of a multi-game file's games.

use egui::{Id, Key, Modal, RichText};

use crate::{Action, OthelloApp};

/// Widest a dialog gets, in points.
const DIALOG_MAX_WIDTH: f32 = 420.0;

/// The dialog open, if any. Reads the app only; returns the user's answer.
pub fn show(app: &OthelloApp, ctx: &egui::Context) -> Option<Action> {
    let mut action = None;
    if let Some(confirm) = app.confirmation().cloned() {
        let (question, detail, yes) = confirm.texts();
        let mut answer = None;
        let modal = Modal::new(Id::unique("confirm")).show(ctx, |ui| {
            ui.set_max_width(DIALOG_MAX_WIDTH);
            ui.label(RichText::new(&question).strong().size(16.0));
            ui.label(detail);
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button(yes).clicked() || ui.input(|i| i.key_pressed(Key::Enter)) {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        if modal.should_close() && answer.is_none() {
            answer = Some(false); // Escape or a click outside
        }
        action = answer.map(|yes| if yes { Action::GoAhead(confirm) } else { Action::CancelConfirmation });
    }

    if let Some(picker) = app.game_picker().cloned() {
        let mut picked = None;
        let mut close = false;
        let modal = Modal::new(Id::unique("game picker")).show(ctx, |ui| {
            ui.set_max_width(DIALOG_MAX_WIDTH);
            ui.label(RichText::new(format!("{} holds {} games", picker.path.display(), picker.games.len())).strong());
            ui.label("Pick the game to open:");
            egui::ScrollArea::vertical().max_height(ui.ctx().content_rect().height() * 0.6).show(ui, |ui| {
                for (index, line) in picker.games.iter().enumerate() {
                    if ui.selectable_label(false, line).clicked() {
                        picked = Some(index);
                    }
                }
            });
            ui.add_space(6.0);
            close = ui.button("Cancel").clicked();
        });
        if let Some(index) = picked {
            action = Some(Action::PickGame(index));
        } else if close || modal.should_close() {
            action = Some(Action::CloseGamePicker);
        }
    }
    action
}
