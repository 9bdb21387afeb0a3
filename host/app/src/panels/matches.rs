//! The Matches tab: choose the bots and the event, start and stop it, progress and an ETA, a live
//! cross-table with honest Elo, the running and finished games (watch live, replay), and export.
//! The running event is `crate::matches`; this module only draws it.

use std::path::PathBuf;
use std::time::Duration;

use egui::{Grid, RichText, Ui};

use super::Shared;
use crate::catalog::Catalog;
use crate::matches::{Kind, MatchesState, Viewer};
use crate::settings::MatchOptions;
use crate::{Action, color_name};
use othello_arena::event::stats::format_elo_finite;
use othello_arena::event::{EventSpec, Format, OpeningSource, Participant, Standings};

/// Most games per pairing offered.
const MAX_GAMES: u32 = 10_000;
/// Most round-robin rounds offered.
const MAX_ROUNDS: u32 = 100;
/// Most games played at once.
const MAX_CONCURRENCY: usize = 16;
/// The seed of the random openings.
const OPENING_SEED: u64 = 1;
/// Finished games listed in the panel (the most recent; all kept ones can be exported).
const LISTED_FINISHED: usize = 50;
/// Longest time per move offered, in milliseconds.
const MAX_TIME_PER_MOVE_MS: u64 = 600_000;

/// The Matches panel: its own state (the event and its worker) and its saved options, edited
/// here; the rest of the app read through `shared`. Returns what the message line should say.
pub fn show(state: &mut MatchesState, options: &mut MatchOptions, shared: &Shared<'_>, ui: &mut Ui) -> Option<Action> {
    ui.heading("Matches");
    let running = state.is_running();
    ui.add_enabled_ui(!running, |ui| setup(state, options, shared.catalog, ui));
    ui.horizontal(|ui| {
        if running {
            if ui.button("Stop match").clicked() {
                state.stop();
            }
        } else {
            let ready = participants(state, shared.catalog).len() >= 2;
            let start = ui.add_enabled(ready, egui::Button::new("Start match"));
            if !ready {
                start.on_hover_text("Choose at least two bots");
            } else if start.clicked() {
                let spec = event_spec(state, options, shared.catalog);
                state.start(spec, options.concurrency, shared.seating, (shared.wake)());
            }
        }
    });
    progress(state, ui)
}

fn setup(state: &mut MatchesState, options: &mut MatchOptions, catalog: &Catalog, ui: &mut Ui) {
    ui.horizontal(|ui| {
        ui.selectable_value(&mut state.kind, Kind::Match, "Match (2 bots)");
        ui.selectable_value(&mut state.kind, Kind::RoundRobin, "Round robin");
    });
    ui.label("Bots:");
    let usable: Vec<(PathBuf, String, u32)> =
        catalog.entries().iter().filter(|e| e.is_ok()).map(|e| (e.path.clone(), e.name.clone(), e.levels)).collect();
    if usable.is_empty() {
        ui.small("No usable bots found (see Plugins).");
    }
    for (path, name, levels) in &usable {
        let mut on = state.chosen.contains(path);
        let order = state.chosen.iter().position(|p| p == path).map(|i| format!(" ({})", i + 1)).unwrap_or_default();
        ui.horizontal_wrapped(|ui| {
            if ui.checkbox(&mut on, format!("{name}{order}")).on_hover_text(path.display().to_string()).changed() {
                if on {
                    state.chosen.push(path.clone());
                } else {
                    state.chosen.retain(|p| p != path);
                }
            }
            if on && *levels > 0 {
                let level = state.levels.entry(path.clone()).or_insert(*levels);
                ui.label("level");
                ui.add(egui::DragValue::new(level).range(1..=*levels))
                    .accessible_name(format!("Level of {name}"))
                    .on_hover_text(crate::levels::describe(name, *level, *levels));
            }
        });
    }
    state.chosen.retain(|p| usable.iter().any(|(u, _, _)| u == p));
    Grid::new("match options").num_columns(2).show(ui, |ui| {
        ui.label("Games per pairing");
        ui.add(egui::DragValue::new(&mut options.games).range(1..=MAX_GAMES)).accessible_name("Games per pairing");
        ui.end_row();
        if state.kind == Kind::RoundRobin {
            ui.label("Rounds");
            ui.add(egui::DragValue::new(&mut options.rounds).range(1..=MAX_ROUNDS)).accessible_name("Rounds");
            ui.end_row();
        }
        ui.label("Random opening plies");
        ui.add(
            egui::DragValue::new(&mut options.opening_plies)
                .range(0..=othello_arena::event::openings::MAX_RANDOM_PLIES),
        )
        .accessible_name("Random opening plies");
        ui.end_row();
        ui.label("Games at once");
        ui.add(egui::DragValue::new(&mut options.concurrency).range(1..=MAX_CONCURRENCY))
            .accessible_name("Games at once");
        ui.end_row();
        ui.label("Time per move");
        ui.add(
            egui::DragValue::new(&mut options.time_per_move_ms)
                .range(0..=MAX_TIME_PER_MOVE_MS)
                .suffix(" ms")
                .speed(10.0),
        )
        .accessible_name("Match time per move")
        .on_hover_text("For this match's bots; 0 = unlimited");
        ui.end_row();
    });
}

