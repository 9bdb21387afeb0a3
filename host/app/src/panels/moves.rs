//! The numbered move list with replay navigation (first / back / forward / last, arrow keys),
//! and playing on from a past position.

use egui::{Grid, ScrollArea, Ui};
use othello_sdk::Color;

use crate::review::{GameReview, MoveReview, Severity};
use crate::{Action, Game};

/// Narrowest column of the move list: four fit the narrowest side panel.
const MIN_COLUMN_WIDTH: f32 = 32.0;

/// Colours of a move the game analysis found to be a mistake or a blunder.
pub const MISTAKE_COLOR: egui::Color32 = egui::Color32::from_rgb(0xf0, 0xa0, 0x40);
pub const BLUNDER_COLOR: egui::Color32 = egui::Color32::from_rgb(0xf0, 0x50, 0x50);

/// The Moves panel: its own state is where its list was scrolled to.
#[derive(Default)]
pub struct MovesPanel {
    listed: Followed,
}

impl MovesPanel {
    /// The player's moves: navigation, "Play on from here" and the list. Returns what the user
    /// asked for (a move to view, playing on); the panel changes no game itself.
    pub fn show(
        &mut self,
        game: &Game,
        review: Option<&GameReview>,
        eval_view: crate::analysis::EvalView,
        can_play_on: bool,
        ui: &mut Ui,
    ) -> Option<Action> {
        ui.heading("Moves");
        let mut action = navigation(game, ui).map(Action::View);
        if !game.is_viewing_live() && can_play_on && ui.button("Play on from here").clicked() {
            action = Some(Action::PlayOnFromViewed);
        }
        action = list(game, &mut self.listed, review, eval_view, "move list", ui).map(Action::View).or(action);
        variations(game, can_play_on, ui).or(action)
    }
}

/// Moves of a variation shown in its row at most.
const VARIATION_PREVIEW: usize = 6;

/// The other lines of the game (the variation tree, each where it leaves the current line): a
/// click views the branch, "Switch" makes the line the current one.
fn variations(game: &Game, can_switch: bool, ui: &mut Ui) -> Option<Action> {
    let list = game.variations();
    if list.is_empty() {
        return None;
    }
    let mut action = None;
    ui.label(egui::RichText::new(format!("Variations ({})", list.len())).strong())
        .on_hover_text("Lines left when you played on from an earlier position or after an undo");
    for variation in list {
        let moves = game.variation_moves(variation.index);
        let mut text: Vec<String> = moves.iter().take(VARIATION_PREVIEW).map(|m| m.mv.to_string()).collect();
        if moves.len() > VARIATION_PREVIEW {
            text.push("…".to_owned());
        }
        let count = if variation.length == 1 { "1 move".to_owned() } else { format!("{} moves", variation.length) };
        let label = format!("after move {}: {} ({count})", variation.from, text.join(" "));
        ui.horizontal(|ui| {
            if ui
                .add_enabled(can_switch, egui::Button::new("Switch").small())
                .on_hover_text("Make this line the game's (the current one is kept as a variation)")
                .accessible_name(format!("Switch to the variation {label}"))
                .clicked()
            {
                action = Some(Action::SwitchVariation(variation.index));
            }
            if ui.add(egui::Label::new(label).truncate().sense(egui::Sense::click())).clicked() {
                action = Some(Action::View(variation.from));
            }
        });
    }
    action
}

/// First / back / forward / last: the ply to view, if one was clicked.
pub fn navigation(game: &Game, ui: &mut Ui) -> Option<usize> {
    let (cursor, total) = (game.cursor(), game.moves().len());
    let mut view = None;
    ui.horizontal(|ui| {
        if ui.add_enabled(cursor > 0, egui::Button::new("|<")).on_hover_text("First (Home)").clicked() {
            view = Some(0);
        }
        if ui.add_enabled(cursor > 0, egui::Button::new("<")).on_hover_text("Back (Left arrow)").clicked() {
            view = Some(cursor.saturating_sub(1));
        }
        if ui.add_enabled(cursor < total, egui::Button::new(">")).on_hover_text("Forward (Right arrow)").clicked() {
            view = Some(cursor + 1);
        }
        if ui.add_enabled(cursor < total, egui::Button::new(">|")).on_hover_text("Last (End)").clicked() {
            view = Some(total);
        }
    });
    view
}

/// What the move list showed last: it scrolls to the viewed move when that changes (a new move,
/// the arrow keys, the graph, Home / End), and leaves the user's scrolling alone otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Followed {
    moves: usize,
    cursor: usize,
}

