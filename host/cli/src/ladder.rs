//! `othello ladder`: the rating ladder's leaderboard (text, `--json`, or an `--html` page) and
//! seeding it with the starting pool (`--seed-pool`).

use othello_db::Location;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::Args;

use othello_arena::plugins;
use othello_arena::seat::{SandboxMode, library_stem, require_every_layer};
use othello_ladder::identity::{Identity, engine_identity, library_identity, split_level};
use othello_ladder::paths::default_ladder_path;
pub use othello_ladder::seed::SAMPLE_POOL;
use othello_ladder::seed::{SEED_MAX_GAMES, SEED_TARGET_ERROR, seed_pool};
use othello_ladder::{Ladder, Leaderboard, leaderboard};

use crate::global::{DEFAULT_SEED, GlobalOptions, check_level, runner_command};

/// Where the ladder is (both `rate` and `ladder` take it).
#[derive(Debug, Args)]
pub struct LadderLocation {
    /// The ladder: an SQLite file, or a PostgreSQL database as a URL
    /// (`postgres://user@host:port/database`) [default: $XDG_DATA_HOME/othello-arena/ladder.sqlite3,
    /// or ~/.local/share/othello-arena/ladder.sqlite3].
    #[arg(long = "ladder", value_name = "PATH|URL", value_parser = parse_location)]
    pub location: Option<Location>,
}

fn parse_location(text: &str) -> Result<Location, String> {
    Ok(Location::parse(text))
}

impl LadderLocation {
    pub fn location(&self) -> Result<Location, String> {
        match &self.location {
            Some(location) => Ok(location.clone()),
            None => default_ladder_path()
                .map(Location::File)
                .ok_or_else(|| "no home folder to keep the ladder in: give --ladder PATH".to_owned()),
        }
    }

    pub fn open(&self) -> Result<Ladder, String> {
        Ladder::open(self.location()?)
    }
}

#[derive(Debug, Args)]
pub struct LadderArgs {
    #[command(flatten)]
    pub location: LadderLocation,
    /// One JSON object per entry instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write a web page with the leaderboard and a rating-history plot to DIR/index.html.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Add the starting pool and play its seeding games (the sample bots at their levels, or the
    /// BOTS given, weakest first; the first is the anchor of a new ladder).
    #[arg(long)]
    pub seed_pool: bool,
    /// With --seed-pool: the pool instead of the sample bots.
    #[arg(requires = "seed_pool")]
    pub bots: Vec<String>,
    /// Print every game of the bot named NAME (`Name` or `Name@LEVEL`, as the leaderboard
    /// shows it; every version) as GGF, one game per line, newest first.
    #[arg(long, value_name = "NAME")]
    pub games: Option<String>,
    /// Seed of the seeding games' openings.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Write the ladder's games between its entries as a pool calibration to PATH (a ladder
    /// seeded with `--seed-pool` at the contest's --time-ms; the shipped one is
    /// host/ladder/calibration/sample-pool.tsv). --time-ms must be the one it was seeded at.
    #[arg(long, value_name = "PATH")]
    pub export_calibration: Option<PathBuf>,
}

/// `othello ladder`.
pub fn ladder(global: &GlobalOptions, args: LadderArgs) -> Result<(), String> {
    let location = args.location.location()?;
    if let Location::File(path) = &location
        && !args.seed_pool
        && !path.exists()
    {
        // Looking does not create a ladder; rating or seeding does.
        if !args.json {
            outln!("No ladder at {} yet: `othello rate BOT` starts one (seeded with the sample bots).", path.display());
        }
        return Ok(());
    }
    let mut ladder = Ladder::open(location)?;
    if args.seed_pool {
        let sample = args.bots.is_empty();
        let pool: Vec<String> =
            if sample { SAMPLE_POOL.iter().map(|s| s.to_string()).collect() } else { args.bots.clone() };
        seed(global, &mut ladder, &pool, args.seed, sample)?;
    }
    if let Some(out) = &args.export_calibration {
        return export_calibration(global, &ladder, out);
    }
    let board = leaderboard(&ladder)?;
    if let Some(name) = &args.games {
        return print_games(&ladder, &board, name);
    }
    if let Some(dir) = &args.html {
        let page = othello_ladder::html::write_page(dir, &board, &ladder.history()?)?;
        eprintln!("Page written to {}", page.display());
    }
    if args.json {
        let mut out = std::io::stdout().lock();
        for row in &board.rows {
            let line = serde_json::to_string(row).expect("rows serialize");
            if writeln!(out, "{line}").is_err() {
                return Ok(()); // the reader went away (`| head -1`)
            }
        }
        return Ok(());
    }
    if args.html.is_none() || args.seed_pool {
        out!("{}", table(&board));
        outln!("Ladder: {}", ladder.location());
    }
    Ok(())
}

