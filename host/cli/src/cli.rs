//! The `othello` command line: the desktop app without a subcommand, and the
//! headless arena (`list`, `match`, `tournament`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use othello_arena::event::{Format, Sprt};
use othello_arena::nboard::engine::{ServeOptions, serve};
use othello_arena::plugins;
use othello_arena::seat::{SandboxMode, diagnose_blocked, open_seat, sandbox_report};
use othello_ladder::identity::split_level;

use crate::event_run::{EventArgs, run_event};
use crate::global::{GlobalOptions, runner_command};
use crate::report::plugin_table;

/// Default number of games of a match.
pub const DEFAULT_MATCH_GAMES: u32 = 10;
/// Games of a match with `--sprt` and no `--games`: the match runs until the test decides, this
/// being only a safety cap (an SPRT with elo1 − elo0 = 5 between near-equal bots takes some
/// tens of thousands of games).
pub const SPRT_MAX_GAMES: u32 = 100_000;
/// Default games per pair and round of a tournament.
pub const DEFAULT_TOURNAMENT_GAMES: u32 = 2;

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
    /// Play a contest server's games on this machine: claims jobs over HTTP, downloads the bots
    /// (hash checked, cached), plays them in the sandbox and sends each game back.
    Worker(crate::worker::WorkerArgs),
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
    /// `elo0=0,elo1=5`, optionally with `alpha=0.05`, `beta=0.05` and `model=pentanomial` (on
    /// colour-swapped game pairs, as fishtest and fastchess) or `model=trinomial` (logistic Elo).
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
        Some(Command::Worker(args)) => crate::worker::worker(&cli.global, args),
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
