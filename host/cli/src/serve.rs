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
use crate::ladder::{LadderLocation, SAMPLE_POOL, identify};

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    #[command(flatten)]
    pub location: LadderLocation,
    /// Address to listen on; localhost by default (put a TLS reverse proxy in front for a public contest).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Rating workers, i.e. games played at once [default: processors − 1, at least 1].
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// Run even when a sandbox layer is missing on this machine (every page then says so).
    #[arg(long)]
    pub allow_weak_sandbox: bool,
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
}

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// The contest's entrants.
    Entrant {
        #[command(subcommand)]
        command: EntrantCommand,
    },
    /// Open or close submissions (`open` or `close`): while closed, uploads are refused (403).
    Submissions {
        #[arg(value_parser = ["open", "close"])]
        state: String,
        #[command(flatten)]
        location: LadderLocation,
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
}

/// `othello serve …`.
pub fn serve(global: &GlobalOptions, args: ServeArgs) -> Result<(), String> {
    match args.command {
        Some(ServeCommand::Entrant { command }) => entrant(command),
        Some(ServeCommand::Submissions { state, location }) => {
            let open = state == "open";
            othello_server::set_submissions_open(&location.path()?, open)?;
            outln!("Submissions are {}.", if open { "open" } else { "closed" });
            Ok(())
        }
        None => run(global, args),
    }
}

fn entrant(command: EntrantCommand) -> Result<(), String> {
    match command {
        EntrantCommand::Add { name, location, url } => {
            let token = othello_server::add_entrant(&location.path()?, &name)?;
            outln!("Entrant `{}` added. Send them the login link (the token is shown only this once):", name.trim());
            outln!("  {}/login#token={token}", url.trim_end_matches('/'));
            outln!("{token}");
        }
        EntrantCommand::List { location } => {
            let entrants = othello_server::entrants(&location.path()?)?;
            if entrants.is_empty() {
                outln!("No entrants yet: `othello serve entrant add NAME` adds one.");
            }
            for entrant in entrants {
                let state = if entrant.revoked { "revoked" } else { "active" };
                outln!("{}\t{state}\tadded {}", entrant.name, othello_arena::ggf::format_date(entrant.created_at));
            }
        }
        EntrantCommand::Revoke { name, location } => {
            othello_server::revoke_entrant(&location.path()?, &name)?;
            outln!("Entrant `{name}` revoked.");
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
    let ladder = args.location.path()?;
    let folders = plugins::plugin_folders(&global.plugins);
    let (runner, options) = (runner_command()?, global.seat_options());
    let check_opponent = plugins::resolve("random", &folders, &runner, &options).map_err(|e| {
        format!("the check games need the sample `random` bot: {e} (build it with `cargo build --release`)")
    })?;
    let seed_pool: Vec<Identity> = if ladder.exists() {
        Vec::new() // an existing ladder keeps its pool
    } else {
        SAMPLE_POOL
            .iter()
            .filter_map(|bot| match identify(global, bot) {
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
        listen: args.listen,
        workers: workers.max(1),
        time_limit: (global.time_ms > 0).then(|| Duration::from_millis(global.time_ms)),
        runner,
        seat_options: options,
        allow_weak_sandbox: args.allow_weak_sandbox,
        seed_pool,
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
        "Serving the ladder {} on http://{} with {workers} rating worker(s); Ctrl-C stops",
        ladder.display(),
        server.addr
    );
    outln!("listening on http://{}", server.addr);
    server.run_until_signal()
}
