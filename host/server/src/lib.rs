//! `othello serve`: a contest and ladder server. Entrants log in with a token, upload bot
//! libraries, and see them checked, placed on the ladder and played; everyone sees the
//! leaderboard live. The same over a JSON API (`/api/…`, token in `Authorization: Bearer`).
//!
//! Layers, each importing only those below it:
//! - [`http`]: the routes and handlers (the JSON API, the pages, the organiser's and the worker
//!   API), the extractors of who asks and the one error type that answers ([`http::error::ApiError`]);
//! - [`pages`]: the HTML, rendered with maud from what the handlers pass in;
//! - [`jobs`]: the work beside the requests (the rating workers, the final, test games, remote
//!   leases and re-plays, the replicas' keep-alive);
//! - [`service`]: the rules (uploads, limits, who may see what) over the store and the ladder;
//! - [`shared`]: what the web side and the workers share while the server runs;
//! - [`store`]: every query and migration of the server's tables, beside the ladder's
//!   ([`othello_ladder`]), in its SQLite file or PostgreSQL database through `othello_db`;
//! - [`plan`] and [`config`]: what a game job plays, and what the server is started with.
//!
//! [`client`] is `othello worker`'s side of the worker API: of the server it uses [`plan`], the upload
//! hash and the stop signal, nothing of the layers above [`shared`].

pub mod client;
pub mod config;
pub mod http;
pub mod jobs;
pub mod pages;
pub mod plan;
pub mod service;
pub mod shared;
pub mod store;

// The paths other crates know (the command line, the tests): the layers' modules under their old names.
pub use client as remote_client;
pub use http as web;
pub use jobs::{final_round, remote, replay_check, test_games, worker};
pub use service::inspect;
pub use shared::live;
pub use store::{blobs, replicas, sessions, settings as admin};

pub use config::{Config, SeedingStatus};
pub use shared::Shared;
use shared::shutdown_signal;

use othello_db::Location;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

use othello_arena::seat::{SandboxMode, require_every_layer};
use othello_ladder::calibration::{PoolStart, enter_pool};
use othello_ladder::identity::Identity;
use othello_ladder::seed::{SeedingTime, seed_pool};
use othello_ladder::{Ladder, session};

/// Default most bytes of one upload: 32 MiB.
pub const DEFAULT_MAX_UPLOAD_BYTES: usize = 32 << 20;
/// Default uploads one entrant may make per hour.
pub const DEFAULT_UPLOADS_PER_HOUR: u32 = 20;
/// Default precision of a placement: the 95 % interval's half-width among its opponents, in Elo.
pub const DEFAULT_TARGET_ERROR: f64 = 50.0;
/// Default most placement games of one upload.
pub const DEFAULT_MAX_GAMES: u32 = 400;

/// Checks the sandbox: `Ok(None)` when every layer is there, `Ok(Some(why))` when one is missing
/// and the organiser allowed it, an error otherwise.
fn sandbox_state(config: &Config) -> Result<Option<String>, String> {
    let missing = if config.seat_options.sandbox == SandboxMode::Off {
        Err("the sandbox is off: bots run as plain processes with the server's rights".to_owned())
    } else {
        require_every_layer(&config.runner)
    };
    match missing {
        Ok(()) => Ok(None),
        Err(why) if config.allow_weak_sandbox => Ok(Some(why)),
        Err(why) => Err(format!(
            "{why}\nThe server runs strangers' bots, so it needs every sandbox layer; start it with \
             --allow-weak-sandbox to run without (every page then says so)."
        )),
    }
}

