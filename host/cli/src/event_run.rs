//! `othello match` and `othello tournament`: plays an event (or a shard of it), streaming each
//! finished game to the state folder, the GGF file and the JSON output as it finishes, so memory
//! does not grow with the number of games. Ctrl-C (or SIGTERM, as Slurm sends) stops the event
//! and prints the standings so far; its state folder stays resumable.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use othello_arena::event::state::{SavedEvent, StateDir};
use othello_arena::event::{
    ArenaEvent, EventProgress, EventSink, EventSpec, FinishedGame, Format, OpeningSource, Plan, Shard, Sprt, play,
};
use othello_arena::seat::{SandboxMode, require_every_layer};

use crate::global::{DEFAULT_SEED, GlobalOptions, participants, runner_command};
use crate::progress::ProgressDisplay;
use crate::report::{GameLine, SprtSummary, Summary, SummaryLine, summary_text};

/// Seconds between progress lines when standard error is not a terminal.
pub const DEFAULT_PROGRESS_INTERVAL_S: u64 = 10;

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

/// Exit code of an event stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 130;
/// Buffered output (GGF file, `--json` lines) is written out at least this often.
const FLUSH_INTERVAL: Duration = Duration::from_millis(200);
/// Forfeits remembered to list in the summary (the count covers all of them).
pub const MAX_FORFEITS_LISTED: usize = 10;

/// Plays the event the arguments describe, or resumes the one in `--state`.
pub fn run_event(
    global: &GlobalOptions,
    bots: &[String],
    format: Format,
    sprt: Option<Sprt>,
    args: &EventArgs,
) -> Result<(), String> {
    if global.sandbox == SandboxMode::Strict && !global.in_process {
        require_every_layer(&runner_command()?)?;
    }
    let (state, event, plan) = if args.resume {
        let dir = args.state.as_ref().expect("clap requires --state with --resume");
        let (state, resumed) = StateDir::open(dir)?;
        let spec = &resumed.event.spec;
        if !bots.is_empty() {
            let given = participants(global, bots)?;
            let same = given.len() == spec.participants.len()
                && given.iter().zip(&spec.participants).all(|(a, b)| same_file(&a.library, &b.library));
            if !same {
                return Err(format!(
                    "{} holds an event between {}; resume it without naming bots, or with the same ones",
                    dir.display(),
                    spec.names().join(", ")
                ));
            }
        }
        if let Some(shard) = args.shard
            && resumed.event.shard != Some(shard)
        {
            return Err(format!(
                "{} holds {}, not shard {shard}: resume it without --shard",
                dir.display(),
                resumed.event.shard.map_or("a whole event".to_owned(), |s| format!("shard {s}"))
            ));
        }
        if resumed.torn_line {
            eprintln!("note: the last game in {} was cut off mid-write; it is played again", dir.display());
        }
        (Some(state), resumed.event, resumed.plan)
    } else {
        let openings = OpeningSource::parse(&args.openings)?;
        let spec = EventSpec {
            participants: participants(global, bots)?,
            format,
            openings,
            seed: args.seed,
            time_limit_ms: (global.time_ms > 0).then_some(global.time_ms),
            sprt,
        };
        let event = SavedEvent { spec, shard: args.shard };
        let state = args.state.as_deref().map(|dir| StateDir::create_event(dir, &event)).transpose()?;
        let plan = event.plan();
        (state, event, plan)
    };

    let ggf = match &args.out {
        None => None,
        Some(path) => Some(GgfOut::create(path, state.as_ref().map(StateDir::dir))?),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::new(AtomicBool::new(false));
    stop_on_signals(&stop, &interrupted)?;

    let progress = EventProgress::of_plan(&plan);
    let display = ProgressDisplay::new(&progress, Duration::from_secs(args.progress_interval), event.spec.sprt);
    let mut sink = Streamer {
        plan: plan.clone(),
        progress,
        display,
        state,
        ggf,
        json: args.json.then(|| BufWriter::new(std::io::stdout())),
        forfeits: Vec::new(),
        error: None,
        reader_gone: false,
        stop: &stop,
        last_flush: Instant::now(),
    };
    let options = global.run_options(args.concurrency, args.affinity)?;
    let outcome = play(&event.spec, &options, plan, &stop, &mut sink);
    sink.display.finish();
    sink.flush();
    let saved = match &mut sink.state {
        Some(state) => state.checkpoint(&sink.plan),
        None => Ok(()),
    };
    // The first failure says what went wrong (a full disk fails the checkpoint too).
    if let Some(e) = sink.error {
        return Err(e);
    }
    saved?;
    if sink.reader_gone {
        return Ok(());
    }
    let was_interrupted = interrupted.load(Ordering::SeqCst);

    let standings = outcome.tally.standings();
    // A shard's games are a part of the test: only their merge can decide it.
    let sprt_summary = event
        .spec
        .sprt
        .filter(|_| event.shard.is_none())
        .map(|test| SprtSummary::new(test, outcome.sprt, &outcome.tally));
    let finished = outcome.done.len();
    if args.json {
        let line = SummaryLine {
            summary: Summary {
                games: finished,
                unplayed: outcome.unplayed,
                shard: event.shard.map(|s| s.to_string()),
                interrupted: was_interrupted,
                standings: &standings.rows,
                sprt: sprt_summary,
            },
        };
        outln!("{}", serde_json::to_string(&line).expect("summaries serialize"));
    } else {
        if let Some(shard) = event.shard {
            outln!(
                "Shard {shard} of the event (games {}..{})",
                outcome.done.range().start + 1,
                outcome.done.range().end
            );
        }
        // A decided SPRT stops a match short of its cap by design: the rest is not news.
        let unplayed = if outcome.sprt.is_some() { 0 } else { outcome.unplayed };
        out!("{}", summary_text(&standings, finished, unplayed, &sink.forfeits, outcome.tally.forfeits()));
        if let Some(sprt) = sprt_summary {
            outln!("\n{}", sprt.to_text());
        }
        if let Some(out) = &sink.ggf {
            outln!("\nGames written to {}", out.path.display());
        }
    }
    if was_interrupted {
        let command = match event.spec.format {
            Format::Match { .. } => "match",
            Format::Tournament { .. } => "tournament",
        };
        match &sink.state {
            Some(state) => eprintln!(
                "othello: interrupted after {finished} of {} games; continue with `othello {command} --state {} --resume`",
                outcome.done.range().len(),
                state.dir().display()
            ),
            None => eprintln!(
                "othello: interrupted after {finished} of {} games (without --state DIR the event cannot be resumed)",
                outcome.done.range().len()
            ),
        }
        drop(sink);
        std::process::exit(EXIT_INTERRUPTED);
    }
    Ok(())
}

/// Ctrl-C and SIGTERM set `stop` (the event ends after its running games are abandoned) and
/// `interrupted`; a second one ends the program at once.
fn stop_on_signals(stop: &Arc<AtomicBool>, interrupted: &Arc<AtomicBool>) -> Result<(), String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        // The order matters: the exit is armed by the first signal's flag, so it must be checked
        // before that flag is set.
        signal_hook::flag::register_conditional_shutdown(signal, EXIT_INTERRUPTED, Arc::clone(interrupted))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(interrupted)))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(stop)))
            .map_err(|e| format!("cannot handle Ctrl-C: {e}"))?;
    }
    Ok(())
}

