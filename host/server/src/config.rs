//! What the server is started with: the command line's settings, and where the sample pool's
//! calibration stands (shown on every page).

use std::path::PathBuf;
use std::time::Duration;

use othello_arena::seat::{Isolation, RunnerCommand, SeatOptions, Seating};
use othello_db::Location;
use othello_ladder::calibration::Calibration;
use othello_ladder::identity::Identity;
use std::net::SocketAddr;

/// Everything the server needs; the command line fills it in.
#[derive(Debug, Clone)]
pub struct Config {
    /// The ladder: an SQLite file (uploads are kept in `uploads/` beside it) or a PostgreSQL
    /// database (`postgres://…`).
    pub ladder: Location,
    /// Where uploaded libraries are kept, when not beside the ladder's file (a PostgreSQL ladder
    /// keeps them in `uploads/` in the working folder unless this says otherwise).
    pub uploads: Option<PathBuf>,
    pub listen: SocketAddr,
    /// Rating workers on this machine (games played at once); 0 leaves every game to remote
    /// workers (`othello worker`).
    pub workers: usize,
    /// A remote worker's lease on a job lapses unless renewed within this time.
    pub lease_duration: Duration,
    /// A remote worker's lease ends this long after its claim however often it is renewed.
    pub lease_cap: Duration,
    /// Time per move of rating games (`None` = no limit).
    pub time_limit: Option<Duration>,
    /// Starts the bots' runners (`othello runner`).
    pub runner: RunnerCommand,
    pub seat_options: SeatOptions,
    /// Run even when a sandbox layer is missing (every page then says so).
    pub allow_weak_sandbox: bool,
    /// The pool a new, empty ladder is seeded with (weakest first; the first is the anchor).
    pub seed_pool: Vec<Identity>,
    /// The pool's calibration a new ladder starts from (the shipped one,
    /// [`Calibration::shipped`]): the members it rates are placed against at once; used only
    /// when it was played at the contest's time a move.
    pub pool_calibration: Option<Calibration>,
    /// Refine a shipped calibration with the pool's own games in the background (`false`: the
    /// organiser keeps the shipped ratings; members it does not rate are calibrated anyway).
    pub refine_pool: bool,
    /// The opponent of the check games: the `random` bot's library.
    pub check_opponent: PathBuf,
    /// A placement stops at ± this many Elo (95 %) among its opponents.
    pub target_error: f64,
    /// A placement stops after this many games of the bot whatever the precision.
    pub max_games: u32,
    pub max_upload_bytes: usize,
    /// Take WebAssembly bots only (`--require-wasm`): for a contest whose untrusted workers'
    /// games the server can re-play.
    pub require_wasm: bool,
    /// The share of a remote worker's pairs between two WebAssembly bots the server plays again
    /// and compares, in percent (0: none; see `replay_check`).
    pub wasm_replay_percent: u32,
    pub uploads_per_hour: u32,
    /// Pairs of unrated test games one entrant may ask for per hour.
    pub test_games_per_hour: u32,
    /// Seed of the openings.
    pub seed: u64,
    /// When no job waits, play pairs of the entrants' current bots so every rating stays fresh.
    pub continuous_games: bool,
}

impl Config {
    /// How the workers run bots: isolated by `runner`, in the sandbox.
    pub fn seating(&self) -> Seating {
        Seating { isolation: Isolation::Isolated(self.runner.clone()), options: self.seat_options }
    }

    /// Where uploaded libraries are kept: `--uploads`, else `uploads/` beside the ladder's file
    /// (in the working folder for a PostgreSQL ladder).
    pub fn uploads_dir(&self) -> PathBuf {
        if let Some(uploads) = &self.uploads {
            return uploads.clone();
        }
        let parent = self
            .ladder
            .file()
            .and_then(std::path::Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        parent.join("uploads")
    }
}

/// Where the background calibration of the sample pool stands: every number is what was played,
/// not a guess of what is left (calibration plays until the pool is known to ±`target_error`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SeedingStatus {
    /// Games played so far.
    pub games: u32,
    /// Games of the linking round (each member against its next three); calibration pairs follow
    /// until every member is within the target.
    pub linking_games: u32,
    /// The widest 95 % interval among the pool now, in Elo (`None` until it is linked).
    pub widest_error: Option<f64>,
    pub target_error: f64,
    /// Most games it plays, whatever the precision.
    pub max_games: u32,
    /// The time a move it plays at, in milliseconds, and why when it is not the contest's.
    pub time_ms: Option<u64>,
    pub time_note: Option<String>,
    /// The shipped calibration the pool started from, in words (`None`: none, so placements
    /// wait for this calibration).
    pub shipped: Option<String>,
    /// Why the shipped calibration was not used, when it was not.
    pub shipped_not_used: Option<String>,
    /// Members of the pool the shipped calibration does not rate (calibrated here by games).
    pub not_shipped: Vec<String>,
}

impl SeedingStatus {
    /// Placements wait for this calibration: the pool did not start from a shipped one.
    pub fn placements_wait(&self) -> bool {
        self.shipped.is_none()
    }
}
