//! The state directory of an event (`--state DIR`): the event's spec, an append-only log of the
//! finished games and a small checkpoint.
//!
//! - `event.json`: the [`SavedEvent`] (spec and shard), written once.
//! - `games.jsonl`: one [`FinishedGame`] per line, each written with one `write` as soon as the
//!   game ends, so a process killed at any moment (even `kill -9`) loses no finished game.
//! - `checkpoint.json`: the standings and the finished games up to a point of the log, rewritten
//!   (after syncing the log) every [`CHECKPOINT_INTERVAL`], so a resume reads only the log's
//!   tail: it costs O(games) at most once, and memory that does not grow with the event.
//!
//! A last line cut off mid-write (the machine died) is detected on resume and dropped: that game
//! was not finished, and is played again.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{DoneSet, EventSpec, FinishedGame, Plan, Shard, Tally};

/// The event's spec (JSON).
pub const EVENT_FILE: &str = "event.json";
/// Finished games, one JSON object per line.
pub const GAMES_FILE: &str = "games.jsonl";
/// The standings up to a point of the game log (JSON).
pub const CHECKPOINT_FILE: &str = "checkpoint.json";
/// How often the game log is synced to disk and the checkpoint rewritten. A process killed loses
/// nothing either way; a machine that loses power loses at most this much play.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(2);

/// Why a state folder cannot be created, read or written. Its text says what to do; the variants
/// let a caller tell an event that exists already from one that does not and from a damaged one.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The folder holds an event already: nothing is overwritten by mistake.
    #[error("{} already holds an event: add --resume to continue it, or choose another --state folder", .dir.display())]
    AlreadyHoldsAnEvent { dir: PathBuf },
    /// The folder holds no event to resume.
    #[error("cannot resume: {} is not readable ({source}); was the event started with --state?", .path.display())]
    NoEvent { path: PathBuf, source: std::io::Error },
    /// `event.json` or a line of the game log is not what this program writes.
    #[error("{} is damaged{}: {reason}", .path.display(), .at_byte.map(|byte| format!(" at byte {byte}")).unwrap_or_default())]
    Damaged { path: PathBuf, at_byte: Option<u64>, reason: String },
    /// Reading or writing a file failed (a full disk, permissions).
    #[error("cannot {action} {}: {source}", .path.display())]
    Io { action: String, path: PathBuf, source: std::io::Error },
    /// A shard's log changed while it was merged.
    #[error("{} changed while it was merged", .path.display())]
    ChangedWhileMerged { path: PathBuf },
    /// What the caller's function for each game returned.
    #[error("{0}")]
    Caller(String),
}

impl StateError {
    fn io(action: &str, path: &Path) -> impl FnOnce(std::io::Error) -> StateError {
        let (action, path) = (action.to_owned(), path.to_path_buf());
        move |source| StateError::Io { action, path, source }
    }
}

/// For callers that report errors as text.
impl From<StateError> for String {
    fn from(error: StateError) -> String {
        error.to_string()
    }
}

/// What `event.json` holds: the event, and which part of it this directory plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedEvent {
    #[serde(flatten)]
    pub spec: EventSpec,
    /// The part of the schedule played here (`--shard`); `None` for the whole event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl SavedEvent {
    /// A new plan for this directory's games (nothing played).
    pub fn plan(&self) -> Plan {
        Plan::new(&self.spec, self.shard)
    }
}

/// The standings at a point of the game log.
#[derive(Debug, Serialize, Deserialize)]
struct Checkpoint {
    /// Length of the log the rest describes (always the end of a line).
    log_bytes: u64,
    tally: Tally,
    done: DoneSet,
}

/// An event read back from its state directory.
#[derive(Debug, Clone)]
pub struct Resumed {
    pub event: SavedEvent,
    /// Its games, with those finished counted.
    pub plan: Plan,
    /// Games read from the log past the checkpoint.
    pub read_from_log: usize,
    /// A last line cut off mid-write was found (and, when opened to play on, removed).
    pub torn_line: bool,
    /// Length of the log's complete lines.
    pub log_bytes: u64,
}

/// An open state directory, ready to record games.
pub struct StateDir {
    dir: PathBuf,
    games: File,
    log_bytes: u64,
    /// The line being written (kept to reuse its memory).
    line: Vec<u8>,
    last_checkpoint: Instant,
}

impl StateDir {
    /// Starts a new event in `dir` (created if missing). Refuses a directory that already holds
    /// an event, so nothing is overwritten by mistake.
    pub fn create(dir: &Path, spec: &EventSpec) -> Result<StateDir, StateError> {
        StateDir::create_event(dir, &SavedEvent { spec: spec.clone(), shard: None })
    }

