//! What a seat for a bot library is made of: the library, its level, where its code runs and the
//! limits every seat kind enforces ([`SeatOptions`]).

use std::path::PathBuf;
use std::time::Duration;

use super::runner_command::RunnerCommand;

/// How much a runner isolates its bot: `auto` (default: every sandbox layer the machine offers),
/// `strict` (every layer or the bot does not start) or `off` (a plain runner process).
pub use othello_sandbox::Mode as SandboxMode;

/// Where a bot's code runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// In a runner child process of its own, started with this command: crashes, hangs and memory
    /// hogs cost the bot the game, never the host.
    Isolated(RunnerCommand),
    /// Loaded into the host process for speed: no protection against crashes or hangs (overruns
    /// are only detected after the bot returns). Each seat loads its own copy of the library, so
    /// two seats of one library never share the library's own globals — but process-wide state
    /// of the C library (`rand()`'s seed, `errno`, locale, environment) *is* shared by every bot
    /// in the process. Use isolated seats for bots that rely on it.
    InProcess,
}

/// Default smallest grace margin over the time limit (covers process start-up and scheduling of
/// short limits).
pub const DEFAULT_GRACE: Duration = Duration::from_millis(20);
/// Default grace margin as a share of the time limit, in percent: with [`DEFAULT_GRACE`], a bot
/// told 200 ms loses on time after 220 ms, one told 10 s after 11 s.
pub const DEFAULT_GRACE_PERCENT: u32 = 10;
/// Default memory limit of a bot's process, in MiB.
pub const DEFAULT_MEMORY_LIMIT_MB: u64 = othello_sandbox::DEFAULT_MEMORY_LIMIT_MB;
/// Default bound of a sandboxed bot's scratch folder, in MiB.
pub const DEFAULT_SCRATCH_MB: u64 = othello_sandbox::DEFAULT_SCRATCH_MB;
/// Default CPU share of a sandboxed bot: one CPU.
pub const DEFAULT_THREADS: u32 = 1;
/// Default time a library gets to load and answer `init`.
pub const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The limits every seat kind enforces on whatever plays in it. The time per move is the
/// event's, given with each `think`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatOptions {
    /// The smallest margin past the time limit a bot may take before it loses on time (covers
    /// process and scheduling overhead); see [`SeatOptions::grace_for`].
    pub grace: Duration,
    /// The margin as a share of the time limit, in percent (0: always [`SeatOptions::grace`]).
    pub grace_percent: u32,
    /// Memory limit of the bot's process in MiB (0 = none); isolated seats only.
    pub memory_limit_mb: u64,
    /// Bound of a sandboxed bot's (or engine's) scratch folder in MiB, a private tmpfs counted in
    /// its memory (0 = a plain folder of the host's disk, unbounded).
    pub scratch_mb: u64,
    /// The CPUs a sandboxed bot's (or engine's) process tree may use at once, its CPU share while
    /// on move (`--threads`; where the machine offers a cgroup `cpu` controller): threads beyond
    /// it slow only that bot. 0: no CPU share.
    pub threads: u32,
    /// Time a library gets to load, and `init` to return; isolated seats only.
    pub load_timeout: Duration,
    /// The runner's sandbox; isolated seats only (an in-process bot runs with the host's rights).
    pub sandbox: SandboxMode,
    /// Let a bot compute while its opponent is on move (pondering). Off by default: the
    /// processes of a seat not on move are frozen where the machine has a freezer (isolated
    /// seats in the sandbox only).
    pub ponder: bool,
    /// The host's environment variables a sandboxed bot or engine gets besides the minimal set
    /// (`--env NAME`; see `othello_sandbox::environment`). Static, so the options stay `Copy`: a
    /// program names them once (the CLI leaks its list).
    pub env: &'static [String],
    /// More folders (or files) a sandboxed NBoard engine may read and run besides its own
    /// (`--read DIR`); static like [`SeatOptions::env`].
    pub read: &'static [PathBuf],
    /// The clock the time per move is counted on (see [`super::Clock`]).
    pub clock: super::Clock,
    /// Where a WebAssembly bot's random numbers start from (`None`: `OTHELLO_SEED`, else 0): a
    /// server's plan sets it, so that its workers and its re-play give the same games.
    pub wasm_seed: Option<u64>,
}

