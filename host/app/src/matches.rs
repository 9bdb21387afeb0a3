//! Matches between two bots and round robins, run in the background by the arena engine (the
//! same as `othello match` / `othello tournament`): the worker thread, its progress, the live and
//! finished games, the game watched or replayed, and the export as GGF. The view is
//! `panels::matches`.
//!
//! The state keeps what the panel shows itself: the running games (from the engine's live moves) and the
//! last [`MAX_KEPT_GAMES`] finished ones; it does not rely on the engine's summary holding games.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use crate::game::{Ending, Game};
use crate::players::Waker;
use othello_arena::event::{ArenaEvent, EventProgress, EventSpec, FinishedGame, RunOptions, RunSummary, Standings};
use othello_arena::ggf;
use othello_arena::seat::Seating;

/// Finished games kept for replay and export (older ones still count in the standings).
pub const MAX_KEPT_GAMES: usize = 2_000;

/// Match between the first two chosen bots, or round robin between all chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Match,
    RoundRobin,
}

// Sent through a channel one at a time: a finished game (with its pair number) is larger than a
// summary, which is not worth a box per event.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Progress {
    Event(ArenaEvent),
    Done(RunSummary),
}

/// An event running on its thread.
pub(crate) struct Running {
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) progress: Receiver<Progress>,
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

/// A game on the board instead of the Play game: a match game watched or replayed, or a ladder
/// game replayed. The player's game is kept meanwhile.
pub struct Viewer {
    /// The game's number in the schedule (0-based), or the ladder game's id.
    pub index: usize,
    pub names: [String; 2],
    /// The game as far as it has been played; it follows the live moves while running.
    pub game: Game,
    /// Moves listed last (the list scrolls to a new one).
    pub(crate) listed: crate::panels::moves::Followed,
}

/// The Matches panel's state.
pub struct MatchesState {
    /// Libraries chosen to take part, in order.
    pub(crate) chosen: Vec<PathBuf>,
    /// The level chosen for each library with levels (default: its strongest).
    pub(crate) levels: HashMap<PathBuf, u32>,
    /// The games being played now, by index.
    pub(crate) live: BTreeMap<usize, LiveGame>,
    /// The participants' names of the running (or last) event.
    pub(crate) names: Vec<String>,
    /// When the event started (for the ETA).
    pub(crate) started_at: Option<Instant>,
    pub(crate) viewer: Option<Viewer>,
    pub(crate) kind: Kind,
    pub(crate) running: Option<Running>,
    /// The event being run or last run.
    pub(crate) spec: Option<EventSpec>,
    /// What the running (or last) event has done so far.
    pub(crate) progress: Option<EventProgress>,
    /// The last finished games (at most [`MAX_KEPT_GAMES`]), in the order they finished.
    pub(crate) finished: VecDeque<FinishedGame>,
    pub(crate) standings: Option<Standings>,
    pub(crate) status: String,
    pub(crate) export_path: String,
    /// How much wider than its panel the standings were at the last frame (0 when they fitted).
    pub(crate) table_overflow: f32,
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
            table_overflow: 0.0,
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

    /// The bots chosen for the next event, in their order.
    pub fn chosen(&self) -> &[PathBuf] {
        &self.chosen
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
            self.viewer =
                Some(Viewer { index, names: [name(live.black), name(live.white)], game, listed: Default::default() });
        } else if let Some(done) = self.finished.iter().find(|g| g.index == index) {
            let mut game = game_of(done);
            game.view_first();
            let names = [done.record.black.clone(), done.record.white.clone()];
            self.viewer = Some(Viewer { index, names, game, listed: Default::default() });
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

    pub(crate) fn start(&mut self, spec: EventSpec, concurrency: usize, seating: &Seating, wake: Waker) {
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

    pub(crate) fn stop(&mut self) {
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
    pub(crate) fn export(&self) -> Result<String, String> {
        let mut games: Vec<&FinishedGame> = self.finished.iter().collect();
        // Kept games only: the export says how many.
        games.sort_by_key(|g| g.index);
        let text: String = games.iter().map(|g| ggf::write_game(&g.record) + "\n").collect();
        let path = PathBuf::from(self.export_path.trim());
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("{} games written to {}", games.len(), path.display()))
    }
}

/// The game of a finished event game, with its result.
pub(crate) fn game_of(finished: &FinishedGame) -> Game {
    let record = &finished.record;
    // The random opening's moves come first, marked as the opening, when they lead to the start.
    let mut game = Game::default();
    for &mv in &record.opening {
        if game.play(mv, None, None).is_err() {
            break;
        }
    }
    if game.live() == record.start && !record.opening.is_empty() {
        game.mark_opening();
    } else {
        game = Game::new(record.start);
    }
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
