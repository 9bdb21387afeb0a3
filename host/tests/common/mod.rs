//! Test helpers: the `othello` binary, and fixture bots compiled from C with `cc`.
#![allow(dead_code)] // each test binary uses a different part

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use othello_host::runner::RunnerConfig;
use othello_host::seat::{Isolation, SeatSpec};

/// The `othello` binary built for these tests (it has the runner mode).
pub fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

/// Memory limit the tests give runners (small, so hogs hit it fast).
pub const TEST_MEMORY_LIMIT_MB: u64 = 256;
/// Load timeout in tests (short, so hanging loaders are quick to report).
pub const TEST_LOAD_TIMEOUT: Duration = Duration::from_millis(1500);
/// Time per move in tests.
pub const TEST_TIME_LIMIT: Duration = Duration::from_millis(200);
/// Grace margin in tests: generous, so a loaded CI machine never makes a
/// well-behaved bot lose on time (only the hanging fixture waits it out).
pub const TEST_GRACE: Duration = Duration::from_millis(800);

pub fn runner_config() -> RunnerConfig {
    RunnerConfig { executable: othello_exe(), memory_limit_mb: TEST_MEMORY_LIMIT_MB, load_timeout: TEST_LOAD_TIMEOUT }
}

pub fn isolated(library: &Path) -> SeatSpec {
    SeatSpec {
        library: library.to_path_buf(),
        level: None,
        isolation: Isolation::Isolated(runner_config()),
        grace: TEST_GRACE,
    }
}

pub fn in_process(library: &Path) -> SeatSpec {
    SeatSpec { grace: TEST_GRACE, ..SeatSpec::in_process(library) }
}

/// Where fixtures are built.
fn fixture_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Compiles `tests/fixtures/NAME.c` into `libNAME.so` (once per test process).
pub fn fixture(name: &str) -> PathBuf {
    let out = fixture_dir().join(format!("lib{name}.so"));
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.iter().any(|b| b == name) {
        return out;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("tests/fixtures").join(format!("{name}.c"));
    let include = manifest.join("../sdk/include");
    compile(&[source, include], &out);
    built.push(name.to_owned());
    out
}

/// Compiles a C source into a shared library at `out`. Built under a unique
/// name and renamed into place, as other test processes may build it too.
fn compile(source_and_include: &[PathBuf; 2], out: &Path) {
    let [source, include] = source_and_include;
    let partial = out.with_extension(format!("so.{}.partial", std::process::id()));
    let status = Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", "-pthread", "-w"])
        .arg("-I")
        .arg(include)
        .arg(source)
        .arg("-o")
        .arg(&partial)
        .status()
        .expect("the C compiler `cc` runs");
    assert!(status.success(), "compiling {} failed", source.display());
    std::fs::rename(&partial, out).unwrap();
}

/// The C example bot of the sdk (plays random legal moves).
pub fn random_bot() -> PathBuf {
    let out = fixture_dir().join("librandom_c.so");
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !built.iter().any(|b| b == "random_c") {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        compile(&[manifest.join("../sdk/examples/c/random_bot.c"), manifest.join("../sdk/include")], &out);
        built.push("random_c".to_owned());
    }
    out
}

/// A file with the library extension that is not a library.
pub fn not_a_library() -> PathBuf {
    let out = fixture_dir().join(format!("libnotes{}.so", std::process::id()));
    std::fs::write(&out, "these are my notes, not a bot\n").unwrap();
    out
}

/// How long a stopped runner may take to be killed and reaped before a test fails (generous:
/// the stop itself is immediate, but a loaded CI machine may schedule the reaping thread late).
pub const STOP_DEADLINE: Duration = Duration::from_secs(5);

/// The process `pid` no longer exists: it ended and was reaped (a zombie still has its /proc entry).
pub fn process_is_gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Waits up to [`STOP_DEADLINE`] for `pid` to be gone.
pub fn wait_until_gone(pid: u32) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < STOP_DEADLINE {
        if process_is_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    process_is_gone(pid)
}

/// The runner children of this test process that run `library` (read from /proc).
pub fn runners_of(library: &Path) -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // `pid (comm) state ppid …`: the parent id is the second field after the command name.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            ppid == Some(me)
                && args.contains(&b"runner".as_slice())
                && args.contains(&library.as_os_str().as_encoded_bytes())
        })
        .collect()
}