/// `--export-calibration PATH`: the ladder's games as a pool calibration (see
/// [`othello_ladder::calibration`]), saying where it comes from: games, time control, clock,
/// build, machine and date.
fn export_calibration(global: &GlobalOptions, ladder: &Ladder, out: &std::path::Path) -> Result<(), String> {
    let time_ms = (global.time_ms > 0).then_some(global.time_ms);
    let games = ladder.game_count()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let date = othello_arena::ggf::format_date(othello_arena::record::unix_now());
    let source = format!(
        "{games} games at {} on the {} clock, {} on {} {} with {cores} cores, {}",
        time_ms.map_or("no time limit".to_owned(), |ms| format!("{ms} ms a move")),
        if matches!(global.clock, othello_arena::seat::Clock::Wall) { "wall" } else { "CPU-time" },
        if cfg!(debug_assertions) { "a debug build with the sample bots optimised" } else { "a release build" },
        std::env::consts::OS,
        std::env::consts::ARCH,
        date.split('_').next().unwrap_or(&date)
    );
    let calibration = othello_ladder::calibration::Calibration::from_ladder(ladder, time_ms, &source)?;
    let header = "The sample pool's calibration shipped with othello (read by othello_ladder::calibration).\n\
                  Made with: othello --time-ms 100 ladder --ladder CAL.sqlite3 --seed-pool\n\
                  then:      othello --time-ms 100 ladder --ladder CAL.sqlite3 --export-calibration FILE";
    std::fs::write(out, calibration.to_text(header)).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!("Calibration of {} bots ({source}) written to {}", calibration.ratings.len(), out.display());
    Ok(())
}

/// `--games NAME`: the GGF of every game of the entries shown as `name`.
fn print_games(ladder: &Ladder, board: &Leaderboard, name: &str) -> Result<(), String> {
    let entries: Vec<i64> = board.rows.iter().filter(|r| r.name.eq_ignore_ascii_case(name)).map(|r| r.entry).collect();
    if entries.is_empty() {
        let names: Vec<&str> = board.rows.iter().map(|r| r.name.as_str()).collect();
        return Err(format!("no bot `{name}` on the ladder; it has {}", names.join(", ")));
    }
    let mut games = Vec::new();
    for entry in entries {
        games.extend(ladder.games_of(entry)?);
    }
    games.sort_by_key(|g| std::cmp::Reverse(g.id));
    games.dedup_by_key(|g| g.id); // a game between two versions of the bot is listed once
    let mut out = std::io::stdout().lock();
    for game in games {
        if writeln!(out, "{}", game.ggf).is_err() {
            break; // the reader went away
        }
    }
    Ok(())
}

/// Resolves a bot name (`alphabeta@3`, a path, `nboard:COMMAND`) into the identity it is rated
/// under: its own name (the file stem if it cannot load), level and hash.
pub fn identify(global: &GlobalOptions, bot: &str) -> Result<Identity, String> {
    identify_with(global, bot, &mut IdentifiedLibraries::new())
}

/// Libraries already probed and hashed, by path: a pool names one library at several levels
/// (alpha-beta at five), and each is probed in a runner and hashed (megabytes) only once, so a
/// fresh `othello serve` answers sooner.
pub type IdentifiedLibraries = std::collections::HashMap<std::path::PathBuf, (plugins::PluginInfo, Identity)>;

/// [`identify`] of each of `bots`, each library probed and hashed once.
pub fn identify_pool(global: &GlobalOptions, bots: &[&str]) -> Vec<(String, Result<Identity, String>)> {
    let mut known = IdentifiedLibraries::new();
    bots.iter().map(|bot| ((*bot).to_owned(), identify_with(global, bot, &mut known))).collect()
}

fn identify_with(global: &GlobalOptions, bot: &str, known: &mut IdentifiedLibraries) -> Result<Identity, String> {
    let (name, level) = split_level(bot);
    if let Some(engine) = global.engines_file()?.resolve(name).transpose()? {
        return engine_identity(&engine.bot_name(), level);
    }
    let folders = plugins::plugin_folders(&global.plugins);
    let (runner, options) = (runner_command()?, global.seat_options());
    let path = plugins::resolve(name, &folders, &runner, &options)?;
    if let Some((info, identity)) = known.get(&path) {
        check_level(info, level)?;
        return Ok(Identity { level, ..identity.clone() });
    }
    let info = plugins::probe(&path, &runner, &options);
    check_level(&info, level)?;
    let own_name = if info.is_ok() { info.name.clone() } else { library_stem(&path) };
    if let plugins::PluginStatus::Error(why) = &info.status {
        eprintln!("warning: {} cannot play ({why}); it is rated on its forfeits", path.display());
    }
    let identity = library_identity(&path, &own_name, level)?;
    known.insert(path, (info, identity.clone()));
    Ok(identity)
}

