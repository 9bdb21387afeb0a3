//! WebAssembly against native: the same C search bot (host/testkit/fixtures/wasm/searcher.c at a
//! fixed depth) built as a library (`cc -O2`) and as a module (the book's clang line), each
//! asked the same positions: the CPU time of a native move, the CPU time and fuel of a wasm move,
//! their ratio, the fuel a millisecond of wasm time burns; a module's load time, cold
//! (compiled), from the disk cache and from memory; and a seat's start in the sandboxed runner,
//! a module's against a library's. Medians. Needs `cc` and clang with wasm32-wasi.
//!
//! `cargo build --release -p othello-runner && cargo run --release -p othello-arena --example
//! wasm_bench -- [DEPTH] [POSITIONS]`
//!
//! Unix only: it reads each thread's CPU clock.
// Elsewhere only `main` saying so is built.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use othello_arena::seat::{IsolatedSeat, RunnerCommand, Seat, SeatSpec, WasmSeat};
use othello_sdk::{Position, SplitMix64};
use othello_wasm::WasmModule;

#[cfg(not(unix))]
fn main() {
    eprintln!("wasm_bench reads each thread's CPU clock: it runs on Unix only");
}

#[cfg(unix)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().and_then(|d| d.parse().ok()).unwrap_or(5);
    let count: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(40);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let source = root.join("host/testkit/fixtures/wasm/searcher.c");
    let include = root.join("sdk/include");
    let out = std::env::temp_dir().join(format!("othello-wasm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let depth_define = format!("-DFIXED_DEPTH={depth}");
    let native = out.join("libsearcher.so");
    run(Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", &depth_define, "-I"])
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&native));
    let module = out.join("searcher.wasm");
    let clang = if Command::new("clang").arg("--version").output().is_ok() { "clang" } else { "clang-14" };
    run(Command::new(clang)
        .args(othello_wasm::C_BUILD_FLAGS)
        .arg(&depth_define)
        .arg("-I")
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&module));

    // Load times. Cold: compiled (the first load of these bytes in this process, with a disk
    // cache of its own, empty). Artifact: the compiled code read back from the disk cache, what a
    // runner does for every seat. Cached: from this process's memory.
    let bytes = std::fs::read(&module).unwrap();
    // SAFETY: no other thread runs yet to read the environment; the cache folder is this run's own.
    unsafe { std::env::set_var(othello_wasm::CACHE_DIR_ENV, out.join("cache")) };
    let started = Instant::now();
    let compiled = WasmModule::load(&bytes).unwrap();
    let cold = started.elapsed();
    let artifact = compiled.artifact().expect("the disk cache is written");
    let from_disk = median((0..21).map(|_| {
        let started = Instant::now();
        WasmModule::load_artifact(&bytes, &artifact).unwrap();
        started.elapsed()
    }));
    let cached = median((0..21).map(|_| {
        let started = Instant::now();
        WasmModule::load(&bytes).unwrap();
        started.elapsed()
    }));
    println!(
        "module load: cold (compiled) {:.2} ms, from the disk cache {:.3} ms, from memory {:.3} ms (medians of 21)",
        ms(cold),
        ms(from_disk),
        ms(cached)
    );
    // A seat's start in the sandboxed runner (start, load, answer): a module against a library.
    if let Ok(runner) = RunnerCommand::beside_current_exe()
        .or_else(|_| RunnerCommand::in_folder(&std::env::current_exe().unwrap().parent().unwrap().join("..")))
    {
        let start = |library: &Path| {
            median((0..11).map(|_| {
                let started = Instant::now();
                let seat = IsolatedSeat::open(&SeatSpec::isolated(library, runner.clone()), &runner).unwrap();
                let elapsed = started.elapsed();
                drop(seat);
                elapsed
            }))
        };
        println!(
            "seat start in the sandboxed runner (to its load report): module {:.1} ms, library {:.1} ms (medians of 11)",
            ms(start(&module)),
            ms(start(&native))
        );
    }

    let positions = positions(count);
    let mut native_seat = othello_arena::seat::open_seat(&SeatSpec::in_process(&native)).unwrap();
    let mut wasm_seat = WasmSeat::open(&SeatSpec::in_process(&module)).unwrap();
    native_seat.new_game().unwrap();
    wasm_seat.new_game().unwrap();
    let (mut native_cpu, mut wasm_cpu, mut fuel_per_ms, mut ratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for position in &positions {
        let native = native_seat.think(position, None).unwrap();
        let thread_before = thread_cpu();
        let wasm = wasm_seat.think(position, None).unwrap();
        let wasm_time = thread_cpu() - thread_before;
        assert_eq!(native.byte, wasm.byte, "the same search gives the same move");
        let native_time = native.cpu.expect("the thread's clock");
        let fuel = wasm.cpu.unwrap().as_nanos() as f64 * othello_wasm::FUEL_PER_MS as f64 / 1e6; // virtual time back to fuel
        native_cpu.push(native_time);
        wasm_cpu.push(wasm_time);
        fuel_per_ms.push(Duration::from_nanos((fuel / ms(wasm_time)) as u64));
        ratios.push(Duration::from_nanos((ms(wasm_time) / ms(native_time) * 1e6) as u64));
    }
    println!(
        "depth {depth}, {count} positions: native {:.3} ms, wasm {:.3} ms of CPU a move; wasm/native {:.2}; \
         {:.1} million units of fuel per ms of wasm CPU time (medians)",
        ms(median(native_cpu)),
        ms(median(wasm_cpu)),
        median(ratios).as_nanos() as f64 / 1e6,
        median(fuel_per_ms).as_nanos() as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&out);
}

fn run(command: &mut Command) {
    let status = command.status().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(status.success(), "{command:?} failed");
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

fn median(values: impl IntoIterator<Item = Duration>) -> Duration {
    let mut all: Vec<Duration> = values.into_iter().collect();
    all.sort();
    all[all.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