impl SeatOptions {
    /// What the sandbox around an isolated seat's runner (or an engine) is asked.
    #[cfg(unix)]
    pub(crate) fn jail(&self) -> othello_sandbox::jail::JailOptions<'_> {
        othello_sandbox::jail::JailOptions {
            mode: self.sandbox,
            env: self.env,
            read: self.read,
            memory_limit_mb: self.memory_limit_mb,
            scratch_mb: self.scratch_mb,
            threads: self.threads,
            ponder: self.ponder,
            // Only an isolated seat's runner watches its spans (an engine's share is joined at once).
            cpu_share_on_demand: false,
        }
    }

    /// What an isolated seat's runner is asked to serve: `library` in `sandbox`, with the folders
    /// it may read; a WebAssembly module with its fuel for loading and its games' seed.
    pub(crate) fn serve_args(
        &self,
        library: &std::path::Path,
        sandbox: othello_sandbox::SandboxArgs,
    ) -> othello_sandbox::ServeArgs {
        let wasm = super::is_wasm_file(library);
        // The module's code as this process compiled it (once, and kept on disk): the runner
        // reads it, and may read nothing else of the cache.
        let compiled = wasm
            .then(|| othello_wasm::WasmModule::load_file(library).ok().and_then(|module| module.artifact()))
            .flatten();
        othello_sandbox::ServeArgs {
            sandbox,
            read: self.read.iter().cloned().chain(compiled.clone()).collect(),
            wasm_load_ms: if wasm { self.load_timeout.as_millis() as u64 } else { 0 },
            wasm_seed: if wasm { self.wasm_seed.unwrap_or_else(super::wasm_base_seed) } else { 0 },
            wasm_compiled: compiled,
            library: library.to_path_buf(),
        }
    }

    /// The options of the runner that hosts the WebAssembly module at `library` (the seat's
    /// own for a library): its memory limit holds the module's memory and the engine besides
    /// ([`othello_wasm::RUNNER_OVERHEAD_MB`]); the runner gives the module the seat's limit.
    pub(crate) fn runner_options(&self, library: &std::path::Path) -> SeatOptions {
        if super::is_wasm_file(library) && self.memory_limit_mb > 0 {
            SeatOptions { memory_limit_mb: self.memory_limit_mb + othello_wasm::RUNNER_OVERHEAD_MB, ..*self }
        } else {
            *self
        }
    }

    /// How long past `time_limit` a bot may take before it loses on time: the larger of
    /// [`SeatOptions::grace`] and [`SeatOptions::grace_percent`] of the limit.
    pub fn grace_for(&self, time_limit: Duration) -> Duration {
        self.grace.max(time_limit * self.grace_percent / 100)
    }
}

impl Default for SeatOptions {
    fn default() -> SeatOptions {
        SeatOptions {
            grace: DEFAULT_GRACE,
            grace_percent: DEFAULT_GRACE_PERCENT,
            memory_limit_mb: DEFAULT_MEMORY_LIMIT_MB,
            scratch_mb: DEFAULT_SCRATCH_MB,
            threads: DEFAULT_THREADS,
            load_timeout: DEFAULT_LOAD_TIMEOUT,
            sandbox: SandboxMode::Auto,
            ponder: false,
            env: &[],
            read: &[],
            clock: super::Clock::default(),
            wasm_seed: None,
        }
    }
}

/// Everything needed to open a seat for a bot library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatSpec {
    pub library: PathBuf,
    /// Strength level to set before every game (`None` = the bot's default).
    pub level: Option<u32>,
    pub isolation: Isolation,
    pub options: SeatOptions,
}

impl SeatSpec {
    /// A seat whose bot runs in a runner started by `runner`, with the default options.
    pub fn isolated(library: impl Into<PathBuf>, runner: RunnerCommand) -> SeatSpec {
        SeatSpec {
            library: library.into(),
            level: None,
            isolation: Isolation::Isolated(runner),
            options: SeatOptions::default(),
        }
    }