/// The chosen bots that take part (the first two for a match).
fn participants(state: &MatchesState, catalog: &Catalog) -> Vec<Participant> {
    let limit = if state.kind == Kind::Match { 2 } else { usize::MAX };
    let mut names: Vec<String> = Vec::new();
    state
        .chosen
        .iter()
        .take(limit)
        .filter_map(|path| catalog.entry(path))
        .map(|entry| {
            // Names must be unique in an event.
            let mut name = entry.name.clone();
            let mut n = 2;
            while names.contains(&name) {
                name = format!("{} #{n}", entry.name);
                n += 1;
            }
            names.push(name.clone());
            let level = (entry.levels > 0)
                .then(|| state.levels.get(&entry.path).copied().unwrap_or(entry.levels).clamp(1, entry.levels));
            Participant { name, library: entry.path.clone(), level }
        })
        .collect()
}

fn event_spec(state: &MatchesState, options: &MatchOptions, catalog: &Catalog) -> EventSpec {
    let format = match state.kind {
        Kind::Match => Format::Match { games: options.games },
        Kind::RoundRobin => Format::Tournament { rounds: options.rounds, games_per_pair: options.games },
    };
    let openings = if options.opening_plies == 0 {
        OpeningSource::None
    } else {
        OpeningSource::Random { plies: options.opening_plies }
    };
    EventSpec {
        participants: participants(state, catalog),
        format,
        openings,
        seed: OPENING_SEED,
        time_limit_ms: (options.time_per_move_ms > 0).then_some(options.time_per_move_ms),
        sprt: None,
    }
}

fn progress(state: &mut MatchesState, ui: &mut Ui) -> Option<Action> {
    state.spec.as_ref()?;
    ui.separator();
    let (done, scheduled) = state.progress.as_ref().map_or((0, 0), |p| (p.finished(), p.scheduled()));
    let fraction = if scheduled == 0 { 0.0 } else { done as f32 / scheduled as f32 };
    ui.add(egui::ProgressBar::new(fraction).text(format!("{done} / {scheduled} games")));
    if state.running.is_some() {
        let eta = match state.eta() {
            Some(left) => format!("About {} left", format_duration(left)),
            None => "Time left: estimating after the first game…".to_owned(),
        };
        ui.label(eta);
    }
    if !state.status.is_empty() {
        ui.label(&state.status);
    }
    if let Some(standings) = &state.standings {
        let ((), overflow) = sideways_table_fits(ui, "standings", |ui| standings_table(ui, standings));
        state.table_overflow = overflow;
    }
    games_list(state, ui);
    if done > 0 {
        let mut message = None;
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut state.export_path).desired_width(150.0))
                .accessible_name("Export file");
            if ui.button("Export GGF").clicked() {
                message = Some(state.export());
            }
        });
        return message.map(|said| said.map_or_else(Action::Refuse, Action::Tell));
    }
    None
}

fn standings_table(ui: &mut Ui, standings: &Standings) {
    ui.label(RichText::new("Standings").strong());
    Grid::new("standings").striped(true).num_columns(6).show(ui, |ui| {
        for header in ["#", "Bot", "Pts", "W-D-L", "Elo (95%)", "Fail"] {
            ui.label(RichText::new(header).strong());
        }
        ui.end_row();
        for (rank, row) in standings.rows.iter().enumerate() {
            let wdl = row.score.wdl;
            ui.label(format!("{}", rank + 1));
            ui.label(&row.name);
            ui.label(format!("{:.1}", row.points));
            ui.label(format!("{}-{}-{}", wdl.wins, wdl.draws, wdl.losses));
            ui.label(elo_in_words(wdl));
            ui.label(row.failures.to_string());
            ui.end_row();
        }
    });
    if standings.cross.len() < 2 {
        return;
    }
    ui.add_space(4.0);
    ui.label(RichText::new("Cross-table (row vs column, W-D-L)").strong());
    let order: Vec<usize> = standings.rows.iter().map(|r| r.participant).collect();
    let name = |i: usize| standings.rows.iter().find(|r| r.participant == i).map_or("?", |r| r.name.as_str());
    sideways_table(ui, "cross table", |ui| {
        Grid::new("cross").striped(true).num_columns(order.len() + 1).show(ui, |ui| {
            ui.label("");
            for &j in &order {
                ui.label(RichText::new(name(j)).strong());
            }
            ui.end_row();
            for &i in &order {
                ui.label(RichText::new(name(i)).strong());
                for &j in &order {
                    if i == j {
                        ui.label("—");
                    } else {
                        let w = standings.cross[i][j].wdl;
                        ui.label(format!("{}-{}-{}", w.wins, w.draws, w.losses));
                    }
                }
                ui.end_row();
            }
        });
    });
}

