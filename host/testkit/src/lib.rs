//! Test helpers shared by the host crates' tests: the runner binary, fixture bots compiled from C
//! with `cc` (once per test process), and checks on runner processes.

pub mod postgres;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

#[cfg(target_os = "linux")]
use othello_arena::seat::RUNNER_EXECUTABLE;
use othello_arena::seat::{RunnerCommand, SandboxMode, SeatOptions, SeatSpec, Seating};

/// The folder of the build profile the running test belongs to (`target/debug`): test
/// executables live in its `deps/` folder.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let deps = exe.parent().expect("the test executable's folder");
    // Examples and tests live one level below the profile folder.
    deps.parent().expect("a target profile folder").to_path_buf()
}

/// The standalone runner of the same build (`cargo test --workspace` builds it; so does
/// `cargo build -p othello-runner`).
pub fn runner_command() -> RunnerCommand {
    RunnerCommand::in_folder(&profile_dir()).unwrap_or_else(|missing| {
        panic!(
            "{missing}. These tests need it: run them with `cargo test --workspace`, or build it first with \
             `cargo build -p othello-runner`"
        )
    })
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

/// The limits the tests give every seat.
pub fn seat_options() -> SeatOptions {
    SeatOptions {
        grace: TEST_GRACE,
        grace_percent: othello_arena::seat::DEFAULT_GRACE_PERCENT,
        memory_limit_mb: TEST_MEMORY_LIMIT_MB,
        load_timeout: TEST_LOAD_TIMEOUT,
        sandbox: SandboxMode::Auto,
        ponder: false,
        env: &[],
        read: &[],
        scratch_mb: othello_arena::seat::DEFAULT_SCRATCH_MB,
        threads: othello_arena::seat::DEFAULT_THREADS,
        clock: othello_arena::seat::Clock::Wall,
        wasm_seed: None,
    }
}

/// Isolated seats with the test limits.
pub fn isolated_seating() -> Seating {
    Seating { options: seat_options(), ..Seating::isolated(runner_command()) }
}

/// In-process seats with the test limits.
pub fn in_process_seating() -> Seating {
    Seating { options: seat_options(), ..Seating::in_process() }
}

pub fn isolated(library: &Path) -> SeatSpec {
    isolated_seating().spec(library, None)
}

pub fn in_process(library: &Path) -> SeatSpec {
    in_process_seating().spec(library, None)
}

/// Where fixtures are built (shared by every test binary of one build).
fn fixture_dir() -> PathBuf {
    let dir = profile_dir().join("test-fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The file name of the library `stem` on this platform: `libNAME.so`, `libNAME.dylib`,
/// `NAME.dll` (Windows libraries have no prefix).
pub fn library_file_name(stem: &str) -> String {
    format!("{}{stem}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// Windows: a folder of fixtures already built (`NAME.dll`, by CI with MinGW when the tests run
/// under Wine, where no C compiler can be started). Without it they are built with `gcc`.
pub const PREBUILT_FIXTURES_VAR: &str = "OTHELLO_TEST_FIXTURES";

/// Compiles `tests/fixtures/NAME.c` into `libNAME.so` (`NAME.dll` on Windows; once per test
/// process).
pub fn fixture(name: &str) -> PathBuf {
    if cfg!(windows)
        && let Some(prebuilt) = std::env::var_os(PREBUILT_FIXTURES_VAR)
    {
        let path = Path::new(&prebuilt).join(library_file_name(name));
        assert!(path.is_file(), "{} is missing (built with MinGW by .ci/run)", path.display());
        return path;
    }
    let out = fixture_dir().join(library_file_name(name));
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.iter().any(|b| b == name) {
        return out;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("fixtures").join(format!("{name}.c"));
    let include = manifest.join("../../sdk/include");
    compile(&[source, include], &out, &[]);
    built.push(name.to_owned());
    out
}

/// Compiles `fixtures/NAME.c` with `-D` definitions into `libNAME-TAG.so` (`TAG` tells the variants
/// apart; every call compiles). For hostile fixtures that need the host's pid, a port or a path.
pub fn fixture_with(name: &str, tag: &str, defines: &[(&str, String)]) -> PathBuf {
    let out = fixture_dir().join(library_file_name(&format!("{name}-{tag}")));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("fixtures").join(format!("{name}.c"));
    let include = manifest.join("../../sdk/include");
    let defines: Vec<String> = defines.iter().map(|(name, value)| format!("-D{name}={value}")).collect();
    compile(&[source, include], &out, &defines);
    out
}

/// The gate of a `gated` fixture bot: while it is closed the bot waits before each move. It is a
/// file in a folder of its own that the bot is given to read (`--read` [`Gate::folder`], or
/// [`Gate::seat_options`]): the sandbox shows a bot nothing else of the machine. The folder is
/// removed when the gate is dropped.
pub struct Gate {
    folder: tempfile::TempDir,
}

impl Gate {
    /// A gated bot named `name` (its library `libgated-TAG.so`) and its gate, open.
    pub fn bot(tag: &str, name: &str) -> (PathBuf, Gate) {
        let folder = tempfile::Builder::new().prefix("othello-gate-").tempdir().unwrap();
        // Readable by `nobody`, the runner's user under root.
        #[cfg(unix)]
        std::fs::set_permissions(folder.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let gate = Gate { folder };
        let hold = gate.hold_file().to_string_lossy().into_owned();
        let library = fixture_with("gated", tag, &[("NAME", format!("\"{name}\"")), ("HOLD", format!("\"{hold}\""))]);
        (library, gate)
    }

    /// The folder the bot must be let read.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// The seat options of the tests, letting the bot read the gate.
    pub fn seat_options(&self) -> SeatOptions {
        let read: &'static [PathBuf] = Box::leak(vec![self.folder().to_path_buf()].into_boxed_slice());
        SeatOptions { read, ..seat_options() }
    }

    /// Closes the gate: the bot waits before its next move.
    pub fn close(&self) {
        std::fs::write(self.hold_file(), b"").unwrap();
    }

    /// Opens the gate: the bot plays on.
    pub fn open(&self) {
        let _ = std::fs::remove_file(self.hold_file());
    }

    fn hold_file(&self) -> PathBuf {
        self.folder.path().join("hold")
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.open();
    }
}

/// Compiles a C source into a shared library at `out`. Built under a unique
/// name and renamed into place, as other test processes may build it too.
fn compile(source_and_include: &[PathBuf; 2], out: &Path, defines: &[String]) {
    let [source, include] = source_and_include;
    let partial = out.with_extension(format!("{}.{}.partial", std::env::consts::DLL_EXTENSION, std::process::id()));
    // Windows: MinGW's gcc; its thread library linked in, so the DLL needs no other DLL.
    let (compiler, flags): (&str, &[&str]) = if cfg!(windows) {
        ("gcc", &["-O1", "-shared", "-static", "-pthread", "-w"])
    } else {
        ("cc", &["-O1", "-shared", "-fPIC", "-pthread", "-w"])
    };
    let status = Command::new(compiler)
        .args(flags)
        .args(defines)
        .arg("-I")
        .arg(include)
        .arg(source)
        .arg("-o")
        .arg(&partial)
        .status()
        .unwrap_or_else(|e| panic!("the C compiler `{compiler}` does not run: {e}"));
    assert!(status.success(), "compiling {} failed", source.display());
    std::fs::rename(&partial, out).unwrap();
}

/// The C example bot of the sdk (plays random legal moves).
pub fn random_bot() -> PathBuf {
    if cfg!(windows)
        && let Some(prebuilt) = std::env::var_os(PREBUILT_FIXTURES_VAR)
    {
        return Path::new(&prebuilt).join(library_file_name("random_c"));
    }
    let out = fixture_dir().join(library_file_name("random_c"));
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !built.iter().any(|b| b == "random_c") {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        compile(&[manifest.join("../../sdk/examples/c/random_bot.c"), manifest.join("../../sdk/include")], &out, &[]);
        built.push("random_c".to_owned());
    }
    out
}

/// A file with the library extension that is not a library.
pub fn not_a_library() -> PathBuf {
    let out = fixture_dir().join(library_file_name(&format!("notes{}", std::process::id())));
    std::fs::write(&out, "these are my notes, not a bot\n").unwrap();
    out
}

/// How long a stopped runner may take to be killed and reaped before a test fails (generous:
/// the stop itself is immediate, but a loaded CI machine may schedule the reaping thread late).
pub const STOP_DEADLINE: Duration = Duration::from_secs(5);

/// The process `pid` no longer exists: it ended and was reaped (a zombie still has its /proc entry).
#[cfg(target_os = "linux")]
pub fn process_is_gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// The process `pid` has ended (or never existed). Windows.
#[cfg(windows)]
pub fn process_is_gone(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, WAIT_TIMEOUT};
    use windows_sys::Win32::System::Threading::{
        OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE, WaitForSingleObject,
    };
    // SAFETY: OpenProcess returns a handle we close, or null; a zero-timeout wait never blocks.
    unsafe {
        let process = OpenProcess(PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return true;
        }
        let running = WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
        CloseHandle(process);
        !running
    }
}

/// Waits up to [`STOP_DEADLINE`] for `pid` to be gone.
#[cfg(any(target_os = "linux", windows))]
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
#[cfg(target_os = "linux")]
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
            let is_runner = args.first().is_some_and(|program| program.ends_with(RUNNER_EXECUTABLE.as_bytes()))
                || args.contains(&othello_runner_subcommand());
            ppid == Some(me) && is_runner && args.contains(&library.as_os_str().as_encoded_bytes())
        })
        .collect()
}

/// `runner`, as a program that embeds the runner is started (`othello runner …`).
#[cfg(target_os = "linux")]
fn othello_runner_subcommand() -> &'static [u8] {
    b"runner"
}

/// The scripted NBoard test engine (`nboard/fake_engine.sh`) as an `nboard:` bot name: it answers
/// `go` as `mode` says (`spaced`, `v1`, `double`, `flood`, `illegal`, `garbage`, `crash`, `hang`, `spawner PIDFILE`,
/// `exit-early`; see the script).
pub fn fake_nboard_engine(mode: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("nboard").join("fake_engine.sh");
    format!("nboard:sh '{}' {mode}", script.display())
}

/// The hostile NBoard test engine (`nboard/hostile_engine.sh`) as an `nboard:` bot name: on every
/// `go` it tries to write `outside`, to stop and kill process `host_pid` and to connect to
/// 127.0.0.1:`port`, then answers `=== f5`.
pub fn hostile_nboard_engine(outside: &Path, host_pid: u32, port: u16) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("nboard").join("hostile_engine.sh");
    format!("nboard:sh '{}' '{}' {host_pid} {port}", script.display(), outside.display())
}

/// A scratch folder with a `plugins/` folder holding the named fixtures, where an `othello`
/// started in it finds them.
pub fn fixture_workspace(fixtures: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a scratch folder");
    install_plugins(dir.path(), fixtures.iter().map(|name| fixture(name)));
    dir
}

/// Copies bot libraries into `dir/plugins` (made if missing), where an `othello` started in `dir`
/// finds them.
pub fn install_plugins(dir: &Path, libraries: impl IntoIterator<Item = PathBuf>) {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for library in libraries {
        std::fs::copy(&library, plugins.join(library.file_name().unwrap())).unwrap();
    }
}

/// How long a scripted NBoard session may take before it counts as hung (a guard, not a timing:
/// a session answers in well under a second).
const NBOARD_SESSION_DEADLINE: Duration = Duration::from_secs(60);

/// Runs `othello nboard BOT` in `dir` (`othello` is the program's path), sends it `script` (then
/// closes its input) and returns its output lines; the session must end on its own and exit 0.
pub fn nboard_session(othello: &Path, dir: &Path, bot: &str, script: &[String]) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let mut child = Command::new(othello)
        .current_dir(dir)
        .args(["nboard", bot])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    for line in script {
        writeln!(input, "{line}").unwrap();
    }
    drop(input);
    let output = BufReader::new(child.stdout.take().unwrap());
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(output.lines().map(Result::unwrap).collect::<Vec<String>>());
    });
    let result = lines.recv_timeout(NBOARD_SESSION_DEADLINE);
    if result.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    let lines = result.expect("the session ended");
    assert!(status.success(), "{status}: {lines:?}");
    lines
}

