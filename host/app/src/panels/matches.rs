//! Matches between two bots and round robins, run in the background by the arena engine (the
//! same as `othello match` / `othello tournament`), with progress and an ETA, a live cross-table
//! with honest Elo, any running game watched live and any finished one replayed on the board, and
//! export of the finished games as GGF.
//!
//! The panel keeps what it shows itself: the running games (from the engine's live moves) and the
//! last [`MAX_KEPT_GAMES`] finished ones; it does not rely on the engine's summary holding games.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use egui::{Grid, RichText, Ui};

use crate::game::{Ending, Game};
use crate::players::Waker;
use crate::{OthelloApp, color_name};
use othello_arena::event::stats::format_elo_finite;
use othello_arena::event::{
    ArenaEvent, EventProgress, EventSpec, FinishedGame, Format, OpeningSource, Participant, RunOptions, RunSummary,
    Standings,
};
use othello_arena::ggf;
use othello_arena::seat::Seating;

/// Most games per pairing offered.
const MAX_GAMES: u32 = 10_000;
/// Most round-robin rounds offered.
const MAX_ROUNDS: u32 = 100;
/// Most games played at once.
const MAX_CONCURRENCY: usize = 16;
/// The seed of the random openings.
const OPENING_SEED: u64 = 1;
/// Finished games kept for replay and export (older ones still count in the standings).
pub const MAX_KEPT_GAMES: usize = 2_000;
/// Finished games listed in the panel (the most recent; all kept ones can be exported).
const LISTED_FINISHED: usize = 50;
/// Longest time per move offered, in milliseconds.
const MAX_TIME_PER_MOVE_MS: u64 = 600_000;

/// Match between the first two chosen bots, or round robin between all chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    RoundRobin,
}

// Sent through a channel one at a time: a finished game (with its pair number) is larger than a
// summary, which is not worth a box per event.
#[allow(clippy::large_enum_variant)]
enum Progress {
    Event(ArenaEvent),
    Done(RunSummary),
}

/// An event running on its thread.
struct Running {
    stop: Arc<AtomicBool>,
    progress: Receiver<Progress>,
}

