//! Game records: copy or paste a transcript, open or save a GGF file.

use egui::Ui;

use crate::OthelloApp;

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Records");
    ui.horizontal(|ui| {
        if ui.button("Copy transcript").clicked() {
            let transcript = app.session.game.transcript();
            ui.ctx().copy_text(transcript.clone());
            let shown = if transcript.is_empty() { "(no moves yet)".to_owned() } else { transcript };
            app.show_info(format!("Copied: {shown}"));
        }
    });
    let label = ui.label("Paste a transcript");
    ui.add(egui::TextEdit::singleline(&mut app.transcript_input).hint_text("f5d6c3d3c4").desired_width(f32::INFINITY))
        .labelled_by(label.id);
    if ui.button("Load transcript").clicked() {
        let text = app.transcript_input.clone();
        app.load_transcript(&text);
    }
    ui.add_space(4.0);
    show_game_file(app, ui);
}

/// Open / save GGF by path (no native file dialog: its crates are heavy for a text field's job).
pub fn show_game_file(app: &mut OthelloApp, ui: &mut Ui) {
    ui.label("Game file (GGF):");
    ui.add(egui::TextEdit::singleline(&mut app.settings.game_file).desired_width(f32::INFINITY))
        .accessible_name("Game file");
    ui.horizontal(|ui| {
        let path = std::path::PathBuf::from(app.settings.game_file.trim());
        if ui.button("Open").clicked() {
            app.open_game(&path);
        }
        if ui.button("Save").clicked() {
            app.save_game(&path);
        }
    });
}
