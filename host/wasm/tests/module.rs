//! A module built from C in the test (skipped, said on stderr, where no clang builds
//! WebAssembly): compiled once, its clocks count its fuel, its random numbers come from the seed.

use std::path::{Path, PathBuf};
use std::process::Command;

use othello_sdk::Position;
use othello_sdk::abi::OthelloBoard;
use othello_wasm::{Limits, WasmBot, WasmModule, fuel_for_ms, virtual_time};

/// Reads its clock around a fixed amount of work and says what it read (in `othello_last_error`);
/// its name is 8 random bytes in hex.
const SOURCE: &str = r#"
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "othello_bot.h"
static char text[64];
static volatile unsigned sink;
OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
OTHELLO_EXPORT const char *init(void) {
    unsigned long long random;
    if (getentropy(&random, sizeof random) != 0) return 0;
    snprintf(text, sizeof text, "%016llx", random);
    return text;
}
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) {
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    for (unsigned i = 0; i < WORK; i++) sink += i;
    clock_gettime(CLOCK_MONOTONIC, &after);
    long long ns = (after.tv_sec - before.tv_sec) * 1000000000ll + (after.tv_nsec - before.tv_nsec);
    snprintf(text, sizeof text, "%lld", ns);
    int sq = othello_ctz(board->legal);
    return othello_move(sq / 8, sq % 8);
}
OTHELLO_EXPORT const char *othello_last_error(void) { return text; }
"#;

fn clang() -> Option<&'static str> {
    ["clang", "clang-14"].into_iter().find(|clang| {
        Command::new(clang)
            .args(["--target=wasm32-wasi", "--sysroot=/usr", "-print-libgcc-file-name"])
            .output()
            .is_ok_and(|out| out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_file())
    })
}

/// The module with `WORK` iterations, or `None` (said loudly) without a clang for wasm32-wasi.
fn module(folder: &Path, work: u32) -> Option<PathBuf> {
    let Some(clang) = clang() else {
        eprintln!(
            "SKIPPED: no clang with the wasm32-wasi target and wasi-libc (apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)"
        );
        return None;
    };
    let source = folder.join("bot.c");
    std::fs::write(&source, SOURCE).unwrap();
    let out = folder.join(format!("bot-{work}.wasm"));
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/include");
    let status = Command::new(clang)
        .args(othello_wasm::C_BUILD_FLAGS)
        .arg(format!("-DWORK={work}"))
        .arg("-I")
        .arg(include)
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    Some(out)
}

const LIMITS: Limits = Limits { memory_limit_mb: 64, seed: 7 };

fn board() -> OthelloBoard {
    OthelloBoard::new(&Position::start(), 100)
}

#[test]
fn a_module_is_compiled_once() {
    let folder = tempfile::tempdir().unwrap();
    let (Some(path), Some(other)) = (module(folder.path(), 1000), module(folder.path(), 2000)) else { return };
    let bytes = std::fs::read(path).unwrap();
    let first = WasmModule::load(&bytes).unwrap();
    let again = WasmModule::load(&bytes).unwrap();
    assert!(first.is_same_compilation(&again));
    assert_eq!(first.hash_hex(), again.hash_hex());
    let other = WasmModule::load(&std::fs::read(other).unwrap()).unwrap();
    assert!(!first.is_same_compilation(&other));
}

#[test]
fn the_clocks_count_the_fuel_and_are_the_same_every_time() {
    let folder = tempfile::tempdir().unwrap();
    let (Some(small), Some(large)) = (module(folder.path(), 1_000), module(folder.path(), 1_000_000)) else { return };
    let read = |path: &Path| {
        let module = WasmModule::load(&std::fs::read(path).unwrap()).unwrap();
        let mut bot = WasmBot::instantiate(&module, LIMITS, fuel_for_ms(100)).unwrap();
        let thought = bot.think(&board(), fuel_for_ms(100)).unwrap();
        let said: u64 = bot.last_error(fuel_for_ms(10)).unwrap().unwrap().parse().unwrap();
        (thought, said)
    };
    let (small_move, small_ns) = read(&small);
    assert_eq!(read(&small), (small_move, small_ns), "the same work reads the same time");
    let (large_move, large_ns) = read(&large);
    // A thousand times the work: about a thousand times the time, all of it fuel.
    assert!(large_ns > 500 * small_ns.max(1), "{small_ns} ns, {large_ns} ns");
    assert!(large_ns as u128 <= virtual_time(large_move.fuel).as_nanos(), "{large_ns} ns, {large_move:?}");
    assert!(large_ns as u128 * 2 > virtual_time(large_move.fuel).as_nanos(), "{large_ns} ns, {large_move:?}");
}

#[test]
fn random_numbers_come_from_the_seed() {
    let folder = tempfile::tempdir().unwrap();
    let Some(path) = module(folder.path(), 10) else { return };
    let module = WasmModule::load(&std::fs::read(path).unwrap()).unwrap();
    let name = |seed: u64| {
        let mut bot = WasmBot::instantiate(&module, Limits { seed, ..LIMITS }, fuel_for_ms(100)).unwrap();
        bot.init(fuel_for_ms(100)).unwrap().unwrap()
    };
    assert_eq!(name(7), name(7));
    assert_ne!(name(7), name(8));
    assert_eq!(name(7).len(), 16);
}

#[test]
fn bytes_that_are_no_module_do_not_load() {
    let error = WasmModule::load(b"\x7fELF not wasm").unwrap_err();
    assert!(error.to_string().starts_with("not a WebAssembly module wasmtime accepts"), "{error}");
}