impl Drop for Running {
    /// An event nobody follows any more (the app is gone) stops, and its bots with it.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// A game of the event being played now.
pub struct LiveGame {
    /// Participant indices.
    pub black: usize,
    pub white: usize,
    pub game: Game,
}

/// The match game on the board instead of the Play game.
pub struct Viewer {
    /// The game's number in the schedule (0-based).
    pub index: usize,
    pub names: [String; 2],
    /// The game as far as it has been played; it follows the live moves while running.
    pub game: Game,
    /// Moves listed last (the list scrolls to a new one).
    listed: usize,
}

/// The Matches panel's state.
pub struct MatchesState {
    /// Libraries chosen to take part, in order.
    chosen: Vec<PathBuf>,
    /// The level chosen for each library with levels (default: its strongest).
    levels: HashMap<PathBuf, u32>,
    /// The games being played now, by index.
    live: BTreeMap<usize, LiveGame>,
    /// The participants' names of the running (or last) event.
    names: Vec<String>,
    /// When the event started (for the ETA).
    started_at: Option<Instant>,
    viewer: Option<Viewer>,
    kind: Kind,
    running: Option<Running>,
    /// The event being run or last run.
    spec: Option<EventSpec>,
    /// What the running (or last) event has done so far.
    progress: Option<EventProgress>,
    /// The last finished games (at most [`MAX_KEPT_GAMES`]), in the order they finished.
    finished: VecDeque<FinishedGame>,
    standings: Option<Standings>,
    status: String,
    export_path: String,
}

impl Default for MatchesState {
    fn default() -> MatchesState {
        MatchesState {
            chosen: Vec::new(),
            levels: HashMap::new(),
            live: BTreeMap::new(),
            names: Vec::new(),
            started_at: None,
            viewer: None,
            kind: Kind::Match,
            running: None,
            spec: None,
            progress: None,
            finished: VecDeque::new(),
            standings: None,
            status: String::new(),
            export_path: "match.ggf".to_owned(),
        }
    }
}

impl MatchesState {
    /// Takes the running event's progress.
    pub fn update(&mut self) {
        let Some(running) = &self.running else { return };
        let mut changed = false;
        loop {
            match running.progress.try_recv() {
                Ok(Progress::Event(event)) => {
                    if let Some(progress) = &mut self.progress {
                        progress.record(&event);
                    }
                    match event {
                        ArenaEvent::GameStarted { index, black, white, position } => {
                            self.live.insert(index, LiveGame { black, white, game: Game::new(position) });
                        }
                        ArenaEvent::Moved { index, record, .. } => {
                            if let Some(live) = self.live.get_mut(&index) {
                                let _ = live.game.play(record.mv, Some(record.elapsed), record.info);
                            }
                            if let Some(viewer) = self.viewer.as_mut().filter(|v| v.index == index) {
                                let _ = viewer.game.play(record.mv, Some(record.elapsed), record.info);
                            }
                        }
                        ArenaEvent::GameFinished(game) => {
                            self.live.remove(&game.index);
                            if let Some(viewer) = self.viewer.as_mut().filter(|v| v.index == game.index) {
                                viewer.game = game_of(&game);
                                viewer.game.view_last();
                            }
                            if self.finished.len() == MAX_KEPT_GAMES {
                                self.finished.pop_front();
                            }
                            self.finished.push_back(game);
                            changed = true;
                        }
                        ArenaEvent::SprtDecided { decision, llr } => {
                            self.status = format!("SPRT decided: {decision:?} (LLR {llr:.2})");
                        }
                    }
                }
                Ok(Progress::Done(summary)) => {
                    let played = self.progress.as_ref().map_or(0, EventProgress::finished);
                    self.status = if summary.unplayed > 0 {
                        format!("Stopped: {played} games played, {} not played", summary.unplayed)
                    } else {
                        format!("Finished: {played} games")
                    };
                    self.live.clear();
                    self.running = None;
                    break;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.status = "The match stopped unexpectedly".to_owned();
                    self.running = None;
                    break;
                }
            }
        }
        if changed && let Some(progress) = &self.progress {
            self.standings = Some(progress.standings());
        }
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The finished games of the current (or last) event the panel keeps (the most recent
    /// [`MAX_KEPT_GAMES`]), in the order they finished.
    pub fn finished(&self) -> Vec<&FinishedGame> {
        self.finished.iter().collect()
    }

    /// The games being played now.
    pub fn live_games(&self) -> &BTreeMap<usize, LiveGame> {
        &self.live
    }

    /// The match game on the board, if one is watched or replayed.
    pub fn viewer(&self) -> Option<&Viewer> {
        self.viewer.as_ref()
    }

    /// Shows game `index` on the board: live if it is running, replayed if it is kept.
    pub fn watch(&mut self, index: usize) {
        let name = |i: usize| self.names.get(i).cloned().unwrap_or_default();
        if let Some(live) = self.live.get(&index) {
            let mut game = live.game.clone();
            game.view_last();
            self.viewer = Some(Viewer { index, names: [name(live.black), name(live.white)], game, listed: 0 });
        } else if let Some(done) = self.finished.iter().find(|g| g.index == index) {
            let mut game = game_of(done);
            game.view_first();
            let names = [done.record.black.clone(), done.record.white.clone()];
            self.viewer = Some(Viewer { index, names, game, listed: 0 });
        }
    }

    /// Back to the Play game on the board.
    pub fn close_viewer(&mut self) {
        self.viewer = None;
    }

    /// Estimated time until the event ends, once a game has finished.
    pub fn eta(&self) -> Option<Duration> {
        let progress = self.progress.as_ref()?;
        let started = self.started_at?;
        let done = progress.finished();
        if done == 0 || self.running.is_none() {
            return None;
        }
        let left = progress.scheduled().saturating_sub(done) as f64;
        Some(started.elapsed().mul_f64(left / done as f64))
    }

    /// The standings of the current (or last) event.
    pub fn standings(&self) -> Option<&Standings> {
        self.standings.as_ref()
    }

    fn start(&mut self, spec: EventSpec, concurrency: usize, seating: &Seating, wake: Waker) {
        // Live moves: any running game can be watched (a few events per move, no cost to speak of
        // at the speeds people watch).
        let options = RunOptions { seating: seating.clone(), concurrency, live_moves: true, affinity: false };
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, events) = channel();
        let thread_spec = spec.clone();
        let thread_stop = stop.clone();
        let spawned = std::thread::Builder::new().name("match".into()).spawn(move || {
            let summary = othello_arena::event::run(&thread_spec, &options, Vec::new(), &thread_stop, &mut |event| {
                let _ = tx.send(Progress::Event(event));
                wake();
            });
            let _ = tx.send(Progress::Done(summary));
            wake();
        });
        match spawned {
            Ok(_) => {
                let progress = EventProgress::new(&spec, &[]);
                self.standings = Some(progress.standings());
                self.progress = Some(progress);
                self.finished.clear();
                self.live.clear();
                self.viewer = None;
                self.names = spec.participants.iter().map(|p| p.name.clone()).collect();
                self.started_at = Some(Instant::now());
                self.spec = Some(spec);
                self.status = "Running…".to_owned();
                self.running = Some(Running { stop, progress: events });
            }
            Err(e) => self.status = format!("Cannot start the match: {e}"),
        }
    }

    fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::SeqCst);
            self.status = "Stopping: the games in progress are abandoned…".to_owned();
        }
    }

    /// Stops the running event and waits (at most `limit`) until its bots' runners are ended, so
    /// none outlives the app.
    pub(crate) fn stop_and_wait(&mut self, limit: Duration) {
        self.stop();
        if let Some(running) = self.running.take() {
            let deadline = Instant::now() + limit;
            while let Ok(progress) = running.progress.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                if matches!(progress, Progress::Done(_)) {
                    break;
                }
            }
        }
    }

    /// Writes the finished games as GGF, one per line.
    fn export(&self) -> Result<String, String> {
        let mut games: Vec<&FinishedGame> = self.finished.iter().collect();
        // Kept games only: the export says how many.
        games.sort_by_key(|g| g.index);
        let text: String = games.iter().map(|g| ggf::write_game(&g.record) + "\n").collect();
        let path = PathBuf::from(self.export_path.trim());
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("{} games written to {}", games.len(), path.display()))
    }
}

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Matches");
    let running = app.matches.is_running();
    ui.add_enabled_ui(!running, |ui| setup(app, ui));
    ui.horizontal(|ui| {
        if running {
            if ui.button("Stop match").clicked() {
                app.matches.stop();
            }
        } else {
            let ready = participants(app).len() >= 2;
            let start = ui.add_enabled(ready, egui::Button::new("Start match"));
            if !ready {
                start.on_hover_text("Choose at least two bots");
            } else if start.clicked() {
                let spec = event_spec(app);
                let wake = (crate::waker_factory(&app.egui_ctx))();
                let seating = app.session.seating().clone();
                let concurrency = app.settings.matches.concurrency;
                app.matches.start(spec, concurrency, &seating, wake);
            }
        }
    });
    progress(app, ui);
}

