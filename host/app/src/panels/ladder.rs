//! The Ladder tab: the rating ladder's leaderboard, "Rate" on any usable bot of the plugin list,
//! and a chosen entry's games, each of which loads onto the board to replay. The workers are
//! `crate::ladder`; this module only draws them.

use othello_arena::event::stats::format_elo;
use std::path::PathBuf;

use egui::{Color32, Grid, RichText, Ui};

use super::Shared;
use crate::Action;
use crate::ladder::LadderState;
use crate::players::Waker;
use othello_arena::plugins::PluginInfo;
use othello_ladder::{Progress, StoredGame};

/// Games of the chosen entry listed at most (newest first).
const MAX_LISTED_GAMES: usize = 50;
/// Most games a rating session may be given here.
const MAX_GAMES_OFFERED: u32 = 10_000;
/// Widest and narrowest the ladder file's field gets, and the room it leaves for Open, in points.
const MAX_PATH_WIDTH: f32 = 190.0;
const MIN_PATH_WIDTH: f32 = 80.0;
const OPEN_BUTTON_ROOM: f32 = 60.0;
/// Loosest and tightest precision offered, in Elo.
const TARGET_ERROR_RANGE: std::ops::RangeInclusive<f64> = 5.0..=400.0;

/// Shows a stored game on the board as a replay, with its own players; the player's game is
/// kept ("Back to my game" returns to it).
fn replay(state: &mut LadderState, game: &StoredGame) -> Action {
    let parsed = othello_arena::ggf::parse(&game.ggf).map_err(|e| e.to_string());
    match parsed.and_then(|mut games| {
        if games.is_empty() { Err("the stored game is empty".to_owned()) } else { Ok(games.swap_remove(0)) }
    }) {
        Ok(saved) => match crate::game_file::from_ggf(&saved) {
            Ok(mut loaded) => {
                let text = format!(
                    "Replaying {} vs {} (ladder game {}); your game is kept: Back to my game returns to it",
                    saved.black, saved.white, game.id
                );
                loaded.view_first();
                state.replay = Some(crate::matches::Viewer {
                    index: usize::try_from(game.id).unwrap_or_default(),
                    names: [saved.black.clone(), saved.white.clone()],
                    game: loaded,
                    listed: Default::default(),
                });
                Action::Tell(text)
            }
            Err(why) => Action::Refuse(format!("Ladder game {} not loaded: {why}", game.id)),
        },
        Err(why) => Action::Refuse(format!("Ladder game {} not loaded: {why}", game.id)),
    }
}

/// The Ladder panel: its own state (the ladder file, its workers, the replay) edited here, the rest
/// of the app read through `shared`. Returns what the message line should say.
pub fn show(state: &mut LadderState, shared: &Shared<'_>, ui: &mut Ui) -> Option<Action> {
    let wake = shared.wake;
    state.update(wake);
    ui.heading("Ladder");
    ui.horizontal(|ui| {
        // The field leaves the Open button room in the narrowest panel.
        let width = (ui.available_width() - OPEN_BUTTON_ROOM).clamp(MIN_PATH_WIDTH, MAX_PATH_WIDTH);
        ui.add(egui::TextEdit::singleline(&mut state.path_input).desired_width(width)).accessible_name("Ladder file");
        if ui.button("Open").clicked() && !state.path_input.trim().is_empty() {
            let path = PathBuf::from(state.path_input.trim());
            state.set_path(path);
        }
    });
    if let Some((text, is_error)) = &state.status {
        let colour = if *is_error { Color32::LIGHT_RED } else { Color32::LIGHT_GREEN };
        ui.colored_label(colour, text);
    }
    rating(state, shared, ui);
    ui.separator();
    board(state, ui, wake);
    games(state, ui)
}

fn rating(state: &mut LadderState, shared: &Shared<'_>, ui: &mut Ui) {
    ui.label(RichText::new("Rate a bot").strong());
    if let Some(rating) = &state.rating {
        let line = match (&state.seeding, &state.progress) {
            (Some((progress, time)), _) => format!("New ladder. {}", progress.describe(time)),
            (None, Some(p)) => progress_text(p),
            (None, None) => format!("Rating {}: starting…", rating.bot),
        };
        ui.label(line);
        if ui.button("Stop rating").clicked() {
            state.stop();
        }
    } else if let Some(placement) = &state.placement {
        let row = &placement.row;
        let rating = match (row.rating, placement.progress.placement_error) {
            // Both intervals, labelled: the one the session waited for, and the table's.
            (Some(rating), Some(placed)) if !row.failing && !row.anchor => {
                let from_anchor = row.error.map(|e| format!(", ± {e:.1} from the anchor")).unwrap_or_default();
                format!("{} Elo among its opponents{from_anchor}", format_elo(rating, placed))
            }
            _ => row.rating_text(),
        };
        let rank = row.rank.map(|r| format!(", rank {r} of {}", placement.rated)).unwrap_or_default();
        ui.label(format!("{} {}: {rating}{rank}", row.name, row.version_text()));
    }
    Grid::new("rating options").num_columns(2).show(ui, |ui| {
        ui.label("Stop at ± Elo");
        ui.add(egui::DragValue::new(&mut state.target_error).range(TARGET_ERROR_RANGE))
            .accessible_name("Stop at ± Elo");
        ui.end_row();
        ui.label("Most games");
        ui.add(egui::DragValue::new(&mut state.max_games).range(2..=MAX_GAMES_OFFERED)).accessible_name("Most games");
        ui.end_row();
    });
    ui.small(format!(
        "Time per move: {} (from Players)",
        match shared.time_per_move_ms {
            0 => "unlimited".to_owned(),
            ms => format!("{ms} ms"),
        }
    ));
    let usable: Vec<PluginInfo> = shared.catalog.entries().iter().filter(|e| e.is_ok()).cloned().collect();
    if usable.is_empty() {
        ui.small("No usable bots found (see Plugins).");
    }
    let busy = state.rating.is_some();
    for bot in &usable {
        ui.horizontal(|ui| {
            // The button's accessible name says which bot it rates.
            let button = ui
                .add_enabled(!busy, egui::Button::new("Rate"))
                .on_hover_text(bot.path.display().to_string())
                .accessible_name(format!("Rate {}", bot.name));
            ui.label(&bot.name);
            if button.clicked() {
                let catalog = shared.catalog.entries();
                state.start_rating(bot, catalog, shared.seating, shared.time_per_move_ms, (shared.wake)());
            }
        });
    }
}

