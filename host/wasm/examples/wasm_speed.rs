//! Where a bot module's time goes: the same module (MODULE.wasm, a bot of the C ABI) asked the
//! same positions under wasmtime configurations that differ in one setting each (fuel, NaN
//! canonicalisation, bounds checks, the optimiser), against the library built from the same
//! source (LIBRARY.so). The CPU time of a `think`, medians over the positions, and each
//! configuration's ratio to the library.
//!
//! `cargo run --release -p othello-wasm --example wasm_speed -- MODULE.wasm LIBRARY.so [ROUNDS]`
//! (the arena's `wasm_bench` builds both from host/testkit/fixtures/wasm/searcher.c).
//!
//! Unix only: it reads the thread's CPU clock.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::time::Duration;

use othello_sdk::{Position, SplitMix64};
use wasmtime::{Config, Engine, Linker, Module, Store};

#[cfg(not(unix))]
fn main() {
    eprintln!("wasm_speed reads the thread's CPU clock: it runs on Unix only");
}

#[cfg(unix)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(module), Some(library)) = (args.first(), args.get(1)) else {
        eprintln!("usage: wasm_speed MODULE.wasm LIBRARY.so [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(3);
    let bytes = std::fs::read(module).expect("the module");
    let positions = positions(40);
    let native = native_times(library, &positions, rounds);
    println!("library: {:.3} ms a think (median)", ms(native));
    type Setting = fn(&mut Config);
    let settings: [(&str, Setting); 7] = [
        ("the bots' engine (fuel, NaN canonicalisation)", |_| {}),
        ("without fuel", |c| {
            c.consume_fuel(false);
        }),
        ("without NaN canonicalisation", |c| {
            c.cranelift_nan_canonicalization(false);
        }),
        ("without fuel or NaN canonicalisation", |c| {
            c.consume_fuel(false).cranelift_nan_canonicalization(false);
        }),
        ("explicit bounds checks (no guard pages)", |c| {
            c.memory_reservation(0).memory_guard_size(0).signals_based_traps(false);
        }),
        ("wasmtime's inlining of small functions", |c| {
            c.compiler_inlining(wasmtime::Inlining::Yes);
        }),
        ("cranelift opt level none", |c| {
            c.cranelift_opt_level(wasmtime::OptLevel::None);
        }),
    ];
    for (name, setting) in settings {
        let mut config = Config::new();
        config
            .consume_fuel(true)
            .memory_init_cow(false)
            .cranelift_nan_canonicalization(true)
            .relaxed_simd_deterministic(true);
        setting(&mut config);
        let time = wasm_times(&config, &bytes, &positions, rounds);
        println!("{name}: {:.3} ms a think, {:.2}× the library", ms(time), ms(time) / ms(native));
    }
}

fn wasm_times(config: &Config, bytes: &[u8], positions: &[Position], rounds: usize) -> Duration {
    let engine = Engine::new(config).expect("a valid configuration");
    let module = Module::new(&engine, bytes).expect("the module compiles");
    let mut store = Store::new(&engine, ());
    if config_fuel(&engine) {
        store.set_fuel(u64::MAX / 4).unwrap();
    }
    let mut linker = Linker::new(&engine);
    linker.define_unknown_imports_as_default_values(&mut store, &module).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let memory = instance.get_memory(&mut store, "memory").unwrap();
    let buffer = instance.get_typed_func::<(), u32>(&mut store, "othello_wasm_buffer").unwrap();
    let think = instance.get_typed_func::<u32, u32>(&mut store, "think").unwrap();
    let init = instance.get_typed_func::<(), u32>(&mut store, "init").unwrap();
    init.call(&mut store, ()).unwrap();
    let mut times = Vec::new();
    for _ in 0..rounds {
        for position in positions {
            let board = othello_sdk::abi::OthelloBoard::new(position, 0);
            let address = buffer.call(&mut store, ()).unwrap();
            memory.write(&mut store, address as usize, &board_bytes(&board)).unwrap();
            let before = thread_cpu();
            think.call(&mut store, address).unwrap();
            times.push(thread_cpu() - before);
        }
    }
    median(times)
}

fn config_fuel(engine: &Engine) -> bool {
    let mut store = Store::new(engine, ());
    store.set_fuel(1).is_ok()
}

fn native_times(library: &str, positions: &[Position], rounds: usize) -> Duration {
    // SAFETY: the library is the benchmark's own bot, built from the fixture's source.
    let lib = unsafe { libloading::Library::new(library) }.expect("the library");
    // SAFETY: the ABI's signatures of `init` and `think` (othello_bot.h).
    let (init, think) = unsafe {
        (
            *lib.get::<unsafe extern "C" fn() -> *const std::ffi::c_char>(b"init").unwrap(),
            *lib.get::<unsafe extern "C" fn(*const othello_sdk::abi::OthelloBoard) -> u8>(b"think").unwrap(),
        )
    };
    // SAFETY: the bot's own functions, called as the ABI says (init before think).
    unsafe { init() };
    let mut times = Vec::new();
    for _ in 0..rounds {
        for position in positions {
            let board = othello_sdk::abi::OthelloBoard::new(position, 0);
            let before = thread_cpu();
            // SAFETY: a valid board for the call's length.
            unsafe { think(&board) };
            times.push(thread_cpu() - before);
        }
    }
    median(times)
}

fn board_bytes(board: &othello_sdk::abi::OthelloBoard) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[0..8].copy_from_slice(&board.black.to_le_bytes());
    bytes[8..16].copy_from_slice(&board.white.to_le_bytes());
    bytes[16..24].copy_from_slice(&board.legal.to_le_bytes());
    bytes[24] = board.to_move;
    bytes[28..32].copy_from_slice(&board.time_limit_ms.to_le_bytes());
    bytes
}

/// Positions after 4–20 random moves (the same every run; `wasm_bench`'s).
fn positions(count: usize) -> Vec<Position> {
    let mut rng = SplitMix64::new(48);
    let mut found = Vec::with_capacity(count);
    while found.len() < count {
        let mut position = Position::start();
        for _ in 0..4 + rng.below(17) {
            let moves: Vec<_> = position.legal_moves().into_iter().collect();
            if moves.is_empty() {
                break;
            }
            position.play(othello_sdk::Move::Play(moves[rng.below(moves.len() as u32) as usize]));
        }
        if !position.legal_moves().is_empty() {
            found.push(position);
        }
    }
    found
}

#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

fn median(mut all: Vec<Duration>) -> Duration {
    all.sort();
    all[all.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
