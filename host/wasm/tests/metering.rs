//! The metered copy of a module (what browsers run) counts exactly wasmtime's fuel: the searching
//! bot of the fixtures (its depth decided by its virtual clock), built from C in the test, plays
//! a whole game against itself twice — the original under wasmtime's fuel, the metered copy in an
//! engine without fuel reading its own counter — and at every clock read, at every move's end
//! and where a call runs out of fuel, the two counts are the same, and so are the moves.
//! Skipped (said on stderr) where no clang builds WebAssembly.

use std::path::{Path, PathBuf};
use std::process::Command;

use othello_sdk::abi::OthelloBoard;
use othello_sdk::{Move, Position, SplitMix64};
use othello_wasm::metering::{FUEL_LIMIT_EXPORT, FUEL_USED_EXPORT, OUT_OF_FUEL_EXPORT, instrument};
use othello_wasm::{BUFFER_EXPORT, FUEL_PER_MS};
use wasmtime::{Caller, Config, Engine, Extern, Instance, Linker, Module, Store, Trap, Val};

/// The fuel of `init` and of the start-up.
const LOAD_FUEL: u64 = 100 * FUEL_PER_MS;

fn clang() -> Option<&'static str> {
    ["clang", "clang-14"].into_iter().find(|clang| {
        Command::new(clang)
            .args(["--target=wasm32-wasi", "--sysroot=/usr", "-print-libgcc-file-name"])
            .output()
            .is_ok_and(|out| out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_file())
    })
}

/// The fixtures' searcher built by the book's line with `defines`, or `None` (said) without clang.
fn searcher(folder: &Path, defines: &[&str]) -> Option<PathBuf> {
    let Some(clang) = clang() else {
        eprintln!(
            "SKIPPED: no clang with the wasm32-wasi target and wasi-libc (apt-get install clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)"
        );
        return None;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = folder.join("searcher.wasm");
    let status = Command::new(clang)
        .args(othello_wasm::C_BUILD_FLAGS)
        .args(defines)
        .arg("-I")
        .arg(root.join("sdk/include"))
        .arg(root.join("host/testkit/fixtures/wasm/searcher.c"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "the searcher builds");
    Some(out)
}

/// What a store counts: the fuel at each clock read, and how it gets its fuel count.
struct Host {
    reads: Vec<u64>,
    random: SplitMix64,
    /// Fuel used before the call under way and the fuel it was given (the original's); the
    /// counter's value when the call started (the metered copy's).
    spent_before: u64,
    given: u64,
    counter_start: u64,
    metered: bool,
}

impl Host {
    fn new(metered: bool) -> Host {
        Host { reads: Vec::new(), random: SplitMix64::new(7), spent_before: 0, given: 0, counter_start: 0, metered }
    }
}

/// Fuel used so far by the store's instance, as the host's virtual clocks see it.
fn fuel_used(caller: &mut Caller<'_, Host>) -> u64 {
    let (spent, given, start) = (caller.data().spent_before, caller.data().given, caller.data().counter_start);
    if caller.data().metered {
        let Some(Extern::Global(counter)) = caller.get_export(FUEL_USED_EXPORT) else { panic!("the counter") };
        let used = counter.get(&mut *caller).unwrap_i64() as u64 - start;
        spent + used.min(given)
    } else {
        spent + given - caller.get_fuel().unwrap()
    }
}

fn linker(engine: &Engine) -> Linker<Host> {
    let mut linker = Linker::new(engine);
    let memory = |caller: &mut Caller<'_, Host>| match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => memory,
        _ => panic!("the module's memory"),
    };
    linker
        .func_wrap(
            "wasi_snapshot_preview1",
            "clock_time_get",
            move |mut caller: Caller<'_, Host>, _id: i32, _precision: i64, out: u32| -> i32 {
                let fuel = fuel_used(&mut caller);
                caller.data_mut().reads.push(fuel);
                let ns = fuel * 1_000_000 / FUEL_PER_MS;
                memory(&mut caller).write(&mut caller, out as usize, &ns.to_le_bytes()).unwrap();
                0
            },
        )
        .unwrap();
    linker
        .func_wrap(
            "wasi_snapshot_preview1",
            "random_get",
            move |mut caller: Caller<'_, Host>, out: u32, len: u32| -> i32 {
                let mut bytes = Vec::new();
                while bytes.len() < len as usize {
                    bytes.extend_from_slice(&caller.data_mut().random.next_u64().to_le_bytes());
                }
                bytes.truncate(len as usize);
                memory(&mut caller).write(&mut caller, out as usize, &bytes).unwrap();
                0
            },
        )
        .unwrap();
    linker
}

/// One instance, original or metered, and its calls on a budget of fuel each.
struct Bot {
    store: Store<Host>,
    instance: Instance,
}

