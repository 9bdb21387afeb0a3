//! One seat's worth of a bot module: a fresh instance a game, seeded from the game's first
//! position, each call on its fuel. The arena's in-host seat and the runner (which hosts modules
//! inside its sandbox) both play through [`WasmPlayer`], so a game is the same whichever played it
//! and the server's re-play of a worker's game gives the worker's moves.

use std::time::Duration;

use othello_sdk::abi::{OTHELLO_MOVE_ERROR, OthelloBoard, OthelloMoveValue, OthelloSearchInfo};
use othello_sdk::{Color, Position, SplitMix64};

use crate::{BotError, FUEL_PER_MS, Limits, WasmBot, WasmModule, fuel_for_ms};

/// Fuel of a move without a time limit: an hour on the virtual clock (a module never runs
/// unbounded).
pub const UNLIMITED_MOVE_MS: u64 = 60 * 60 * 1000;

/// How a failed call is lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// Out of fuel.
    Timeout,
    OutOfMemory,
    /// A trap, an exit, or an answer the host cannot read.
    Crash,
    /// The module is no usable bot, or failed while starting a game.
    LoadError,
}

/// A call that failed: how it is lost, why, and the bot's last lines of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFailure {
    pub loss: Loss,
    pub detail: String,
    pub output: Vec<String>,
}

impl CallFailure {
    fn new(loss: Loss, detail: impl Into<String>) -> CallFailure {
        CallFailure { loss, detail: detail.into(), output: Vec::new() }
    }

    /// The named loss of `call` failing with `error`.
    fn of_call(call: &str, error: &BotError) -> CallFailure {
        match error {
            BotError::OutOfFuel { fuel, ms } => CallFailure::new(
                Loss::Timeout,
                format!(
                    "used all its fuel in {call}: {fuel} units ({ms} ms on the virtual clock at {FUEL_PER_MS} units \
                     per ms)"
                ),
            ),
            BotError::OutOfMemory { .. } => CallFailure::new(Loss::OutOfMemory, format!("{error} in {call}")),
            BotError::Trap(_) | BotError::Exited(_) | BotError::Abi(_) => {
                CallFailure::new(Loss::Crash, format!("{error} in {call}"))
            }
        }
    }

    /// A failure while loading: a load error.
    fn while_loading(call: &str, error: &BotError) -> CallFailure {
        CallFailure::new(Loss::LoadError, format!("{call} failed while loading: {error}"))
    }

    fn with_output(self, output: Vec<String>) -> CallFailure {
        CallFailure { output, ..self }
    }
}

/// What the module told about itself when it loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub abi_version: u32,
    pub levels: u32,
    pub analysis: bool,
    pub search_info: bool,
    pub last_error: bool,
}

/// A move as the bot answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct WasmMove {
    /// The move byte, as returned (the ABI's error value included).
    pub byte: u8,
    /// Fuel the move used (its virtual time: [`crate::virtual_time`]).
    pub fuel: u64,
    /// `othello_search_info`'s report, when the bot has it and did not fail the move.
    pub info: Option<OthelloSearchInfo>,
    /// `othello_last_error` after a failed move.
    pub error: Option<String>,
}

/// An analysis as the bot answered it: the count it returned, the values within it and the
/// capacity (unchecked), and `othello_last_error` after a failure.
#[derive(Debug, Clone, PartialEq)]
pub struct WasmAnalysis {
    pub returned: u32,
    pub values: Vec<OthelloMoveValue>,
    pub error: Option<String>,
}

/// A seat's bot module.
pub struct WasmPlayer {
    module: WasmModule,
    bot: Option<WasmBot>,
    probe: Probe,
    memory_limit_mb: u64,
    load_fuel: u64,
    seed: u64,
    /// The game's seed was mixed with its first position (at the bot's first move).
    seeded: bool,
}

impl WasmPlayer {
    /// Checks `module` as a bot: it starts on `load_fuel`, speaks ABI version 1 and answers
    /// `othello_levels`. `memory_limit_mb` holds its memory (0: none but WebAssembly's), `seed`
    /// is where its games' random numbers start from.
    pub fn open(
        module: WasmModule,
        memory_limit_mb: u64,
        load_fuel: u64,
        seed: u64,
    ) -> Result<WasmPlayer, CallFailure> {
        let probe_limits = Limits { memory_limit_mb, seed };
        let mut probe = WasmBot::instantiate(&module, probe_limits, load_fuel)
            .map_err(|e| CallFailure { loss: Loss::LoadError, ..CallFailure::of_call("start-up", &e) })?;
        let version =
            probe.abi_version(load_fuel).map_err(|e| CallFailure::while_loading("othello_abi_version", &e))?;
        if version != othello_sdk::abi::OTHELLO_ABI_VERSION {
            return Err(CallFailure::new(
                Loss::LoadError,
                format!("the module speaks ABI version {version}; this host speaks version 1"),
            ));
        }
        let levels = probe.levels(load_fuel).map_err(|e| CallFailure::while_loading("othello_levels", &e))?;
        let probe = Probe {
            abi_version: version,
            levels,
            analysis: probe.analyzes(),
            search_info: probe.has_search_info(),
            last_error: probe.has_last_error(),
        };
        Ok(WasmPlayer { module, bot: None, probe, memory_limit_mb, load_fuel, seed, seeded: false })
    }

