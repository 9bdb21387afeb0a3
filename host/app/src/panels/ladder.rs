//! The Ladder tab: the rating ladder's leaderboard, "Rate" on any usable bot of the plugin list
//! (played on a background thread that reports each game over a channel and wakes the UI), and a
//! chosen entry's games, each of which loads onto the board to replay.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use egui::{Color32, Grid, RichText, Ui};

use crate::OthelloApp;
use crate::players::Waker;
use othello_arena::plugins::PluginInfo;
use othello_arena::seat::{Seating, library_stem};
use othello_ladder::identity::{Identity, library_identity, split_level};
use othello_ladder::seed::{SAMPLE_POOL, SEED_TIME_PER_MOVE, seed_pool};
use othello_ladder::session::{DEFAULT_MAX_GAMES, DEFAULT_TARGET_ERROR};
use othello_ladder::{Ladder, Leaderboard, Placement, Progress, RateOptions, StoredGame, leaderboard, rate};

/// Games of the chosen entry listed at most (newest first).
const MAX_LISTED_GAMES: usize = 50;
/// Most games a rating session may be given here.
const MAX_GAMES_OFFERED: u32 = 10_000;
/// Loosest and tightest precision offered, in Elo.
const TARGET_ERROR_RANGE: std::ops::RangeInclusive<f64> = 5.0..=400.0;
/// The seed of a session's openings.
const OPENING_SEED: u64 = 1;

/// What the workers report.
enum Report {
    /// The leaderboard of the ladder at this path.
    Board(PathBuf, Result<Leaderboard, String>),
    Games {
        entry: i64,
        games: Result<Vec<StoredGame>, String>,
    },
    Seeding {
        games: u32,
        total: u32,
    },
    Progress(Progress),
    Rated(Box<Result<Placement, String>>),
}

/// A rating session on its thread.
struct Rating {
    bot: String,
    stop: Arc<AtomicBool>,
}

impl Drop for Rating {
    /// A session nobody follows any more (the app is gone) stops after its game.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The Ladder tab's state.
pub struct LadderState {
    path: Option<PathBuf>,
    path_input: String,
    board: Option<Leaderboard>,
    loading: bool,
    rating: Option<Rating>,
    progress: Option<Progress>,
    placement: Option<Placement>,
    seeding: Option<(u32, u32)>,
    status: Option<(String, bool)>,
    chosen: Option<i64>,
    games: Vec<StoredGame>,
    /// Entry names by id, for the games list.
    names: HashMap<i64, String>,
    /// Rating options.
    pub max_games: u32,
    pub target_error: f64,
    reports: Receiver<Report>,
    sender: Sender<Report>,
    /// Whether the board was asked for once already.
    asked: bool,
}

impl Default for LadderState {
    fn default() -> LadderState {
        let (sender, reports) = channel();
        let path = othello_ladder::paths::default_ladder_path();
        LadderState {
            path_input: path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            path,
            board: None,
            loading: false,
            rating: None,
            progress: None,
            placement: None,
            seeding: None,
            status: None,
            chosen: None,
            games: Vec::new(),
            names: HashMap::new(),
            max_games: DEFAULT_MAX_GAMES,
            target_error: DEFAULT_TARGET_ERROR,
            reports,
            sender,
            asked: false,
        }
    }
}

impl LadderState {
    /// The ladder file shown (the platform's default until another is chosen).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Shows the ladder at `path` (read again on the next frame).
    pub fn set_path(&mut self, path: PathBuf) {
        self.path_input = path.display().to_string();
        self.path = Some(path);
        self.board = None;
        self.chosen = None;
        self.games.clear();
        self.asked = false;
    }

    /// The leaderboard, once read.
    pub fn board(&self) -> Option<&Leaderboard> {
        self.board.as_ref()
    }

    pub fn is_rating(&self) -> bool {
        self.rating.is_some()
    }

    /// The running (or last) session's progress.
    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    /// The last session's result.
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }

    /// The chosen entry's games, newest first.
    pub fn games(&self) -> &[StoredGame] {
        &self.games
    }

    /// The last error or notice of the tab.
    pub fn status(&self) -> Option<&str> {
        self.status.as_ref().map(|(text, _)| text.as_str())
    }

