//! WebAssembly seats: a `.wasm` bot module run by `othello_wasm` (wasmtime with fuel), so that
//! its games are the same on every machine. Its time is fuel ([`othello_wasm::FUEL_PER_MS`] per
//! millisecond of the limit, whatever the clock of the event), its clocks are virtual, its random
//! numbers come from the game's seed.
//!
//! Each game is played by a fresh instance of the module (compiled once per process): a game
//! depends only on the module, the seed and the moves, so any game can be re-played alone
//! ([`replay`]).
//!
//! The module runs in the host process, inside wasmtime's own sandbox (its memory, fuel and
//! imports are all the host gives it); not yet inside the sandboxed runner as well.

use std::path::Path;
use std::time::{Duration, Instant};

use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR, OthelloBoard};
use othello_sdk::{Position, SEED_ENV_VAR, SearchInfo};
use othello_wasm::{BotError, FUEL_PER_MS, Limits, WasmBot, WasmModule};

use super::analysis::{Analysis, AnalysisError, validate};
use super::failure::{Failure, Termination};
use super::in_process::analysis_error_reason;
use super::player::{Reply, Seat};
use super::spec::{SeatOptions, SeatSpec, library_stem, sanitize_bot_name};

/// The file extension of WebAssembly bots.
pub const WASM_EXTENSION: &str = "wasm";

/// Fuel of a move without a time limit: an hour on the virtual clock (a module never runs
/// unbounded).
const UNLIMITED_MOVE_MS: u64 = 60 * 60 * 1000;

/// Whether `path` names a WebAssembly bot (`.wasm`).
pub fn is_wasm_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(WASM_EXTENSION))
}

/// The seed a wasm bot's random numbers start from: `OTHELLO_SEED` (the sample bots' convention,
/// so `OTHELLO_SEED=42 othello match …` replays the same games), else 0.
pub fn base_seed() -> u64 {
    std::env::var(SEED_ENV_VAR).ok().and_then(|seed| seed.trim().parse().ok()).unwrap_or(0)
}

/// A seat whose bot is a WebAssembly module.
pub struct WasmSeat {
    module: WasmModule,
    bot: Option<WasmBot>,
    name: String,
    levels: u32,
    analysis: bool,
    level: Option<u32>,
    options: SeatOptions,
    seed: u64,
    /// The game's seed was mixed with its first position (at the bot's first move).
    seeded: bool,
}

impl WasmSeat {
    /// Compiles (or takes from the cache) and checks the module at `spec.library`: a module that
    /// is no bot, imports what a bot may not, or speaks another ABI version is a `load-error`.
    pub fn open(spec: &SeatSpec) -> Result<WasmSeat, Failure> {
        WasmSeat::open_with_seed(spec, base_seed())
    }

    /// [`WasmSeat::open`] with the seed its games' random numbers come from.
    pub fn open_with_seed(spec: &SeatSpec, seed: u64) -> Result<WasmSeat, Failure> {
        let load_error = |detail: String| Failure::new(Termination::LoadError, detail);
        let module = WasmModule::load_file(&spec.library).map_err(load_error)?;
        WasmSeat::from_module(module, library_stem(&spec.library), spec.level, spec.options, seed)
    }

    /// A seat of an already loaded module (the server's re-play).
    pub fn from_module(
        module: WasmModule,
        name: String,
        level: Option<u32>,
        options: SeatOptions,
        seed: u64,
    ) -> Result<WasmSeat, Failure> {
        let mut seat =
            WasmSeat { module, bot: None, name, levels: 0, analysis: false, level, options, seed, seeded: false };
        let fuel = seat.load_fuel();
        let mut probe = seat.instance().map_err(|f| Failure::new(Termination::LoadError, f.detail))?;
        let version = probe.abi_version(fuel).map_err(|e| load_failure("othello_abi_version", &e))?;
        if version != othello_sdk::abi::OTHELLO_ABI_VERSION {
            return Err(Failure::new(
                Termination::LoadError,
                format!("the module speaks ABI version {version}; this host speaks version 1"),
            ));
        }
        seat.levels = probe.levels(fuel).map_err(|e| load_failure("othello_levels", &e))?;
        seat.analysis = probe.analyzes();
        Ok(seat)
    }

    /// The module's hash (SHA-256, hex).
    pub fn module_hash(&self) -> String {
        self.module.hash_hex()
    }

    fn load_fuel(&self) -> u64 {
        othello_wasm::fuel_for_ms(self.options.load_timeout.as_millis() as u64)
    }

    fn instance(&self) -> Result<WasmBot, Failure> {
        let limits = Limits { memory_limit_mb: self.options.memory_limit_mb, seed: self.seed };
        WasmBot::instantiate(&self.module, limits, self.load_fuel()).map_err(|e| call_failure("start-up", &e))
    }

    fn fail(&mut self, failure: Failure) -> Failure {
        let output = self.bot.take().map(|bot| bot.output_tail()).unwrap_or_default();
        failure.with_output(output)
    }
}

/// A failure while loading, as a load error.
fn load_failure(call: &str, error: &BotError) -> Failure {
    Failure::new(Termination::LoadError, format!("{call} failed while loading: {error}"))
}

/// The named loss of a call that failed.
fn call_failure(call: &str, error: &BotError) -> Failure {
    match error {
        BotError::OutOfFuel { fuel, ms } => Failure::new(
            Termination::Timeout,
            format!(
                "used all its fuel in {call}: {fuel} units ({ms} ms on the virtual clock at {FUEL_PER_MS} units per ms)"
            ),
        ),
        BotError::OutOfMemory { .. } => Failure::new(Termination::OutOfMemory, format!("{error} in {call}")),
        BotError::Trap(_) | BotError::Exited(_) | BotError::Abi(_) => {
            Failure::new(Termination::Crash, format!("{error} in {call}"))
        }
    }
}