    pub fn probe(&self) -> Probe {
        self.probe
    }

    pub fn module(&self) -> &WasmModule {
        &self.module
    }

    /// A fresh instance for a new game: `init` (its name; `None` when it returned NULL), then
    /// `othello_set_level(level)`.
    pub fn new_game(&mut self, level: Option<u32>) -> Result<Option<String>, CallFailure> {
        self.bot = None;
        self.seeded = false;
        let limits = Limits { memory_limit_mb: self.memory_limit_mb, seed: self.seed };
        let fuel = self.load_fuel;
        let mut bot =
            WasmBot::instantiate(&self.module, limits, fuel).map_err(|e| CallFailure::of_call("start-up", &e))?;
        let name = match bot.init(fuel) {
            Ok(name) => name,
            Err(error) => {
                let failure = CallFailure::of_call("init", &error);
                let loss = if failure.loss == Loss::OutOfMemory { Loss::OutOfMemory } else { Loss::LoadError };
                return Err(CallFailure { loss, ..failure }.with_output(bot.output_tail()));
            }
        };
        if name.is_none()
            && let Ok(Some(why)) = bot.last_error(fuel)
        {
            return Err(CallFailure::new(Loss::LoadError, format!("init failed: {why}")));
        }
        if let Some(level) = level
            && let Err(error) = bot.set_level(level, fuel)
        {
            return Err(CallFailure::of_call("othello_set_level", &error).with_output(bot.output_tail()));
        }
        self.bot = Some(bot);
        Ok(name)
    }

    /// `think` on `position` with the fuel of `time_limit` (an hour's without one), then
    /// `othello_search_info` (or `othello_last_error` after a failed move). The game's random
    /// numbers are seeded at its first move, from the seat's seed and that position.
    pub fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<WasmMove, CallFailure> {
        let small = self.load_fuel;
        let Some(bot) = self.bot.as_mut() else {
            return Err(CallFailure::new(Loss::Crash, "the bot's instance is gone (a new game was not started)"));
        };
        if !self.seeded {
            bot.reseed(game_seed(self.seed, position));
            self.seeded = true;
        }
        let board = OthelloBoard::new(position, limit_ms(time_limit));
        let thought = match bot.think(&board, move_fuel(time_limit)) {
            Ok(thought) => thought,
            Err(error) => return Err(self.fail(CallFailure::of_call("think", &error))),
        };
        if thought.byte == OTHELLO_MOVE_ERROR {
            let error = bot.last_error(small).ok().flatten();
            self.bot = None;
            return Ok(WasmMove { byte: thought.byte, fuel: thought.fuel, info: None, error });
        }
        match bot.search_info(small) {
            Ok(info) => Ok(WasmMove { byte: thought.byte, fuel: thought.fuel, info, error: None }),
            Err(error) => Err(self.fail(CallFailure::of_call("othello_search_info", &error))),
        }
    }

    /// `othello_analyze` on `position` with the fuel of `time_limit`; `None` without the export.
    pub fn analyze(
        &mut self,
        position: &Position,
        time_limit: Option<Duration>,
    ) -> Result<Option<WasmAnalysis>, CallFailure> {
        let small = self.load_fuel;
        let Some(bot) = self.bot.as_mut() else {
            return Err(CallFailure::new(Loss::Crash, "the bot's instance is gone (a new game was not started)"));
        };
        let board = OthelloBoard::new(position, limit_ms(time_limit));
        match bot.analyze(&board, move_fuel(time_limit)) {
            Ok(None) => Ok(None),
            Ok(Some((returned, values))) => {
                let error = if returned == othello_sdk::abi::OTHELLO_ANALYZE_ERROR {
                    bot.last_error(small).ok().flatten()
                } else {
                    None
                };
                Ok(Some(WasmAnalysis { returned, values, error }))
            }
            Err(error) => Err(self.fail(CallFailure::of_call("othello_analyze", &error))),
        }
    }

    /// The failure with the bot's last output; the instance is gone (the next game starts anew).
    fn fail(&mut self, failure: CallFailure) -> CallFailure {
        let output = self.bot.take().map(|bot| bot.output_tail()).unwrap_or_default();
        failure.with_output(output)
    }
}

/// The limit in whole milliseconds as the board carries it (0: none).
fn limit_ms(time_limit: Option<Duration>) -> u32 {
    time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32)
}

/// Fuel for a move of `time_limit` (an hour's without one).
pub fn move_fuel(time_limit: Option<Duration>) -> u64 {
    fuel_for_ms(time_limit.map_or(UNLIMITED_MOVE_MS, |t| (t.as_millis() as u64).max(1)))
}

/// The game's seed: the seat's, mixed with the first position its bot is asked about (which
/// tells the games of a match apart: their openings, and the colour the bot plays).
pub fn game_seed(seed: u64, position: &Position) -> u64 {
    let (black, white) = (position.black().0, position.white().0);
    let mut mixed = SplitMix64::new(seed ^ black.rotate_left(17) ^ white.rotate_left(41));
    mixed.next_u64() ^ u64::from(position.side_to_move() == Color::White)
}