/// A running server (its web side on a thread of its own, its workers on theirs).
pub struct Server {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    web: Option<JoinHandle<Result<(), String>>>,
    workers: Vec<JoinHandle<()>>,
    /// Renews this replica's row until the workers are done, then leaves the replicas.
    keep_alive: Option<JoinHandle<()>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    /// Opens (and if new, seeds) the ladder, puts interrupted jobs back in the queue, binds the
    /// address and starts the workers.
    pub fn start(mut config: Config) -> Result<Server, String> {
        let weak_sandbox = sandbox_state(&config)?;
        let db = store::open(&config.ladder)?;
        // Absolute, as runners start in folders of their own.
        if let Location::File(path) = &config.ladder {
            let absolute =
                path.canonicalize().map_err(|e| format!("cannot find the ladder {}: {e}", path.display()))?;
            config.ladder = Location::File(absolute);
        }
        let mut ladder = Ladder::open(&config.ladder)?;
        // The pool is calibrated at the contest's time control (the organiser's, else --time-ms).
        let seeding_time = SeedingTime::for_contest(admin::time_limit(&db, &config)?);
        // The pool is entered at once (the site answers from the first second, the pool's names
        // are taken) with the shipped calibration when it fits, and calibrated in the background:
        // see `calibrate_pool`.
        let mut calibrate =
            !config.seed_pool.is_empty() && (ladder.entries()?.is_empty() || admin::seeding_unfinished(&db)?);
        let mut start = PoolStart::default();
        if calibrate {
            let time_ms = seeding_time.limit.as_millis() as u64;
            start = enter_pool(&mut ladder, &config.seed_pool, config.pool_calibration.as_ref(), time_ms)
                // Replicas starting at once on a new ladder: the one that lost the race finds
                // the pool entered.
                .or_else(|_| enter_pool(&mut ladder, &config.seed_pool, config.pool_calibration.as_ref(), time_ms))?;
            // The organiser keeps the shipped ratings: only the members they do not rate play.
            if start.source.is_some() && !config.refine_pool && start.not_calibrated.is_empty() {
                calibrate = false;
                admin::set_seeding_unfinished(&db, false)?;
            } else {
                admin::set_seeding_unfinished(&db, true)?;
            }
        }
        // Games held by a server that is gone (this one before a crash, or another replica not
        // seen for a while) go back to their queues; another replica's running games stay its.
        let requeued = store::replicas::requeue_before_replicas(&db)? + store::replicas::requeue_abandoned(&db)?;
        if requeued > 0 {
            eprintln!("{requeued} interrupted job(s) put back in the queue");
        }
        let uploads = config.uploads_dir();
        std::fs::create_dir_all(&uploads).map_err(|e| format!("cannot create {}: {e}", uploads.display()))?;
        // Absolute, as runners start in folders of their own and replicas compare paths.
        config.uploads = Some(uploads.canonicalize().map_err(|e| format!("cannot find {}: {e}", uploads.display()))?);
        let kept = store::blobs::keep_earlier_uploads(&db)?;
        if kept > 0 {
            eprintln!("{kept} upload(s) of an earlier release kept in the database");
        }
        drop(ladder);
        let listener = std::net::TcpListener::bind(config.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        listener.set_nonblocking(true).map_err(|e| format!("{e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("{e}"))?;
        let replica = store::replicas::Replica::register(&db, &addr.to_string())?;
        let config = Arc::new(config);
        let shared = Arc::new(Shared::new(weak_sandbox, replica));
        let service = Arc::new(service::Service::new(config.clone(), shared.clone(), db, addr)?);
        let keep_alive = {
            let shared = shared.clone();
            let connection = store::open(&config.ladder)?;
            std::thread::Builder::new()
                .name("replica keep-alive".to_owned())
                .spawn(move || jobs::replicas::keep_alive(&shared.replica, &connection, &addr.to_string(), &shared))
                .map_err(|e| format!("cannot start the replica's keep-alive: {e}"))?
        };
        let mut workers = Vec::new();
        if calibrate {
            *shared.seeding.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(seeding_status(&config, &seeding_time, &start));
            let (config, shared) = (config.clone(), shared.clone());
            workers.push(
                std::thread::Builder::new()
                    .name("pool calibration".to_owned())
                    .spawn(move || calibrate_pool(&config, &shared, seeding_time))
                    .map_err(|e| format!("cannot start the pool's calibration: {e}"))?,
            );
        }
        let local = (0..config.workers)
            .map(|index| {
                let (config, shared) = (config.clone(), shared.clone());
                std::thread::Builder::new()
                    .name(format!("rating worker {index}"))
                    .spawn(move || worker::run(index, config, shared))
                    .map_err(|e| format!("cannot start a worker: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        workers.extend(local);
        let (shutdown, stopped) = tokio::sync::oneshot::channel();
        let web = std::thread::Builder::new()
            .name("web".to_owned())
            .spawn(move || web::serve(listener, service, stopped))
            .map_err(|e| format!("cannot start the web server: {e}"))?;
        shared.work_added();
        Ok(Server { addr, shared, web: Some(web), workers, keep_alive: Some(keep_alive), shutdown: Some(shutdown) })
    }

    /// Stops taking requests, lets each worker finish the game it is playing (a job cut short
    /// goes back to the queue on the next start) and waits for all of them.
    pub fn stop(mut self) -> Result<(), String> {
        self.stop_now()
    }

    fn stop_now(&mut self) -> Result<(), String> {
        self.shared.stop();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let web = self.web.take().map(|web| web.join().unwrap_or_else(|_| Err("the web server panicked".to_owned())));
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        // Only now: the games the workers were finishing stay this replica's until they end.
        self.shared.workers_stopped.store(true, Ordering::SeqCst);
        if let Some(keep_alive) = self.keep_alive.take() {
            let _ = keep_alive.join();
        }
        web.unwrap_or(Ok(()))
    }

    /// Runs until Ctrl-C or SIGTERM, then stops as [`Server::stop`] does.
    pub fn run_until_signal(self) -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        runtime.block_on(shutdown_signal());
        eprintln!("Stopping: the games being played finish first");
        self.stop()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.web.is_some() {
            let _ = self.stop_now();
        }
    }
}

/// The seeding status a calibration at `time` starts with, from `start`.
fn seeding_status(config: &Config, time: &SeedingTime, start: &PoolStart) -> SeedingStatus {
    SeedingStatus {
        games: 0,
        linking_games: (othello_ladder::seed::seed_pairs(config.seed_pool.len()).len()
            * othello_ladder::seed::SEED_OPENINGS_PER_PAIR as usize
            * 2) as u32,
        widest_error: None,
        target_error: othello_ladder::seed::SEED_TARGET_ERROR,
        max_games: othello_ladder::seed::SEED_MAX_GAMES,
        time_ms: Some(time.limit.as_millis() as u64),
        time_note: time.note.clone(),
        shipped: start.source.clone(),
        shipped_not_used: start.why_not.clone(),
        not_shipped: if start.source.is_some() { start.not_calibrated.clone() } else { Vec::new() },
    }
}

/// Calibrates the sample pool while the site serves (the ladder's own seeding, with its true
/// counts shown on every page). From a shipped calibration, placements go ahead meanwhile: it
/// refines the pool on its own games alone (the shipped ones left out of its fits, so its
/// progress is what it played), then the shipped calibration is dropped. Without one,
/// placements start when it ends. Stopped with the server, it goes on from its games at the next
/// start.
fn calibrate_pool(config: &Config, shared: &Shared, time: SeedingTime) {
    // One replica calibrates: the others wait for it to end, and take over if it is gone.
    let connection = match store::open(&config.ladder) {
        Ok(connection) => connection,
        Err(why) => return eprintln!("the pool's calibration cannot start: {why}"),
    };
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        match shared.replica.lead(&connection, store::replicas::POOL_CALIBRATION) {
            Ok(true) => break,
            Ok(false) => {}
            Err(why) => eprintln!("the pool's calibration: {why}"),
        }
        if matches!(admin::seeding_unfinished(&connection), Ok(false)) {
            // Another replica calibrated it.
            return calibration_ended(shared);
        }
        shared.sleep_unless_stopped(store::replicas::HEARTBEAT * 2);
    }
    let mut refined = false;
    let result = Ladder::open(&config.ladder).and_then(|mut ladder| {
        if ladder.calibration()?.is_some() && config.refine_pool {
            ladder.fit_own_games_only();
            refined = true;
        }
        let names: Vec<String> = config.seed_pool.iter().map(Identity::label).collect();
        eprintln!("Calibrating the sample pool in the background: {}", names.join(", "));
        seed_pool(
            &mut ladder,
            &config.seed_pool,
            &config.seating(),
            Some(time.limit),
            config.seed,
            &shared.stop,
            &mut |progress| {
                if let Some(status) = shared.seeding.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
                    status.games = progress.games;
                    status.linking_games = progress.linking_games;
                    status.widest_error = progress.widest_error;
                }
                if progress.games % 50 == 0 {
                    eprintln!("calibrating the pool: {} games", progress.games);
                }
                shared.changed();
            },
        )
    });
    if shared.stop.load(Ordering::SeqCst) {
        return; // unfinished: the next start goes on from its games
    }
    match result {
        Ok(games) if refined => {
            eprintln!(
                "The sample pool is calibrated on its own games ({games} games): the shipped calibration is dropped."
            );
            if let Err(why) = Ladder::open(&config.ladder).and_then(|mut ladder| ladder.clear_calibration()) {
                eprintln!("{why}");
            }
        }
        Ok(games) => eprintln!("The sample pool is calibrated ({games} games): placements start."),
        // Placements go ahead on what was played: better than none at all.
        Err(why) => eprintln!("the pool's calibration stopped: {why}; placements start on what it played"),
    }
    if let Err(why) = admin::set_seeding_unfinished(&connection, false)
        .and_then(|()| shared.replica.resign(&connection, store::replicas::POOL_CALIBRATION))
    {
        eprintln!("{why}");
    }
    calibration_ended(shared);
}

/// The pool is calibrated: placements go ahead.
fn calibration_ended(shared: &Shared) {
    *shared.seeding.lock().unwrap_or_else(|p| p.into_inner()) = None;
    shared.work_added();
    shared.changed();
}

/// Whether the ladder at `ladder` needs the pool: it has no bot yet (a new file, or one only
/// entrants or workers were added to before the first start), or its pool's calibration was cut
/// short. The server enters and calibrates the pool on start.
pub fn needs_pool(ladder: &Location) -> Result<bool, String> {
    if let Location::File(path) = ladder
        && !path.exists()
    {
        return Ok(true);
    }
    // A calibration a stop cut short goes on at the next start.
    Ok(Ladder::open(ladder)?.entries()?.is_empty() || admin::seeding_unfinished(&store::open(ladder)?)?)
}

/// `othello serve entrant add NAME`: adds an entrant; returns its token.
pub fn add_entrant(ladder: &Location, name: &str) -> Result<String, String> {
    Ok(store::add_entrant(&store::open(ladder)?, name)?)
}

/// `othello serve entrant list`.
pub fn entrants(ladder: &Location) -> Result<Vec<store::Entrant>, String> {
    Ok(store::entrants(&store::open(ladder)?)?)
}

/// `othello serve entrant revoke NAME`.
pub fn revoke_entrant(ladder: &Location, name: &str) -> Result<(), String> {
    Ok(store::revoke_entrant(&store::open(ladder)?, name)?)
}

/// `othello serve entrant token NAME`: a new token for the entrant (the old one and its logins
/// end; a revoked entrant is restored); returns it.
pub fn reissue_entrant_token(ladder: &Location, name: &str) -> Result<String, String> {
    Ok(store::reissue_token(&store::open(ladder)?, store::TokenHolder::Entrant, name)?)
}

/// `othello serve worker token NAME`: a new token for the worker (the old one ends).
pub fn reissue_worker_token(ladder: &Location, name: &str) -> Result<String, String> {
    Ok(store::reissue_token(&store::open(ladder)?, store::TokenHolder::Worker, name)?)
}

/// `othello serve submissions open|close`: whether entrants may upload (a running server follows
/// at once).
pub fn set_submissions_open(ladder: &Location, open: bool) -> Result<(), String> {
    Ok(store::set_submissions_open(&store::open(ladder)?, open)?)
}

/// `othello serve final start`: starts a final of every entrant's latest version (a running
/// server takes it up within seconds, before the ladder's jobs).
pub fn start_final(
    ladder: &Location,
    options: final_round::FinalOptions,
) -> Result<(final_round::FinalInfo, Vec<final_round::FinalBot>), String> {
    Ok(final_round::start(ladder, options)?)
}

/// `othello serve final show`: the newest final with its standings.
pub fn final_view(ladder: &Location) -> Result<Option<final_round::FinalView>, String> {
    final_round::view(&store::open(ladder)?)
}

/// `othello serve final export OUT.html`: the newest final's results as one HTML file that needs
/// no server (its style inline, each game's moves written out).
pub fn export_final(ladder: &Location) -> Result<String, String> {
    let connection = store::open(ladder)?;
    let view = final_round::view(&connection)?.ok_or("no final has been started on this ladder")?;
    let ladder = othello_ladder::Ladder::open(ladder)?;
    let mut games = Vec::new();
    for game in view.games.iter().filter_map(|g| g.game) {
        if let Some(stored) = ladder.game(game)? {
            games.push(stored);
        }
    }
    Ok(web::export_final(&view, &games).into_string())
}

/// Re-exported for the command line's defaults.
pub use session::MIN_GAMES;

/// `othello serve worker add NAME`: adds a remote worker; returns its token.
pub fn add_worker(ladder: &Location, name: &str) -> Result<String, String> {
    Ok(remote::add_worker(&store::open(ladder)?, name)?)
}

/// `othello serve worker list`.
pub fn workers(ladder: &Location) -> Result<Vec<remote::WorkerInfo>, String> {
    Ok(remote::workers(&store::open(ladder)?)?)
}

/// `othello serve worker revoke NAME`: its token stops working and its leases are dropped (their
/// jobs go back to the queue). Returns how many jobs went back.
pub fn revoke_worker(ladder: &Location, name: &str) -> Result<usize, String> {
    Ok(remote::revoke_worker(&mut store::open(ladder)?, name)?)
}
/// `othello serve worker purge NAME`: removes every game the worker played and refits the
/// ladder; returns how many games went (a running server shows it at its next change).
pub fn purge_worker(ladder: &Location, name: &str) -> Result<usize, String> {
    let mut ladder_file = othello_ladder::Ladder::open(ladder)?;
    Ok(remote::purge_worker(&mut store::open(ladder)?, &mut ladder_file, name)?)
}

pub use test_games::DEFAULT_TEST_GAMES_PER_HOUR;
