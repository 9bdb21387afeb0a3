//! Opening a seat for a [`SeatSpec`]: the one place that knows every kind of bot seat (a `.wasm`
//! module runs in the sandboxed runner like a library when isolated, in a [`WasmSeat`] in
//! process).

use super::failure::{Failure, Termination};
use super::in_process::InProcessSeat;
use super::isolated::{IsolatedSeat, StopHandle};
use super::nboard::{NboardSeat, engine_spec_of};
use super::player::Seat;
use super::spec::{Isolation, SeatSpec};
use super::wasm::{WasmSeat, is_wasm_file};

/// The runner an NBoard engine is sandboxed in: the one isolated seats use (an event run in process
/// runs its engines as plain processes).
fn runner_of(spec: &SeatSpec) -> Option<super::RunnerCommand> {
    match &spec.isolation {
        Isolation::Isolated(runner) if cfg!(unix) => Some(runner.clone()),
        _ => None,
    }
}

/// Opens a seat: loads the library (in a fresh runner, or in process), or starts the NBoard
/// engine of a library path `nboard:COMMAND` (always in its own process, whatever the isolation).
/// Fails with a `load-error` when the library is not a usable bot.
pub fn open_seat(spec: &SeatSpec) -> Result<Box<dyn Seat>, Failure> {
    if let Some(engine) = engine_spec_of(&spec.library) {
        let engine = engine.map_err(|why| Failure::new(Termination::LoadError, why))?;
        return Ok(Box::new(NboardSeat::open_with_runner(&engine, spec.level, spec.options, None, runner_of(spec))?));
    }
    Ok(match &spec.isolation {
        Isolation::Isolated(runner) => Box::new(IsolatedSeat::open(spec, runner)?),
        Isolation::InProcess if is_wasm_file(&spec.library) => Box::new(WasmSeat::open(spec)?),
        Isolation::InProcess => Box::new(InProcessSeat::open(spec)?),
    })
}

/// Opens a seat that `stop` can stop from another thread (see [`StopHandle::stop`]): an isolated
/// seat's runner is then killed and reaped at once, whether it is loading or thinking, and the
/// seat's calls fail from then on. An in-process bot cannot be interrupted: it is only kept from
/// being opened once `stop` is stopped.
pub fn open_seat_stoppable(spec: &SeatSpec, stop: &StopHandle) -> Result<Box<dyn Seat>, Failure> {
    if let Some(engine) = engine_spec_of(&spec.library) {
        let engine = engine.map_err(|why| Failure::new(Termination::LoadError, why))?;
        let stop = Some(stop.clone());
        return Ok(Box::new(NboardSeat::open_with_runner(&engine, spec.level, spec.options, stop, runner_of(spec))?));
    }
    Ok(match &spec.isolation {
        Isolation::Isolated(runner) => Box::new(IsolatedSeat::open_stoppable(spec, runner, Some(stop.clone()))?),
        Isolation::InProcess if stop.is_stopped() => {
            return Err(Failure::new(Termination::LoadError, "stopped by the host before the bot was loaded"));
        }
        Isolation::InProcess if is_wasm_file(&spec.library) => Box::new(WasmSeat::open(spec)?),
        Isolation::InProcess => Box::new(InProcessSeat::open(spec)?),
    })
}
