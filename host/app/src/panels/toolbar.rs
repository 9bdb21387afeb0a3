//! Game commands: new game, swap, undo / redo, resign / abort, pause / step, and the message line.

use egui::{Color32, RichText, Ui};

use crate::OthelloApp;

const ERROR_COLOR: Color32 = Color32::from_rgb(0xff, 0x70, 0x60);
const INFO_COLOR: Color32 = Color32::from_rgb(0x90, 0xd0, 0x90);

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        if ui.button("New game").clicked() {
            app.new_game();
        }
        if ui.button("Swap colours").on_hover_text("Swap the players and start a new game").clicked() {
            std::mem::swap(&mut app.settings.black, &mut app.settings.white);
            app.new_game();
        }
        ui.separator();
        let session = &app.session;
        let undo_enabled = session.has_human() && session.game.can_undo();
        if ui.add_enabled(undo_enabled, egui::Button::new("Undo")).on_hover_text("Ctrl+Z").clicked() {
            app.session.undo(&app.settings);
        }
        let redo_enabled = app.session.has_human() && app.session.game.can_redo();
        if ui.add_enabled(redo_enabled, egui::Button::new("Redo")).on_hover_text("Ctrl+Y").clicked() {
            app.session.redo();
        }
        let going_on = !app.session.game.is_over();
        if ui.add_enabled(going_on, egui::Button::new("Resign")).on_hover_text("The side to move resigns").clicked() {
            app.session.resign(&app.settings);
        }
        if ui
            .add_enabled(going_on, egui::Button::new("Abort"))
            .on_hover_text("Stop the game without a result")
            .clicked()
        {
            app.session.abort(&app.settings);
        }
        if !app.session.has_human() {
            ui.separator();
            let label = if app.session.paused { "Resume" } else { "Pause" };
            if ui.add_enabled(going_on, egui::Button::new(label)).clicked() {
                app.session.paused = !app.session.paused;
            }
            if ui
                .add_enabled(going_on && app.session.paused, egui::Button::new("Step"))
                .on_hover_text("Play one move")
                .clicked()
            {
                app.session.step();
            }
        }
    });
}

/// The message line at the bottom: the last error (red) or confirmation, until dismissed.
pub fn message_line(app: &mut OthelloApp, ui: &mut Ui) {
    ui.horizontal(|ui| match app.message.clone() {
        Some(message) => {
            let color = if message.is_error { ERROR_COLOR } else { INFO_COLOR };
            if ui.small_button("x").on_hover_text("Dismiss").clicked() {
                app.message = None;
            }
            ui.label(RichText::new(&message.text).color(color));
        }
        None => {
            ui.weak("Arrow keys: step through the moves. Home / End: first / last position.");
        }
    });
}