/// The arena's Elo text with a one-sided bound said in words: "at least -216, no losses yet"
/// rather than "> -216", which a 2–0 winner reads backwards.
fn elo_in_words(wdl: othello_arena::event::stats::Wdl) -> String {
    let text = format_elo_finite(wdl);
    if let Some(bound) = text.strip_prefix("> ") {
        format!("at least {bound}")
    } else if let Some(bound) = text.strip_prefix("< ") {
        format!("at most {bound}")
    } else {
        text
    }
}

/// "1 h 05 min", "3 min 20 s", "12 s".
fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {:02} s", seconds / 60, seconds % 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The running games (Watch) and the last finished ones (Replay).
fn games_list(state: &mut MatchesState, ui: &mut Ui) {
    let mut watch = None;
    if !state.live.is_empty() {
        ui.add_space(4.0);
        ui.label(RichText::new("Playing now").strong());
        for (index, live) in &state.live {
            ui.horizontal_wrapped(|ui| {
                let name = |i: usize| state.names.get(i).map_or("?", String::as_str);
                let watching = state.viewer.as_ref().is_some_and(|v| v.index == *index);
                let label = if watching { "Watching" } else { "Watch" };
                if ui.button(label).on_hover_text("Show this game on the board, live").clicked() {
                    watch = Some(*index);
                }
                ui.label(format!(
                    "{}. {} – {}, move {}",
                    index + 1,
                    name(live.black),
                    name(live.white),
                    live.game.moves().len()
                ));
            });
        }
    }
    if !state.finished.is_empty() {
        ui.add_space(4.0);
        let kept = state.finished.len();
        ui.label(RichText::new(format!("Finished games (last {})", kept.min(LISTED_FINISHED))).strong());
        egui::ScrollArea::vertical().id_salt("finished games").max_height(200.0).show(ui, |ui| {
            for done in state.finished.iter().rev().take(LISTED_FINISHED) {
                ui.horizontal_wrapped(|ui| {
                    let button = ui.button("Replay").on_hover_text("Show this game on the board");
                    let record = &done.record;
                    let [b, w] = record.result.discs;
                    let end = match record.result.failure() {
                        Some(failure) => format!(" ({})", failure.termination),
                        None => String::new(),
                    };
                    let line = format!("{}. {} {b}–{w} {}{end}", done.index + 1, record.black, record.white);
                    let response = ui.label(&line);
                    if button.clicked() {
                        watch = Some(done.index);
                    }
                    let _ = response;
                });
            }
        });
    }
    if let Some(index) = watch {
        state.watch(index);
    }
}

/// The board of a watched or replayed game (no moves can be made on it).
pub fn show_viewer_board(viewer: &Viewer, orientation: crate::Orientation, ui: &mut Ui) {
    let view = crate::board_view(&viewer.game, othello_sdk::Bitboard::EMPTY, false, 1.0, orientation);
    ui.vertical_centered(|ui| view.show(ui));
}

/// What the user asked for in the panel of a watched or replayed game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayRequest {
    Nothing,
    /// Back to the player's game.
    Back,
    /// Analyse the game on the board.
    Analyse,
}

/// The right panel while a match game is on the board.
pub fn show_viewer_info(
    state: &mut MatchesState,
    review: Option<&crate::review::GameReview>,
    view: crate::analysis::EvalView,
    ui: &mut Ui,
) -> ReplayRequest {
    let Some(viewer) = &mut state.viewer else { return ReplayRequest::Nothing };
    let live = state.live.contains_key(&viewer.index);
    let heading = format!("Match game {} ({})", viewer.index + 1, if live { "live" } else { "replay" });
    let request = replay_info(viewer, &heading, live, review, view, ui);
    if request == ReplayRequest::Back {
        state.viewer = None;
    }
    request
}

