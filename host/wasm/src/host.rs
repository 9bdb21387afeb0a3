//! What a bot module may import: a few functions of WASI preview 1, every one deterministic
//! (virtual clocks from the fuel used, seeded random numbers, output kept, no files, no network,
//! no sleeping), and the memory limit.

use std::collections::VecDeque;

use othello_sdk::SplitMix64;
use wasmtime::{Caller, Engine, Extern, Linker, Module, ResourceLimiter};

use crate::{Limits, LoadError, VIRTUAL_EPOCH_NS, virtual_time};

/// The module the imports come from.
pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

/// The functions of [`WASI_MODULE`] a bot may import: what C's start-up, clocks, random numbers
/// and `printf` to stdout/stderr need. Any other import (files, sockets, `poll_oneoff`'s
/// sleeping, another module's functions) keeps the module from loading.
pub const ALLOWED_IMPORTS: [&str; 16] = [
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "fd_close",
    "fd_fdstat_get",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "fd_seek",
    "fd_write",
    "proc_exit",
    "random_get",
    "sched_yield",
    "fd_fdstat_set_flags",
];

/// WASI error numbers the functions answer.
const SUCCESS: i32 = 0;
const BADF: i32 = 8;
const FAULT: i32 = 21;
const INVAL: i32 = 28;
const SPIPE: i32 = 70;
/// WASI's file type of a character device (what stdout and stderr are).
const CHARACTER_DEVICE: u8 = 2;
/// WASI's clock ids.
const REALTIME: i32 = 0;
const THREAD_CPUTIME: i32 = 3;

/// Lines of output kept (the last ones), and the longest line.
const OUTPUT_LINES: usize = 20;
const OUTPUT_LINE_CHARS: usize = 300;

/// The module called `proc_exit(code)`: its call ends there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exit(pub u32);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the bot exited with code {}", self.0)
    }
}

impl std::error::Error for Exit {}

/// A store's own state.
pub(crate) struct HostState {
    pub memory: MemoryLimit,
    pub output: Output,
    random: SplitMix64,
    /// Fuel used before the call under way, and the fuel the call was given: with what is left
    /// they make the virtual clocks.
    pub fuel_spent_before: u64,
    pub fuel_given: u64,
}

impl HostState {
    pub(crate) fn new(limits: Limits) -> HostState {
        HostState {
            memory: MemoryLimit { max_bytes: limits.memory_limit_mb.saturating_mul(1024 * 1024), refused: None },
            output: Output::default(),
            random: SplitMix64::new(limits.seed),
            fuel_spent_before: 0,
            fuel_given: 0,
        }
    }
}

impl HostState {
    pub(crate) fn reseed(&mut self, seed: u64) {
        self.random = SplitMix64::new(seed);
    }
}

/// The memory limit: growth past it is refused with a trap (C's `malloc` would return NULL,
/// which a bot rarely checks: the loss is named here instead).
pub(crate) struct MemoryLimit {
    /// 0: no limit of ours.
    max_bytes: u64,
    /// The size the module asked for when it was refused.
    pub refused: Option<u64>,
}

impl MemoryLimit {
    pub(crate) fn limit_mb(&self) -> u64 {
        self.max_bytes / (1024 * 1024)
    }
}

/// Growth past the memory limit.
#[derive(Debug)]
struct OverMemoryLimit;

impl std::fmt::Display for OverMemoryLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("memory grown past the limit")
    }
}

impl std::error::Error for OverMemoryLimit {}

impl ResourceLimiter for MemoryLimit {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if self.max_bytes > 0 && desired as u64 > self.max_bytes {
            self.refused = Some(desired as u64);
            return Err(OverMemoryLimit.into());
        }
        Ok(true)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        // Past the limit: a trap, named by the host (not a NULL from malloc).
        match self.refused {
            Some(_) => Err(error),
            None => Ok(()),
        }
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        // Tables of function pointers: a bot needs few.
        Ok(desired <= 1 << 20)
    }
}

