//! The game database: import a WTHOR `.wtb` file, then the opening tree of the position viewed,
//! with the base's statistics (games, results, average margin) from the app's point of view.

use egui::{Grid, RichText, Ui};

use crate::analysis::{discs_for, rate_for};
use crate::{Action, OthelloApp};

/// The Database panel: its own state is the path being typed (the file imported last, as the
/// settings keep it, to begin with).
#[derive(Default)]
pub struct DatabasePanel {
    path: Option<String>,
}

impl DatabasePanel {
    /// The panel; reads the app only and returns what the user asked for (import a file, play a
    /// move of the base).
    pub fn show(&mut self, app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
        ui.heading("Database");
        let path = self.path.get_or_insert_with(|| app.settings.wthor_file.clone());
        let label = ui.label("WTHOR file (.wtb)");
        ui.add(egui::TextEdit::singleline(path).hint_text("WTH_2023.wtb").desired_width(f32::INFINITY))
            .labelled_by(label.id);
        let importing = app.workers.database.is_loading();
        let mut action = None;
        if ui
            .add_enabled(!importing, egui::Button::new(if importing { "Importing…" } else { "Import games" }))
            .on_hover_text("Read the games of a WTHOR file (the French federation's base, as Egaroucid and NBoard use)")
            .clicked()
        {
            action = Some(Action::ImportWthor(std::path::PathBuf::from(path.trim())));
        }
        tree_moves(app, ui).or(action)
    }
}

/// The games of the base through the position viewed and the moves they played from it.
fn tree_moves(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    let tree = app.workers.database.tree()?;
    if app.hints_hidden() {
        ui.weak("Practice: the base's moves show once the game is over.");
        return None;
    }
    let skipped = if tree.skipped > 0 { format!(", {} unreadable left out", tree.skipped) } else { String::new() };
    ui.weak(format!("{} games from {}{skipped}", tree.games, tree.source));
    let position = app.game().viewed();
    let view = app.settings.eval_view;
    let side = view.side(position.side_to_move());
    let side_name = crate::color_name(side);
    match tree.stats(&position) {
        Some(stats) if app.game().cursor() > 0 => {
            ui.label(format!(
                "{} games reach this position: {side_name} scores {:.0}%, {:+.1} discs on average",
                stats.games,
                100.0 * rate_for(stats.black_score(), othello_sdk::Color::Black, side),
                discs_for(stats.black_margin(), othello_sdk::Color::Black, side),
            ));
        }
        None if app.game().cursor() > 0 => {
            ui.weak("No game of the base reaches this position.");
            return None;
        }
        _ => {}
    }
    let moves = tree.moves(&position);
    if moves.is_empty() {
        return None;
    }
    ui.label(RichText::new(format!("Moves played ({side_name}'s score and margin)")).strong());
    let mut chosen = None;
    Grid::new("database-moves").num_columns(4).striped(true).show(ui, |ui| {
        for (square, stats) in moves {
            let score = 100.0 * rate_for(stats.black_score(), othello_sdk::Color::Black, side);
            let margin = discs_for(stats.black_margin(), othello_sdk::Color::Black, side);
            let games = if stats.games == 1 { "1 game".to_owned() } else { format!("{} games", stats.games) };
            let name = format!("{square}: {games}, {side_name} {score:.0}%, {margin:+.1}");
            let playable = app.session.human_to_move().is_some();
            let response = ui
                .add_enabled(playable, egui::Button::new(square.to_string()).small())
                .on_hover_text("Play this move")
                .on_disabled_hover_text("The move of the base (play it when it is your turn)")
                .accessible_name(name);
            if response.clicked() {
                chosen = Some(square);
            }
            ui.label(games);
            ui.label(format!("{score:.0}%"));
            ui.label(format!("{margin:+.1}"));
            ui.end_row();
        }
    });
    chosen.map(Action::Play)
}
