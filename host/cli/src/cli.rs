//! The `othello` command line: the desktop app without a subcommand, and the
//! headless arena (`list`, `match`, `tournament`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use othello_arena::event::{Format, Participant, RunOptions, Shard, Sprt};
use othello_arena::nboard::engine::{ServeOptions, serve};
use othello_arena::nboard::{ENGINES_FILE_NAME, EnginesFile};
use othello_arena::plugins::{self, PluginStatus};
use othello_arena::seat::{
    DEFAULT_GRACE, DEFAULT_GRACE_PERCENT, DEFAULT_LOAD_TIMEOUT, DEFAULT_MEMORY_LIMIT_MB, DEFAULT_SCRATCH_MB,
    DEFAULT_THREADS, Isolation, RunnerCommand, SandboxMode, SeatOptions, Seating, diagnose_blocked, engine_name,
    library_stem, open_seat, sandbox_report,
};
use othello_ladder::identity::split_level;

use crate::event_run::run_event;
use crate::report::plugin_table;

/// Default time per move given to bots, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1000;
/// Default number of games of a match.
pub const DEFAULT_MATCH_GAMES: u32 = 10;
/// Games of a match with `--sprt` and no `--games`: the match runs until the test decides, this
/// being only a safety cap (an SPRT with elo1 − elo0 = 5 between near-equal bots takes some
/// tens of thousands of games).
pub const SPRT_MAX_GAMES: u32 = 100_000;
/// Default games per pair and round of a tournament.
pub const DEFAULT_TOURNAMENT_GAMES: u32 = 2;
/// Default seed for random openings (runs are reproducible unless told otherwise).
pub const DEFAULT_SEED: u64 = 1;

#[derive(Debug, Parser)]
#[command(
    name = "othello",
    version,
    about = "The Othello bot arena: without a subcommand, the desktop app; with one, the headless arena.",
    after_help = "Bots are shared libraries found in ./plugins, in each --plugins DIR and next to the othello \
                  executable. Name a bot by path, by file stem (`alphabeta` for libalphabeta.so) or by the name it \
                  gives itself; add @LEVEL to set its strength level (`alphabeta@3`). An NBoard engine is \
                  `nboard:COMMAND` (`\"nboard:edax -q -nboard\"`) or the name of an engine in the engines file \
                  (--engines; @LEVEL is its `set depth`)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOptions,
    #[command(subcommand)]
    pub command: Option<Command>,
}

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
    /// --env ALPHABETA_THREADS with ALPHABETA_THREADS=2). 0: no CPU share (a move's round trip
    /// about 1.5 µs faster, for trusted fast bots).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_THREADS, global = true)]
    pub threads: u32,
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
    /// Pass the environment variable NAME on to sandboxed bots and engines (repeatable). They
    /// start with a clean environment: only PATH, LANG, HOME and TMPDIR (their scratch folder),
    /// OTHELLO_* variables, and those named here.
    #[arg(long = "env", value_name = "NAME", global = true)]
    pub env: Vec<String>,
    /// Let sandboxed NBoard engines read (and run) DIR too, besides their own folders
    /// (repeatable): for an engine or interpreter installed where the sandbox cannot tell.
    #[arg(long = "read", value_name = "DIR", global = true)]
    pub read: Vec<PathBuf>,
    /// The engines file: NBoard engines by name, as a JSON array of objects with `name`,
    /// `command`, optional `workingDirectory`, `arguments` and `initStrings` (cutechess's
    /// engines.json form). Default: ./engines.json when there is one.
    #[arg(long, value_name = "FILE", global = true)]
    pub engines: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the bot libraries found, with their names, ABI versions, features and status.
    List {
        /// One JSON object per library.
        #[arg(long)]
        json: bool,
    },
    /// Play a match between two bots (in pairs of games with colours swapped).
    Match(MatchArgs),
    /// Play a round-robin tournament.
    Tournament(TournamentArgs),
    /// Combine the state folders of an event's shards (`--shard K/N`) into one event in OUT_DIR
    /// and print its standings, as if one machine had played it.
    Merge(crate::merge::MergeArgs),
    /// Serve a bot as an NBoard-protocol engine on stdin and stdout, for NBoard-style GUIs
    /// (the bot runs in its isolated runner, as in matches; --time-ms is its time per move).
    Nboard {
        /// The bot, as for `match` (`alphabeta`, `alphabeta@3`); `set depth N` changes its level.
        bot: String,
    },
    /// Check that a bot or NBoard engine runs in the sandbox: one short game against itself
    /// (--time-ms, else 1000 ms a move); says what the sandbox blocked and the fix when it does
    /// not.
    Check {
        /// The bot or engine, as for `match` (`alphabeta@3`, `nboard:python3 engine.py`).
        bot: String,
    },
    /// Place a bot on the rating ladder: play it against the rated pool until its rating is known.
    Rate(crate::rate::RateArgs),
    /// Show the rating ladder (`--json`, `--html DIR`), or seed it with the starting pool.
    Ladder(crate::ladder::LadderArgs),
    /// Run the contest and ladder server: entrants upload bots in a browser (or over its JSON
    /// API) and see them checked, rated and played; `serve entrant add NAME` adds an entrant.
    Serve(crate::serve::ServeArgs),
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The bot with black in the first game.
    #[arg(required_unless_present = "resume")]
    pub black: Option<String>,
    /// The bot with white in the first game.
    #[arg(required_unless_present = "resume")]
    pub white: Option<String>,
    /// Number of games [default: 10; with --sprt: until the test decides, at most 100000].
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,
    /// Stop once a sequential probability ratio test on the first bot decides:
    /// `elo0=0,elo1=5` [,alpha=0.05][,beta=0.05][,model=pentanomial|trinomial] (logistic Elo;
    /// pentanomial: on colour-swapped game pairs, as fishtest and fastchess).
    #[arg(long, value_name = "SPEC", value_parser = Sprt::parse)]
    pub sprt: Option<Sprt>,
    #[command(flatten)]
    pub event: EventArgs,
}

