//! `othello serve`: the contest and ladder server (see the `othello-server` crate), and its
//! entrants (`othello serve entrant add|list|revoke`). Only argument parsing lives here.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, Subcommand};

use othello_arena::plugins;
use othello_ladder::identity::Identity;
use othello_server::{
    Config, DEFAULT_MAX_GAMES, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_TARGET_ERROR, DEFAULT_TEST_GAMES_PER_HOUR,
    DEFAULT_UPLOADS_PER_HOUR, Server,
};

use crate::global::{DEFAULT_SEED, GlobalOptions, runner_command};
use crate::ladder::{LadderLocation, SAMPLE_POOL};

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    #[command(flatten)]
    pub location: LadderLocation,
    /// Where uploaded bots are kept [default: `uploads/` beside the ladder's file; for a
    /// PostgreSQL ladder, `uploads/` in the working folder].
    #[arg(long, value_name = "DIR")]
    pub uploads: Option<std::path::PathBuf>,
    /// Address to listen on; localhost by default (put a TLS reverse proxy in front for a public contest).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Rating workers on this machine, i.e. games played at once [default: processors − 1, at
    /// least 1]; 0 leaves every game to remote workers (`othello worker`).
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// A remote worker's lease on a job lapses (and the job goes back to the queue) unless the
    /// worker renews it within this many seconds.
    #[arg(long, value_name = "S", default_value_t = othello_server::remote::DEFAULT_LEASE.as_secs_f64())]
    pub lease_secs: f64,
    /// A remote worker's lease ends this many seconds after its claim however often it is
    /// renewed (its job then goes back to the queue): no worker holds a job forever.
    #[arg(long, value_name = "S", default_value_t = othello_server::remote::DEFAULT_LEASE_CAP.as_secs_f64())]
    pub lease_cap_secs: f64,
    /// Run even when a sandbox layer is missing on this machine (every page then says so).
    #[arg(long)]
    pub allow_weak_sandbox: bool,
    /// Take WebAssembly bots (.wasm) only: their games are the same on every machine, so the
    /// server can re-play a remote worker's games and catch a forged result (for a contest with
    /// untrusted workers). Other uploads are refused with the build line.
    #[arg(long)]
    pub require_wasm: bool,
    /// The share of each remote worker's pairs between two WebAssembly bots that the server plays
    /// again and compares move by move, in percent (0 to 100): a worker whose result differs is
    /// refused and flagged on the workers' page.
    #[arg(long, value_name = "PERCENT", default_value_t = othello_server::replay_check::DEFAULT_REPLAY_PERCENT,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    pub wasm_replay_percent: u32,
    /// A placement stops once the bot's rating among its opponents is known to ± this many Elo (95 %).
    #[arg(long, value_name = "ELO", default_value_t = DEFAULT_TARGET_ERROR)]
    pub error: f64,
    /// A placement stops after this many games of the bot whatever the precision.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GAMES)]
    pub max_games: u32,
    /// Largest upload, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = (DEFAULT_MAX_UPLOAD_BYTES >> 20) as u64)]
    pub max_upload_mb: u64,
    /// Uploads one entrant may make per hour.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_UPLOADS_PER_HOUR)]
    pub uploads_per_hour: u32,
    /// Pairs of unrated test games one entrant may ask for per hour.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TEST_GAMES_PER_HOUR)]
    pub test_games_per_hour: u32,
    /// Seed of the openings.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Play no games while nothing is queued (by default the workers then play pairs of the
    /// entrants' current bots, so every rating stays fresh).
    #[arg(long)]
    pub no_continuous_games: bool,
    /// On a new ladder, keep the sample pool's shipped calibration as it is: no calibration games
    /// in the background (by default they refine it while the contest runs).
    #[arg(long)]
    pub keep_shipped_calibration: bool,
}

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// The contest's entrants.
    Entrant {
        #[command(subcommand)]
        command: EntrantCommand,
    },
    /// Remote workers: machines that play this server's games (`othello worker`).
    Worker {
        #[command(subcommand)]
        command: WorkerCommand,
    },
    /// Open or close submissions (`open` or `close`): while closed, uploads are refused (403).
    Submissions {
        #[arg(value_parser = ["open", "close"])]
        state: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Make the organiser's token for the organiser's page (/admin): prints a login link and the
    /// token alone on the last line. The token before it stops working.
    AdminToken {
        #[command(flatten)]
        location: LadderLocation,
        /// The server's address as the organiser reaches it, for the login link.
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
        url: String,
    },
    /// Set the time per move of rating games from now on (0 = no limit); a running server uses
    /// it for its next games. It overrides `--time-ms` of the server's command line.
    TimeControl {
        #[arg(value_name = "MS")]
        time_ms: u64,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// What to do with a file byte for byte another entrant's (or a pool bot's): `refuse` it,
    /// naming whose it is (the default), or `enter` it as an entry of its own. The organiser's
    /// page lists copies either way.
    Copies {
        #[arg(value_parser = ["refuse", "enter"])]
        rule: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// The final: a round robin or knockout of every entrant's latest version.
    Final {
        #[command(subcommand)]
        command: FinalCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum FinalCommand {
    /// Start the final (a running server plays it at once, before the ladder's jobs); its time
    /// per move is `--time-ms`.
    Start {
        #[command(flatten)]
        location: LadderLocation,
        #[arg(long, value_parser = ["round-robin", "knockout"], default_value = "round-robin")]
        format: String,
        /// Games each pairing plays: even, as each opening is played with colours swapped.
        #[arg(long, value_name = "N", default_value_t = othello_server::final_round::DEFAULT_GAMES_PER_PAIR)]
        games_per_pair: u32,
        /// Seed of the openings.
        #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
        seed: u64,
    },
    /// Show the newest final's standings.
    Show {
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Write the newest final's results as one HTML file that needs no server.
    Export {
        #[command(flatten)]
        location: LadderLocation,
        /// The HTML file to write.
        out: std::path::PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum EntrantCommand {
    /// Add an entrant: prints its one-time token (alone on the last line) and a login link.
    Add {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
        /// The server's address as entrants reach it, for the login link.
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
        url: String,
    },
    /// List the entrants.
    List {
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Revoke an entrant's token: it can no longer log in nor upload (its bots stay rated).
    Revoke {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Give an entrant a new token: the old one and every login made with it end at once (a
    /// revoked entrant gets back in with the new one). Prints it like `add`.
    Token {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
        /// The server's address as entrants reach it, for the login link.
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
        url: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum WorkerCommand {
    /// Add a worker: prints its token (alone on the last line) for `othello worker --token`.
    Add {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// List the workers: host, cores, games played, last seen, what each plays now.
    List {
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Revoke a worker's token and drop its leases (their jobs go back to the queue).
    Revoke {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Give a worker a new token (the old one ends at once).
    Token {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
    },
    /// Remove every ladder game the worker played and refit the ladder (a worker found
    /// cheating; revoke it too). The admin page's workers table flags outliers.
    Purge {
        name: String,
        #[command(flatten)]
        location: LadderLocation,
    },
}

/// `othello serve …`.
pub fn serve(global: &GlobalOptions, args: ServeArgs) -> Result<(), String> {
    match args.command {
        Some(ServeCommand::Entrant { command }) => entrant(command),
        Some(ServeCommand::Worker { command }) => worker(command),
        Some(ServeCommand::Submissions { state, location }) => {
            let open = state == "open";
            othello_server::set_submissions_open(&location.location()?, open)?;
            outln!("Submissions are {}.", if open { "open" } else { "closed" });
            Ok(())
        }
        Some(ServeCommand::AdminToken { location, url }) => {
            let token = othello_server::admin::admin_token(&location.location()?)?;
            outln!("A new organiser's token (the one before no longer works; it is shown only this once):");
            outln!("  {}/admin/login#token={token}", url.trim_end_matches('/'));
            outln!("{token}");
            Ok(())
        }
        Some(ServeCommand::TimeControl { time_ms, location }) => {
            othello_server::admin::set_time_control(&location.location()?, time_ms)?;
            match time_ms {
                0 => outln!("Rating games from now on: no time limit."),
                ms => outln!("Rating games from now on: {ms} ms a move."),
            }
            Ok(())
        }
        Some(ServeCommand::Copies { rule, location }) => {
            othello_server::admin::set_copies(&location.location()?, &rule)?;
            match rule.as_str() {
                "enter" => outln!("Copies of another's file are entered from now on, each as an entry of its own."),
                _ => outln!("Copies of another's file are refused from now on, naming whose it is."),
            }
            Ok(())
        }
        Some(ServeCommand::Final { command }) => final_round(global, command),
        None => run(global, args),
    }
}

fn final_round(global: &GlobalOptions, command: FinalCommand) -> Result<(), String> {
    use othello_server::final_round::{FinalOptions, Format};
    match command {
        FinalCommand::Start { location, format, games_per_pair, seed } => {
            let options = FinalOptions {
                format: Format::parse(&format)?,
                games_per_pair,
                time_limit: (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms)),
                seed,
            };
            let (info, bots) = othello_server::start_final(&location.location()?, options)?;
            outln!(
                "Final #{} started: {}, {} games a pairing, {} ms a move, {} bots:",
                info.id,
                info.format.as_str(),
                info.games_per_pair,
                info.time_ms.map_or_else(|| "no limit on".to_owned(), |t| t.to_string()),
                bots.len()
            );
            for bot in bots {
                outln!("  {}. {} ({})", bot.seed, bot.name, bot.entrant);
            }
        }
        FinalCommand::Show { location } => {
            let Some(view) = othello_server::final_view(&location.location()?)? else {
                outln!("No final yet: `othello serve final start` starts one.");
                return Ok(());
            };
            outln!(
                "Final #{} ({}): {} of {} games played, {}.",
                view.info.id,
                view.info.format.as_str(),
                view.games_done,
                view.games_total,
                view.status
            );
            outln!("rank\tbot\tentrant\tpoints\tW\tD\tL\tdiscs\tfailures");
            for line in view.standings {
                outln!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:+}\t{}",
                    line.rank,
                    line.name,
                    line.entrant,
                    line.points,
                    line.wins,
                    line.draws,
                    line.losses,
                    line.disc_difference,
                    line.failures
                );
            }
        }
        FinalCommand::Export { location, out } => {
            let html = othello_server::export_final(&location.location()?)?;
            std::fs::write(&out, html).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            outln!("The final's results are in {}.", out.display());
        }
    }
    Ok(())
}

fn entrant(command: EntrantCommand) -> Result<(), String> {
    match command {
        EntrantCommand::Add { name, location, url } => {
            let token = othello_server::add_entrant(&location.location()?, &name)?;
            outln!("Entrant `{}` added. Send them the login link (the token is shown only this once):", name.trim());
            outln!("  {}/login#token={token}", url.trim_end_matches('/'));
            outln!("{token}");
        }
        EntrantCommand::List { location } => {
            let entrants = othello_server::entrants(&location.location()?)?;
            if entrants.is_empty() {
                outln!("No entrants yet: `othello serve entrant add NAME` adds one.");
            }
            for entrant in entrants {
                let state = if entrant.revoked { "revoked" } else { "active" };
                outln!("{}\t{state}\tadded {}", entrant.name, othello_arena::ggf::format_date(entrant.created_at));
            }
        }
        EntrantCommand::Revoke { name, location } => {
            othello_server::revoke_entrant(&location.location()?, &name)?;
            outln!("Entrant `{name}` revoked.");
        }
        EntrantCommand::Token { name, location, url } => {
            let token = othello_server::reissue_entrant_token(&location.location()?, &name)?;
            outln!(
                "Entrant `{}` has a new token; the old one no longer works. The login link (shown only this once):",
                name.trim()
            );
            outln!("  {}/login#token={token}", url.trim_end_matches('/'));
            outln!("{token}");
        }
    }
    Ok(())
}

fn worker(command: WorkerCommand) -> Result<(), String> {
    match command {
        WorkerCommand::Add { name, location } => {
            let token = othello_server::add_worker(&location.location()?, &name)?;
            outln!("Worker `{}` added. On its machine (the token is shown only this once):", name.trim());
            outln!("  OTHELLO_WORKER_TOKEN=<the token below> othello worker --server URL");
            outln!("{token}");
        }
        WorkerCommand::List { location } => {
            let workers = othello_server::workers(&location.location()?)?;
            if workers.is_empty() {
                outln!("No workers yet: `othello serve worker add NAME` adds one.");
            }
            for worker in workers {
                let state = if worker.revoked { "revoked" } else { "active" };
                let seen = worker.last_seen.map_or_else(
                    || "never seen".to_owned(),
                    |t| format!("last seen {}", othello_arena::ggf::format_date(t)),
                );
                let playing = if worker.playing.is_empty() { "idle".to_owned() } else { worker.playing.join("; ") };
                outln!(
                    "{}\t{state}\t{}\t{} cores\t{} games\t{seen}\t{playing}",
                    worker.name,
                    worker.host.as_deref().unwrap_or("-"),
                    worker.cores.map_or_else(|| "?".to_owned(), |c| c.to_string()),
                    worker.games
                );
            }
        }
        WorkerCommand::Revoke { name, location } => {
            let requeued = othello_server::revoke_worker(&location.location()?, &name)?;
            outln!("Worker `{name}` revoked; {requeued} job(s) it held went back to the queue.");
        }
        WorkerCommand::Token { name, location } => {
            let token = othello_server::reissue_worker_token(&location.location()?, &name)?;
            outln!("Worker `{}` has a new token; the old one no longer works (shown only this once):", name.trim());
            outln!("{token}");
        }
        WorkerCommand::Purge { name, location } => {
            let purged = othello_server::purge_worker(&location.location()?, &name)?;
            outln!("Removed the {purged} game(s) worker `{name}` played; the ladder is refitted.");
        }
    }
    Ok(())
}

fn run(global: &GlobalOptions, args: ServeArgs) -> Result<(), String> {
    if global.in_process {
        return Err("`othello serve` runs strangers' bots: it always isolates them (drop --in-process)".to_owned());
    }
    if args.error.is_nan() || args.error <= 0.0 {
        return Err("--error must be a positive number of Elo".to_owned());
    }
    let ladder = args.location.location()?;
    let folders = plugins::plugin_folders(&global.plugins);
    let (runner, options) = (runner_command()?, global.seat_options());
    let check_opponent = plugins::resolve("random", &folders, &runner, &options).map_err(|e| {
        format!("the check games need the sample `random` bot: {e} (build it with `cargo build --release`)")
    })?;
    // A ladder with bots keeps its pool; a new one, or one made by `serve entrant add` before
    // the first start (entrants but no bots), is seeded.
    let seed_pool: Vec<Identity> = if !othello_server::needs_pool(&ladder)? {
        Vec::new()
    } else {
        crate::ladder::identify_pool(global, &SAMPLE_POOL)
            .into_iter()
            .filter_map(|(bot, identified)| match identified {
                Ok(identity) => Some(identity),
                Err(why) => {
                    eprintln!("warning: {bot} is left out of the pool: {why}");
                    None
                }
            })
            .collect()
    };
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).max(1));
    let config = Config {
        ladder: ladder.clone(),
        uploads: args.uploads.clone(),
        listen: args.listen,
        workers,
        lease_duration: Duration::try_from_secs_f64(args.lease_secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or("--lease-secs must be a positive number of seconds")?,
        lease_cap: Duration::try_from_secs_f64(args.lease_cap_secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or("--lease-cap-secs must be a positive number of seconds")?,
        time_limit: (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms)),
        runner,
        seat_options: options,
        allow_weak_sandbox: args.allow_weak_sandbox,
        require_wasm: args.require_wasm,
        wasm_replay_percent: args.wasm_replay_percent,
        seed_pool,
        pool_calibration: othello_ladder::calibration::Calibration::shipped(),
        refine_pool: !args.keep_shipped_calibration,
        check_opponent,
        target_error: args.error,
        max_games: args.max_games,
        max_upload_bytes: (args.max_upload_mb as usize) << 20,
        uploads_per_hour: args.uploads_per_hour,
        test_games_per_hour: args.test_games_per_hour,
        seed: args.seed,
        continuous_games: !args.no_continuous_games,
    };
    let server = Server::start(config)?;
    eprintln!(
        "Serving the ladder {} on http://{} with {workers} local rating worker(s); Ctrl-C stops",
        ladder, server.addr
    );
    outln!("listening on http://{}", server.addr);
    server.run_until_signal()
}