/// The strict sandbox is checked once, before any game.
pub fn check_sandbox(global: &GlobalOptions) -> Result<(), String> {
    if global.sandbox == SandboxMode::Strict && !global.in_process {
        require_every_layer(&runner_command()?)?;
    }
    Ok(())
}

/// Adds `bots` as the pool and plays the seeding games, with a progress line. With
/// `skip_missing` (the sample pool), bots that are not found are left out with a warning.
pub fn seed(
    global: &GlobalOptions,
    ladder: &mut Ladder,
    bots: &[String],
    seed: u64,
    skip_missing: bool,
) -> Result<(), String> {
    check_sandbox(global)?;
    let mut pool = Vec::new();
    let names: Vec<&str> = bots.iter().map(String::as_str).collect();
    for (bot, identified) in identify_pool(global, &names) {
        match identified {
            Ok(identity) => pool.push(identity),
            Err(why) if skip_missing => eprintln!("warning: {bot} is left out of the pool: {why}"),
            Err(why) => return Err(why),
        }
    }
    if pool.is_empty() {
        return Err("no bot of the pool was found".to_owned());
    }
    let names: Vec<String> = pool.iter().map(Identity::label).collect();
    let time_limit = (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms));
    eprintln!(
        "Seeding the ladder with {} ({} per move), until every rating is within ±{SEED_TARGET_ERROR:.0} Elo \
         of the anchor (at most {SEED_MAX_GAMES} games)",
        names.join(", "),
        time_limit.map_or("no time limit".to_owned(), |t| format!("{} ms", t.as_millis()))
    );
    let live = std::io::stderr().is_terminal();
    let stop = AtomicBool::new(false);
    let seating = global.seating()?;
    let started = Instant::now();
    let played = seed_pool(ladder, &pool, &seating, time_limit, seed, &stop, &mut |progress| {
        if live {
            let widest = progress.widest_error.map_or(String::new(), |e| format!("  widest ± {e:.1}"));
            eprint!(
                "\r\x1b[2Kseeding: {} games ({} to link the pool, then until calibrated)  {}{widest}  {}",
                progress.games,
                progress.linking_games,
                crate::progress::rate_text(progress.games as usize, started.elapsed()),
                progress.last
            );
        }
    })?;
    if live {
        eprintln!();
    }
    eprintln!("Seeded: {played} games in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The leaderboard as a text table.
pub fn table(board: &Leaderboard) -> String {
    let mut out = String::new();
    if board.rows.is_empty() {
        return "The ladder is empty: `othello ladder --seed-pool` adds the sample bots, `othello rate BOT` a bot.\n"
            .to_owned();
    }
    let name_width = board.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(0).max(3);
    let version_width = board.rows.iter().map(|r| r.version_text().len()).max().unwrap_or(0).max(7);
    let rating_width = board.rows.iter().map(|r| r.rating_text().chars().count()).max().unwrap_or(0).max(21);
    out += &format!(
        "{:>4}  {:name_width$}  {:version_width$}  {:>rating_width$}  {:>13}  {:>6}  {:>7}  {:>8}  last played\n",
        "rank", "bot", "version", "rating ± from anchor", "± among opp.", "games", "score", "failures"
    );
    for row in &board.rows {
        let rank = row.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".to_owned());
        let placement = row.placement_error.filter(|_| !row.anchor).map(|e| format!("± {e:.1}")).unwrap_or_default();
        let score = row.score.map(|s| format!("{:.1}%", 100.0 * s)).unwrap_or_default();
        let last = row.last_played.map(othello_arena::ggf::format_date).unwrap_or_default();
        let marker = if board.last_rated == Some(row.entry) { " (rated last)" } else { "" };
        out += &format!(
            "{rank:>4}  {:name_width$}  {:version_width$}  {:>rating_width$}  {placement:>13}  {:>6}  {score:>7}  {:>8}  {last}{marker}\n",
            row.name,
            row.version_text(),
            row.rating_text(),
            row.games,
            row.failures,
        );
    }
    out += &format!(
        "\n{} games. Elo from a maximum-likelihood fit of all games, {} = 0. Both ± are 95 % intervals: \
         from the anchor (the rating on the ladder's scale, its opponents' uncertainty included) and among its \
         opponents (how precisely its own games place it, their ratings held fixed). A bot that lost every game \
         by a failure is placed at the bottom without a rating.\n",
        board.games,
        board.anchor.as_deref().unwrap_or("(no anchor yet)")
    );
    out
}