/// Fuel for a move of `time_limit` (an hour's without one).
fn move_fuel(time_limit: Option<Duration>) -> u64 {
    othello_wasm::fuel_for_ms(time_limit.map_or(UNLIMITED_MOVE_MS, |t| (t.as_millis() as u64).max(1)))
}

/// The game's seed: the seat's, mixed with the first position its bot is asked about (which
/// tells the games of a match apart: their openings, and the colour the bot plays).
fn game_seed(seed: u64, position: &Position) -> u64 {
    let (black, white) = (position.black().0, position.white().0);
    let mut mixed = othello_sdk::SplitMix64::new(seed ^ black.rotate_left(17) ^ white.rotate_left(41));
    mixed.next_u64() ^ u64::from(position.side_to_move() == othello_sdk::Color::White)
}

impl Seat for WasmSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn levels(&self) -> u32 {
        self.levels
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        // A fresh instance a game: its state, clocks and random numbers start anew.
        self.bot = None;
        self.seeded = false;
        let mut bot = self.instance()?;
        let fuel = self.load_fuel();
        let name = match bot.init(fuel) {
            Ok(name) => name,
            Err(error) => {
                let failure = call_failure("init", &error);
                let termination = if failure.termination == Termination::OutOfMemory {
                    Termination::OutOfMemory
                } else {
                    Termination::LoadError
                };
                return Err(Failure { termination, ..failure }.with_output(bot.output_tail()));
            }
        };
        match name {
            Some(name) => {
                if let Some(name) = sanitize_bot_name(&name) {
                    self.name = name;
                }
            }
            None => {
                if let Ok(Some(why)) = bot.last_error(fuel) {
                    return Err(Failure::new(Termination::LoadError, format!("init failed: {why}")));
                }
            }
        }
        if let Some(level) = self.level
            && let Err(error) = bot.set_level(level, fuel)
        {
            return Err(call_failure("othello_set_level", &error).with_output(bot.output_tail()));
        }
        self.bot = Some(bot);
        Ok(())
    }

    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure> {
        let small = self.load_fuel();
        let Some(bot) = self.bot.as_mut() else {
            return Err(Failure::new(Termination::Crash, "the bot's instance is gone (a new game was not started)"));
        };
        if !self.seeded {
            bot.reseed(game_seed(self.seed, position));
            self.seeded = true;
        }
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        let fuel = move_fuel(time_limit);
        let started = Instant::now();
        let thought = bot.think(&board, fuel);
        let elapsed = started.elapsed();
        let thought = match thought {
            Ok(thought) => thought,
            Err(error) => {
                let failure = call_failure("think", &error);
                return Err(self.fail(failure));
            }
        };
        // What the bot used, on its virtual clock.
        let cpu = Some(othello_wasm::virtual_time(thought.fuel));
        if thought.byte == OTHELLO_MOVE_ERROR {
            let why = bot.last_error(small).ok().flatten();
            return Err(self.fail(super::failure::move_error_failure(why)));
        }
        let info = match bot.search_info(small) {
            Ok(info) => info.map(SearchInfo::from),
            Err(error) => return Err(self.fail(call_failure("othello_search_info", &error))),
        };
        Ok(Reply { byte: thought.byte, elapsed, info, cpu, throttled: None })
    }

    fn analyzes(&self) -> bool {
        self.analysis
    }

    fn analyze(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Analysis, AnalysisError> {
        if !self.analysis {
            return Err(AnalysisError::Unsupported);
        }
        let small = self.load_fuel();
        let Some(bot) = self.bot.as_mut() else {
            let gone = Failure::new(Termination::Crash, "the bot's instance is gone (a new game was not started)");
            return Err(AnalysisError::Failed(gone));
        };
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        let started = Instant::now();
        let answer = bot.analyze(&board, move_fuel(time_limit));
        let elapsed = started.elapsed();
        match answer {
            Ok(Some((returned, _))) if returned == OTHELLO_ANALYZE_ERROR => {
                let why = bot.last_error(small).ok().flatten();
                Err(AnalysisError::Refused(analysis_error_reason(why)))
            }
            Ok(Some((returned, values_raw))) => {
                let (values, rejected) = validate(position, returned, &values_raw);
                Ok(Analysis { values, rejected, elapsed })
            }
            Ok(None) => Err(AnalysisError::Unsupported),
            Err(error) => {
                let failure = call_failure("othello_analyze", &error);
                Err(AnalysisError::Failed(self.fail(failure)))
            }
        }
    }
}

/// One game between two wasm modules, played again from its opening and seed: the moves as the
/// bots play them (the same on every machine). For the server's check of a worker's result.
pub fn replay(
    black: &[u8],
    white: &[u8],
    opening: &crate::referee::Opening,
    seed: u64,
    time_limit: Option<Duration>,
    options: SeatOptions,
) -> Result<crate::record::GameRecord, String> {
    let seat = |bytes: &[u8], name: &str| -> Result<WasmSeat, String> {
        let module = WasmModule::load(bytes).map_err(|e| format!("{name}: {e}"))?;
        WasmSeat::from_module(module, name.to_owned(), None, options, seed).map_err(|f| format!("{name}: {}", f.detail))
    };
    let (mut black, mut white) = (seat(black, "black")?, seat(white, "white")?);
    Ok(crate::referee::play_game(&mut black, &mut white, opening, time_limit))
}