/// Makes this process the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`): a
/// process the code under test starts and then abandons (its parent died without reaping it) is
/// re-parented here instead of to PID 1, where [`adopted_children`] finds it.
#[cfg(target_os = "linux")]
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and changes nothing
    // but this process's reaper flag.
    let set = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(set, 0, "PR_SET_CHILD_SUBREAPER: {}", std::io::Error::last_os_error());
}

/// Every process whose parent is this one, as `(pid, state, name)` (state `Z`: a zombie no one
/// reaped). After the code under test has ended everything it started, a subreaper test process
/// (see [`become_subreaper`]) has none besides the ones it started itself.
#[cfg(target_os = "linux")]
pub fn adopted_children() -> Vec<(u32, char, String)> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            let name = head.split_once('(')?.1.to_owned();
            let mut fields = rest.split_whitespace();
            let state = fields.next()?.chars().next()?;
            let parent: u32 = fields.next()?.parse().ok()?;
            (parent == me).then_some((pid, state, name))
        })
        .collect()
}

/// A generous guard for things that happen at once (a process tree dying, a freeze), never a
/// pause: [`wait_for`] fails past it.
pub const EVENT_GUARD: Duration = Duration::from_secs(10);

/// Waits until `done` (checked every few milliseconds), failing the test after [`EVENT_GUARD`].
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < EVENT_GUARD, "{what} did not happen within {EVENT_GUARD:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// True when every named sandbox layer is active on this machine; otherwise says on stderr which
/// is missing, for `test` to pass without attacking.
pub fn sandbox_has_layers(test: &str, names: &[&str]) -> bool {
    let layers = othello_arena::seat::sandbox_report(&runner_command()).expect("the runner reports its sandbox");
    for name in names {
        match layers.iter().find(|l| l.name == *name) {
            Some(layer) if layer.is_active() => {}
            other => {
                eprintln!("{test}: not attacking, the sandbox layer {name} is missing here: {other:?}");
                return false;
            }
        }
    }
    true
}

