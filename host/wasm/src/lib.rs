//! WebAssembly bots: a module that speaks the C ABI v1 (built from the same C source as a
//! library, see the book's "WebAssembly bots"), run under wasmtime so that its games are the
//! same on every machine.
//!
//! - **Fuel, not time.** A move's budget is its time limit × [`FUEL_PER_MS`] units of fuel
//!   (about one per WebAssembly instruction); a bot that runs out of fuel loses on time
//!   ([`BotError::OutOfFuel`]), whatever the machine's speed or load.
//! - **Virtual clocks.** The only imports are [`ALLOWED_IMPORTS`] of WASI preview 1, all
//!   deterministic: every clock a C program reads (`clock_gettime`, `clock`, `time`) gives the
//!   fuel used so far as time ([`virtual_time`]), random numbers come from the game's seed, there
//!   are no files, no network and no sleeping; stdout and stderr are kept as the bot's output.
//! - **Memory.** The module's memory is held to the memory limit ([`BotError::OutOfMemory`]).
//! - **Compiled once.** Modules are compiled once per process and kept by their hash
//!   ([`WasmModule::load`]).
//!
//! A game is played by a fresh instance ([`WasmBot::instantiate`]), so that every game can be
//! replayed alone from its module bytes, opening and seed (the server's re-play of a worker's
//! games).

mod abi;
mod disk_cache;
mod host;
pub mod metering;
mod player;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use othello_sdk::abi::{OthelloBoard, OthelloMoveValue, OthelloSearchInfo};
use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, InstancePre, Linker, Module, Store, Trap};

pub use abi::{BUFFER_EXPORT, BUFFER_SIZE, board_bytes};
pub use disk_cache::{CACHE_DIR_ENV, cache_dir};
use host::HostState;
pub use host::{ALLOWED_IMPORTS, WASI_MODULE};
pub use player::{
    CallFailure, Loss, Probe, UNLIMITED_MOVE_MS, WasmAnalysis, WasmMove, WasmPlayer, game_seed, move_fuel,
};

/// The flags of the documented build line that makes a bot module from the same C source as a
/// library: `clang --target=wasm32-wasi --sysroot=/usr -O2 -nostartfiles -Wl,--no-entry
/// -Wl,--export-dynamic -I sdk/include bot.c -o bot.wasm` (Debian's `clang-14 lld-14 wasi-libc
/// libclang-rt-14-dev-wasm32`).
pub const C_BUILD_FLAGS: [&str; 6] =
    ["--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-nostartfiles", "-Wl,--no-entry", "-Wl,--export-dynamic"];

/// Fuel a bot gets per millisecond of its time limit: 20 million units (a unit is about one
/// WebAssembly operator; most compile to nothing, as `local.get` does). About what wasmtime runs
/// in a millisecond of CPU time: 21.6 million on the 2-core machine it was measured on (the
/// `wasm_bench` example of the arena, a depth-5 alpha-beta in C), so a module's millisecond is
/// about a millisecond of its CPU time there, and the same on every machine.
pub const FUEL_PER_MS: u64 = 20_000_000;

/// The virtual time of `fuel` units: what a module's clocks advance by when it uses them
/// ([`FUEL_PER_MS`] a millisecond).
pub fn virtual_time(fuel: u64) -> std::time::Duration {
    std::time::Duration::from_nanos((u128::from(fuel) * 1_000_000 / u128::from(FUEL_PER_MS)) as u64)
}
/// What the runner that hosts a module (the arena's isolated seats) needs besides the module's
/// own memory, in MiB: the engine, the compiled code and the runner itself. Its memory limit is
/// the seat's plus this; the module is held to the seat's.
pub const RUNNER_OVERHEAD_MB: u64 = 128;
/// Largest module accepted, in bytes.
pub const MAX_MODULE_BYTES: usize = 64 * 1024 * 1024;
/// Deepest WebAssembly stack a bot may use, in bytes (past it: a crash, "call stack exhausted").
pub const MAX_WASM_STACK: usize = 1024 * 1024;
/// The realtime clock's reading at a game's start (2026-01-01 00:00 UTC), in nanoseconds since
/// the Unix epoch: the same on every machine.
pub const VIRTUAL_EPOCH_NS: u64 = 1_767_225_600 * 1_000_000_000;

