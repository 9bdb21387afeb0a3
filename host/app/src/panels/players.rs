//! Who plays Black and White (human or a bot with its level), time per move, and display options.

use std::path::Path;

use egui::Ui;
use othello_sdk::Color;

use super::records::RecordsPanel;
use crate::settings::{SandboxChoice, SeatChoice};
use crate::{Action, OthelloApp};
use othello_arena::seat::library_stem;

/// Longest time per move offered, in milliseconds.
const MAX_TIME_PER_MOVE_MS: u64 = 600_000;
/// Longest game clock offered, in minutes, and the largest increment, in seconds.
const MAX_CLOCK_MINUTES: u32 = 180;
const MAX_INCREMENT_S: u32 = 60;
/// Longest delay between two bots' moves, in milliseconds.
const MAX_BOT_DELAY_MS: u64 = 5_000;
/// Room next to a slider for its value, in points.
const SLIDER_VALUE_ROOM: f32 = 80.0;
const MIN_SLIDER_WIDTH: f32 = 60.0;
/// Room next to a seat's drop-down for its label ("Black"), in points.
const COMBO_LABEL_ROOM: f32 = 60.0;
const MAX_COMBO_WIDTH: f32 = 190.0;

/// The Players panel, with Records and the NBoard engines under it. Reads the app only (the
/// transcript being typed is the Records panel's own); returns the seats chosen, the settings as
/// edited here, and what Records and the engines list ask for.
pub fn show(app: &OthelloApp, records: &mut RecordsPanel, ui: &mut Ui) -> Vec<Action> {
    let mut actions = Vec::new();
    let mut settings = app.settings.clone();
    ui.heading("Players");
    for color in Color::ALL {
        actions.extend(seat_picker(app, ui, color));
    }
    ui.add_space(4.0);
    let mut time = settings.time_per_move_ms;
    ui.horizontal(|ui| {
        ui.label("Time per move");
        ui.add(egui::DragValue::new(&mut time).range(0..=MAX_TIME_PER_MOVE_MS).suffix(" ms").speed(50.0))
            .accessible_name("Time per move")
            .on_hover_text("For bots; 0 = unlimited. Applies from the next game.");
    });
    settings.time_per_move_ms = time;
    ui.horizontal_wrapped(|ui| {
        ui.label("Game clock");
        ui.add(egui::DragValue::new(&mut settings.clock_minutes).range(0..=MAX_CLOCK_MINUTES).suffix(" min"))
            .accessible_name("Game clock minutes")
            .on_hover_text("Total time per side when a human plays; the side to move's time runs from the start of the game. Set before the first move it applies to this game, later from the next one; 0 turns the clock off.");
        ui.label("+");
        ui.add(egui::DragValue::new(&mut settings.clock_increment_s).range(0..=MAX_INCREMENT_S).suffix(" s"))
            .accessible_name("Clock increment")
            .on_hover_text("Seconds added after each move");
    });
    ui.label("Delay between bot moves");
    ui.spacing_mut().slider_width = (ui.available_width() - SLIDER_VALUE_ROOM).max(MIN_SLIDER_WIDTH);
    ui.add(egui::Slider::new(&mut settings.bot_delay_ms, 0..=MAX_BOT_DELAY_MS).suffix(" ms"))
        .accessible_name("Delay between bot moves");
    ui.checkbox(&mut settings.show_legal_moves, "Show legal moves");
    ui.checkbox(&mut settings.animate, "Animate flips");
    ui.checkbox(&mut settings.sound, "Sound").on_hover_text(crate::sound::STATUS);
    sandbox_choice(app, &mut settings.sandbox, ui);
    ui.separator();
    actions.extend(records.show(&mut settings.game_file, ui));
    ui.separator();
    actions.extend(super::engines::show(app, ui));
    if settings != app.settings {
        // First, so that a seat chosen in the same frame is not undone by the older copy.
        actions.insert(0, Action::ChangeSettings(Box::new(settings)));
    }
    actions
}

/// The sandbox mode of the bots' runners (`--sandbox` of the command line).
fn sandbox_choice(app: &OthelloApp, choice: &mut SandboxChoice, ui: &mut Ui) {
    ui.horizontal(|ui| {
        ui.label("Sandbox");
        egui::ComboBox::new("sandbox", "")
            .selected_text(choice.name())
            .show_ui(ui, |ui| {
                for option in SandboxChoice::ALL {
                    ui.selectable_value(choice, option, option.name());
                }
            })
            .response
            .on_hover_text(
                "How bots are isolated (as --sandbox): auto = every layer this machine offers; \
                 strict = every layer or the bot does not start; off = a plain process. \
                 Applies to bots started from now on.",
            );
    });
    if let Some(mode) = app.command_line_sandbox() {
        ui.small(format!("--sandbox {} on the command line is used for this run", mode.as_str()));
    }
}

