//! Seats: the one player abstraction the referee, the events and the app share.
//!
//! [`Seat`] is the extension point for new kinds of player: a bot library in an isolated runner
//! process ([`IsolatedSeat`]) or in the host ([`InProcessSeat`]) today, and an external engine or
//! a human at the board as more implementations, with no change to the referee or the events.
//! [`open_seat`] opens a bot library's seat from a [`SeatSpec`].

mod analysis;
mod clock;
mod failure;
mod in_process;
mod isolated;
mod nboard;
mod open;
mod player;
mod runner_command;
mod spec;
mod stderr_tail;
mod wasm;

pub use analysis::{Analysis, AnalysisError, validate as validate_analysis};
pub use clock::{Clock, MoveBudget, WALL_CAP_EXTRA, WALL_CAP_FACTOR, cpu_allowance, game_clock, wall_cap};
pub use failure::{Failure, Termination};
pub use in_process::InProcessSeat;
pub use isolated::{IsolatedSeat, Loaded, StopHandle};
pub use nboard::{NboardSeat, engine_name, engine_spec_of};
pub use open::{open_seat, open_seat_stoppable};
pub use player::{Reply, Seat};
mod sandbox;
#[cfg(target_os = "linux")]
pub use othello_sandbox::FREEZE_DELAY;
pub use runner_command::{RUNNER_EXECUTABLE, RunnerCommand, RunnerNotFound};
pub use sandbox::{SandboxLayer, diagnose_blocked, require_every_layer, sandbox_report};
pub use spec::{
    DEFAULT_GRACE, DEFAULT_GRACE_PERCENT, DEFAULT_LOAD_TIMEOUT, DEFAULT_MEMORY_LIMIT_MB, DEFAULT_SCRATCH_MB,
    DEFAULT_THREADS, Isolation, MAX_BOT_NAME_CHARS, SandboxMode, SeatOptions, SeatSpec, Seating, library_stem,
    sanitize_bot_name,
};
pub use stderr_tail::STDERR_TAIL_LINES;
pub use wasm::{
    WASM_EXTENSION, WasmSeat, base_seed as wasm_base_seed, is_wasm_file, load_fuel as wasm_load_fuel,
    replay as replay_wasm_game,
};
