//! Matches and tournaments: the schedule (computed game by game, never stored), the engine that
//! plays it on worker threads (each with its own seats) and reports progress events, standings
//! with Elo and SPRT updated once per game, the state directory that survives `kill -9`, shards
//! of an event for many machines and their merge.
//!
//! A GUI runs [`run`] on a background thread, forwards its [`ArenaEvent`]s to the UI, keeps an
//! [`EventProgress`] for a live cross-table, and sets the stop flag to cancel. A headless arena
//! runs [`play`], which keeps no finished game: its [`EventSink`] streams each one out, so memory
//! does not grow with the number of games.

pub mod affinity;
mod done;
mod engine;
pub mod merge;
pub mod openings;
mod progress;
mod schedule;
mod shard;
pub mod standings;
pub mod state;
pub mod stats;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use done::DoneSet;
pub use engine::{ArenaEvent, EventSink, Plan, PlayOutcome, RunOptions, RunSummary, play, run};
pub use openings::OpeningSource;
pub use progress::EventProgress;
pub use schedule::{ScheduleIter, ScheduledGame};
pub use shard::Shard;
pub use standings::{PairScore, StandingRow, Standings, Tally};
pub use stats::{Estimate, Pentanomial, Sprt, SprtDecision, SprtModel, Wdl};

use crate::record::GameRecord;

/// The pair of a game saved without one (see [`FinishedGame::pair`]).
fn unknown_pair() -> usize {
    usize::MAX
}

impl FinishedGame {
    /// The number of the game's colour-swapped pair.
    pub fn pair_number(&self) -> usize {
        if self.pair == usize::MAX { self.index / 2 } else { self.pair }
    }
}

/// A bot taking part: its display name (unique in the event), library and level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participant {
    pub name: String,
    pub library: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
}

/// Who plays whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Participants 0 and 1 play `games` games, in pairs with colours swapped.
    Match { games: u32 },
    /// Every pair plays `games_per_pair` games (in pairs with colours
    /// swapped) in each of `rounds` rounds.
    Tournament { rounds: u32, games_per_pair: u32 },
}

/// Everything that fixes an event's games: saved in the state directory so a
/// resumed event plays exactly the games that were scheduled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventSpec {
    pub participants: Vec<Participant>,
    pub format: Format,
    pub openings: OpeningSource,
    pub seed: u64,
    /// Time per move given to the bots (`None` = no limit).
    pub time_limit_ms: Option<u64>,
    /// Stop a match early once this test decides (matches only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<Sprt>,
}

impl EventSpec {
    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit_ms.map(Duration::from_millis)
    }

    /// The names of the participants, in order.
    pub fn names(&self) -> Vec<String> {
        self.participants.iter().map(|p| p.name.clone()).collect()
    }
}

/// A finished game of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinishedGame {
    /// 0-based number of the game in the schedule.
    pub index: usize,
    /// 0-based number of its colour-swapped pair in the schedule (both games of a pair share
    /// the opening). Absent in state folders of earlier versions: read as `index / 2`.
    #[serde(default = "unknown_pair")]
    pub pair: usize,
    /// Participant indices.
    pub black: usize,
    pub white: usize,
    pub record: GameRecord,
    /// The clock the game's time per move was counted on: the event's (`--clock`), or `fuel`
    /// for a game between two WebAssembly bots. Absent in state folders of earlier versions (the
    /// wall clock then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::seat::Clock>,
}