/// The seat of `color`: the player and its level; returns the player chosen (or the engine form
/// to open).
fn seat_picker(app: &OthelloApp, ui: &mut Ui, color: Color) -> Option<Action> {
    let current = match color {
        Color::Black => app.settings.black.clone(),
        Color::White => app.settings.white.clone(),
    };
    let label_of = |choice: &SeatChoice| match choice {
        SeatChoice::Human => "Human".to_owned(),
        SeatChoice::Bot { path, .. } => {
            let added = app.settings.engines.iter().find(|e| e.seat_path() == *path).map(|e| e.name.clone());
            let filed = || app.file_engines().iter().find(|e| Path::new(&e.bot_name()) == path).map(|e| e.name.clone());
            match added.or_else(filed) {
                Some(name) => format!("{name} (NBoard)"),
                None => app.workers.catalog.entry(path).map_or_else(|| library_stem(path), |entry| entry.name.clone()),
            }
        }
    };
    if app.missing_seat().is_some_and(|(missing, _)| missing == color) {
        ui.colored_label(
            egui::Color32::LIGHT_RED,
            format!("{}: this bot's library is gone; choose another", crate::color_name(color)),
        );
    }
    let mut add_engine = false;
    let mut chosen = current.clone();
    ui.horizontal(|ui| {
        egui::ComboBox::new(("seat", color.name()), crate::color_name(color))
            .selected_text(label_of(&current))
            .width((ui.available_width() - COMBO_LABEL_ROOM).clamp(MIN_SLIDER_WIDTH, MAX_COMBO_WIDTH))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut chosen, SeatChoice::Human, "Human");
                for entry in app.workers.catalog.entries().iter().filter(|e| e.is_ok()) {
                    let level = (entry.levels > 0).then_some(entry.levels);
                    let choice = SeatChoice::Bot { path: entry.path.clone(), level };
                    let selected = matches!(&current, SeatChoice::Bot { path, .. }
                        if app.workers.catalog.entry(path).is_some_and(|e| e.path == entry.path));
                    if ui
                        .selectable_label(selected, &entry.name)
                        .on_hover_text(entry.path.display().to_string())
                        .clicked()
                        && !selected
                    {
                        chosen = choice;
                    }
                }
                for engine in &app.settings.engines {
                    let choice = SeatChoice::Bot { path: engine.seat_path(), level: None };
                    let label = format!("{} (NBoard)", engine.name);
                    ui.selectable_value(&mut chosen, choice, label).on_hover_text(&engine.command);
                }
                for engine in app.file_engines() {
                    let choice = SeatChoice::Bot { path: engine.bot_name().into(), level: None };
                    let label = format!("{} (NBoard)", engine.name);
                    ui.selectable_value(&mut chosen, choice, label)
                        .on_hover_text(format!("{} (from the engines file)", engine.command));
                }
                ui.separator();
                add_engine = ui.button("Add engine…").on_hover_text("A program speaking the NBoard protocol").clicked();
            });
    });
    if add_engine {
        return Some(Action::OpenEngineForm(Some(color)));
    }
    if let SeatChoice::Bot { path, level: Some(level) } = &current {
        let (levels, name) =
            app.workers.catalog.entry(path).map_or((*level, String::new()), |e| (e.levels.max(1), e.name.clone()));
        let mut new_level = *level;
        ui.horizontal(|ui| {
            ui.label("    level");
            ui.spacing_mut().slider_width = (ui.available_width() - SLIDER_VALUE_ROOM).max(MIN_SLIDER_WIDTH);
            ui.add(egui::Slider::new(&mut new_level, 1..=levels))
                .accessible_name(format!("{} level", crate::color_name(color)));
        });
        ui.add(egui::Label::new(egui::RichText::new(crate::levels::describe(&name, new_level, levels)).small()).wrap());
        if new_level != *level {
            chosen = SeatChoice::Bot { path: path.clone(), level: Some(new_level) };
        }
    }
    let is_engine = |path: &Path| othello_arena::seat::engine_spec_of(path).is_some();
    if let SeatChoice::Bot { path, .. } = &current
        && !is_engine(path)
        && app.workers.catalog.entry(path).is_none()
        && !app.workers.catalog.is_scanning()
    {
        ui.small(format!("    {} is not in the plugin folders", path_text(path)));
    }
    (chosen != current).then_some(Action::SetSeat(color, chosen))
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}