/// A module that cannot be a bot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("not a WebAssembly module wasmtime accepts: {0}")]
    Invalid(String),
    #[error("the module is {0} bytes, over the {MAX_MODULE_BYTES} bytes a bot may have")]
    TooLarge(usize),
    #[error(
        "the module imports {0}, which a WebAssembly bot may not use (only deterministic imports: {allowed})",
        allowed = ALLOWED_IMPORTS.join(", ")
    )]
    ForbiddenImport(String),
    #[error(
        "the module does not export `{0}` (a bot exports othello_abi_version, init, think and {BUFFER_EXPORT}: build it with sdk/include/othello_bot.h)"
    )]
    MissingExport(&'static str),
    #[error("the module's export `{0}` has the wrong type")]
    WrongExport(&'static str),
}

/// Why a call into the bot failed: each is a named loss.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// The call used all its fuel (a loss on time).
    #[error("used all its fuel ({fuel} units, {ms} ms on the virtual clock)")]
    OutOfFuel { fuel: u64, ms: u64 },
    /// The module tried to grow its memory past the limit.
    #[error("tried to grow its memory to {wanted_mb} MB, over the memory limit of {limit_mb} MB")]
    OutOfMemory { wanted_mb: u64, limit_mb: u64 },
    /// The module trapped (out-of-bounds access, `unreachable` — C's `abort` —, stack overflow …).
    #[error("trapped: {0}")]
    Trap(String),
    /// The module called `proc_exit` (C's `exit`).
    #[error("exited with code {0}")]
    Exited(u32),
    /// The module answered something the host cannot read (a pointer out of its memory …).
    #[error("{0}")]
    Abi(String),
}

/// The limits of one bot instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most memory the module may have, in MiB (0: WebAssembly's own bound, 4 GiB).
    pub memory_limit_mb: u64,
    /// The seed of the bot's random numbers (`random_get`, so C's `arc4random` and
    /// `getentropy`).
    pub seed: u64,
}

/// The engine all bots share (of [`engine_config`]).
fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(&engine_config()).expect("the bots' wasmtime configuration is valid"))
}

/// The wasmtime configuration of the bots' engine: fuel on, every feature that could make a
/// result differ between machines off or made deterministic. Public for the benchmarks, which
/// change one setting of it at a time (the arena's `wasm_bench`).
pub fn engine_config() -> Config {
    let mut config = Config::new();
    config
        .consume_fuel(true)
        // Memory is initialised by copying the data segments, not mapped from an image: no
        // memfd (the runner that hosts a module makes no file descriptors), and a module's
        // few kilobytes of data cost nothing to copy.
        .memory_init_cow(false)
        .max_wasm_stack(MAX_WASM_STACK)
        .cranelift_nan_canonicalization(true)
        .relaxed_simd_deterministic(true)
        .wasm_memory64(false)
        .wasm_multi_memory(false);
    config
}

/// The modules of this process by their hash.
fn memory_cache() -> &'static Mutex<HashMap<[u8; 32], WasmModule>> {
    static CACHE: OnceLock<Mutex<HashMap<[u8; 32], WasmModule>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The imports every bot gets.
fn linker() -> &'static Linker<HostState> {
    static LINKER: OnceLock<Linker<HostState>> = OnceLock::new();
    LINKER.get_or_init(|| host::linker(engine()))
}

/// A compiled bot module, ready to be instantiated (cheap to clone).
#[derive(Clone)]
pub struct WasmModule {
    pre: InstancePre<HostState>,
    hash: [u8; 32],
}

impl std::fmt::Debug for WasmModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WasmModule({})", self.hash_hex())
    }
}

impl WasmModule {
    /// Checks and compiles `bytes` (once per process: a module of the same bytes is taken from
    /// the cache; and once per machine: compiled code is kept on disk, see [`cache_dir`]).
    pub fn load(bytes: &[u8]) -> Result<WasmModule, LoadError> {
        WasmModule::load_with(bytes, true)
    }

    /// [`WasmModule::load`] without the disk cache (a sandboxed runner's: its folders are not
    /// the user's).
    pub fn compile(bytes: &[u8]) -> Result<WasmModule, LoadError> {
        WasmModule::load_with(bytes, false)
    }