/// The numbered move list of `game`; a click views that move. The list scrolls to the viewed
/// move when it changed since `listed`. `id` keeps each list's scrolling its own: the player's
/// list is where it was when the player comes back from a replay.
pub fn list(
    game: &Game,
    listed: &mut Followed,
    review: Option<&GameReview>,
    eval_view: crate::analysis::EvalView,
    id: &str,
    ui: &mut Ui,
) -> Option<usize> {
    let review = review.filter(|r| r.is_for(game));
    let mut view = None;
    let now = Followed { moves: game.moves().len(), cursor: game.cursor() };
    let follow = now != *listed;
    *listed = now;
    ScrollArea::vertical().id_salt(id).auto_shrink([false, true]).show(ui, |ui| {
        let start = ui.selectable_label(game.cursor() == 0, "Start");
        if game.cursor() == 0 && follow {
            start.scroll_to_me(None);
        }
        if start.clicked() {
            view = Some(0);
        }
        // Passes are moves in the list, so Black and White alternate: one row per move pair.
        let first_is_white = game.start().side_to_move() == Color::White;
        let offset = usize::from(first_is_white);
        // The fourth column names the opening where a named one is reached.
        let standard = game.start() == othello_sdk::Position::start();
        let named: Vec<Option<&str>> = (0..=game.moves().len())
            .map(|ply| {
                let position = game.position_at(ply);
                crate::openings::name_of(&position).filter(|_| standard && ply > 0).map(|o| o.name)
            })
            .collect();
        Grid::new("moves").num_columns(4).striped(true).min_col_width(MIN_COLUMN_WIDTH).show(ui, |ui| {
            let plies = game.moves().len() + offset;
            for row in 0..plies.div_ceil(2) {
                // Numbered by ply (each disc placed, passes included), as everywhere in the app
                // and in Othello records: the row's first move.
                ui.weak(format!("{}.", (row * 2).saturating_sub(offset) + 1));
                for column in 0..2 {
                    let slot = row * 2 + column;
                    let Some(index) = slot.checked_sub(offset).filter(|i| *i < game.moves().len()) else {
                        ui.label("");
                        continue;
                    };
                    let played = &game.moves()[index];
                    let ply = index + 1;
                    let current = game.cursor() == ply;
                    let in_opening = ply <= game.opening_plies();
                    let verdict = review.and_then(|r| r.of_ply(ply));
                    let severity = verdict.map_or(Severity::Fine, MoveReview::severity);
                    let text = egui::RichText::new(format!("{}{}", played.mv, severity.mark()));
                    let text = match severity {
                        _ if in_opening => text.italics().weak(),
                        Severity::Fine => text,
                        Severity::Mistake => text.color(MISTAKE_COLOR),
                        Severity::Blunder => text.color(BLUNDER_COLOR).strong(),
                    };
                    let opening_note = if in_opening { " (opening)" } else { "" };
                    let verdict_note = match verdict {
                        Some(v) if severity > Severity::Fine => {
                            format!(", {}: {}", severity.word(), v.describe_for(eval_view.side(v.color)))
                        }
                        _ => String::new(),
                    };
                    let mut response = ui.selectable_label(current, text).accessible_name(format!(
                        "{ply}. {} {}{opening_note}{verdict_note}",
                        color_letter(played.color),
                        played.mv
                    ));
                    if let Some(verdict) = verdict {
                        response = response.on_hover_text(verdict.describe_for(eval_view.side(verdict.color)));
                    }
                    if in_opening {
                        response = response.on_hover_text("The match's random opening, forced on both bots");
                    }
                    if current && follow {
                        response.scroll_to_me(None);
                    }
                    if response.clicked() {
                        view = Some(ply);
                    }
                }
                let row_plies = (row * 2..row * 2 + 2).filter_map(|slot| slot.checked_sub(offset)).map(|i| i + 1);
                match row_plies.filter_map(|ply| named.get(ply).copied().flatten()).next_back() {
                    Some(name) => ui.add(egui::Label::new(egui::RichText::new(name).small().italics()).truncate()),
                    None => ui.label(""),
                };
                ui.end_row();
            }
        });
    });
    view
}

/// `B` or `W`: whose move, for the accessible name of a move in the list.
fn color_letter(color: Color) -> char {
    match color {
        Color::Black => 'B',
        Color::White => 'W',
    }
}
