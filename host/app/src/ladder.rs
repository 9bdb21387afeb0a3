//! The Ladder tab's workers and state: the rating ladder's leaderboard read in the background,
//! rating sessions played on a background thread that reports each game over a channel and wakes
//! the UI, and a chosen entry's games. The view is `panels::ladder`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use crate::players::Waker;
use othello_arena::plugins::PluginInfo;
use othello_arena::seat::{Seating, library_stem};
use othello_ladder::identity::{Identity, library_identity, split_level};
use othello_ladder::seed::{SAMPLE_POOL, SeedProgress, SeedingTime, seed_pool};
use othello_ladder::session::{DEFAULT_MAX_GAMES, DEFAULT_TARGET_ERROR};
use othello_ladder::{Ladder, Leaderboard, Placement, Progress, RateOptions, StoredGame, leaderboard, rate};

/// The seed of a session's openings.
const OPENING_SEED: u64 = 1;

/// What the workers report.
pub(crate) enum Report {
    /// The leaderboard of the ladder at this path.
    Board(PathBuf, Result<Leaderboard, String>),
    Games {
        entry: i64,
        games: Result<Vec<StoredGame>, String>,
    },
    /// The sample pool's calibration, after each of its games.
    Seeding(SeedProgress, SeedingTime),
    Progress(Progress),
    Rated(Box<Result<Placement, String>>),
}

/// A rating session on its thread.
pub(crate) struct Rating {
    pub(crate) bot: String,
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
    pub(crate) path: Option<PathBuf>,
    pub(crate) path_input: String,
    pub(crate) board: Option<Leaderboard>,
    pub(crate) loading: bool,
    pub(crate) rating: Option<Rating>,
    pub(crate) progress: Option<Progress>,
    pub(crate) placement: Option<Placement>,
    /// The sample pool's calibration while it runs (a new ladder), with the time it plays at.
    pub(crate) seeding: Option<(SeedProgress, SeedingTime)>,
    pub(crate) status: Option<(String, bool)>,
    pub(crate) chosen: Option<i64>,
    pub(crate) games: Vec<StoredGame>,
    /// Entry names by id, for the games list.
    pub(crate) names: HashMap<i64, String>,
    /// Rating options.
    pub max_games: u32,
    pub target_error: f64,
    pub(crate) reports: Receiver<Report>,
    pub(crate) sender: Sender<Report>,
    /// The ladder game replayed on the board, if any (the player's game is kept meanwhile).
    pub(crate) replay: Option<crate::matches::Viewer>,
    /// Whether the board was asked for once already.
    pub(crate) asked: bool,
    /// How much wider than its panel the leaderboard's table was at the last frame (0 when it
    /// fitted); the app widens the panel by as much, as far as the window allows.
    pub(crate) table_overflow: f32,
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
            table_overflow: 0.0,
            replay: None,
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

    /// The ladder game on the board, if one is replayed.
    pub fn replay(&self) -> Option<&crate::matches::Viewer> {
        self.replay.as_ref()
    }

    /// The last error or notice of the tab.
    /// The leaderboard's table was wider than its panel when last drawn (it scrolls sideways).
    pub fn table_overflows(&self) -> bool {
        self.table_overflow > 0.0
    }

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
                Ok(Report::Seeding(progress, time)) => self.seeding = Some((progress, time)),
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
    pub(crate) fn reload(&mut self, wake: Waker) {
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

    pub(crate) fn load_games(&mut self, entry: i64, wake: Waker) {
        let Some(path) = self.path.clone() else { return };
        let sender = self.sender.clone();
        spawn("ladder games", move || {
            let games = Ladder::open(&path).and_then(|ladder| ladder.games_of(entry));
            let _ = sender.send(Report::Games { entry, games });
            wake();
        });
    }

    /// Rates `bot` on a worker; a ladder with no entry is seeded from the sample bots first.
    pub(crate) fn start_rating(
        &mut self,
        bot: &PluginInfo,
        catalog: &[PluginInfo],
        seating: &Seating,
        time_ms: u64,
        wake: Waker,
    ) {
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
        // The pool is calibrated at the time a move the bot is rated at (the server's rule):
        // from the shipped calibration when it was played at that time, then only the members
        // it does not rate play (the server's rule too; the app has no background to refine it).
        let time = SeedingTime::for_contest(options.time_limit);
        let shipped = othello_ladder::calibration::Calibration::shipped();
        othello_ladder::calibration::enter_pool(&mut ladder, pool, shipped.as_ref(), time.limit.as_millis() as u64)?;
        seed_pool(&mut ladder, pool, seating, Some(time.limit), OPENING_SEED, stop, &mut |p| {
            let _ = sender.send(Report::Seeding(p.clone(), time.clone()));
            wake();
        })?;
    }
    rate(&mut ladder, candidate, seating, options, stop, &mut |progress| {
        let _ = sender.send(Report::Progress(progress.clone()));
        wake();
    })
}