/// How a call ended: its result, or out of fuel; and the fuel it used.
#[derive(Debug, PartialEq, Eq)]
struct Call {
    result: Option<i32>,
    fuel: u64,
}

impl Bot {
    fn new(bytes: &[u8], metered: bool) -> Bot {
        let mut config = Config::new();
        config.consume_fuel(!metered).memory_init_cow(false).cranelift_nan_canonicalization(true);
        let engine = Engine::new(&config).unwrap();
        let bytes = if metered { instrument(bytes).expect("the searcher can be metered") } else { bytes.to_vec() };
        let module = Module::new(&engine, &bytes).unwrap();
        let mut store = Store::new(&engine, Host::new(metered));
        // Instantiation on a budget, as `othello_wasm` gives it (the metered copy has none yet).
        store.data_mut().given = LOAD_FUEL;
        if !metered {
            store.set_fuel(LOAD_FUEL).unwrap();
        }
        let instance = linker(&engine).instantiate(&mut store, &module).unwrap();
        Bot { store, instance }
    }

    fn counter(&mut self) -> u64 {
        let global = self.instance.get_global(&mut self.store, FUEL_USED_EXPORT).unwrap();
        global.get(&mut self.store).unwrap_i64() as u64
    }

    fn fuel_so_far(&mut self) -> u64 {
        let (spent, given, start) =
            (self.store.data().spent_before, self.store.data().given, self.store.data().counter_start);
        if self.store.data().metered {
            spent + (self.counter() - start).min(given)
        } else {
            spent + given - self.store.get_fuel().unwrap()
        }
    }

    /// Calls `name` with `args` on `fuel` (as `othello_wasm`'s calls do: the fuel used before it
    /// kept, the budget set anew).
    fn call(&mut self, name: &str, args: &[Val], fuel: u64) -> Call {
        let before = self.fuel_so_far();
        let counter_start = if self.store.data().metered { self.counter() } else { 0 };
        let state = self.store.data_mut();
        (state.spent_before, state.given, state.counter_start) = (before, fuel, counter_start);
        if self.store.data().metered {
            let limit = self.instance.get_global(&mut self.store, FUEL_LIMIT_EXPORT).unwrap();
            limit.set(&mut self.store, Val::I64((counter_start + fuel) as i64)).unwrap();
        } else {
            self.store.set_fuel(fuel).unwrap();
        }
        let func = self.instance.get_func(&mut self.store, name).unwrap();
        let mut results = vec![Val::I32(0); func.ty(&self.store).results().len()];
        let outcome = func.call(&mut self.store, args, &mut results);
        let fuel = self.fuel_so_far() - before;
        match outcome {
            Ok(()) => Call { result: results.first().map(|v| v.unwrap_i32()), fuel },
            Err(error) => {
                if self.store.data().metered {
                    let out = self.instance.get_global(&mut self.store, OUT_OF_FUEL_EXPORT).unwrap();
                    assert_eq!(out.get(&mut self.store).unwrap_i32(), 1, "the metered copy ran out of fuel: {error:?}");
                } else {
                    assert_eq!(error.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel), "{error:?}");
                }
                Call { result: None, fuel }
            }
        }
    }

    /// `think` on `position` with `fuel` as the host calls it (the buffer, the board, the call).
    fn think(&mut self, position: &Position, limit_ms: u32, fuel: u64) -> (Call, Call) {
        let buffer = self.call(BUFFER_EXPORT, &[], fuel);
        let address = buffer.result.unwrap() as u32;
        let board = OthelloBoard::new(position, limit_ms);
        let memory = self.instance.get_memory(&mut self.store, "memory").unwrap();
        memory.write(&mut self.store, address as usize, &othello_wasm::board_bytes(&board)).unwrap();
        (buffer, self.call("think", &[Val::I32(address as i32)], fuel))
    }
}

#[test]
fn the_metered_copy_counts_wasmtimes_fuel_at_every_clock_read_over_a_whole_game() {
    let folder = tempfile::tempdir().unwrap();
    let Some(path) = searcher(folder.path(), &[]) else { return };
    let bytes = std::fs::read(path).unwrap();
    let (mut original, mut metered) = (Bot::new(&bytes, false), Bot::new(&bytes, true));
    assert_eq!(original.fuel_so_far(), metered.fuel_so_far(), "the same fuel for the instantiation");
    let load = LOAD_FUEL;
    assert_eq!(original.call("init", &[], load), metered.call("init", &[], load));
    // A whole game of the bot against itself at 2 ms a move (its clock stops its deepening).
    let limit_ms = 2;
    let mut position = Position::start();
    let mut moves = 0;
    while !position.is_game_over() {
        let (a, b) = (
            original.think(&position, limit_ms, limit_ms as u64 * FUEL_PER_MS),
            metered.think(&position, limit_ms, limit_ms as u64 * FUEL_PER_MS),
        );
        assert_eq!(a, b, "move {moves}: the same fuel and the same answer");
        assert_eq!(
            original.store.data().reads,
            metered.store.data().reads,
            "move {moves}: the same fuel at every clock read"
        );
        let byte = a.1.result.expect("the bot answers in its time") as u8;
        position.play(Move::from_byte(byte).unwrap());
        moves += 1;
    }
    assert!(moves >= 58, "a whole game: {moves} moves");
    let reads = original.store.data().reads.len();
    assert!(reads > 1000, "the bot read its clock often: {reads} reads");
    // A move on too little fuel runs out in both, at the same count.
    let (a, b) = (original.think(&Position::start(), 0, 20_000), metered.think(&Position::start(), 0, 20_000));
    assert_eq!(a, b);
    assert_eq!(a.1.result, None, "out of fuel");
    assert_eq!(a.1.fuel, 20_000);
}