    fn load_with(bytes: &[u8], disk: bool) -> Result<WasmModule, LoadError> {
        if bytes.len() > MAX_MODULE_BYTES {
            return Err(LoadError::TooLarge(bytes.len()));
        }
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        if let Some(module) = memory_cache().lock().unwrap_or_else(|p| p.into_inner()).get(&hash) {
            return Ok(module.clone());
        }
        // Compiled in an earlier run (the disk cache), else now, and kept for the next runs.
        let module = match disk.then(|| disk_cache::read(&hash)).flatten() {
            Some(module) => module,
            None => {
                let module = Module::new(engine(), bytes).map_err(|e| LoadError::Invalid(first_line(&e)))?;
                WasmModule::checked(&module)?;
                if disk {
                    disk_cache::write(&hash, &module);
                }
                module
            }
        };
        WasmModule::keep(module, hash)
    }

    /// A module the host compiled (its serialized code at `artifact`, see
    /// [`WasmModule::artifact`]) for the bytes `bytes`: how a runner loads it without compiling.
    /// The artifact must come from a trusted writer: its code is run as it is (the host's cache,
    /// which a sandboxed bot cannot write). Anything amiss (another engine, a damaged file) is
    /// an error, and the caller compiles instead.
    pub fn load_artifact(bytes: &[u8], artifact: &std::path::Path) -> Result<WasmModule, LoadError> {
        if bytes.len() > MAX_MODULE_BYTES {
            return Err(LoadError::TooLarge(bytes.len()));
        }
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        let module = disk_cache::read_file(artifact)
            .ok_or_else(|| LoadError::Invalid(format!("no usable compiled module at {}", artifact.display())))?;
        WasmModule::keep(module, hash)
    }

    /// Where the compiled code of this module is kept on disk (`None`: no disk cache, or it
    /// could not be written): what a runner is given to load it from ([`WasmModule::load_artifact`]).
    pub fn artifact(&self) -> Option<std::path::PathBuf> {
        disk_cache::artifact_of(&self.hash, self.pre.module())
    }

    /// The checks of a compiled module: its imports and exports.
    fn checked(module: &Module) -> Result<(), LoadError> {
        host::check_imports(module)?;
        abi::check_exports(module)
    }

    /// The module of `hash`, checked, ready to instantiate and kept in this process's cache.
    fn keep(module: Module, hash: [u8; 32]) -> Result<WasmModule, LoadError> {
        WasmModule::checked(&module)?;
        let pre = linker().instantiate_pre(&module).map_err(|e| LoadError::Invalid(first_line(&e)))?;
        let module = WasmModule { pre, hash };
        memory_cache().lock().unwrap_or_else(|p| p.into_inner()).insert(hash, module.clone());
        Ok(module)
    }