    /// Starts a new event, or a shard of one, in `dir` (see [`StateDir::create`]).
    pub fn create_event(dir: &Path, event: &SavedEvent) -> Result<StateDir, StateError> {
        std::fs::create_dir_all(dir).map_err(StateError::io("create state folder", dir))?;
        let event_file = dir.join(EVENT_FILE);
        if event_file.exists() {
            return Err(StateError::AlreadyHoldsAnEvent { dir: dir.to_path_buf() });
        }
        let text = serde_json::to_string_pretty(event).expect("specs serialize");
        write_atomically(dir, EVENT_FILE, text.as_bytes()).map_err(StateError::io("write", &event_file))?;
        let games = open_games(dir)?;
        games.set_len(0).map_err(StateError::io("empty", &dir.join(GAMES_FILE)))?;
        let _ = std::fs::remove_file(dir.join(CHECKPOINT_FILE));
        sync_dir(dir).map_err(StateError::io("sync", dir))?;
        Ok(StateDir { dir: dir.to_path_buf(), games, log_bytes: 0, line: Vec::new(), last_checkpoint: Instant::now() })
    }

    /// Opens the event saved in `dir` to play on: its spec and standings so far. A last line of
    /// the log cut off mid-write is removed (that game was not finished).
    pub fn open(dir: &Path) -> Result<(StateDir, Resumed), StateError> {
        let resumed = StateDir::inspect(dir)?;
        let games = open_games(dir)?;
        let path = dir.join(GAMES_FILE);
        games.set_len(resumed.log_bytes).map_err(StateError::io("repair", &path))?;
        let state = StateDir {
            dir: dir.to_path_buf(),
            games,
            log_bytes: resumed.log_bytes,
            line: Vec::new(),
            last_checkpoint: Instant::now(),
        };
        Ok((state, resumed))
    }

    /// Reads the event saved in `dir` without changing anything: its spec and standings, from
    /// the checkpoint and the log past it.
    pub fn inspect(dir: &Path) -> Result<Resumed, StateError> {
        let event = read_event(dir)?;
        let path = dir.join(GAMES_FILE);
        let mut log = File::open(&path).map_err(StateError::io("open", &path))?;
        let log_length = log.metadata().map_err(StateError::io("read", &path))?.len();
        // A checkpoint that does not fit the log or the event (written by something else, or the
        // log was cut) is ignored: the log alone has every game.
        let mut plan = event.plan();
        let mut start = 0;
        if let Some(checkpoint) = read_checkpoint(dir)
            && checkpoint.log_bytes <= log_length
            && checkpoint.tally.names() == plan.tally.names()
            && checkpoint.done.range() == plan.done.range()
            && line_ends_at(&mut log, checkpoint.log_bytes)
        {
            start = checkpoint.log_bytes;
            plan.tally = checkpoint.tally;
            plan.done = checkpoint.done;
        }
        log.seek(SeekFrom::Start(start)).map_err(StateError::io("read", &path))?;
        let mut read_from_log = 0;
        let (log_bytes, torn_line) = scan_log(&path, log, start, &event, &mut |game| {
            if plan.record(&game) {
                read_from_log += 1;
            }
            Ok(())
        })?;
        Ok(Resumed { event, plan, read_from_log, torn_line, log_bytes })
    }

    /// Opens an event saved in `dir` with every finished game (for small events: the games are
    /// kept in memory). A last line cut off by a crash is dropped (that game was not finished).
    pub fn resume(dir: &Path) -> Result<(StateDir, EventSpec, Vec<FinishedGame>), StateError> {
        let (state, resumed) = StateDir::open(dir)?;
        let mut games = Vec::new();
        StateDir::for_each_game(dir, &mut |game| {
            games.push(game);
            Ok(())
        })?;
        Ok((state, resumed.event.spec, games))
    }

    /// Calls `f` with every finished game in the log of `dir`, in the order they finished (a
    /// cut-off last line is skipped). Stops at the first error `f` returns.
    pub fn for_each_game(dir: &Path, f: &mut dyn FnMut(FinishedGame) -> Result<(), String>) -> Result<(), StateError> {
        let event = read_event(dir)?;
        let path = dir.join(GAMES_FILE);
        let log = File::open(&path).map_err(StateError::io("open", &path))?;
        let mut seen = DoneSet::new(event.spec.games_of(event.shard));
        scan_log(&path, log, 0, &event, &mut |game| if seen.insert(game.index) { f(game) } else { Ok(()) })?;
        Ok(())
    }

