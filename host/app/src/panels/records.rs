//! Game records: copy or paste a transcript, open or save a GGF file.

use egui::Ui;

use crate::Action;

/// The Records panel: its own state is the transcript being typed.
#[derive(Default)]
pub struct RecordsPanel {
    transcript: String,
}

impl RecordsPanel {
    /// The panel; `game_file` is the path field (a setting: the last file opened or saved).
    /// Returns what the user asked for.
    pub fn show(&mut self, game_file: &mut String, ui: &mut Ui) -> Option<Action> {
        let mut action = None;
        ui.heading("Records");
        if ui.button("Copy transcript").clicked() {
            action = Some(Action::CopyTranscript);
        }
        let label = ui.label("Paste a transcript");
        ui.add(egui::TextEdit::singleline(&mut self.transcript).hint_text("f5d6c3d3c4").desired_width(f32::INFINITY))
            .labelled_by(label.id);
        if ui.button("Load transcript").clicked() {
            action = Some(Action::LoadTranscript(self.transcript.clone()));
        }
        ui.add_space(4.0);
        show_game_file(game_file, ui).or(action)
    }
}

/// Open / save GGF by the path in the field (the menu's Open… and Save… use the file dialog when
/// the desktop offers one).
pub fn show_game_file(game_file: &mut String, ui: &mut Ui) -> Option<Action> {
    let mut action = None;
    ui.label("Game file (GGF):");
    ui.add(egui::TextEdit::singleline(game_file).desired_width(f32::INFINITY)).accessible_name("Game file");
    ui.horizontal(|ui| {
        let path = std::path::PathBuf::from(game_file.trim());
        if ui.button("Open").on_hover_text("Open the game in this file").clicked() {
            action = Some(Action::OpenPath(path.clone()));
        }
        if ui.button("Save").on_hover_text("Save the game to this file").clicked() {
            action = Some(Action::SavePath(path));
        }
    });
    action
}
