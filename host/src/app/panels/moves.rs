//! The numbered move list with replay navigation (first / back / forward / last, arrow keys),
//! and playing on from a past position.

use egui::{Grid, ScrollArea, Ui};
use othello_sdk::Color;

use crate::app::OthelloApp;

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Moves");
    let game = &mut app.session.game;
    let (cursor, total) = (game.cursor(), game.moves().len());
    ui.horizontal(|ui| {
        if ui.add_enabled(cursor > 0, egui::Button::new("|<")).on_hover_text("First (Home)").clicked() {
            game.view_first();
        }
        if ui.add_enabled(cursor > 0, egui::Button::new("<")).on_hover_text("Back (Left arrow)").clicked() {
            game.view_back();
        }
        if ui.add_enabled(cursor < total, egui::Button::new(">")).on_hover_text("Forward (Right arrow)").clicked() {
            game.view_forward();
        }
        if ui.add_enabled(cursor < total, egui::Button::new(">|")).on_hover_text("Last (End)").clicked() {
            game.view_last();
        }
    });
    if !app.session.game.is_viewing_live() && ui.button("Play on from here").clicked() {
        app.session.play_on_from_viewed(&app.settings);
    }

    let game = &mut app.session.game;
    let mut view = None;
    ScrollArea::vertical().id_salt("move list").auto_shrink([false, true]).show(ui, |ui| {
        Grid::new("moves").num_columns(2).striped(true).show(ui, |ui| {
            if ui.selectable_label(game.cursor() == 0, "Start").clicked() {
                view = Some(0);
            }
            ui.end_row();
            for (index, played) in game.moves().iter().enumerate() {
                let ply = index + 1;
                let text = format!("{ply}. {} {}", color_letter(played.color), played.mv);
                if ui.selectable_label(game.cursor() == ply, text).clicked() {
                    view = Some(ply);
                }
                let eval = played.eval_for_black().map(|e| format!("{e:+.1}")).unwrap_or_default();
                ui.weak(eval);
                ui.end_row();
            }
        });
    });
    if let Some(ply) = view {
        game.view(ply);
    }
}

/// `B` or `W` before a move in the list.
fn color_letter(color: Color) -> char {
    match color {
        Color::Black => 'B',
        Color::White => 'W',
    }
}
