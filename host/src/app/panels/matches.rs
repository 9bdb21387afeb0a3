//! Matches and round robins between bots in the background, with a live cross-table.

use std::time::Duration;

use egui::Ui;

use crate::app::OthelloApp;

/// The Matches panel's runtime state.
#[derive(Default)]
pub struct MatchesState {}

impl MatchesState {
    /// Takes progress from a running match; returns when to look again.
    pub fn update(&mut self) -> Option<Duration> {
        None
    }
}

pub fn show(_app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Matches");
    ui.label("Waiting for the arena engine.");
}
