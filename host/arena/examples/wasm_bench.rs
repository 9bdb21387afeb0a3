//! WebAssembly against native: the same C search bot (host/testkit/fixtures/wasm/searcher.c at a
//! fixed depth) built as a module (the book's clang line, [`othello_wasm::C_BUILD_FLAGS`]) and as
//! two libraries, by gcc (`cc -O2`) and by the module's own compiler (`clang -O2`, so that the
//! ratio to it is WebAssembly's cost alone). Each is asked the same positions, interleaved
//! (position by position, every build in turn, so that the machine's load falls on all alike),
//! for some rounds:
//!
//! - the CPU time of a move of each library and of the module as the arena runs it (a
//!   [`WasmSeat`]: the bots' engine, with fuel), their ratios, and the fuel a millisecond of
//!   wasm CPU time burns;
//! - where the module's time goes: the module under wasmtime configurations that differ from the
//!   bots' ([`othello_wasm::engine_config`]) in one setting each (fuel, NaN canonicalisation,
//!   bounds checks, inlining, the optimiser);
//! - a module's load time, cold (compiled), from the disk cache and from memory; and a seat's
//!   start in the sandboxed runner, a module's against a library's.
//!
//! Medians. Needs `cc` and clang (or clang-14) with wasm32-wasi.
//!
//! `cargo build --release -p othello-runner && cargo run --release -p othello-arena --example
//! wasm_bench -- [DEPTH] [POSITIONS] [ROUNDS]` (5 40 3 by default).
//!
//! Unix only: it reads each thread's CPU clock.
// Elsewhere only `main` saying so is built.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use othello_arena::seat::{IsolatedSeat, RunnerCommand, Seat, SeatSpec, WasmSeat};
use othello_sdk::{Position, SplitMix64};
use othello_wasm::WasmModule;
use wasmtime::{Config, Engine, Linker, Module, Store, TypedFunc};

#[cfg(not(unix))]
fn main() {
    eprintln!("wasm_bench reads each thread's CPU clock: it runs on Unix only");
}

/// One change to the bots' wasmtime configuration.
type Setting = fn(&mut Config);

/// The configurations the module is also timed under: the bots' engine changed in one setting.
const SETTINGS: [(&str, Setting); 8] = [
    ("the bots' engine, called directly", |_| {}),
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
    ("memory that may not move", |c| {
        c.memory_may_move(false);
    }),
];

