//! Matches between two bots and round robins, run in the background by the arena engine (the
//! same as `othello match` / `othello tournament`), with progress, a live cross-table with
//! Elo ± error, and export of the finished games as GGF.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use egui::{Grid, RichText, Ui};

use crate::OthelloApp;
use crate::players::Waker;
use othello_arena::event::stats::format_elo;
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

/// Match between the first two chosen bots, or round robin between all chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    RoundRobin,
}

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

/// The Matches panel's state.
pub struct MatchesState {
    /// Libraries chosen to take part, in order.
    chosen: Vec<PathBuf>,
    kind: Kind,
    running: Option<Running>,
    /// The event being run or last run.
    spec: Option<EventSpec>,
    /// What the running (or last) event has done so far.
    progress: Option<EventProgress>,
    finished: Vec<FinishedGame>,
    standings: Option<Standings>,
    status: String,
    export_path: String,
}

impl Default for MatchesState {
    fn default() -> MatchesState {
        MatchesState {
            chosen: Vec::new(),
            kind: Kind::Match,
            running: None,
            spec: None,
            progress: None,
            finished: Vec::new(),
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
                        ArenaEvent::GameFinished(game) => {
                            self.finished.push(game);
                            changed = true;
                        }
                        ArenaEvent::SprtDecided { decision, llr } => {
                            self.status = format!("SPRT decided: {decision:?} (LLR {llr:.2})");
                        }
                        ArenaEvent::GameStarted { .. } | ArenaEvent::Moved { .. } => {}
                    }
                }
                Ok(Progress::Done(summary)) => {
                    self.status = if summary.unplayed > 0 {
                        format!("Stopped: {} games played, {} not played", summary.games.len(), summary.unplayed)
                    } else {
                        format!("Finished: {} games", summary.games.len())
                    };
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

    /// Games of the current (or last) event finished so far.
    pub fn finished(&self) -> &[FinishedGame] {
        &self.finished
    }

    /// The standings of the current (or last) event.
    pub fn standings(&self) -> Option<&Standings> {
        self.standings.as_ref()
    }

    fn start(&mut self, spec: EventSpec, concurrency: usize, seating: &Seating, wake: Waker) {
        let options = RunOptions { seating: seating.clone(), concurrency, live_moves: false };
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
    let usable: Vec<(PathBuf, String)> =
        app.catalog.entries().iter().filter(|e| e.is_ok()).map(|e| (e.path.clone(), e.name.clone())).collect();
    if usable.is_empty() {
        ui.small("No usable bots found (see Plugins).");
    }
    for (path, name) in &usable {
        let mut on = state.chosen.contains(path);
        let order = state.chosen.iter().position(|p| p == path).map(|i| format!(" ({})", i + 1)).unwrap_or_default();
        if ui.checkbox(&mut on, format!("{name}{order}")).on_hover_text(path.display().to_string()).changed() {
            if on {
                state.chosen.push(path.clone());
            } else {
                state.chosen.retain(|p| p != path);
            }
        }
    }
    state.chosen.retain(|p| usable.iter().any(|(u, _)| u == p));
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
    });
    ui.small(format!(
        "Time per move: {} (from Players)",
        match app.settings.time_per_move_ms {
            0 => "unlimited".to_owned(),
            ms => format!("{ms} ms"),
        }
    ));
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
            Participant { name, library: entry.path.clone(), level: (entry.levels > 0).then_some(entry.levels) }
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
        time_limit_ms: (app.settings.time_per_move_ms > 0).then_some(app.settings.time_per_move_ms),
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
    if !state.status.is_empty() {
        ui.label(&state.status);
    }
    if let Some(standings) = &state.standings {
        standings_table(ui, standings);
    }
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
        for header in ["#", "Bot", "Pts", "W-D-L", "Elo ± 95%", "Fail"] {
            ui.label(RichText::new(header).strong());
        }
        ui.end_row();
        for (rank, row) in standings.rows.iter().enumerate() {
            let wdl = row.score.wdl;
            ui.label(format!("{}", rank + 1));
            ui.label(&row.name);
            ui.label(format!("{:.1}", row.points));
            ui.label(format!("{}-{}-{}", wdl.wins, wdl.draws, wdl.losses));
            ui.label(format_elo(wdl.elo().filter(|_| row.games > 0), row.elo_error));
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

impl MatchesState {
    /// The match game shown on the board (stub).
    pub fn viewer(&self) -> Option<()> {
        None
    }
}

pub fn show_viewer_info(_app: &mut OthelloApp, _ui: &mut Ui) {}
pub fn show_viewer_board(_app: &mut OthelloApp, _ui: &mut Ui) {}