#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The bots (at least two).
    #[arg(num_args = 0..)]
    pub bots: Vec<String>,
    /// Number of round-robin rounds.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub rounds: u32,
    /// Games each pair plays per round (in colour-swapped pairs).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TOURNAMENT_GAMES)]
    pub games: u32,
    #[command(flatten)]
    pub event: EventArgs,
}

/// Options of matches and tournaments.
#[derive(Debug, Args)]
pub struct EventArgs {
    /// `none`, `random:PLIES` (distinct random openings), or a file with one transcript per line.
    #[arg(long, value_name = "SOURCE", default_value = "none")]
    pub openings: String,
    /// Games played at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// Pin each game slot, and its bots, to a processor of its own (Linux; as fastchess's
    /// -use-affinity): round trips stay on one processor, much faster on virtual machines.
    #[arg(long)]
    pub affinity: bool,
    /// Seed for random openings.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Write finished games to FILE in GGF, one game per line.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print one JSON object per finished game, then a summary object.
    #[arg(long)]
    pub json: bool,
    /// Save the event's progress in DIR after every game.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Continue the event saved in --state DIR.
    #[arg(long, requires = "state")]
    pub resume: bool,
    /// Play only part K of N of the schedule (K from 0 to N-1; whole colour-swapped pairs), for
    /// running one event on N machines; `othello merge` combines their --state folders.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Without a terminal (a log file, Slurm), print a progress line every S seconds (0: never).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_PROGRESS_INTERVAL_S)]
    pub progress_interval: u64,
}

/// Seconds between progress lines when standard error is not a terminal.
pub const DEFAULT_PROGRESS_INTERVAL_S: u64 = 10;

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        None => cli.global.app_launch().and_then(othello_app::run),
        Some(Command::List { json }) => list(&cli.global, json),
        Some(Command::Match(args)) => play_match(&cli.global, args),
        Some(Command::Tournament(args)) => tournament(&cli.global, args),
        Some(Command::Merge(args)) => crate::merge::merge(&args),
        Some(Command::Nboard { bot }) => nboard(&cli.global, &bot),
        Some(Command::Check { bot }) => check(&cli.global, &bot),
        Some(Command::Rate(args)) => crate::rate::rate_bot(&cli.global, args),
        Some(Command::Ladder(args)) => crate::ladder::ladder(&cli.global, args),
        Some(Command::Serve(args)) => crate::serve::serve(&cli.global, args),
    };
    match result {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("othello: {message}");
            EXIT_ERROR
        }
    }
}

