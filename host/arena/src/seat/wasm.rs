//! WebAssembly seats: a `.wasm` bot module run by `othello_wasm` (wasmtime with fuel), so that
//! its games are the same on every machine. Its time is fuel ([`othello_wasm::FUEL_PER_MS`] per
//! millisecond of the limit, whatever the clock of the event), its clocks are virtual, its random
//! numbers come from the game's seed.
//!
//! Each game is played by a fresh instance of the module (compiled once per process): a game
//! depends only on the module, the seed and the moves, so any game can be re-played alone
//! ([`replay`]).
//!
//! An isolated seat runs the module inside the sandboxed runner (defence in depth: wasmtime's own
//! sandbox, then the runner's); an in-process one, and the server's re-play, in this process.

use std::path::Path;
use std::time::{Duration, Instant};

use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR};
use othello_sdk::{Position, SEED_ENV_VAR, SearchInfo};
use othello_wasm::{CallFailure, Loss, WasmModule, WasmPlayer};

use super::analysis::{Analysis, AnalysisError, validate};
use super::failure::{Failure, Termination};
use super::in_process::analysis_error_reason;
use super::player::{Reply, Seat};
use super::spec::{SeatOptions, SeatSpec, library_stem, sanitize_bot_name};

/// The file extension of WebAssembly bots.
pub const WASM_EXTENSION: &str = "wasm";

/// Whether `path` names a WebAssembly bot (`.wasm`).
pub fn is_wasm_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(WASM_EXTENSION))
}

/// The seed a wasm bot's random numbers start from: `OTHELLO_SEED` (the sample bots' convention,
/// so `OTHELLO_SEED=42 othello match …` replays the same games), else 0.
pub fn base_seed() -> u64 {
    std::env::var(SEED_ENV_VAR).ok().and_then(|seed| seed.trim().parse().ok()).unwrap_or(0)
}

/// A seat whose bot is a WebAssembly module, run in this process (in-process events, the
/// server's re-play); an isolated seat hosts the module in the sandboxed runner instead, through
/// the same [`WasmPlayer`].
pub struct WasmSeat {
    player: WasmPlayer,
    name: String,
    level: Option<u32>,
}

impl WasmSeat {
    /// Compiles (or takes from the cache) and checks the module at `spec.library`: a module that
    /// is no bot, imports what a bot may not, or speaks another ABI version is a `load-error`.
    pub fn open(spec: &SeatSpec) -> Result<WasmSeat, Failure> {
        WasmSeat::open_with_seed(spec, spec.options.wasm_seed.unwrap_or_else(base_seed))
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
        let player =
            WasmPlayer::open(module, options.memory_limit_mb, load_fuel(&options), seed).map_err(failure_of)?;
        Ok(WasmSeat { player, name, level })
    }

    /// The module's hash (SHA-256, hex).
    pub fn module_hash(&self) -> String {
        self.player.module().hash_hex()
    }
}

/// The fuel of loading and of every call but `think` and `othello_analyze`: the load timeout's.
pub fn load_fuel(options: &SeatOptions) -> u64 {
    othello_wasm::fuel_for_ms(options.load_timeout.as_millis() as u64)
}

/// The arena's failure of a module's failed call.
pub fn failure_of(failure: CallFailure) -> Failure {
    let termination = match failure.loss {
        Loss::Timeout => Termination::Timeout,
        Loss::OutOfMemory => Termination::OutOfMemory,
        Loss::Crash => Termination::Crash,
        Loss::LoadError => Termination::LoadError,
    };
    Failure::new(termination, failure.detail).with_output(failure.output)
}

impl Seat for WasmSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn levels(&self) -> u32 {
        self.player.probe().levels
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        // A fresh instance a game: its state, clocks and random numbers start anew.
        if let Some(name) = self.player.new_game(self.level).map_err(failure_of)?
            && let Some(name) = sanitize_bot_name(&name)
        {
            self.name = name;
        }
        Ok(())
    }

    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure> {
        let started = Instant::now();
        let answer = self.player.think(position, time_limit);
        let elapsed = started.elapsed();
        let answer = answer.map_err(failure_of)?;
        if answer.byte == OTHELLO_MOVE_ERROR {
            return Err(super::failure::move_error_failure(answer.error));
        }
        // What the bot used, on its virtual clock.
        let cpu = Some(othello_wasm::virtual_time(answer.fuel));
        Ok(Reply { byte: answer.byte, elapsed, info: answer.info.map(SearchInfo::from), cpu, throttled: None })
    }

    fn analyzes(&self) -> bool {
        self.player.probe().analysis
    }

    fn analyze(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Analysis, AnalysisError> {
        if !self.player.probe().analysis {
            return Err(AnalysisError::Unsupported);
        }
        let started = Instant::now();
        let answer = self.player.analyze(position, time_limit);
        let elapsed = started.elapsed();
        match answer {
            Ok(Some(answer)) if answer.returned == OTHELLO_ANALYZE_ERROR => {
                Err(AnalysisError::Refused(analysis_error_reason(answer.error)))
            }
            Ok(Some(answer)) => {
                let (values, rejected) = validate(position, answer.returned, &answer.values);
                Ok(Analysis { values, rejected, elapsed })
            }
            Ok(None) => Err(AnalysisError::Unsupported),
            Err(failure) => Err(AnalysisError::Failed(failure_of(failure))),
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