    /// An in-process seat with the default options.
    pub fn in_process(library: impl Into<PathBuf>) -> SeatSpec {
        SeatSpec {
            library: library.into(),
            level: None,
            isolation: Isolation::InProcess,
            options: SeatOptions::default(),
        }
    }

    /// The same seat at strength `level`.
    pub fn with_level(self, level: Option<u32>) -> SeatSpec {
        SeatSpec { level, ..self }
    }

    /// The same seat with other options.
    pub fn with_options(self, options: SeatOptions) -> SeatSpec {
        SeatSpec { options, ..self }
    }
}

/// How an event or an app runs its bots: where their code runs and the limits. Every bot seat of
/// the event is made from it ([`Seating::spec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seating {
    pub isolation: Isolation,
    pub options: SeatOptions,
}

impl Seating {
    /// Isolated seats started by `runner`, with default options.
    pub fn isolated(runner: RunnerCommand) -> Seating {
        Seating { isolation: Isolation::Isolated(runner), options: SeatOptions::default() }
    }

    /// In-process seats with default options (trusted bots only).
    pub fn in_process() -> Seating {
        Seating { isolation: Isolation::InProcess, options: SeatOptions::default() }
    }

    /// The seat of the bot library at `library`, at `level` (`None` = the bot's default).
    pub fn spec(&self, library: impl Into<PathBuf>, level: Option<u32>) -> SeatSpec {
        SeatSpec { library: library.into(), level, isolation: self.isolation.clone(), options: self.options }
    }
}

/// The file name a bot is known by before it names itself: the file stem
/// without the Unix `lib` prefix (`libalphabeta.so` → `alphabeta`).
pub fn library_stem(path: &std::path::Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    match stem.strip_prefix("lib") {
        Some(rest) if cfg!(unix) && !rest.is_empty() => rest.to_owned(),
        _ => stem,
    }
}

/// Longest bot name kept, in characters.
pub const MAX_BOT_NAME_CHARS: usize = 40;

/// A bot's name made safe for a terminal, a GGF line, JSON, HTML and SVG: one line through
/// [`crate::text::one_line`] (no control, bidi, invisible or non-character), at most
/// [`MAX_BOT_NAME_CHARS`] characters, GGF's brackets made `_`. `None` when nothing visible is left.
pub fn sanitize_bot_name(raw: &str) -> Option<String> {
    let name = crate::text::one_line(raw, MAX_BOT_NAME_CHARS).replace(['[', ']'], "_");
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grace_is_a_share_of_the_limit_with_a_floor() {
        let options = SeatOptions::default();
        assert_eq!(options.grace_for(Duration::from_millis(50)), Duration::from_millis(20));
        assert_eq!(options.grace_for(Duration::from_millis(200)), Duration::from_millis(20));
        assert_eq!(options.grace_for(Duration::from_millis(1000)), Duration::from_millis(100));
        assert_eq!(options.grace_for(Duration::from_secs(10)), Duration::from_secs(1));
        let fixed = SeatOptions { grace: Duration::from_millis(500), grace_percent: 0, ..options };
        assert_eq!(fixed.grace_for(Duration::from_secs(60)), Duration::from_millis(500));
    }

    #[test]
    fn bot_names_are_made_safe() {
        assert_eq!(sanitize_bot_name("Alpha-beta"), Some("Alpha-beta".to_owned()));
        assert_eq!(sanitize_bot_name("\u{1b}[31mRed\u{1b}[0m\nGN[x]"), Some("_31mRed_0m GN_x_".to_owned()));
        assert_eq!(sanitize_bot_name("  a\t\tb  "), Some("a b".to_owned()));
        assert_eq!(sanitize_bot_name("\u{7}\u{1b}"), None);
        assert_eq!(sanitize_bot_name(&"x".repeat(100)).unwrap().chars().count(), MAX_BOT_NAME_CHARS);
        assert_eq!(sanitize_bot_name("Al\u{200B}pha\u{202E}"), Some("Alpha".to_owned()));
        assert_eq!(sanitize_bot_name("\u{FFFE}"), None);
    }
}