/// `Rating Bot: 12 games, 8.5 points, +312.0 ± 45.0 Elo (± 140.0 from the anchor), last: Other`
/// (the project's one Elo format).
fn progress_text(p: &Progress) -> String {
    let rating = match (p.rating, p.placement_error) {
        (Some(r), Some(placed)) => format!("{} Elo (± {:.1} from the anchor)", format_elo(r.elo, placed), r.error),
        _ => "not rated yet".to_owned(),
    };
    format!(
        "Rating {}: {} games, {} points, {rating}, last: {}",
        p.entry.identity.label(),
        p.games,
        p.points,
        p.opponent
    )
}

fn board(state: &mut LadderState, ui: &mut Ui, wake: &dyn Fn() -> Waker) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Leaderboard").strong());
        if ui.small_button("Reload").clicked() {
            state.reload(wake());
        }
        if state.loading {
            ui.small("reading…");
        }
    });
    let Some(board) = &state.board else {
        ui.small("No ladder yet: rating a bot creates it (seeded with the sample bots).");
        return;
    };
    ui.small(format!(
        "{} games · Elo, {} = 0 · ± is the 95 % interval",
        board.games,
        board.anchor.as_deref().unwrap_or("no anchor yet")
    ));
    let mut chosen = None;
    // The table fits the Ladder tab's panel at 1024×700; a narrower one scrolls sideways rather
    // than cutting it.
    let ((), overflow) = super::matches::sideways_table_fits(ui, "ladder table", |ui| {
        // Narrow columns (rank, failures) take their text's width, not a button's.
        let narrowest = ui.spacing().interact_size.y;
        Grid::new("ladder").striped(true).num_columns(7).min_col_width(narrowest).show(ui, |ui| {
            // Short headers: the line above says what Elo and ± mean, the hover text again.
            for (header, hover) in [
                ("#", "Rank"),
                ("Bot", "The bot's name (hover a name for its library)"),
                ("Ver", "The bot's version in the ladder (a changed library is a new version)"),
                ("Elo", "Elo from the anchor (held at 0) ± the 95 % interval"),
                ("Games", "Games played in the ladder"),
                ("Score", "Points per game"),
                ("Fail", "Games lost by a crash, timeout, illegal move or load failure"),
            ] {
                ui.label(RichText::new(header).strong()).on_hover_text(hover);
            }
            ui.end_row();
            for row in &board.rows {
                ui.label(row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned()));
                let selected = state.chosen == Some(row.entry);
                let name = ui
                    .selectable_label(selected, &row.name)
                    .on_hover_text(&row.locator)
                    .accessible_name(format!("Games of {}", row.name));
                if name.clicked() {
                    chosen = Some(row.entry);
                }
                ui.label(format!("v{}", row.version)).on_hover_text(format!("SHA-256 {}…", row.hash));
                ui.label(row.rating_text());
                ui.label(row.games.to_string());
                ui.label(row.score.map(|s| format!("{:.0} %", 100.0 * s)).unwrap_or_default());
                let failures = ui.label(row.failures.to_string());
                if row.failures > 0 {
                    failures.on_hover_text("games lost by a crash, timeout, illegal move or load failure");
                }
                ui.end_row();
            }
        });
    });
    state.table_overflow = overflow;
    if let Some(entry) = chosen {
        state.chosen = Some(entry);
        state.games.clear();
        state.load_games(entry, wake());
    }
}

fn games(state: &mut LadderState, ui: &mut Ui) -> Option<Action> {
    let entry = state.chosen?;
    ui.separator();
    let name = state.names.get(&entry).cloned().unwrap_or_default();
    ui.label(RichText::new(format!("Games of {name}")).strong());
    let mut replayed = None;
    for game in state.games.iter().take(MAX_LISTED_GAMES) {
        let black = state.names.get(&game.black).map_or("?", String::as_str);
        let white = state.names.get(&game.white).map_or("?", String::as_str);
        let result = match game.black_score {
            s if s > 0.75 => "1–0",
            s if s < 0.25 => "0–1",
            _ => "½–½",
        };
        let termination = if game.termination == "normal" { String::new() } else { format!(" ({})", game.termination) };
        ui.horizontal(|ui| {
            let button = ui.small_button("Replay").accessible_name(format!("Replay game {}", game.id));
            ui.small(format!("{black} – {white} {result}{termination}"));
            if button.clicked() {
                replayed = Some(game.clone());
            }
        });
    }
    if state.games.len() > MAX_LISTED_GAMES {
        ui.small(format!("… and {} older games", state.games.len() - MAX_LISTED_GAMES));
    }
    replayed.map(|game| replay(state, &game))
}
