//! Game records: copy or paste a transcript, open or save a GGF file.

use egui::Ui;

use crate::actions::Discard;
use crate::{Game, OthelloApp};

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Records");
    ui.horizontal(|ui| {
        if ui.button("Copy transcript").clicked() {
            app.perform(crate::Action::CopyTranscript, &ui.ctx().clone());
        }
    });
    let label = ui.label("Paste a transcript");
    ui.add(egui::TextEdit::singleline(&mut app.transcript_input).hint_text("f5d6c3d3c4").desired_width(f32::INFINITY))
        .labelled_by(label.id);
    if ui.button("Load transcript").clicked() {
        let text = app.transcript_input.clone();
        if text.trim().is_empty() || Game::from_transcript(text.trim()).is_err() {
            app.load_transcript(&text); // says what is wrong and keeps the game
        } else {
            app.discard_with(Discard::LoadTranscript(text));
        }
    }
    ui.add_space(4.0);
    show_game_file(app, ui);
}

/// Open / save GGF by the path in the field (the menu's Open… and Save… use the file dialog when
/// the desktop offers one).
pub fn show_game_file(app: &mut OthelloApp, ui: &mut Ui) {
    ui.label("Game file (GGF):");
    ui.add(egui::TextEdit::singleline(&mut app.settings.game_file).desired_width(f32::INFINITY))
        .accessible_name("Game file");
    ui.horizontal(|ui| {
        let path = std::path::PathBuf::from(app.settings.game_file.trim());
        if ui.button("Open").on_hover_text("Open the game in this file").clicked() {
            app.open_path(path.clone());
        }
        if ui.button("Save").on_hover_text("Save the game to this file").clicked() {
            app.save_path(path);
        }
    });
}