/// The last lines a bot wrote to stdout or stderr.
#[derive(Default)]
pub(crate) struct Output {
    lines: VecDeque<String>,
    partial: String,
}

impl Output {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in String::from_utf8_lossy(bytes).split_inclusive('\n') {
            if self.partial.chars().count() < OUTPUT_LINE_CHARS {
                self.partial.extend(chunk.trim_end_matches('\n').chars().take(OUTPUT_LINE_CHARS));
            }
            if chunk.ends_with('\n') {
                self.lines.push_back(std::mem::take(&mut self.partial));
                if self.lines.len() > OUTPUT_LINES {
                    self.lines.pop_front();
                }
            }
        }
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.lines.iter().cloned().collect();
        if !self.partial.is_empty() {
            lines.push(self.partial.clone());
        }
        lines
    }
}

/// Refuses a module that imports anything but [`ALLOWED_IMPORTS`] of [`WASI_MODULE`].
pub(crate) fn check_imports(module: &Module) -> Result<(), LoadError> {
    let forbidden: Vec<String> = module
        .imports()
        .filter(|import| {
            !(import.module() == WASI_MODULE
                && ALLOWED_IMPORTS.contains(&import.name())
                && matches!(import.ty(), wasmtime::ExternType::Func(_)))
        })
        .map(|import| format!("`{}::{}`", import.module(), import.name()))
        .collect();
    match forbidden.is_empty() {
        true => Ok(()),
        false => Err(LoadError::ForbiddenImport(forbidden.join(", "))),
    }
}

/// The virtual time of the call under way, in nanoseconds: the fuel used so far.
fn virtual_ns(caller: &Caller<'_, HostState>) -> u64 {
    let state = caller.data();
    let left = caller.get_fuel().unwrap_or(0);
    virtual_time(state.fuel_spent_before + state.fuel_given.saturating_sub(left)).as_nanos() as u64
}

/// Writes `bytes` at `address` of the caller's memory; false where it does not fit.
fn write(caller: &mut Caller<'_, HostState>, address: u32, bytes: &[u8]) -> bool {
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else { return false };
    memory.write(caller, address as usize, bytes).is_ok()
}

fn read(caller: &mut Caller<'_, HostState>, address: u32, len: u32) -> Option<Vec<u8>> {
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else { return None };
    let mut bytes = vec![0; len as usize];
    memory.read(&*caller, address as usize, &mut bytes).ok()?;
    Some(bytes)
}

fn errno(ok: bool) -> i32 {
    if ok { SUCCESS } else { FAULT }
}

