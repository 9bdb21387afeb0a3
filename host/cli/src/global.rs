//! What every subcommand shares: the global options (plugin folders, time per move, the
//! sandbox's limits, …), the seat options and runner they make, and the bots they name.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use othello_arena::event::{Participant, RunOptions};
use othello_arena::nboard::{ENGINES_FILE_NAME, EnginesFile};
use othello_arena::plugins::{self, PluginStatus};
use othello_arena::seat::{
    Clock, DEFAULT_GRACE, DEFAULT_GRACE_PERCENT, DEFAULT_LOAD_TIMEOUT, DEFAULT_MEMORY_LIMIT_MB, DEFAULT_SCRATCH_MB,
    DEFAULT_THREADS, Isolation, RunnerCommand, SandboxMode, SeatOptions, Seating, diagnose_blocked, engine_name,
    library_stem,
};
use othello_ladder::identity::split_level;

/// Default time per move given to bots, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1000;

/// Default seed for random openings (runs are reproducible unless told otherwise).
pub const DEFAULT_SEED: u64 = 1;

/// Options of every subcommand.
#[derive(Debug, Args)]
pub struct GlobalOptions {
    /// Another folder to look for bot libraries in (repeatable).
    #[arg(long = "plugins", value_name = "DIR", global = true)]
    pub plugins: Vec<PathBuf>,
    /// Time per move given to the bots, in milliseconds (0 = no limit).
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TIME_MS, global = true)]
    pub time_ms: u64,
    /// Smallest margin over the time limit before a bot loses on time, in milliseconds. The
    /// margin is the larger of this and --grace-percent of the limit (for a fixed margin:
    /// --grace-percent 0 --grace-ms MS).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_GRACE.as_millis() as u64, global = true)]
    pub grace_ms: u64,
    /// Margin over the time limit as a share of it, in percent (see --grace-ms).
    #[arg(long, value_name = "P", default_value_t = DEFAULT_GRACE_PERCENT, global = true)]
    pub grace_percent: u32,
    /// Memory limit of each bot process, in MiB (0 = none).
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_MEMORY_LIMIT_MB, global = true)]
    pub memory_mb: u64,
    /// Bound of each sandboxed bot's scratch folder (its HOME and TMPDIR), in MiB: a private tmpfs
    /// counted in its memory, gone with it (0 = a plain folder of the disk, unbounded).
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_SCRATCH_MB, global = true)]
    pub scratch_mb: u64,
    /// The CPUs each sandboxed bot may use at once while on move (its CPU share, where the
    /// machine has a cgroup cpu controller): a bot's extra threads slow only itself. Give a bot
    /// that thinks with several threads that many (the alpha-beta's two-thread mode: --threads 2
    /// --env ALPHABETA_THREADS with ALPHABETA_THREADS=2). 0: no CPU share, for trusted bots (a
    /// single-threaded bot runs as fast either way).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_THREADS, global = true)]
    pub threads: u32,
    /// The clock a bot's time per move is counted on: `cpu` (default) charges a move the CPU time
    /// of the bot's process tree, so other programs on the machine never make it lose on time
    /// (--threads N gives it N times the limit), with a wall-clock cap of 3 times the limit +
    /// 100 ms + the grace for a bot that sleeps or blocks; `wall` counts wall-clock time from
    /// the request to the answer. NBoard engines are always on the wall clock.
    #[arg(long, value_name = "CLOCK", default_value = "cpu", global = true)]
    pub clock: Clock,
    /// Time a library gets to load and answer `init`, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_LOAD_TIMEOUT.as_millis() as u64, global = true)]
    pub load_timeout_ms: u64,
    /// Load bots into this process for speed: only for trusted bots, as a bot
    /// that crashes or hangs takes the arena with it.
    #[arg(long, global = true)]
    pub in_process: bool,
    /// Sandbox of each bot's runner: `auto` (every layer this machine offers; `othello list` shows
    /// them), `strict` (refuse to start when a layer is missing) or `off` (a plain process).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = SandboxMode::parse, global = true)]
    pub sandbox: SandboxMode,
    /// Let bots compute while their opponent is on move (pondering). By default the processes of
    /// a sandboxed bot are frozen while it is not on move.
    #[arg(long, global = true)]
    pub ponder: bool,
    /// Pass the environment variable NAME on to bots and engines (repeatable). They start with a
    /// clean environment: only PATH, LANG, LC_ALL, TZ, OTHELLO_SEED, HOME and TMPDIR (their
    /// scratch folder), and those named here; a token, password, key or URL with credentials is
    /// never passed.
    #[arg(long = "env", value_name = "NAME", value_parser = passable_variable, global = true)]
    pub env: Vec<String>,
    /// Let sandboxed bots and NBoard engines read (engines: and run) DIR too, besides their own
    /// library or folders (repeatable): for an engine or interpreter installed where the sandbox
    /// cannot tell, or a bot that reads data of its own.
    #[arg(long = "read", value_name = "DIR", global = true)]
    pub read: Vec<PathBuf>,
    /// The engines file: NBoard engines by name, as a JSON array of objects with `name`,
    /// `command`, optional `workingDirectory`, `arguments` and `initStrings` (cutechess's
    /// engines.json form). Default: ./engines.json when there is one.
    #[arg(long, value_name = "FILE", global = true)]
    pub engines: Option<PathBuf>,
}

