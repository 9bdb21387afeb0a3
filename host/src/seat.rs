//! A seat at the board: the player abstraction the referee, the arena and the
//! GUI share. A bot library runs in an isolated runner process
//! ([`Isolation::Isolated`]) or straight in the host ([`Isolation::InProcess`]);
//! a GUI can add its own seats (a human at the board) by implementing [`Seat`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use othello_sdk::{Position, SearchInfo};
use serde::{Deserialize, Serialize};

use crate::in_process::InProcessSeat;
use crate::runner::{IsolatedSeat, RunnerConfig, StopHandle};

/// How a game ended, or how a side failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// Played to the end: neither side could move.
    Normal,
    /// The bot answered a move that is not legal (or a byte that is no move).
    IllegalMove,
    /// The bot did not answer within the time limit plus the grace margin.
    Timeout,
    /// The bot's process died (signal, exit code) or the bot reported an internal failure (panic).
    Crash,
    /// The bot went over the memory limit.
    OutOfMemory,
    /// The library could not be loaded or started (`init` failed).
    LoadError,
}

impl Termination {
    /// The kebab-case name used in JSON and on screen (`illegal-move`).
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::IllegalMove => "illegal-move",
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
            Termination::OutOfMemory => "out-of-memory",
            Termination::LoadError => "load-error",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a seat could not give a move: the game is lost for that side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub termination: Termination,
    /// What happened, for people: "killed by signal SIGSEGV (segmentation fault) during think".
    pub detail: String,
    /// The last lines the bot wrote to stderr (and stdout), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl Failure {
    pub fn new(termination: Termination, detail: impl Into<String>) -> Failure {
        Failure { termination, detail: detail.into(), stderr_tail: Vec::new() }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.termination, self.detail)?;
        if !self.stderr_tail.is_empty() {
            write!(f, "\n  last stderr lines:")?;
            for line in &self.stderr_tail {
                write!(f, "\n  | {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// A seat's answer to `think`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reply {
    /// The raw move byte as the bot returned it; the referee validates it.
    pub byte: u8,
    /// Wall time from the request to the answer, as the host measured it.
    pub elapsed: Duration,
    /// The bot's report on its search, if it gives one.
    pub info: Option<SearchInfo>,
}

/// A player: something that is asked for a move on each of its turns.
pub trait Seat: Send {
    /// The display name (from the bot's `init`, or its file name).
    fn name(&self) -> &str;
    /// Number of strength levels the bot offers (0 = none).
    fn levels(&self) -> u32;
    /// Starts a new game (calls the bot's `init` and sets its level).
    fn new_game(&mut self) -> Result<(), Failure>;
    /// Asks for a move in `position` (the seat's side is to move; it may have to
    /// pass). `time_limit` is what the bot is told; seats that can enforce it
    /// give up after the limit plus their grace margin with a `timeout` failure.
    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure>;
}

/// Where a bot's code runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// In a runner child process of its own: crashes, hangs and memory hogs
    /// cost the bot the game, never the host.
    Isolated(RunnerConfig),
    /// Loaded into the host process for speed: no protection against crashes
    /// or hangs (overruns are only detected after the bot returns). Each seat
    /// loads its own copy of the library, so two seats never share state.
    InProcess,
}

/// Everything needed to open a seat for a bot library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatSpec {
    pub library: PathBuf,
    /// Strength level to set before every game (`None` = the bot's default).
    pub level: Option<u32>,
    pub isolation: Isolation,
    /// How long past the time limit a bot may take before it loses on time
    /// (covers process and scheduling overhead).
    pub grace: Duration,
}

/// Default grace margin over the time limit.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(500);

impl SeatSpec {
    /// An isolated seat with the default runner configuration and grace.
    pub fn isolated(library: impl Into<PathBuf>) -> SeatSpec {
        SeatSpec {
            library: library.into(),
            level: None,
            isolation: Isolation::Isolated(RunnerConfig::default()),
            grace: DEFAULT_GRACE,
        }
    }

    /// An in-process seat with the default grace.
    pub fn in_process(library: impl Into<PathBuf>) -> SeatSpec {
        SeatSpec { library: library.into(), level: None, isolation: Isolation::InProcess, grace: DEFAULT_GRACE }
    }
}

/// Opens a seat: loads the library (in a fresh runner, or in process).
/// Fails with a `load-error` when the library is not a usable bot.
pub fn open_seat(spec: &SeatSpec) -> Result<Box<dyn Seat>, Failure> {
    Ok(match &spec.isolation {
        Isolation::Isolated(config) => Box::new(IsolatedSeat::open(spec, config)?),
        Isolation::InProcess => Box::new(InProcessSeat::open(spec)?),
    })
}

/// Opens a seat that `stop` can stop from another thread (see [`StopHandle::stop`]): an isolated
/// seat's runner is then killed and reaped at once, whether it is loading or thinking, and the
/// seat's calls fail from then on. An in-process bot cannot be interrupted: it is only kept from
/// being opened once `stop` is stopped.
pub fn open_seat_stoppable(spec: &SeatSpec, stop: &StopHandle) -> Result<Box<dyn Seat>, Failure> {
    Ok(match &spec.isolation {
        Isolation::Isolated(config) => Box::new(IsolatedSeat::open_stoppable(spec, config, Some(stop.clone()))?),
        Isolation::InProcess if stop.is_stopped() => {
            return Err(Failure::new(Termination::LoadError, "stopped by the host before the bot was loaded"));
        }
        Isolation::InProcess => Box::new(InProcessSeat::open(spec)?),
    })
}

/// The file name a bot is known by before it names itself: the file stem
/// without the Unix `lib` prefix (`libalphabeta.so` → `alphabeta`).
pub fn library_stem(path: &std::path::Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    match stem.strip_prefix("lib") {
        Some(rest) if cfg!(unix) && !rest.is_empty() => rest.to_owned(),
        _ => stem,
    }
}

/// Turns the answer of a bot that returned `OTHELLO_MOVE_ERROR` into a crash.
pub(crate) fn move_error_failure(last_error: Option<String>) -> Failure {
    Failure::new(
        Termination::Crash,
        match last_error {
            Some(why) => format!("think failed: {why}"),
            None => "think returned OTHELLO_MOVE_ERROR (0xfe) without saying why".to_owned(),
        },
    )
}

/// The time-limit check for seats that can only measure after the fact.
pub(crate) fn overran(elapsed: Duration, time_limit: Option<Duration>, grace: Duration) -> Option<Failure> {
    let limit = time_limit?;
    (elapsed > limit + grace).then(|| {
        Failure::new(
            Termination::Timeout,
            format!(
                "answered after {} ms (limit {} ms + grace {} ms)",
                elapsed.as_millis(),
                limit.as_millis(),
                grace.as_millis()
            ),
        )
    })
}