    /// [`WasmModule::load`] of a file.
    pub fn load_file(path: &std::path::Path) -> Result<WasmModule, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        WasmModule::load(&bytes).map_err(|e| e.to_string())
    }

    /// Whether `other` is this very compilation (a module loaded again comes from the cache).
    pub fn is_same_compilation(&self, other: &WasmModule) -> bool {
        Module::same(self.pre.module(), other.pre.module())
    }

    /// The names the module exports (functions, its memory …).
    pub fn export_names(&self) -> Vec<String> {
        self.pre.module().exports().map(|export| export.name().to_owned()).collect()
    }

    /// The SHA-256 of the module's bytes, in hex.
    pub fn hash_hex(&self) -> String {
        self.hash.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What a `think` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thought {
    /// The move byte, as the bot returned it.
    pub byte: u8,
    /// Fuel the call used.
    pub fuel: u64,
}

/// One instance of a bot module: one game's worth of its state.
pub struct WasmBot {
    store: Store<HostState>,
    exports: abi::Exports,
}

impl WasmBot {
    /// A fresh instance of `module` (its start-up code, if any, runs on `fuel`).
    pub fn instantiate(module: &WasmModule, limits: Limits, fuel: u64) -> Result<WasmBot, BotError> {
        let mut store = Store::new(engine(), HostState::new(limits));
        store.data_mut().fuel_given = fuel;
        store.limiter(|state| &mut state.memory);
        store.set_fuel(fuel).map_err(|e| BotError::Abi(first_line(&e)))?;
        let instance = module.pre.instantiate(&mut store).map_err(|e| classify(&store, e, fuel))?;
        let exports = abi::Exports::find(&instance, &mut store).map_err(|e| BotError::Abi(e.to_string()))?;
        let mut bot = WasmBot { store, exports };
        if let Some(start) = bot.exports.initialize.clone() {
            bot.call(fuel, |store| start.call(store, ()))?;
        }
        Ok(bot)
    }

    /// `othello_abi_version()`.
    pub fn abi_version(&mut self, fuel: u64) -> Result<u32, BotError> {
        let export = self.exports.abi_version.clone();
        self.call(fuel, |store| export.call(store, ())).map(|(version, _)| version)
    }

    /// `othello_levels()` (0 without the export).
    pub fn levels(&mut self, fuel: u64) -> Result<u32, BotError> {
        let Some(export) = self.exports.levels.clone() else { return Ok(0) };
        self.call(fuel, |store| export.call(store, ())).map(|(levels, _)| levels)
    }

    /// `othello_set_level(level)`, when the bot has it.
    pub fn set_level(&mut self, level: u32, fuel: u64) -> Result<(), BotError> {
        let Some(export) = self.exports.set_level.clone() else { return Ok(()) };
        self.call(fuel, |store| export.call(store, level)).map(|_| ())
    }

    /// `init()`: the bot's name (`None`: it returned NULL).
    pub fn init(&mut self, fuel: u64) -> Result<Option<String>, BotError> {
        let export = self.exports.init.clone();
        let (name, _) = self.call(fuel, |store| export.call(store, ()))?;
        self.c_string(name)
    }

    /// `think(board)` on at most `fuel`.
    pub fn think(&mut self, board: &OthelloBoard, fuel: u64) -> Result<Thought, BotError> {
        let buffer = self.buffer(fuel)?;
        self.write(buffer, &abi::board_bytes(board))?;
        let export = self.exports.think.clone();
        let (byte, fuel) = self.call(fuel, |store| export.call(store, buffer))?;
        // An i32 result: the C function's uint8_t, widened.
        Ok(Thought { byte: byte as u8, fuel })
    }

    /// `othello_search_info(info)`, when the bot has it.
    pub fn search_info(&mut self, fuel: u64) -> Result<Option<OthelloSearchInfo>, BotError> {
        let Some(export) = self.exports.search_info.clone() else { return Ok(None) };
        let buffer = self.buffer(fuel)?;
        let info = buffer + abi::INFO_OFFSET;
        self.write(info, &abi::empty_search_info())?;
        self.call(fuel, |store| export.call(store, info))?;
        let bytes = self.read(info, abi::SEARCH_INFO_BYTES)?;
        Ok(Some(abi::search_info_from(&bytes)))
    }

    /// `othello_last_error()`, when the bot has it.
    pub fn last_error(&mut self, fuel: u64) -> Result<Option<String>, BotError> {
        let Some(export) = self.exports.last_error.clone() else { return Ok(None) };
        let (text, _) = self.call(fuel, |store| export.call(store, ()))?;
        self.c_string(text)
    }

    /// Whether the bot has `othello_analyze`.
    pub fn analyzes(&self) -> bool {
        self.exports.analyze.is_some()
    }

    /// Whether the bot has `othello_search_info`.
    pub fn has_search_info(&self) -> bool {
        self.exports.search_info.is_some()
    }

    /// Whether the bot has `othello_last_error`.
    pub fn has_last_error(&self) -> bool {
        self.exports.last_error.is_some()
    }

    /// `othello_analyze(board, out, capacity)`: what it returned and the values within both
    /// that count and the capacity (unchecked); `None` without the export.
    pub fn analyze(
        &mut self,
        board: &OthelloBoard,
        fuel: u64,
    ) -> Result<Option<(u32, Vec<OthelloMoveValue>)>, BotError> {
        let Some(export) = self.exports.analyze.clone() else { return Ok(None) };
        let buffer = self.buffer(fuel)?;
        self.write(buffer, &abi::board_bytes(board))?;
        let out = buffer + abi::VALUES_OFFSET;
        let capacity = abi::VALUES_CAPACITY;
        for index in 0..capacity {
            self.write(out + index * abi::MOVE_VALUE_BYTES, &abi::empty_move_value())?;
        }
        let (returned, _) = self.call(fuel, |store| export.call(store, (buffer, out, capacity)))?;
        let count = returned.min(capacity);
        let bytes = self.read(out, (count * abi::MOVE_VALUE_BYTES) as usize)?;
        let values = bytes.chunks_exact(abi::MOVE_VALUE_BYTES as usize).map(abi::move_value_from).collect();
        Ok(Some((returned, values)))
    }

    /// Starts the bot's random numbers anew from `seed` (a game's own, once it is known).
    pub fn reseed(&mut self, seed: u64) {
        self.store.data_mut().reseed(seed);
    }

    /// What the bot wrote to stdout and stderr, its last lines.
    pub fn output_tail(&self) -> Vec<String> {
        self.store.data().output.lines()
    }

    /// Fuel used by this instance so far (its virtual clock, in fuel).
    pub fn fuel_used(&self) -> u64 {
        self.store.data().fuel_spent_before + self.store.data().fuel_given.saturating_sub(self.remaining_fuel())
    }

    fn remaining_fuel(&self) -> u64 {
        self.store.get_fuel().unwrap_or(0)
    }

    fn buffer(&mut self, fuel: u64) -> Result<u32, BotError> {
        let export = self.exports.buffer.clone();
        let (address, _) = self.call(fuel, |store| export.call(store, ()))?;
        let size = self.exports.memory.data_size(&self.store) as u64;
        if u64::from(address) + u64::from(BUFFER_SIZE) > size {
            return Err(BotError::Abi(format!("{BUFFER_EXPORT}() returned {address:#x}, not a buffer in its memory")));
        }
        Ok(address)
    }

    fn write(&mut self, address: u32, bytes: &[u8]) -> Result<(), BotError> {
        self.exports
            .memory
            .write(&mut self.store, address as usize, bytes)
            .map_err(|_| BotError::Abi(format!("the buffer at {address:#x} is not in the module's memory")))
    }

    fn read(&self, address: u32, len: usize) -> Result<Vec<u8>, BotError> {
        let mut bytes = vec![0; len];
        self.exports
            .memory
            .read(&self.store, address as usize, &mut bytes)
            .map_err(|_| BotError::Abi(format!("the buffer at {address:#x} is not in the module's memory")))?;
        Ok(bytes)
    }

    /// The NUL-terminated text at `address` (NULL: `None`), at most [`abi::MAX_TEXT`] bytes.
    fn c_string(&self, address: u32) -> Result<Option<String>, BotError> {
        if address == 0 {
            return Ok(None);
        }
        let data = self.exports.memory.data(&self.store);
        let Some(tail) = data.get(address as usize..) else {
            return Err(BotError::Abi(format!("returned the text pointer {address:#x}, outside its memory")));
        };
        let tail = &tail[..tail.len().min(abi::MAX_TEXT)];
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        Ok(Some(String::from_utf8_lossy(&tail[..end]).into_owned()))
    }

    /// Runs `call` on `fuel`: its result and the fuel it used, or why it failed.
    fn call<R>(
        &mut self,
        fuel: u64,
        call: impl FnOnce(&mut Store<HostState>) -> wasmtime::Result<R>,
    ) -> Result<(R, u64), BotError> {
        let before = self.fuel_used_before_call();
        let state = self.store.data_mut();
        (state.fuel_spent_before, state.fuel_given) = (before, fuel);
        self.store.set_fuel(fuel).map_err(|e| BotError::Abi(first_line(&e)))?;
        let result = call(&mut self.store);
        let used = fuel.saturating_sub(self.remaining_fuel());
        match result {
            Ok(value) => Ok((value, used)),
            Err(error) => Err(classify(&self.store, error, fuel)),
        }
    }

    /// The fuel used by the calls before the next one.
    fn fuel_used_before_call(&self) -> u64 {
        let state = self.store.data();
        state.fuel_spent_before + state.fuel_given.saturating_sub(self.remaining_fuel())
    }
}

/// The named failure of a call that ended with `error` on `fuel`.
fn classify(store: &Store<HostState>, error: wasmtime::Error, fuel: u64) -> BotError {
    if let Some(exit) = error.downcast_ref::<host::Exit>() {
        return BotError::Exited(exit.0);
    }
    if let Some(refused) = store.data().memory.refused {
        return BotError::OutOfMemory {
            wanted_mb: refused.div_ceil(1024 * 1024),
            limit_mb: store.data().memory.limit_mb(),
        };
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => BotError::OutOfFuel { fuel, ms: virtual_time(fuel).as_millis() as u64 },
        Some(trap) => BotError::Trap(trap.to_string().trim_start_matches("wasm trap: ").to_owned()),
        None => BotError::Trap(first_line(&error)),
    }
}

/// The first line of an error's text (wasmtime adds a backtrace below it).
fn first_line(error: &wasmtime::Error) -> String {
    error.to_string().lines().next().unwrap_or_default().to_owned()
}

/// Fuel for a call given `ms` milliseconds.
pub fn fuel_for_ms(ms: u64) -> u64 {
    ms.saturating_mul(FUEL_PER_MS)
}