impl GlobalOptions {
    /// The limits of every seat, from `--grace-ms`, `--memory-mb` and `--load-timeout-ms`.
    pub fn seat_options(&self) -> SeatOptions {
        SeatOptions {
            grace: Duration::from_millis(self.grace_ms),
            grace_percent: self.grace_percent,
            memory_limit_mb: self.memory_mb,
            scratch_mb: self.scratch_mb,
            threads: self.threads,
            load_timeout: Duration::from_millis(self.load_timeout_ms),
            sandbox: self.sandbox,
            ponder: self.ponder,
            env: static_names(&self.env),
            read: static_paths(&self.read),
            clock: self.clock,
            wasm_seed: None,
        }
    }

    /// The engines of `--engines FILE`, else of `./engines.json` when there is one.
    pub fn engines_file(&self) -> Result<EnginesFile, String> {
        match &self.engines {
            Some(path) => EnginesFile::load(path),
            None if std::path::Path::new(ENGINES_FILE_NAME).is_file() => {
                EnginesFile::load(std::path::Path::new(ENGINES_FILE_NAME))
            }
            None => Ok(EnginesFile::default()),
        }
    }

    /// How bots are run (the arena and the app share it): isolated by this very program, which
    /// serves the runner as `othello runner` (see `main.rs`), or in process with `--in-process`.
    pub fn seating(&self) -> Result<Seating, String> {
        let isolation = if self.in_process { Isolation::InProcess } else { Isolation::Isolated(runner_command()?) };
        Ok(Seating { isolation, options: self.seat_options() })
    }

    /// What the app gets from the command line: `--plugins` folders and the seat limits (the app
    /// always isolates its bots, so `--in-process` does not apply to it).
    pub fn app_launch(&self) -> Result<othello_app::Launch, String> {
        Ok(othello_app::Launch {
            plugin_folders: self.plugins.clone(),
            runner: runner_command()?,
            options: self.seat_options(),
            engines: match self.engines_file() {
                Ok(file) => file.engines,
                Err(why) => {
                    // The app still starts: the file's engines are left out, and why is said.
                    eprintln!("warning: the engines file is left out: {why}");
                    Vec::new()
                }
            },
        })
    }

    pub(crate) fn run_options(&self, concurrency: usize, affinity: bool) -> Result<RunOptions, String> {
        Ok(RunOptions { seating: self.seating()?, concurrency: concurrency.max(1), live_moves: false, affinity })
    }
}

/// `names` for the life of the program, so the seat options stay `Copy`: each distinct list is
/// leaked once (a run names one).
fn static_names(names: &[String]) -> &'static [String] {
    static LISTS: std::sync::Mutex<Vec<&'static [String]>> = std::sync::Mutex::new(Vec::new());
    leak_once(&LISTS, names)
}

/// [`static_names`] for paths.
fn static_paths(paths: &[PathBuf]) -> &'static [PathBuf] {
    static LISTS: std::sync::Mutex<Vec<&'static [PathBuf]>> = std::sync::Mutex::new(Vec::new());
    leak_once(&LISTS, paths)
}