    /// Takes the workers' reports.
    pub fn update(&mut self, wake: &dyn Fn() -> Waker) {
        if !self.asked {
            self.asked = true;
            self.reload(wake());
        }
        loop {
            match self.reports.try_recv() {
                Ok(Report::Board(path, _)) if Some(&path) != self.path.as_ref() => {} // another file was chosen since
                Ok(Report::Board(_, board)) => {
                    self.loading = false;
                    match board {
                        Ok(board) => {
                            self.names = board.rows.iter().map(|r| (r.entry, r.name.clone())).collect();
                            self.board = Some(board);
                        }
                        Err(why) => {
                            self.board = None;
                            self.status = Some((why, true));
                        }
                    }
                }
                Ok(Report::Games { entry, games }) if Some(entry) == self.chosen => match games {
                    Ok(games) => self.games = games,
                    Err(why) => self.status = Some((why, true)),
                },
                Ok(Report::Games { .. }) => {}
                Ok(Report::Seeding { games, total }) => self.seeding = Some((games, total)),
                Ok(Report::Progress(progress)) => {
                    self.seeding = None;
                    self.progress = Some(progress);
                }
                Ok(Report::Rated(result)) => {
                    let bot = self.rating.take().map(|r| r.bot.clone()).unwrap_or_default();
                    self.seeding = None;
                    match *result {
                        Ok(placement) => {
                            self.status = Some((format!("{bot}: {}", placement.stop.describe()), false));
                            self.placement = Some(placement);
                        }
                        Err(why) => self.status = Some((format!("Rating {bot} failed: {why}"), true)),
                    }
                    self.reload(wake());
                    if let Some(entry) = self.chosen {
                        self.load_games(entry, wake());
                    }
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
    }

    /// Reads the leaderboard again, on a worker.
    fn reload(&mut self, wake: Waker) {
        let Some(path) = self.path.clone() else {
            self.status = Some(("No home folder to keep the ladder in: enter a file".to_owned(), true));
            return;
        };
        if !path.exists() {
            self.board = None;
            return; // made on the first rating, not by looking at it
        }
        self.loading = true;
        let sender = self.sender.clone();
        spawn("ladder", move || {
            let board = Ladder::open(&path).and_then(|ladder| leaderboard(&ladder));
            let _ = sender.send(Report::Board(path, board));
            wake();
        });
    }

    fn load_games(&mut self, entry: i64, wake: Waker) {
        let Some(path) = self.path.clone() else { return };
        let sender = self.sender.clone();
        spawn("ladder games", move || {
            let games = Ladder::open(&path).and_then(|ladder| ladder.games_of(entry));
            let _ = sender.send(Report::Games { entry, games });
            wake();
        });
    }

    /// Rates `bot` on a worker; a ladder with no entry is seeded from the sample bots first.
    fn start_rating(&mut self, bot: &PluginInfo, catalog: &[PluginInfo], seating: &Seating, time_ms: u64, wake: Waker) {
        let Some(path) = self.path.clone() else { return };
        let candidate = match library_identity(&bot.path, &bot.name, None) {
            Ok(identity) => identity,
            Err(why) => {
                self.status = Some((why, true));
                return;
            }
        };
        let pool = sample_pool(catalog);
        let options = RateOptions {
            time_limit: (time_ms > 0).then(|| Duration::from_millis(time_ms)),
            target_error: self.target_error,
            max_games: self.max_games,
            seed: OPENING_SEED,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (thread_stop, sender, seating) = (stop.clone(), self.sender.clone(), seating.clone());
        spawn("ladder rating", move || {
            let result = rate_on_thread(&path, &candidate, &pool, &seating, &options, &thread_stop, &sender, &wake);
            let _ = sender.send(Report::Rated(Box::new(result)));
            wake();
        });
        self.progress = None;
        self.placement = None;
        self.status = None;
        self.rating = Some(Rating { bot: bot.name.clone(), stop });
    }

    /// Stops the session after the game being played.
    pub fn stop(&mut self) {
        if let Some(rating) = &self.rating {
            rating.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Stops a session and waits (at most `limit`) until it has ended its bots.
    pub(crate) fn stop_and_wait(&mut self, limit: Duration) {
        self.stop();
        if self.rating.take().is_none() {
            return;
        }
        let deadline = Instant::now() + limit;
        while let Ok(report) = self.reports.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if matches!(report, Report::Rated(_)) {
                break;
            }
        }
    }
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) {
    // A thread that cannot start leaves the tab as it was; the next action tries again.
    let _ = std::thread::Builder::new().name(name.to_owned()).spawn(work);
}

/// The sample bots of the plugin list at their pool levels (those found), for a new ladder.
fn sample_pool(catalog: &[PluginInfo]) -> Vec<Identity> {
    SAMPLE_POOL
        .iter()
        .filter_map(|bot| {
            let (stem, level) = split_level(bot);
            let info = catalog.iter().find(|i| i.is_ok() && library_stem(&i.path) == stem)?;
            library_identity(&info.path, &info.name, level.filter(|&l| l <= info.levels)).ok()
        })
        .collect()
}

#[allow(clippy::too_many_arguments)] // the thread's whole context, passed once
fn rate_on_thread(
    path: &Path,
    candidate: &Identity,
    pool: &[Identity],
    seating: &Seating,
    options: &RateOptions,
    stop: &AtomicBool,
    sender: &Sender<Report>,
    wake: &Waker,
) -> Result<Placement, String> {
    let mut ladder = Ladder::open(path)?;
    if ladder.entries()?.is_empty() {
        if pool.is_empty() {
            return Err(
                "the ladder is new and no sample bot was found to seed it: run `othello ladder --seed-pool`".to_owned()
            );
        }
        seed_pool(&mut ladder, pool, seating, Some(SEED_TIME_PER_MOVE), OPENING_SEED, stop, &mut |p| {
            let _ = sender.send(Report::Seeding { games: p.games, total: p.total });
            wake();
        })?;
    }
    rate(&mut ladder, candidate, seating, options, stop, &mut |progress| {
        let _ = sender.send(Report::Progress(progress.clone()));
        wake();
    })
}

/// Loads a stored game onto the board (as opening a GGF file does).
fn replay(app: &mut OthelloApp, game: &StoredGame) {
    let parsed = othello_arena::ggf::parse(&game.ggf).map_err(|e| e.to_string());
    match parsed.and_then(|mut games| {
        if games.is_empty() { Err("the stored game is empty".to_owned()) } else { Ok(games.swap_remove(0)) }
    }) {
        Ok(saved) => match crate::game_file::from_ggf(&saved) {
            Ok(loaded) => {
                let text = format!("Replaying {} vs {} (ladder game {})", saved.black, saved.white, game.id);
                app.session.restart(loaded, &app.settings);
                app.show_info(text);
            }
            Err(why) => app.show_error(format!("Ladder game {} not loaded: {why}", game.id)),
        },
        Err(why) => app.show_error(format!("Ladder game {} not loaded: {why}", game.id)),
    }
}

impl OthelloApp {
    /// The Ladder tab.
    pub fn ladder(&self) -> &LadderState {
        &self.ladder
    }

    /// The Ladder tab, to point it at another ladder file.
    pub fn ladder_mut(&mut self) -> &mut LadderState {
        &mut self.ladder
    }
}

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    let wake = crate::waker_factory(&app.egui_ctx);
    app.ladder.update(&wake);
    ui.heading("Ladder");
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut app.ladder.path_input).desired_width(190.0))
            .accessible_name("Ladder file");
        if ui.button("Open").clicked() && !app.ladder.path_input.trim().is_empty() {
            let path = PathBuf::from(app.ladder.path_input.trim());
            app.ladder.set_path(path);
        }
    });
    if let Some((text, is_error)) = &app.ladder.status {
        let colour = if *is_error { Color32::LIGHT_RED } else { Color32::LIGHT_GREEN };
        ui.colored_label(colour, text);
    }
    rating(app, ui, &wake);
    ui.separator();
    board(app, ui, &wake);
    games(app, ui);
}