#[test]
fn a_module_already_exporting_the_counter_or_using_bulk_memory_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let Some(clang) = clang() else {
        eprintln!("SKIPPED: no clang with the wasm32-wasi target");
        return;
    };
    let source = folder.path().join("copy.c");
    std::fs::write(&source, "#include <string.h>\nchar a[100], b[100];\n__attribute__((export_name(\"copy\"))) void copy(int n) { memcpy(a, b, n); }\n").unwrap();
    let out = folder.path().join("copy.wasm");
    let status = Command::new(clang)
        .args(othello_wasm::C_BUILD_FLAGS)
        .arg("-mbulk-memory")
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let error = instrument(&std::fs::read(&out).unwrap()).unwrap_err();
    assert!(error.contains("MemoryCopy") && error.contains("-mbulk-memory"), "{error}");
    assert!(instrument(b"not wasm").unwrap_err().contains("not a WebAssembly module"));
}

/// Builds `source` (exports `f`) by the book's line.
fn build(folder: &Path, name: &str, source: &str) -> Option<Vec<u8>> {
    let clang = clang()?;
    let path = folder.join(format!("{name}.c"));
    std::fs::write(&path, source).unwrap();
    let out = folder.join(format!("{name}.wasm"));
    let status = Command::new(clang).args(othello_wasm::C_BUILD_FLAGS).arg(&path).arg("-o").arg(&out).status().unwrap();
    assert!(status.success());
    Some(std::fs::read(out).unwrap())
}

#[test]
fn instantiation_costs_the_same_fuel_with_any_data() {
    let folder = tempfile::tempdir().unwrap();
    let sources = [
        ("none", "__attribute__((export_name(\"f\"))) int f(int x) { return x * 3; }\n"),
        (
            "two",
            "static const char text[] = \"a constant text, in .rodata\";\nint counter = 5; char buffer[100] = {1, 2, 3};\n__attribute__((export_name(\"f\"))) int f(int x) { buffer[x & 63] += text[x & 15]; return counter += x; }\n",
        ),
    ];
    let table = "typedef int (*op)(int);\nstatic int twice(int x) { return 2 * x; }\nstatic int more(int x) { return x + 1; }\nop ops[2] = {twice, more};\n__attribute__((export_name(\"f\"))) int f(int x) { return ops[x & 1](x); }\n";
    for (name, source) in sources.into_iter().chain([("table", table)]) {
        let Some(bytes) = build(folder.path(), name, source) else { return };
        let (mut original, mut metered) = (Bot::new(&bytes, false), Bot::new(&bytes, true));
        assert_eq!(original.fuel_so_far(), metered.fuel_so_far(), "{name}: the instantiation");
        assert_eq!(
            original.call("f", &[Val::I32(7)], LOAD_FUEL),
            metered.call("f", &[Val::I32(7)], LOAD_FUEL),
            "{name}"
        );
    }
}

/// Writes the searcher and its metered copy to `OTHELLO_DUMP_METERED` and prints its first move
/// as `othello_wasm` plays it (a debugging aid for the browser's host; does nothing without it).
#[test]
fn dump_for_the_browsers_host() {
    let Some(folder) = std::env::var_os("OTHELLO_DUMP_METERED") else { return };
    let folder = PathBuf::from(folder);
    let Some(path) = searcher(&folder, &["-DUSE_PERCENT=70"]) else { return };
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(folder.join("metered.wasm"), instrument(&bytes).unwrap()).unwrap();
    let module = othello_wasm::WasmModule::compile(&bytes).unwrap();
    let mut player = othello_wasm::WasmPlayer::open(module, 0, 5000 * FUEL_PER_MS, 1).unwrap();
    player.new_game(None).unwrap();
    let answer = player.think(&Position::start(), Some(std::time::Duration::from_millis(10))).unwrap();
    eprintln!("RUST first move {:#x} fuel {}", answer.byte, answer.fuel);
}