/// Whether `pid` is frozen by the freezer it is in: cgroup v2 (`cgroup.events` says `frozen 1`)
/// or v1 (`freezer.state` says `FROZEN`); `None` when it is in neither's cgroup.
pub fn process_is_frozen(pid: u32) -> Option<bool> {
    let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    let path_of =
        |prefix: &str| cgroups.lines().find_map(|l| l.strip_prefix(prefix).map(|p| p.trim_start_matches('/')));
    let v2 = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
        .iter()
        .map(|root| std::path::Path::new(root).join(path_of("0::").unwrap_or("-")).join("cgroup.events"))
        .find_map(|events| std::fs::read_to_string(events).ok())
        .filter(|events| events.contains("frozen 1") || path_of("0::").is_some_and(|p| p.ends_with("/bot")));
    if let Some(events) = v2 {
        return Some(events.contains("frozen 1"));
    }
    let v1 = cgroups.lines().find_map(|l| l.split_once(":freezer:").map(|(_, path)| path.to_owned()));
    let state = v1.map(|v1| {
        std::path::Path::new("/sys/fs/cgroup/freezer").join(v1.trim_start_matches('/')).join("freezer.state")
    });
    if let Some(state) = state.and_then(|state| std::fs::read_to_string(state).ok()).filter(|s| !s.is_empty()) {
        if cgroups.lines().any(|l| l.ends_with(":freezer:/")) {
            return process_is_stopped(pid); // in the root freezer cgroup: not frozen by one, maybe stopped
        }
        return Some(state.trim() == "FROZEN");
    }
    process_is_stopped(pid)
}