fn rating(app: &mut OthelloApp, ui: &mut Ui, wake: &dyn Fn() -> Waker) {
    ui.label(RichText::new("Rate a bot").strong());
    if let Some(rating) = &app.ladder.rating {
        let line = match (&app.ladder.seeding, &app.ladder.progress) {
            (Some((games, total)), _) => format!("Seeding the new ladder: {games} / {total} games"),
            (None, Some(p)) => progress_text(p),
            (None, None) => format!("Rating {}: starting…", rating.bot),
        };
        ui.label(line);
        if ui.button("Stop rating").clicked() {
            app.ladder.stop();
        }
    } else if let Some(placement) = &app.ladder.placement {
        let row = &placement.row;
        let rating = row.rating.map(|r| format!("{r:.0}")).unwrap_or_else(|| "unrated".to_owned());
        let placed = placement.progress.placement_error.map(|e| format!(" ± {e:.0}")).unwrap_or_default();
        let rank = row.rank.map(|r| format!(", rank {r} of {}", placement.rated)).unwrap_or_default();
        ui.label(format!("{} {}: {rating}{placed} Elo{rank}", row.name, row.version_text()));
    }
    Grid::new("rating options").num_columns(2).show(ui, |ui| {
        ui.label("Stop at ± Elo");
        ui.add(egui::DragValue::new(&mut app.ladder.target_error).range(TARGET_ERROR_RANGE))
            .accessible_name("Stop at ± Elo");
        ui.end_row();
        ui.label("Most games");
        ui.add(egui::DragValue::new(&mut app.ladder.max_games).range(2..=MAX_GAMES_OFFERED))
            .accessible_name("Most games");
        ui.end_row();
    });
    ui.small(format!(
        "Time per move: {} (from Players)",
        match app.settings.time_per_move_ms {
            0 => "unlimited".to_owned(),
            ms => format!("{ms} ms"),
        }
    ));
    let usable: Vec<PluginInfo> = app.catalog.entries().iter().filter(|e| e.is_ok()).cloned().collect();
    if usable.is_empty() {
        ui.small("No usable bots found (see Plugins).");
    }
    let busy = app.ladder.rating.is_some();
    for bot in &usable {
        ui.horizontal(|ui| {
            // The button's accessible name says which bot it rates.
            let button = ui
                .add_enabled(!busy, egui::Button::new("Rate"))
                .on_hover_text(bot.path.display().to_string())
                .accessible_name(format!("Rate {}", bot.name));
            ui.label(&bot.name);
            if button.clicked() {
                let (catalog, seating) = (app.catalog.entries().to_vec(), app.session.seating().clone());
                let time_ms = app.settings.time_per_move_ms;
                app.ladder.start_rating(bot, &catalog, &seating, time_ms, wake());
            }
        });
    }
}

