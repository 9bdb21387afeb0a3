//! `othello worker`: plays a contest server's games on this machine (see
//! `othello_server::remote_client`). Only argument parsing lives here.

use std::path::PathBuf;

use clap::Args;

use othello_arena::seat::{Isolation, SandboxMode, Seating, require_every_layer};
use othello_server::remote_client::{WorkerOptions, run_until_signal};

use crate::global::{GlobalOptions, runner_command};

/// The environment variable a worker's token may come in (taken out of the environment at start).
pub const WORKER_TOKEN_VARIABLE: &str = "OTHELLO_WORKER_TOKEN";

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The server's address, e.g. `https://ladder.example` or `http://127.0.0.1:8080`.
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// This worker's token (`othello serve worker add NAME` on the server prints it). Better:
    /// --token-file, or the environment variable OTHELLO_WORKER_TOKEN (other users cannot see
    /// either in `ps`; the worker takes it out of its environment before any bot starts).
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Read this worker's token from the first line of FILE.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Jobs played at once [default: processors − 1, at least 1].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Where downloaded bot libraries are kept (each in a folder named by its SHA-256)
    /// [default: othello-worker-cache in the system's cache folder].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Run even when a sandbox layer is missing on this machine (the bots are strangers').
    #[arg(long)]
    pub allow_weak_sandbox: bool,
    /// Trust the certificate authorities of this PEM file instead of the public ones (a server
    /// whose TLS certificate the organiser made).
    #[arg(long, value_name = "PEM")]
    pub ca_cert: Option<PathBuf>,
}

/// `othello worker …`.
pub fn worker(global: &GlobalOptions, args: WorkerArgs) -> Result<(), String> {
    if global.in_process {
        return Err("`othello worker` runs strangers' bots: it always isolates them (drop --in-process)".to_owned());
    }
    if args.server.trim().is_empty() || !(args.server.starts_with("http://") || args.server.starts_with("https://")) {
        return Err(format!("--server `{}` is not an http:// or https:// address", args.server));
    }
    let token = match (&args.token, &args.token_file) {
        (_, Some(file)) => Some(crate::secrets::read_secret_file(file, "the worker's token")?),
        (Some(token), None) => Some(token.clone()),
        (None, None) => crate::secrets::taken(WORKER_TOKEN_VARIABLE).map(str::to_owned),
    };
    let token = match token {
        Some(token) if !token.trim().is_empty() => token.trim().to_owned(),
        _ => {
            return Err(format!(
                "give the worker's token: --token-file FILE, {WORKER_TOKEN_VARIABLE}=TOKEN or --token TOKEN"
            ));
        }
    };
    let runner = runner_command()?;
    let options = global.seat_options();
    let missing = if options.sandbox == SandboxMode::Off {
        Err("the sandbox is off: bots would run as plain processes with this user's rights".to_owned())
    } else {
        require_every_layer(&runner)
    };
    if let Err(why) = missing {
        if !args.allow_weak_sandbox {
            return Err(format!(
                "{why}\nA worker runs strangers' bots, so it needs every sandbox layer; run it with \
                 --allow-weak-sandbox to play without (only where the organiser allows it)."
            ));
        }
        eprintln!("warning: weak sandbox: {why}");
    }
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).max(1));
    let cache = match args.cache {
        Some(cache) => cache,
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("othello-worker-cache"),
    };
    let options = WorkerOptions {
        server: args.server.trim().to_owned(),
        token,
        concurrency: concurrency.max(1),
        cache,
        seating: Seating { isolation: Isolation::Isolated(runner), options },
        ca_certificates: args.ca_cert,
    };
    eprintln!(
        "Working for {} with {} game(s) at once (cache {}); Ctrl-C stops",
        options.server,
        options.concurrency,
        options.cache.display()
    );
    run_until_signal(&options)
}