fn leak_once<T: Clone + PartialEq>(lists: &std::sync::Mutex<Vec<&'static [T]>>, items: &[T]) -> &'static [T] {
    if items.is_empty() {
        return &[];
    }
    let mut lists = lists.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(list) = lists.iter().find(|list| **list == items) {
        return list;
    }
    let list: &'static [T] = Box::leak(items.to_vec().into_boxed_slice());
    lists.push(list);
    list
}

/// This program as the bot runner: `othello runner …`. Probing plugins always isolates them.
pub fn runner_command() -> Result<RunnerCommand, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the othello executable: {e}"))?;
    Ok(RunnerCommand::new(exe).with_arg(othello_runner::RUNNER_SUBCOMMAND))
}

/// Resolves and probes the bots; names are made unique (`Random #2`). NBoard engines
/// (`nboard:COMMAND[@DEPTH]`, or an engines-file name) are started once for the name they give
/// themselves.
pub(crate) fn participants(global: &GlobalOptions, bots: &[String]) -> Result<Vec<Participant>, String> {
    let folders = plugins::plugin_folders(&global.plugins);
    let (runner, options) = (runner_command()?, global.seat_options());
    let (engines, seating) = (global.engines_file()?, global.seating()?);
    let mut resolved = Vec::new();
    for bot in bots {
        let (name, level) = split_level(bot);
        if let Some(engine) = engines.resolve(name).transpose()? {
            // `nboard:edax -q@12`: the engine is sent `set depth 12`. It is started once here
            // for the name it gives itself (an engines-file name stays as the file says).
            let engine_name = match engine_name(&engine, &seating) {
                Ok(name) => name,
                // Blocked by the sandbox: the same for every game, so none is played.
                Err(failure)
                    if global.sandbox != SandboxMode::Off && diagnose_blocked(&failure.stderr_tail).is_some() =>
                {
                    return Err(format!("{} cannot start in the sandbox: {failure}", engine.display_name()));
                }
                Err(failure) => {
                    eprintln!("warning: {} cannot play ({failure}); its games count as losses", engine.display_name());
                    engine.display_name()
                }
            };
            resolved.push((PathBuf::from(engine.bot_name()), level, Some(engine_name)));
            continue;
        }
        resolved.push((plugins::resolve(name, &folders, &runner, &options)?, level, None));
    }
    let libraries: Vec<PathBuf> =
        resolved.iter().filter(|(_, _, engine)| engine.is_none()).map(|(path, _, _)| path.clone()).collect();
    let mut infos = plugins::probe_all(&libraries, &runner, &options).into_iter();
    let mut participants: Vec<Participant> = Vec::new();
    for (library, level, engine_name) in resolved {
        let base = match engine_name {
            Some(name) => name,
            None => {
                let info = infos.next().expect("one probe per library");
                if let PluginStatus::Error(why) = &info.status {
                    eprintln!("warning: {} cannot play ({why}); its games count as losses", library.display());
                }
                check_level(&info, level)?;
                if info.is_ok() { info.name.clone() } else { library_stem(&library) }
            }
        };
        let base = match level {
            Some(level) => format!("{base}@{level}"),
            None => base,
        };
        let mut name = base.clone();
        let mut copy = 1;
        while participants.iter().any(|p| p.name == name) {
            copy += 1;
            name = format!("{base} #{copy}");
        }
        participants.push(Participant { name, library, level });
    }
    Ok(participants)
}

/// Refuses a level (`bot@N`) the bot does not have, naming the levels it has.
pub(crate) fn check_level(info: &plugins::PluginInfo, level: Option<u32>) -> Result<(), String> {
    match level {
        Some(level) if info.is_ok() && !(1..=info.levels).contains(&level) => Err(match info.levels {
            0 => format!("{} has no strength levels: drop `@{level}`", info.name),
            levels => format!("{} has levels 1-{levels}: `@{level}` is out of range", info.name),
        }),
        _ => Ok(()),
    }
}

/// `--env NAME`: a variable's name that may be passed on to bots (never a secret's).
fn passable_variable(name: &str) -> Result<String, String> {
    if name.is_empty() || name.contains('=') {
        return Err(format!("give a variable's name, not {name:?}"));
    }
    match othello_sandbox::environment::secret_reason(name, std::env::var_os(name).as_deref()) {
        Some(why) => Err(why),
        None => Ok(name.to_owned()),
    }
}
