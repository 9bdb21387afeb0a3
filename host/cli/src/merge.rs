//! `othello merge OUT_DIR SHARD_DIR...`: the shards of an event, played anywhere, put back
//! together into one event with the standings one machine would have printed.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::Args;
use othello_arena::event::FinishedGame;
use othello_arena::event::merge::merge as merge_shards;
use othello_arena::event::state::StateDir;

use crate::event_run::MAX_FORFEITS_LISTED;
use crate::report::{GameLine, SprtSummary, Summary, SummaryLine, summary_text};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The state folder of the whole event, made by the merge (it must not hold an event yet).
    #[arg(value_name = "OUT_DIR")]
    pub out_dir: PathBuf,
    /// The state folders of the shards: every shard of the event, once each.
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// Also write every game of the event to FILE in GGF, one game per line.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print one JSON object per game, then the summary object (as `match --json` does).
    #[arg(long)]
    pub json: bool,
}

pub fn merge(args: &MergeArgs) -> Result<(), String> {
    let merged = merge_shards(&args.out_dir, &args.shards)?;
    let spec = &merged.event.spec;
    let tally = &merged.plan.tally;

    // One pass over the merged log, only if something needs the games themselves.
    let mut forfeits: Vec<FinishedGame> = Vec::new();
    if args.out.is_some() || args.json || tally.forfeits() > 0 {
        let mut ggf = match &args.out {
            Some(path) => Some((
                path,
                BufWriter::new(File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?),
            )),
            None => None,
        };
        let mut stdout = BufWriter::new(std::io::stdout().lock());
        StateDir::for_each_game(&args.out_dir, &mut |game| {
            if let Some((path, file)) = &mut ggf {
                othello_arena::ggf::write_game_with_clock_to(file, &game.record, game.clock)
                    .and_then(|()| file.write_all(b"\n"))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            if args.json {
                let line = serde_json::to_string(&GameLine::new(&game)).expect("game lines serialize");
                writeln!(stdout, "{line}").map_err(|e| format!("cannot print: {e}"))?;
            }
            if game.record.result.failure().is_some() && forfeits.len() < MAX_FORFEITS_LISTED {
                forfeits.push(game);
            }
            Ok(())
        })?;
        if let Some((path, mut file)) = ggf {
            file.flush().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        stdout.flush().map_err(|e| format!("cannot print: {e}"))?;
    }

    let standings = tally.standings();
    let sprt = spec.sprt.map(|test| SprtSummary::new(test, None, tally));
    let games = merged.plan.done.len();
    if args.json {
        let line = SummaryLine {
            summary: Summary { games, unplayed: 0, shard: None, interrupted: false, standings: &standings.rows, sprt },
        };
        outln!("{}", serde_json::to_string(&line).expect("summaries serialize"));
        return Ok(());
    }
    outln!("Merged {} shards into {}", merged.shards, args.out_dir.display());
    out!("{}", summary_text(&standings, games, 0, &forfeits, tally.forfeits()));
    if let Some(sprt) = sprt {
        outln!("\n{}", sprt.to_text());
    }
    if let Some(path) = &args.out {
        outln!("\nGames written to {}", path.display());
    }
    Ok(())
}