/// The GGF file of `--out`.
struct GgfOut {
    path: PathBuf,
    file: BufWriter<File>,
}

impl GgfOut {
    /// Creates the file; a resumed event's file is rewritten from its state folder first, so it
    /// holds each finished game once.
    fn create(path: &Path, resumed_from: Option<&Path>) -> Result<GgfOut, String> {
        let file = File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut out = GgfOut { path: path.to_path_buf(), file: BufWriter::new(file) };
        if let Some(dir) = resumed_from {
            StateDir::for_each_game(dir, &mut |game| out.write(&game))?;
        }
        Ok(out)
    }

    fn write(&mut self, game: &FinishedGame) -> Result<(), String> {
        othello_arena::ggf::write_game_with_clock_to(&mut self.file, &game.record, game.clock)
            .and_then(|()| self.file.write_all(b"\n"))
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    fn flush(&mut self) -> Result<(), String> {
        self.file.flush().map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Takes the run's events: counts each finished game, saves it and writes it out, then lets
/// it go.
struct Streamer<'a> {
    /// The finished games, for the state folder's checkpoints.
    plan: Plan,
    progress: EventProgress,
    display: ProgressDisplay,
    state: Option<StateDir>,
    ggf: Option<GgfOut>,
    json: Option<BufWriter<std::io::Stdout>>,
    /// The first forfeits, for the summary.
    forfeits: Vec<FinishedGame>,
    error: Option<String>,
    /// Set when whoever reads our output went away (`--json | head -1`): the event stops as after
    /// Ctrl-C (its state folder stays resumable) and nothing more is printed.
    reader_gone: bool,
    stop: &'a AtomicBool,
    last_flush: Instant,
}

impl Streamer<'_> {
    fn fail(&mut self, error: String) {
        self.error.get_or_insert(error);
        self.stop.store(true, Ordering::SeqCst);
    }

    fn finished(&mut self, game: FinishedGame) {
        // After a failure to save, games still arriving are not saved after a gap either.
        if self.error.is_some() {
            return;
        }
        if let Some(state) = &mut self.state
            && let Err(e) = state.append(&game)
        {
            return self.fail(e.to_string());
        }
        // Counted for checkpoints only once in the log.
        self.plan.record(&game);
        if let Some(ggf) = &mut self.ggf
            && let Err(e) = ggf.write(&game)
        {
            return self.fail(e);
        }
        if let Some(json) = &mut self.json
            && !self.reader_gone
        {
            let written = serde_json::to_writer(&mut *json, &GameLine::new(&game)).map_err(std::io::Error::from);
            if written.and_then(|()| json.write_all(b"\n")).is_err() {
                self.reader_gone = true;
                self.stop.store(true, Ordering::SeqCst);
            }
        }
        if game.record.result.failure().is_some() && self.forfeits.len() < MAX_FORFEITS_LISTED {
            self.forfeits.push(game);
        }
    }

    fn flush(&mut self) {
        self.last_flush = Instant::now();
        if let Some(ggf) = &mut self.ggf
            && let Err(e) = ggf.flush()
        {
            self.fail(e);
        }
        if let Some(json) = &mut self.json
            && !self.reader_gone
            && json.flush().is_err()
        {
            self.reader_gone = true;
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

impl EventSink for Streamer<'_> {
    fn wants_game_starts(&self) -> bool {
        false
    }

    fn event(&mut self, event: ArenaEvent) {
        self.progress.record(&event);
        if let ArenaEvent::GameFinished(game) = event {
            self.finished(game);
            self.display.update(&self.progress);
        }
    }

    fn idle(&mut self) {
        if self.last_flush.elapsed() >= FLUSH_INTERVAL {
            self.flush();
        }
        if let Some(state) = &mut self.state
            && state.checkpoint_due()
            && let Err(e) = state.checkpoint(&self.plan)
        {
            self.fail(e.to_string());
        }
        self.display.update(&self.progress);
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