/// `Rating Bot: 12 games, 8.5 points, 312 ± 45 Elo (± 140 from the anchor), last: Other`.
fn progress_text(p: &Progress) -> String {
    let rating = match (p.rating, p.placement_error) {
        (Some(r), Some(placed)) => format!("{:.0} ± {placed:.0} Elo (± {:.0} from the anchor)", r.elo, r.error),
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

fn board(app: &mut OthelloApp, ui: &mut Ui, wake: &dyn Fn() -> Waker) {
    let state = &mut app.ladder;
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
    // The side panel is narrow: the table scrolls sideways rather than being cut.
    egui::ScrollArea::horizontal().id_salt("ladder table").show(ui, |ui| {
        Grid::new("ladder").striped(true).num_columns(7).show(ui, |ui| {
            for header in ["#", "Bot", "Ver", "Elo ± 95%", "Games", "Score", "Fail"] {
                ui.label(RichText::new(header).strong());
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
                ui.label(match (row.rating, row.error) {
                    (Some(r), Some(_)) if row.anchor => format!("{r:.0} (anchor)"),
                    (Some(r), Some(e)) => format!("{r:.0} ± {e:.0}"),
                    _ => "unrated".to_owned(),
                });
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
    if let Some(entry) = chosen {
        state.chosen = Some(entry);
        state.games.clear();
        state.load_games(entry, wake());
    }
}

fn games(app: &mut OthelloApp, ui: &mut Ui) {
    let Some(entry) = app.ladder.chosen else { return };
    ui.separator();
    let name = app.ladder.names.get(&entry).cloned().unwrap_or_default();
    ui.label(RichText::new(format!("Games of {name}")).strong());
    let mut replayed = None;
    for game in app.ladder.games.iter().take(MAX_LISTED_GAMES) {
        let black = app.ladder.names.get(&game.black).map_or("?", String::as_str);
        let white = app.ladder.names.get(&game.white).map_or("?", String::as_str);
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
    if app.ladder.games.len() > MAX_LISTED_GAMES {
        ui.small(format!("… and {} older games", app.ladder.games.len() - MAX_LISTED_GAMES));
    }
    if let Some(game) = replayed {
        replay(app, &game);
    }
}
