//! Game records: copy or paste a transcript, open or save a GGF file.

use egui::Ui;

use crate::app::OthelloApp;

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
}