#[cfg(unix)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().and_then(|d| d.parse().ok()).unwrap_or(5);
    let count: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(40);
    let rounds: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(3);
    let out = std::env::temp_dir().join(format!("othello-wasm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let builds = Builds::new(&out, depth);

    load_times(&builds.module, &out);
    seat_starts(&builds);

    let positions = positions(count);
    let mut gcc = othello_arena::seat::open_seat(&SeatSpec::in_process(&builds.gcc)).unwrap();
    let mut clang = othello_arena::seat::open_seat(&SeatSpec::in_process(&builds.clang)).unwrap();
    let mut wasm = WasmSeat::open(&SeatSpec::in_process(&builds.module)).unwrap();
    for seat in [&mut gcc, &mut clang] {
        seat.new_game().unwrap();
    }
    wasm.new_game().unwrap();
    let bytes = std::fs::read(&builds.module).unwrap();
    let mut variants: Vec<Variant> =
        SETTINGS.iter().map(|&(name, setting)| Variant::new(name, setting, &bytes)).collect();

    let (mut gcc_cpu, mut clang_cpu, mut wasm_cpu, mut fuel_per_ms) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut variant_cpu = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for position in &positions {
            let by_gcc = gcc.think(position, None).unwrap();
            let by_clang = clang.think(position, None).unwrap();
            let before = thread_cpu();
            let by_wasm = wasm.think(position, None).unwrap();
            let wasm_time = thread_cpu() - before;
            assert_eq!((by_gcc.byte, by_clang.byte), (by_wasm.byte, by_wasm.byte), "the same search, the same move");
            gcc_cpu.push(by_gcc.cpu.expect("the thread's clock"));
            clang_cpu.push(by_clang.cpu.expect("the thread's clock"));
            wasm_cpu.push(wasm_time);
            // The virtual time back to fuel.
            let fuel = by_wasm.cpu.unwrap().as_nanos() as f64 * othello_wasm::FUEL_PER_MS as f64 / 1e6;
            fuel_per_ms.push(fuel / ms(wasm_time) / 1e6);
            for (variant, times) in variants.iter_mut().zip(&mut variant_cpu) {
                let (byte, time) = variant.think(position);
                assert_eq!(byte, by_wasm.byte, "{}: the same move", variant.name);
                times.push(time);
            }
        }
    }
    let (gcc_ms, clang_ms, wasm_ms) = (median_ms(gcc_cpu), median_ms(clang_cpu), median_ms(wasm_cpu));
    println!(
        "depth {depth}, {count} positions × {rounds} rounds, CPU time a move (medians): native by gcc (cc -O2) \
         {gcc_ms:.3} ms, native by {clang} -O2 {clang_ms:.3} ms, wasm {wasm_ms:.3} ms; wasm/gcc {:.2}, wasm/clang {:.2}; \
         {:.1} million units of fuel per ms of wasm CPU time",
        wasm_ms / gcc_ms,
        wasm_ms / clang_ms,
        median(fuel_per_ms),
        clang = builds.clang_command,
    );
    for (variant, times) in variants.iter().zip(variant_cpu) {
        let time = median_ms(times);
        println!(
            "  {}: {time:.3} ms, {:.2}× gcc's, {:.2}× clang's, {:.2}× the bots' engine",
            variant.name,
            time / gcc_ms,
            time / clang_ms,
            time / wasm_ms
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The bot built three ways, from the same source at the same fixed depth.
struct Builds {
    /// The library by `cc -O2` (gcc).
    gcc: PathBuf,
    /// The library by clang `-O2`, the module's compiler.
    clang: PathBuf,
    /// The module, by the documented build line.
    module: PathBuf,
    /// `clang` or `clang-14`, whichever there is.
    clang_command: &'static str,
}

impl Builds {
    fn new(out: &Path, depth: u32) -> Builds {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let source = root.join("host/testkit/fixtures/wasm/searcher.c");
        let include = root.join("sdk/include");
        let depth_define = format!("-DFIXED_DEPTH={depth}");
        let clang_command = if Command::new("clang").arg("--version").output().is_ok() { "clang" } else { "clang-14" };
        let build = |compiler: &str, flags: &[&str], output: PathBuf| {
            let mut command = Command::new(compiler);
            command.args(flags).arg(&depth_define).arg("-I").arg(&include).arg(&source).arg("-o").arg(&output);
            let status = command.status().unwrap_or_else(|e| panic!("{command:?}: {e}"));
            assert!(status.success(), "{command:?} failed");
            output
        };
        let library_flags = ["-O2", "-shared", "-fPIC"];
        Builds {
            gcc: build("cc", &library_flags, out.join("libsearcher-gcc.so")),
            clang: build(clang_command, &library_flags, out.join("libsearcher-clang.so")),
            module: build(clang_command, &othello_wasm::C_BUILD_FLAGS, out.join("searcher.wasm")),
            clang_command,
        }
    }
}

/// Load times. Cold: compiled (the first load of these bytes in this process, with a disk cache
/// of its own, empty). Artifact: the compiled code read back from the disk cache, what a runner
/// does for every seat. Cached: from this process's memory.
fn load_times(module: &Path, out: &Path) {
    let bytes = std::fs::read(module).unwrap();
    // SAFETY: no other thread runs yet to read the environment; the cache folder is this run's own.
    unsafe { std::env::set_var(othello_wasm::CACHE_DIR_ENV, out.join("cache")) };
    let started = Instant::now();
    let compiled = WasmModule::load(&bytes).unwrap();
    let cold = started.elapsed();
    let artifact = compiled.artifact().expect("the disk cache is written");
    let from_disk = median_ms((0..21).map(|_| {
        let started = Instant::now();
        WasmModule::load_artifact(&bytes, &artifact).unwrap();
        started.elapsed()
    }));
    let cached = median_ms((0..21).map(|_| {
        let started = Instant::now();
        WasmModule::load(&bytes).unwrap();
        started.elapsed()
    }));
    println!(
        "module load: cold (compiled) {:.2} ms, from the disk cache {from_disk:.3} ms, from memory {cached:.3} ms (medians of 21)",
        ms(cold)
    );
}

/// A seat's start in the sandboxed runner (start, load, answer): the module against gcc's library.
fn seat_starts(builds: &Builds) {
    let Ok(runner) = RunnerCommand::beside_current_exe()
        .or_else(|_| RunnerCommand::in_folder(&std::env::current_exe().unwrap().parent().unwrap().join("..")))
    else {
        println!("seat start in the sandboxed runner: no othello-runner built beside this example");
        return;
    };
    let start = |library: &Path| {
        median_ms((0..11).map(|_| {
            let started = Instant::now();
            let seat = IsolatedSeat::open(&SeatSpec::isolated(library, runner.clone()), &runner).unwrap();
            let elapsed = started.elapsed();
            drop(seat);
            elapsed
        }))
    };
    println!(
        "seat start in the sandboxed runner (to its load report): module {:.1} ms, library {:.1} ms (medians of 11)",
        start(&builds.module),
        start(&builds.gcc)
    );
}

/// The module under one configuration, called as the host calls it (the buffer, the board,
/// `think`), its imports answering defaults (the fixed-depth bot reads no clock that matters).
struct Variant {
    name: &'static str,
    store: Store<()>,
    memory: wasmtime::Memory,
    buffer: TypedFunc<(), u32>,
    think: TypedFunc<u32, u32>,
    fuel: bool,
}

impl Variant {
    fn new(name: &'static str, setting: Setting, bytes: &[u8]) -> Variant {
        let mut config = othello_wasm::engine_config();
        setting(&mut config);
        let engine = Engine::new(&config).expect("a valid configuration");
        let module = Module::new(&engine, bytes).expect("the module compiles");
        let mut store = Store::new(&engine, ());
        let fuel = store.set_fuel(u64::MAX / 4).is_ok();
        let mut linker = Linker::new(&engine);
        linker.define_unknown_imports_as_default_values(&mut store, &module).unwrap();
        let instance = linker.instantiate(&mut store, &module).unwrap();
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        let buffer = instance.get_typed_func(&mut store, othello_wasm::BUFFER_EXPORT).unwrap();
        let think = instance.get_typed_func(&mut store, "think").unwrap();
        let init = instance.get_typed_func::<(), u32>(&mut store, "init").unwrap();
        init.call(&mut store, ()).unwrap();
        Variant { name, store, memory, buffer, think, fuel }
    }

    /// The move and the CPU time of a `think`.
    fn think(&mut self, position: &Position) -> (u8, Duration) {
        if self.fuel {
            self.store.set_fuel(u64::MAX / 4).unwrap();
        }
        let board = othello_sdk::abi::OthelloBoard::new(position, 0);
        let address = self.buffer.call(&mut self.store, ()).unwrap();
        self.memory.write(&mut self.store, address as usize, &othello_wasm::board_bytes(&board)).unwrap();
        let before = thread_cpu();
        let byte = self.think.call(&mut self.store, address).unwrap();
        (byte as u8, thread_cpu() - before)
    }
}

/// Positions after 4–20 random moves (the same every run).
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

/// No per-thread CPU clock is read elsewhere: the example measures on Unix only (its `main`
/// elsewhere says so and ends).
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    Duration::ZERO
}

fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut all: Vec<f64> = values.into_iter().collect();
    all.sort_by(f64::total_cmp);
    all[all.len() / 2]
}

/// The median of `durations`, in milliseconds.
fn median_ms(durations: impl IntoIterator<Item = Duration>) -> f64 {
    median(durations.into_iter().map(ms))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