    /// Records a finished game: written to the log with one `write` before returning, so a
    /// process killed any time after has it. A write that fails (a full disk) is taken back, so
    /// the log never holds a cut line before others; the game is not saved.
    pub fn append(&mut self, game: &FinishedGame) -> Result<(), StateError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, game).expect("games serialize");
        self.line.push(b'\n');
        if let Err(e) = self.games.write_all(&self.line) {
            let _ = self.games.set_len(self.log_bytes);
            return Err(StateError::io(&format!("save game {} in", game.index + 1), &self.dir)(e));
        }
        self.log_bytes += self.line.len() as u64;
        Ok(())
    }

    /// Whether [`CHECKPOINT_INTERVAL`] passed since the last checkpoint.
    pub fn checkpoint_due(&self) -> bool {
        self.last_checkpoint.elapsed() >= CHECKPOINT_INTERVAL
    }

    /// Syncs the log to disk and saves the standings of every game in it (`plan`).
    pub fn checkpoint(&mut self, plan: &Plan) -> Result<(), StateError> {
        self.games.sync_data().map_err(StateError::io("sync the game log in", &self.dir))?;
        let checkpoint = Checkpoint { log_bytes: self.log_bytes, tally: plan.tally.clone(), done: plan.done.clone() };
        let text = serde_json::to_vec(&checkpoint).expect("checkpoints serialize");
        write_atomically(&self.dir, CHECKPOINT_FILE, &text)
            .map_err(StateError::io("write the checkpoint in", &self.dir))?;
        self.last_checkpoint = Instant::now();
        Ok(())
    }

    /// Appends the complete lines of another state directory's log (a shard being merged).
    pub fn append_log_of(&mut self, other: &Path, bytes: u64) -> Result<(), StateError> {
        let path = other.join(GAMES_FILE);
        let file = File::open(&path).map_err(StateError::io("open", &path))?;
        let copied = std::io::copy(&mut file.take(bytes), &mut self.games)
            .map_err(StateError::io(&format!("copy into {} the log", self.dir.display()), &path))?;
        if copied != bytes {
            return Err(StateError::ChangedWhileMerged { path });
        }
        self.log_bytes += bytes;
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Reads `event.json` of `dir`.
pub fn read_event(dir: &Path) -> Result<SavedEvent, StateError> {
    let path = dir.join(EVENT_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(source) => return Err(StateError::NoEvent { path, source }),
    };
    serde_json::from_str(&text).map_err(|e| StateError::Damaged { path, at_byte: None, reason: e.to_string() })
}

fn read_checkpoint(dir: &Path) -> Option<Checkpoint> {
    serde_json::from_slice(&std::fs::read(dir.join(CHECKPOINT_FILE)).ok()?).ok()
}

/// Whether `offset` of the log is the end of a line (or its start).
fn line_ends_at(log: &mut File, offset: u64) -> bool {
    if offset == 0 {
        return true;
    }
    let mut byte = [0u8];
    log.seek(SeekFrom::Start(offset - 1)).is_ok() && log.read_exact(&mut byte).is_ok() && byte[0] == b'\n'
}

/// Reads the log from `start` (the end of a line) and calls `f` with each game. Returns the
/// length of the complete lines and whether a last line was cut off mid-write. A damaged line
/// anywhere else is an error: that is not a crash's doing, and not ours to guess about.
fn scan_log(
    path: &Path,
    log: File,
    start: u64,
    event: &SavedEvent,
    f: &mut dyn FnMut(FinishedGame) -> Result<(), String>,
) -> Result<(u64, bool), StateError> {
    let range = event.spec.games_of(event.shard);
    let participants = event.spec.participants.len();
    let mut reader = BufReader::new(log);
    let mut line = Vec::new();
    let mut good_length = start;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(StateError::io("read", path))?;
        if read == 0 {
            return Ok((good_length, false));
        }
        if line.last() != Some(&b'\n') {
            return Ok((good_length, true));
        }
        let game = serde_json::from_slice::<FinishedGame>(&line).map_err(|e| e.to_string()).and_then(|game| {
            if !range.contains(&game.index) {
                Err(format!("game {} is not part of this event's games {}..{}", game.index, range.start, range.end))
            } else if game.black >= participants || game.white >= participants {
                Err(format!("game {} names a participant the event does not have", game.index))
            } else {
                Ok(game)
            }
        });
        match game {
            Ok(game) => f(game).map_err(StateError::Caller)?,
            Err(e) => {
                let at_end = reader.fill_buf().map(|rest| rest.is_empty()).unwrap_or(true);
                if at_end {
                    return Ok((good_length, true));
                }
                return Err(StateError::Damaged { path: path.to_path_buf(), at_byte: Some(good_length), reason: e });
            }
        }
        good_length += read as u64;
    }
}

fn open_games(dir: &Path) -> Result<File, StateError> {
    let path = dir.join(GAMES_FILE);
    OpenOptions::new().read(true).append(true).create(true).open(&path).map_err(StateError::io("open", &path))
}

/// Replaces `dir/name` with `bytes` all at once: a crash leaves the old file or the new one.
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = dir.join(format!("{name}.tmp"));
    let written = File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(e) = written {
        // A full disk leaves no half-written file behind.
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    std::fs::rename(&temporary, dir.join(name))?;
    sync_dir(dir)
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