/// The right panel while a watched or replayed game is on the board: who plays, the score, the
/// result, the evaluations and the moves, with "Back to my game" and "Analyse" (a finished game).
pub fn replay_info(
    viewer: &mut Viewer,
    heading: &str,
    live: bool,
    review: Option<&crate::review::GameReview>,
    view: crate::analysis::EvalView,
    ui: &mut Ui,
) -> ReplayRequest {
    ui.horizontal_wrapped(|ui| ui.heading(heading));
    let mut request = ReplayRequest::Nothing;
    ui.horizontal_wrapped(|ui| {
        if ui.button("Back to my game").on_hover_text("Show the Play game on the board").clicked() {
            request = ReplayRequest::Back;
        }
        let analysable = !live && !viewer.game.moves().is_empty();
        if analysable
            && ui
                .button("Analyse")
                .on_hover_text("Search every position of this game with the analysis bot (Play tab)")
                .clicked()
        {
            request = ReplayRequest::Analyse;
        }
    });
    if request == ReplayRequest::Back {
        return request;
    }
    if let Some(result) = viewer.game.result() {
        super::status::result_banner(ui, &result);
    }
    let game = &viewer.game;
    let turn = game.is_viewing_live().then(|| game.to_move()).flatten().filter(|_| live);
    super::status::score_row(ui, &game.viewed(), turn, &viewer.names);
    super::status::opening_line(ui, game);
    if !game.is_viewing_live() {
        ui.label(format!("Viewing move {} of {}", game.cursor(), game.moves().len()));
    } else if let Some(color) = turn {
        ui.label(
            RichText::new(format!(
                "{} to move ({})",
                color_name(color),
                viewer.names[usize::from(color == othello_sdk::Color::White)]
            ))
            .strong(),
        );
    }
    super::status::search_readout(ui, game, view);
    ui.separator();
    // No human in a bots' game: a line for the side to move is drawn for Black.
    let mut chosen = super::eval_graph::show_game(&viewer.game, review, view.line_side(None), ui);
    chosen = super::eval_graph::show_losses(&viewer.game, review, ui).or(chosen);
    ui.separator();
    ui.heading("Moves");
    chosen = super::moves::navigation(&viewer.game, ui).or(chosen);
    chosen = super::moves::list(&viewer.game, &mut viewer.listed, review, view, "replay move list", ui).or(chosen);
    if let Some(ply) = chosen {
        viewer.game.view(ply);
    }
    request
}

/// A table that scrolls sideways in a narrow panel, its scroll bar (only when the table is wider
/// than the panel) in a strip of its own under the rows (egui's floating bar would cover the last
/// row).
pub(crate) fn sideways_table<R>(ui: &mut Ui, id: &str, table: impl FnOnce(&mut Ui) -> R) -> R {
    sideways_table_fits(ui, id, table).0
}

/// [`sideways_table`], also saying by how much the table was wider than its panel (0 if it fitted).
pub(crate) fn sideways_table_fits<R>(ui: &mut Ui, id: &str, table: impl FnOnce(&mut Ui) -> R) -> (R, f32) {
    ui.scope(|ui| {
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        let output = egui::ScrollArea::horizontal()
            .id_salt(id)
            .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::VisibleWhenNeeded)
            .show(ui, table);
        // Half a point of rounding is no overflow.
        let overflow = output.content_size.x - output.inner_rect.width();
        (output.inner, if overflow > 0.5 { overflow } else { 0.0 })
    })
    .inner
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn a_sideways_table_keeps_its_scroll_bar_off_its_last_row() {
        let mut harness = Harness::builder().with_size([160.0, 300.0]).build_ui(|ui| {
            super::sideways_table(ui, "table", |ui| {
                egui::Grid::new("rows").show(ui, |ui| {
                    ui.label("a row much wider than the narrow panel that holds the table");
                    ui.end_row();
                    ui.label("the last row");
                    ui.end_row();
                });
            });
            ui.label("below the table");
        });
        harness.run();
        let last = harness.get_by_label("the last row").rect();
        let below = harness.get_by_label("below the table").rect();
        let bar = egui::style::ScrollStyle::solid().allocated_width();
        assert!(below.top() - last.bottom() >= bar, "the bar's strip lies between: {last:?} {below:?}");
    }

    #[test]
    fn a_sideways_table_that_fits_has_no_scroll_bar() {
        let mut harness = Harness::builder().with_size([400.0, 300.0]).build_ui(|ui| {
            super::sideways_table(ui, "table", |ui| {
                egui::Grid::new("rows").show(ui, |ui| {
                    ui.label("a short row");
                    ui.end_row();
                    ui.label("the last row");
                    ui.end_row();
                });
            });
            ui.label("below the table");
        });
        harness.run();
        let last = harness.get_by_label("the last row").rect();
        let below = harness.get_by_label("below the table").rect();
        let bar = egui::style::ScrollStyle::solid().allocated_width();
        assert!(below.top() - last.bottom() < bar, "no strip for a bar: {last:?} {below:?}");
    }
}
