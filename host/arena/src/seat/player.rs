//! The [`Seat`] trait: whatever is asked for a move on each of its turns.

use std::time::Duration;

use othello_sdk::{Position, SearchInfo};

use super::analysis::{Analysis, AnalysisError};
use super::failure::Failure;

/// A seat's answer to `think`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reply {
    /// The raw move byte as the bot returned it; the referee validates it.
    pub byte: u8,
    /// Wall time from the request to the answer, as the host measured it.
    pub elapsed: Duration,
    /// The bot's report on its search, if it gives one.
    pub info: Option<SearchInfo>,
    /// CPU time the bot's whole process tree used for this move, where the seat can measure it
    /// (an isolated seat's cgroup; an in-process seat's thread clock).
    pub cpu: Option<Duration>,
    /// Time the seat's CPU share held the bot back during this move (more threads on move than
    /// it was given CPUs), where the seat measures it and it is not zero.
    pub throttled: Option<Duration>,
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

    /// The bot can [`analyze`](Seat::analyze): it has the optional analysis export.
    fn analyzes(&self) -> bool {
        false
    }

    /// The value of every legal move of `position` (the side to move's view, best first),
    /// searched within `time_limit`, checked by the host. Held to the time like `think`: a bot
    /// that hangs past `time_limit` plus the grace is stopped ([`AnalysisError::Failed`], the
    /// seat then needs a new game). The default: [`AnalysisError::Unsupported`].
    fn analyze(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Analysis, AnalysisError> {
        let _ = (position, time_limit);
        Err(AnalysisError::Unsupported)
    }
}