/// Exit code for errors the user can fix (bad arguments, unreadable files).
const EXIT_ERROR: i32 = 2;

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

/// This program as the bot runner: `othello runner …`. Probing plugins always isolates them.
pub fn runner_command() -> Result<RunnerCommand, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the othello executable: {e}"))?;
    Ok(RunnerCommand::new(exe).with_arg(othello_runner::RUNNER_SUBCOMMAND))
}

fn list(global: &GlobalOptions, json: bool) -> Result<(), String> {
    let folders = plugins::plugin_folders(&global.plugins);
    let files = plugins::scan(&folders);
    let infos = plugins::probe_all(&files, &runner_command()?, &global.seat_options());
    if json {
        for info in &infos {
            outln!("{}", serde_json::to_string(info).expect("plugin infos serialize"));
        }
        return Ok(());
    }
    let folder_list: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    if infos.is_empty() {
        outln!(
            "No bot libraries found in: {}.\nBuild the sample bots with `cargo build --release`, or add --plugins DIR.",
            if folder_list.is_empty() { "(no plugin folder exists)".to_owned() } else { folder_list.join(", ") }
        );
        print_engines(global)?;
        return print_sandbox(global);
    }
    out!("{}", plugin_table(&infos));
    let usable = infos.iter().filter(|i| i.is_ok()).count();
    outln!("\n{usable} of {} libraries usable; searched {}", infos.len(), folder_list.join(", "));
    print_engines(global)?;
    print_sandbox(global)
}

/// The engines of the engines file, one line each (nothing without a file).
fn print_engines(global: &GlobalOptions) -> Result<(), String> {
    let engines = global.engines_file()?.engines;
    if engines.is_empty() {
        return Ok(());
    }
    outln!("\nNBoard engines (engines file):");
    let width = engines.iter().map(|e| e.name.chars().count()).max().unwrap_or(0);
    for engine in engines {
        let words = engine.words().map(|w| w.join(" ")).unwrap_or_default();
        let folder = engine.working_directory.map(|f| format!("  (in {})", f.display())).unwrap_or_default();
        outln!("  {:width$}  {words}{folder}", engine.name);
    }
    Ok(())
}

/// The sandbox layers of this machine, one line each.
fn print_sandbox(global: &GlobalOptions) -> Result<(), String> {
    outln!("\nSandbox of isolated bots (--sandbox {}):", global.sandbox);
    if global.sandbox == SandboxMode::Off {
        outln!("  off: bots run in a plain process with the arena's user and rights");
        return Ok(());
    }
    match sandbox_report(&runner_command()?) {
        Ok(layers) => {
            let width = layers.iter().map(|l| l.name.len()).max().unwrap_or(0);
            for layer in layers {
                match &layer.state {
                    Ok(detail) => outln!("  {:width$}  active   {detail}", layer.name),
                    Err(why) => outln!("  {:width$}  MISSING  {why}", layer.name),
                }
            }
        }
        Err(why) => outln!("  unknown: {why}"),
    }
    Ok(())
}

fn play_match(global: &GlobalOptions, args: MatchArgs) -> Result<(), String> {
    let bots: Vec<String> = args.black.into_iter().chain(args.white).collect();
    let default_games = if args.sprt.is_some() { SPRT_MAX_GAMES } else { DEFAULT_MATCH_GAMES };
    let format = Format::Match { games: args.games.unwrap_or(default_games) };
    run_event(global, &bots, format, args.sprt, &args.event)
}