/// The linker that gives bots the allowed imports.
pub(crate) fn linker(engine: &Engine) -> Linker<HostState> {
    let mut linker = Linker::new(engine);
    let wasi = WASI_MODULE;
    let empty_list = |mut caller: Caller<'_, HostState>, count: u32, size: u32| -> i32 {
        errno(write(&mut caller, count, &0u32.to_le_bytes()) && write(&mut caller, size, &0u32.to_le_bytes()))
    };
    let none = |_: Caller<'_, HostState>, _: u32, _: u32| -> i32 { SUCCESS };
    let defined = [
        linker.func_wrap(wasi, "args_sizes_get", empty_list).is_ok(),
        linker.func_wrap(wasi, "environ_sizes_get", empty_list).is_ok(),
        linker.func_wrap(wasi, "args_get", none).is_ok(),
        linker.func_wrap(wasi, "environ_get", none).is_ok(),
        linker
            .func_wrap(wasi, "clock_res_get", |mut caller: Caller<'_, HostState>, id: i32, out: u32| -> i32 {
                if !(REALTIME..=THREAD_CPUTIME).contains(&id) {
                    return INVAL;
                }
                errno(write(&mut caller, out, &1u64.to_le_bytes()))
            })
            .is_ok(),
        linker
            .func_wrap(
                wasi,
                "clock_time_get",
                |mut caller: Caller<'_, HostState>, id: i32, _precision: i64, out: u32| -> i32 {
                    let now = match id {
                        REALTIME => VIRTUAL_EPOCH_NS + virtual_ns(&caller),
                        1..=THREAD_CPUTIME => virtual_ns(&caller),
                        _ => return INVAL,
                    };
                    errno(write(&mut caller, out, &now.to_le_bytes()))
                },
            )
            .is_ok(),
        linker
            .func_wrap(wasi, "fd_close", |_: Caller<'_, HostState>, fd: i32| -> i32 {
                if (0..=2).contains(&fd) { SUCCESS } else { BADF }
            })
            .is_ok(),
        linker
            .func_wrap(wasi, "fd_fdstat_get", |mut caller: Caller<'_, HostState>, fd: i32, out: u32| -> i32 {
                if !(0..=2).contains(&fd) {
                    return BADF;
                }
                let mut stat = [0u8; 24];
                stat[0] = CHARACTER_DEVICE;
                // Rights: fd_write (bit 6) on stdout and stderr only.
                let rights: u64 = if fd == 0 { 0 } else { 1 << 6 };
                stat[8..16].copy_from_slice(&rights.to_le_bytes());
                errno(write(&mut caller, out, &stat))
            })
            .is_ok(),
        linker
            .func_wrap(wasi, "fd_fdstat_set_flags", |_: Caller<'_, HostState>, _: i32, _: i32| -> i32 { BADF })
            .is_ok(),
        linker.func_wrap(wasi, "fd_prestat_get", |_: Caller<'_, HostState>, _: i32, _: u32| -> i32 { BADF }).is_ok(),
        linker
            .func_wrap(wasi, "fd_prestat_dir_name", |_: Caller<'_, HostState>, _: i32, _: u32, _: u32| -> i32 { BADF })
            .is_ok(),
        linker
            .func_wrap(wasi, "fd_seek", |_: Caller<'_, HostState>, fd: i32, _: i64, _: i32, _: u32| -> i32 {
                if (0..=2).contains(&fd) { SPIPE } else { BADF }
            })
            .is_ok(),
        linker
            .func_wrap(
                wasi,
                "fd_write",
                |mut caller: Caller<'_, HostState>, fd: i32, iovs: u32, count: u32, written: u32| -> i32 {
                    if fd != 1 && fd != 2 {
                        return BADF;
                    }
                    let Some(list) = read(&mut caller, iovs, count.saturating_mul(8)) else { return FAULT };
                    let mut total = 0u32;
                    for iov in list.chunks_exact(8) {
                        let address = u32::from_le_bytes(iov[0..4].try_into().expect("4 bytes"));
                        let len = u32::from_le_bytes(iov[4..8].try_into().expect("4 bytes"));
                        let Some(bytes) = read(&mut caller, address, len) else { return FAULT };
                        caller.data_mut().output.write(&bytes);
                        total = total.saturating_add(len);
                    }
                    errno(write(&mut caller, written, &total.to_le_bytes()))
                },
            )
            .is_ok(),
        linker
            .func_wrap(wasi, "proc_exit", |_: Caller<'_, HostState>, code: u32| -> wasmtime::Result<()> {
                Err(Exit(code).into())
            })
            .is_ok(),
        linker
            .func_wrap(wasi, "random_get", |mut caller: Caller<'_, HostState>, out: u32, len: u32| -> i32 {
                let mut bytes = Vec::with_capacity(len.min(1 << 16) as usize);
                while bytes.len() < len as usize {
                    bytes.extend_from_slice(&caller.data_mut().random.next_u64().to_le_bytes());
                    if bytes.len() > 1 << 24 {
                        return INVAL;
                    }
                }
                bytes.truncate(len as usize);
                errno(write(&mut caller, out, &bytes))
            })
            .is_ok(),
        linker.func_wrap(wasi, "sched_yield", |_: Caller<'_, HostState>| -> i32 { SUCCESS }).is_ok(),
    ];
    assert!(defined.iter().all(|&ok| ok), "the bots' imports are defined once each");
    assert_eq!(defined.len(), ALLOWED_IMPORTS.len(), "every allowed import is defined");
    linker
}
