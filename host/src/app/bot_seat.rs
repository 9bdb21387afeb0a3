//! The one interface the app needs from a bot: open it, start a game, ask for a move.
//!
//! Everything else in the app talks to bots through [`BotSeat`] on a worker thread, so where the
//! bot actually runs (an isolated runner process, or in-process) is decided here alone.

use std::path::PathBuf;
use std::time::Duration;

use othello_sdk::{Position, SearchInfo};

/// Which bot library to open, and how to run it.
#[derive(Debug, Clone, PartialEq)]
pub struct BotSpec {
    pub path: PathBuf,
    /// Strength level (1..=N) for bots that have levels.
    pub level: Option<u32>,
    /// Time per move; `None` = unlimited.
    pub time_limit: Option<Duration>,
}

/// A bot's answer to `think`.
#[derive(Debug, Clone, PartialEq)]
pub struct BotReply {
    /// The raw move byte, validated by the caller.
    pub byte: u8,
    pub elapsed: Duration,
    pub info: Option<SearchInfo>,
}

/// Why a bot lost: a termination reason (`crash`, `timeout` …) and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotFailure {
    pub reason: String,
    pub detail: String,
}

/// A bot in one seat of a game, each seat with its own state.
pub trait BotSeat: Send {
    fn name(&self) -> &str;
    fn new_game(&mut self) -> Result<(), BotFailure>;
    fn think(&mut self, position: &Position) -> Result<BotReply, BotFailure>;
}

/// Opens the bot of `spec` for one seat.
pub fn open(spec: &BotSpec) -> Result<Box<dyn BotSeat>, BotFailure> {
    in_process::InProcessSeat::open(spec).map(|seat| Box::new(seat) as Box<dyn BotSeat>)
}

mod in_process {
    use std::time::Instant;

    use othello_sdk::abi::OthelloBoard;
    use othello_sdk::loader::BotLibrary;

    use super::*;

    /// A library loaded into the app itself (no protection against crashes).
    pub struct InProcessSeat {
        library: BotLibrary,
        name: String,
        spec: BotSpec,
    }

    impl InProcessSeat {
        pub fn open(spec: &BotSpec) -> Result<InProcessSeat, BotFailure> {
            let library = BotLibrary::open(&spec.path)
                .map_err(|e| BotFailure { reason: "load-error".into(), detail: e.to_string() })?;
            let name = library.init().unwrap_or_else(|| spec.path.display().to_string());
            Ok(InProcessSeat { library, name, spec: spec.clone() })
        }
    }

    impl BotSeat for InProcessSeat {
        fn name(&self) -> &str {
            &self.name
        }

        fn new_game(&mut self) -> Result<(), BotFailure> {
            self.library.init();
            if let Some(level) = self.spec.level {
                self.library.set_level(level);
            }
            Ok(())
        }

        fn think(&mut self, position: &Position) -> Result<BotReply, BotFailure> {
            let limit_ms = self.spec.time_limit.map_or(0, |t| t.as_millis().min(u32::MAX as u128) as u32);
            let started = Instant::now();
            let byte = self.library.think(&OthelloBoard::new(position, limit_ms));
            Ok(BotReply { byte, elapsed: started.elapsed(), info: self.library.search_info() })
        }
    }
}