fn setup(app: &mut OthelloApp, ui: &mut Ui) {
    let state = &mut app.matches;
    let options = &mut app.settings.matches;
    ui.horizontal(|ui| {
        ui.selectable_value(&mut state.kind, Kind::Match, "Match (2 bots)");
        ui.selectable_value(&mut state.kind, Kind::RoundRobin, "Round robin");
    });
    ui.label("Bots:");
    let usable: Vec<(PathBuf, String, u32)> = app
        .catalog
        .entries()
        .iter()
        .filter(|e| e.is_ok())
        .map(|e| (e.path.clone(), e.name.clone(), e.levels))
        .collect();
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
fn participants(app: &OthelloApp) -> Vec<Participant> {
    let limit = if app.matches.kind == Kind::Match { 2 } else { usize::MAX };
    let mut names: Vec<String> = Vec::new();
    app.matches
        .chosen
        .iter()
        .take(limit)
        .filter_map(|path| app.catalog.entry(path))
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
                .then(|| app.matches.levels.get(&entry.path).copied().unwrap_or(entry.levels).clamp(1, entry.levels));
            Participant { name, library: entry.path.clone(), level }
        })
        .collect()
}

fn event_spec(app: &OthelloApp) -> EventSpec {
    let options = &app.settings.matches;
    let format = match app.matches.kind {
        Kind::Match => Format::Match { games: options.games },
        Kind::RoundRobin => Format::Tournament { rounds: options.rounds, games_per_pair: options.games },
    };
    let openings = if options.opening_plies == 0 {
        OpeningSource::None
    } else {
        OpeningSource::Random { plies: options.opening_plies }
    };
    EventSpec {
        participants: participants(app),
        format,
        openings,
        seed: OPENING_SEED,
        time_limit_ms: (options.time_per_move_ms > 0).then_some(options.time_per_move_ms),
        sprt: None,
    }
}

