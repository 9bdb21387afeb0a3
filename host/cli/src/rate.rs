//! `othello rate BOT`: places a bot on the rating ladder by playing it against the pool.

use std::io::{IsTerminal, Write};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use othello_arena::event::stats::format_elo;
use othello_ladder::session::rate_concurrently;
use othello_ladder::session::{DEFAULT_MAX_GAMES, DEFAULT_TARGET_ERROR, Progress};
use othello_ladder::{Placement, RateOptions, leaderboard};

use crate::global::{DEFAULT_SEED, GlobalOptions};
use crate::ladder::{LadderLocation, SAMPLE_POOL, check_sandbox, identify, seed, table};

#[derive(Debug, Args)]
pub struct RateArgs {
    /// The bot: a name (`alphabeta`, `alphabeta@3`), a library path, or `nboard:COMMAND`.
    pub bot: String,
    #[command(flatten)]
    pub location: LadderLocation,
    /// Stop once the bot's rating among its opponents is known to ± this many Elo (95 % interval).
    #[arg(long, value_name = "ELO", default_value_t = DEFAULT_TARGET_ERROR)]
    pub error: f64,
    /// Stop after this many games whatever the precision.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GAMES)]
    pub max_games: u32,
    /// Seed of the openings.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Pairs of games played at once, each on a core of its own [default: processors − 1, at
    /// least 1]. The same pairs are played and every game counted once; the ladder is written
    /// from one thread.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Print the placement as one JSON object (no live line).
    #[arg(long)]
    pub json: bool,
}

/// The `--json` placement.
#[derive(Debug, Serialize)]
struct PlacementLine<'a> {
    #[serde(flatten)]
    row: &'a othello_ladder::Row,
    /// Entries with a rating.
    rated: usize,
    session_games: u32,
    session_points: f64,
    session_failures: u32,
    /// Why it lost games by a failure: each distinct reason with its number of games.
    failure_reasons: &'a [othello_ladder::FailureReason],
    stop: &'static str,
}

/// `othello rate BOT`.
pub fn rate_bot(global: &GlobalOptions, args: RateArgs) -> Result<(), String> {
    if args.error.is_nan() || args.error <= 0.0 {
        return Err("--error must be a positive number of Elo".to_owned());
    }
    check_sandbox(global)?;
    let mut ladder = args.location.open()?;
    if ladder.entries()?.is_empty() {
        // First use: the ladder starts from the sample pool.
        let pool: Vec<String> = SAMPLE_POOL.iter().map(|s| s.to_string()).collect();
        seed(global, &mut ladder, &pool, args.seed, true)
            .map_err(|e| format!("{e}\n(the new ladder starts from the sample bots: build them with `cargo build --release`, or seed it with your own pool: `othello ladder --seed-pool BOT…`)"))?;
    }
    let candidate = identify(global, &args.bot)?;
    let options = RateOptions {
        time_limit: (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms)),
        target_error: args.error,
        max_games: args.max_games,
        seed: args.seed,
    };
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1))
        .max(1);
    let live = !args.json && std::io::stdout().is_terminal();
    if !args.json {
        outln!(
            "Rating {} ({}) on {} until ±{:.0} Elo or {} games",
            candidate.label(),
            othello_ladder::identity::short_hash(&candidate.hash),
            ladder.location(),
            args.error,
            args.max_games
        );
    }
    let stop = AtomicBool::new(false);
    let seating = global.seating()?;
    let placement =
        rate_concurrently(&mut ladder, &candidate, &seating, &options, concurrency, &stop, &mut |progress| {
            if args.json {
                return;
            }
            if live {
                out!("\r\x1b[2K{}", progress_line(progress));
                let _ = std::io::stdout().flush();
            } else if progress.games % 2 == 0 {
                // One line per pair of games when the output is not a terminal.
                outln!("{}", progress_line(progress));
            }
        })?;
    if live {
        outln!();
    }
    if args.json {
        let line = PlacementLine {
            row: &placement.row,
            rated: placement.rated,
            session_games: placement.progress.games,
            session_points: placement.progress.points,
            session_failures: placement.progress.failures,
            failure_reasons: &placement.progress.failure_reasons,
            stop: placement.stop.describe(),
        };
        outln!("{}", serde_json::to_string(&line).expect("placements serialize"));
        return Ok(());
    }
    outln!("{}", placement_text(&placement));
    outln!();
    out!("{}", table(&leaderboard(&ladder)?));
    Ok(())
}

/// `12 games  8.5/12 (70.8 %)  rating +312.0 ± 140.2 among its opponents (± 180.5 from the anchor)  last: Alpha-beta@2`.
fn progress_line(progress: &Progress) -> String {
    let rating = match (progress.rating, progress.placement_error) {
        (Some(r), Some(placed)) => {
            format!("rating {} among its opponents (± {:.1} from the anchor)", format_elo(r.elo, placed), r.error)
        }
        _ => "rating: not yet".to_owned(),
    };
    let percent = if progress.games > 0 { 100.0 * progress.points / progress.games as f64 } else { 0.0 };
    let failures = match progress.failures {
        0 => String::new(),
        n => format!("  {n} lost by failure"),
    };
    format!(
        "{} games  {}/{} ({percent:.1} %)  {rating}  last: {}{failures}",
        progress.games, progress.points, progress.games, progress.opponent
    )
}

/// The final placement: one line, then the reasons of any games lost by a failure.
fn placement_text(placement: &Placement) -> String {
    let row = &placement.row;
    let rating = match (row.rating, row.error, placement.progress.placement_error) {
        _ if row.failing => "no rating: it lost every game by a failure, placed at the bottom".to_owned(),
        (Some(r), Some(e), Some(placed)) => {
            format!("{} Elo among its opponents (± {e:.1} from the anchor)", format_elo(r, placed))
        }
        _ => "unrated".to_owned(),
    };
    let rank = row.rank.map(|r| format!("rank {r} of {}", placement.rated)).unwrap_or_default();
    let failures = match row.failures {
        0 => String::new(),
        n => format!(", {n} lost by failure"),
    };
    let mut text = format!(
        "{} {}: {rating}, {rank} ({} games this session, {} in all{failures}; stopped: {})",
        row.name,
        row.version_text(),
        placement.progress.games,
        row.games,
        placement.stop.describe()
    );
    if !placement.progress.failure_reasons.is_empty() {
        text += "\nGames lost by a failure this session:";
        for reason in &placement.progress.failure_reasons {
            text += &format!("\n  {} × {}", reason.games, reason.reason);
        }
    }
    text
}