/// Without a freezer cgroup the fallback stops the process (`SIGSTOP`): state `T` in /proc.
fn process_is_stopped(pid: u32) -> Option<bool> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let state = stat.rsplit_once(')')?.1.split_whitespace().next()?.to_owned();
    Some(state == "T")
}

/// The clang that builds WebAssembly bots (`clang`, else Debian's `clang-14`), if this machine
/// has one with the wasm32-wasi target and wasi-libc (Debian: `clang-14 lld-14 wasi-libc
/// libclang-rt-14-dev-wasm32`; CI installs them).
fn wasm_clang() -> Option<&'static str> {
    static FOUND: std::sync::OnceLock<Option<&'static str>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        ["clang", "clang-14"].into_iter().find(|clang| {
            Command::new(clang)
                .args(["--target=wasm32-wasi", "--sysroot=/usr", "-print-libgcc-file-name"])
                .output()
                .is_ok_and(|out| {
                    out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_file()
                })
        })
    })
}

/// Compiles `fixtures/wasm/NAME.c` with `-D` definitions into `NAME-TAG.wasm` with the book's
/// one line (`clang --target=wasm32-wasi --sysroot=/usr -O2 -nostartfiles -Wl,--no-entry
/// -Wl,--export-dynamic -I sdk/include bot.c -o bot.wasm`). `None`, said loudly on stderr, where
/// the machine has no such clang: the calling test then skips.
pub fn wasm_fixture(name: &str, tag: &str, defines: &[(&str, String)]) -> Option<PathBuf> {
    let Some(clang) = wasm_clang() else {
        eprintln!(
            "SKIPPED: no clang with the wasm32-wasi target and wasi-libc here (Debian: apt-get install clang-14 \
             lld-14 wasi-libc libclang-rt-14-dev-wasm32); the WebAssembly bot `{name}` cannot be built"
        );
        return None;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("fixtures/wasm").join(format!("{name}.c"));
    let include = manifest.join("../../sdk/include");
    let out = fixture_dir().join(format!("{name}-{tag}.wasm"));
    // Unique per build: tests of one process may build the same module at once.
    static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let build = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = out.with_extension(format!("wasm.{}.{build}.partial", std::process::id()));
    let defines: Vec<String> = defines.iter().map(|(name, value)| format!("-D{name}={value}")).collect();
    let status = Command::new(clang)
        .args(othello_wasm::C_BUILD_FLAGS)
        .args(&defines)
        .arg("-I")
        .arg(include)
        .arg(&source)
        .arg("-o")
        .arg(&partial)
        .status()
        .unwrap_or_else(|e| panic!("`{clang}` does not run: {e}"));
    assert!(status.success(), "compiling {} to WebAssembly failed", source.display());
    std::fs::rename(&partial, &out).unwrap();
    Some(out)
}

/// Longest a [`CpuBurners`] process lives, even if the test that started it dies first.
#[cfg(target_os = "linux")]
pub const BURNER_LIFETIME_S: u32 = 300;

/// A busy loop on every processor of the machine: child processes of the test, each in a process
/// group of its own (`timeout` and its shell), ending by themselves after [`BURNER_LIFETIME_S`],
/// and killed and reaped when this is dropped.
#[cfg(target_os = "linux")]
pub struct CpuBurners(Vec<std::process::Child>);

#[cfg(target_os = "linux")]
impl CpuBurners {
    pub fn on_every_core() -> CpuBurners {
        use std::os::unix::process::CommandExt;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let burners = (0..cores)
            .map(|_| {
                Command::new("timeout")
                    .arg(BURNER_LIFETIME_S.to_string())
                    .args(["sh", "-c", "while :; do :; done"])
                    .stdin(std::process::Stdio::null())
                    .process_group(0)
                    .spawn()
                    .expect("a CPU burner starts (sh and coreutils' timeout)")
            })
            .collect();
        CpuBurners(burners)
    }

    /// How many burn.
    pub fn count(&self) -> usize {
        self.0.len()
    }
}

#[cfg(target_os = "linux")]
impl Drop for CpuBurners {
    fn drop(&mut self) {
        for burner in &mut self.0 {
            // SAFETY: killpg signals the burner's own process group (its pid is the group's id,
            // and the child is not reaped yet, so the id is still its).
            unsafe { libc::killpg(burner.id() as libc::pid_t, libc::SIGKILL) };
            let _ = burner.wait();
        }
    }
}