fn progress(app: &mut OthelloApp, ui: &mut Ui) {
    let state = &mut app.matches;
    if state.spec.is_none() {
        return;
    }
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
        egui::ScrollArea::horizontal().id_salt("standings").show(ui, |ui| standings_table(ui, standings));
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
        match message {
            Some(Ok(text)) => app.show_info(text),
            Some(Err(text)) => app.show_error(text),
            None => {}
        }
    }
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
            ui.label(format_elo_finite(wdl));
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
    egui::ScrollArea::horizontal().id_salt("cross table").show(ui, |ui| {
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

/// "1 h 05 min", "3 min 20 s", "12 s".
fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {:02} s", seconds / 60, seconds % 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The game of a finished event game, with its result.
fn game_of(finished: &FinishedGame) -> Game {
    let record = &finished.record;
    let mut game = Game::new(record.start);
    for played in &record.moves {
        if game.play(played.mv, Some(played.elapsed), played.info).is_err() {
            break; // a record the referee wrote is legal; stop rather than show nonsense
        }
    }
    if !game.is_over() {
        game.end(Ending::from_outcome(&record.result));
    }
    game
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

/// The board of the watched match game (no moves can be made on it).
pub fn show_viewer_board(app: &mut OthelloApp, ui: &mut Ui) {
    let Some(viewer) = &app.matches.viewer else { return };
    let view = crate::board_view(&viewer.game, othello_sdk::Bitboard::EMPTY, false, 1.0, app.settings().orientation);
    ui.vertical_centered(|ui| view.show(ui));
}

/// The right panel while a match game is on the board: who plays, the score, the result, the
/// evaluations and the moves.
pub fn show_viewer_info(app: &mut OthelloApp, ui: &mut Ui) {
    let running = app.matches.running.is_some();
    let Some(viewer) = &mut app.matches.viewer else { return };
    let live = app.matches.live.contains_key(&viewer.index);
    ui.horizontal_wrapped(|ui| {
        let state = if live { "live" } else { "replay" };
        ui.heading(format!("Match game {} ({state})", viewer.index + 1));
    });
    if ui.button("Back to my game").on_hover_text("Show the Play game on the board").clicked() {
        app.matches.viewer = None;
        return;
    }
    let _ = running;
    if let Some(result) = viewer.game.result() {
        super::status::result_banner(ui, &result);
    }
    let game = &viewer.game;
    let turn = game.is_viewing_live().then(|| game.to_move()).flatten().filter(|_| live);
    super::status::score_row(ui, &game.viewed(), turn, &viewer.names);
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
    super::status::search_readout(ui, game);
    ui.separator();
    super::eval_graph::show_game(&mut viewer.game, ui);
    ui.separator();
    ui.heading("Moves");
    super::moves::navigation(&mut viewer.game, ui);
    super::moves::list(&mut viewer.game, &mut viewer.listed, ui);
}