fn tournament(global: &GlobalOptions, args: TournamentArgs) -> Result<(), String> {
    if args.bots.len() < 2 && !args.event.resume {
        return Err("a tournament needs at least two bots".to_owned());
    }
    let format = Format::Tournament { rounds: args.rounds, games_per_pair: args.games };
    run_event(global, &args.bots, format, None, &args.event)
}

/// `othello nboard BOT`: the bot as an NBoard engine on stdin and stdout.
fn nboard(global: &GlobalOptions, bot: &str) -> Result<(), String> {
    let folders = plugins::plugin_folders(&global.plugins);
    let (name, level) = split_level(bot);
    let library = plugins::resolve(name, &folders, &runner_command()?, &global.seat_options())?;
    let seating = global.seating()?;
    let options =
        ServeOptions { time_limit: (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms)), level };
    let mut open = |level| open_seat(&seating.spec(&library, level));
    serve(&mut open, options, std::io::stdin().lock(), std::io::stdout().lock(), std::io::stderr())
        .map_err(|e| format!("nboard: the GUI's connection failed: {e}"))
}

/// `othello check BOT`: one short game of the bot against itself, sandboxed as the options say.
fn check(global: &GlobalOptions, bot: &str) -> Result<(), String> {
    use othello_arena::record::End;
    use othello_arena::referee::{Opening, play_game};
    let (name, level) = split_level(bot);
    let library = match global.engines_file()?.resolve(name).transpose()? {
        Some(engine) => PathBuf::from(engine.bot_name()),
        None => {
            let folders = plugins::plugin_folders(&global.plugins);
            plugins::resolve(name, &folders, &runner_command()?, &global.seat_options())?
        }
    };
    let spec = global.seating()?.spec(&library, level);
    let time_limit = Duration::from_millis(if global.time_ms > 0 { global.time_ms } else { 1000 });
    let sandbox = global.sandbox;
    let mut black =
        open_seat(&spec).map_err(|failure| format!("{bot} cannot start with --sandbox {sandbox}: {failure}"))?;
    let mut white =
        open_seat(&spec).map_err(|failure| format!("{bot} cannot start with --sandbox {sandbox}: {failure}"))?;
    let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(time_limit));
    match &record.result.end {
        End::Forfeit { loser, failure } => {
            let diagnosis = diagnose_blocked(&failure.stderr_tail).map_or(String::new(), |why| format!("\n{why}"));
            Err(format!(
                "{bot} lost its game against itself with --sandbox {sandbox} ({loser:?}): {failure}{diagnosis}"
            ))
        }
        _ => {
            outln!("{bot}: runs with --sandbox {sandbox}: one game against itself, {} moves", record.moves.len());
            Ok(())
        }
    }
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
                if let Some(level) = level
                    && info.is_ok()
                    && !(1..=info.levels).contains(&level)
                {
                    return Err(match info.levels {
                        0 => format!("{} has no strength levels: drop `@{level}`", info.name),
                        levels => format!("{} has levels 1-{levels}: `@{level}` is out of range", info.name),
                    });
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_runs_bots_with_the_global_options_as_the_arena_does() {
        let cli = Cli::try_parse_from([
            "othello",
            "--plugins",
            "my-bots",
            "--memory-mb",
            "77",
            "--load-timeout-ms",
            "1234",
            "--grace-ms",
            "321",
            "--grace-percent",
            "15",
            "--ponder",
        ])
        .unwrap();
        let launch = cli.global.app_launch().unwrap();
        let arena = cli.global.seating().unwrap();
        assert_eq!(launch.seating(), arena, "one source for how bots run");
        assert_eq!(launch.options.memory_limit_mb, 77);
        assert_eq!(launch.options.load_timeout, Duration::from_millis(1234));
        assert_eq!(launch.options.grace, Duration::from_millis(321));
        assert_eq!(launch.options.grace_for(Duration::from_secs(10)), Duration::from_millis(1500));
        assert!(launch.options.ponder);
        assert_eq!(launch.runner.program(), std::env::current_exe().unwrap());
        assert_eq!(launch.runner.args(), [othello_runner::RUNNER_SUBCOMMAND]);
        assert_eq!(launch.plugin_folders, [PathBuf::from("my-bots")]);
    }
}
