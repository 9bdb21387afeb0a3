//! The state directory of an event (`--state DIR`): the event's spec, and
//! every finished game appended and synced to disk as soon as it ends. An
//! event killed at any moment (even `kill -9`) resumes with no finished game
//! lost and none replayed; a game cut off mid-write is simply not finished.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{EventSpec, FinishedGame};

/// The event's spec (JSON).
pub const EVENT_FILE: &str = "event.json";
/// Finished games, one JSON object per line.
pub const GAMES_FILE: &str = "games.jsonl";

/// An open state directory, ready to record games.
pub struct StateDir {
    dir: PathBuf,
    games: File,
}

impl StateDir {
    /// Starts a new event in `dir` (created if missing). Refuses a directory
    /// that already holds an event, so nothing is overwritten by mistake.
    pub fn create(dir: &Path, spec: &EventSpec) -> Result<StateDir, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create state folder {}: {e}", dir.display()))?;
        let event = dir.join(EVENT_FILE);
        if event.exists() {
            return Err(format!(
                "{} already holds an event: add --resume to continue it, or choose another --state folder",
                dir.display()
            ));
        }
        let text = serde_json::to_string_pretty(spec).expect("specs serialize");
        let temporary = dir.join(format!("{EVENT_FILE}.tmp"));
        write_synced(&temporary, text.as_bytes())
            .and_then(|()| std::fs::rename(&temporary, &event))
            .and_then(|()| sync_dir(dir))
            .map_err(|e| format!("cannot write {}: {e}", event.display()))?;
        let games = open_games(dir)?;
        sync_dir(dir).map_err(|e| format!("cannot sync {}: {e}", dir.display()))?;
        Ok(StateDir { dir: dir.to_path_buf(), games })
    }

    /// Opens an event saved in `dir`: its spec and the games finished so far.
    /// A last line cut off by a crash is dropped (that game was not finished).
    pub fn resume(dir: &Path) -> Result<(StateDir, EventSpec, Vec<FinishedGame>), String> {
        let event = dir.join(EVENT_FILE);
        let text = std::fs::read_to_string(&event).map_err(|e| {
            format!("cannot resume: {} is not readable ({e}); was the event started with --state?", event.display())
        })?;
        let spec: EventSpec =
            serde_json::from_str(&text).map_err(|e| format!("cannot resume: {} is damaged: {e}", event.display()))?;
        let mut games = open_games(dir)?;
        let mut finished: Vec<FinishedGame> = Vec::new();
        let mut good_length = 0u64;
        games.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
        let mut reader = BufReader::new(&games);
        let mut line = String::new();
        let path = dir.join(GAMES_FILE);
        loop {
            line.clear();
            let read = reader.read_line(&mut line).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if read == 0 {
                break;
            }
            if !line.ends_with('\n') {
                break; // cut off mid-write
            }
            match serde_json::from_str::<FinishedGame>(&line) {
                Ok(game) => {
                    if !finished.iter().any(|g| g.index == game.index) {
                        finished.push(game);
                    }
                    good_length += read as u64;
                }
                Err(e) => {
                    // Only the last line can be torn; damage elsewhere is not ours to guess about.
                    if reader.fill_buf().map(|rest| rest.is_empty()).unwrap_or(true) {
                        break;
                    }
                    return Err(format!("cannot resume: {} is damaged at byte {good_length}: {e}", path.display()));
                }
            }
        }
        drop(reader);
        games.set_len(good_length).map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
        games.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
        Ok((StateDir { dir: dir.to_path_buf(), games }, spec, finished))
    }

    /// Records a finished game durably (written and synced before returning).
    pub fn append(&mut self, game: &FinishedGame) -> Result<(), String> {
        let mut line = serde_json::to_string(game).expect("games serialize");
        line.push('\n');
        self.games
            .write_all(line.as_bytes())
            .and_then(|()| self.games.sync_data())
            .map_err(|e| format!("cannot save game {} in {}: {e}", game.index + 1, self.dir.display()))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn open_games(dir: &Path) -> Result<File, String> {
    let path = dir.join(GAMES_FILE);
    OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
