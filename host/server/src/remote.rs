//! Workers on other machines: the worker API under `/api/worker/…` (token in
//! `Authorization: Bearer`), its tables, and the checks a result passes before it counts.
//!
//! A remote worker claims a job and gets a lease (an id and an expiry), the plan the server
//! decided (bots as SHA-256 hashes with their download URLs, the opening, the colours, the time
//! limit), heartbeats to extend the lease while it plays, and submits the games under the lease.
//! A lease not renewed in time lapses and its job goes back to the queue (at the next claim of
//! any worker); a result under a lapsed, released or foreign lease is refused (409) and never
//! counted; the same accepted result sent again is answered 200 and counted once. Every move of
//! a submitted game is replayed, its score and its times checked, before it counts.
//!
//! Workers never touch the database: only the server does, here.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use maud::html;
use othello_db::{Db, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use othello_arena::record::{End, Outcome, unix_now};
use othello_arena::seat::{Failure, Termination};
use othello_ladder::Ladder;
use othello_ladder::identity::{Kind, file_hash};

use crate::service::{Refusal, Service};
use crate::store::{self, Job, JobKind, Next, Status, TokenHolder, sha256_hex};
use crate::worker::{Plan, Planned, Played, complete_job, plan_job};

/// Default lease of a remote worker's job: lapses unless a heartbeat renews it within this time.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);
/// Default hard cap of a lease, however often it is renewed: a worker cannot hold a job forever.
pub const DEFAULT_LEASE_CAP: Duration = Duration::from_secs(30 * 60);
/// Longest host name a worker's claim may set (what is longer is cut).
const MAX_HOST_CHARS: usize = 64;
/// Workers that must find a check's library unloadable before its upload is rejected on their
/// word alone (the server's own workers are believed at once).
pub const LOAD_VERDICTS_NEEDED: i64 = 2;

/// Most bytes of one submitted result (two games' moves, times and failures).
const MAX_RESULT_BYTES: usize = 4 << 20;

/// A worker's `last_seen` is renewed at most this often (seconds).
const LAST_SEEN_EVERY_SECS: i64 = 5;

fn db(e: othello_db::Error) -> String {
    format!("database: {e}")
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A remote worker as the organiser sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkerInfo {
    pub id: i64,
    pub name: String,
    pub created_at: u64,
    pub revoked: bool,
    pub host: Option<String>,
    pub cores: Option<u32>,
    pub last_seen: Option<u64>,
    pub games: u64,
    /// What it is playing now: one line per live lease (`check: Bot vs random`).
    pub playing: Vec<String>,
}

/// Adds a worker; returns its token (only its hash is stored).
pub fn add_worker(connection: &Db, name: &str) -> Result<String, String> {
    store::add_token_holder(connection, TokenHolder::Worker, name)
}

/// Every worker, with what each is playing now.
pub fn workers(connection: &Db) -> Result<Vec<WorkerInfo>, String> {
    let mut workers: Vec<WorkerInfo> = connection
        .query_map(
            "SELECT id, name, created_at, revoked_at, host, cores, last_seen, games FROM server_workers ORDER BY id",
            [],
            |row| {
                Ok(WorkerInfo {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    created_at: row.get::<i64>(2)? as u64,
                    revoked: row.get::<Option<i64>>(3)?.is_some(),
                    host: row.get(4)?,
                    cores: row.get::<Option<i64>>(5)?.map(|c| c as u32),
                    last_seen: row.get::<Option<i64>>(6)?.map(|t| t as u64),
                    games: row.get::<i64>(7)? as u64,
                    playing: Vec::new(),
                })
            },
        )
        .map_err(db)?;
    let rows = connection
        .query_map(
            "SELECT l.worker, l.plan FROM server_leases l JOIN server_jobs j ON j.id = l.job AND j.lease = l.id
             WHERE l.state = 'active' AND j.state = 'running' AND l.expires_at >= ?1 ORDER BY l.issued_at",
            [now_ms()],
            |row| Ok((row.get::<i64>(0)?, row.get::<String>(1)?)),
        )
        .map_err(db)?;
    for (worker, plan) in rows {
        let Ok(plan) = serde_json::from_str::<Plan>(&plan) else { continue };
        if let Some(info) = workers.iter_mut().find(|w| w.id == worker) {
            info.playing.push(format!("{}: {} vs {}", plan.kind, plan.bots[0].label(), plan.bots[1].label()));
        }
    }
    Ok(workers)
}

/// Revokes a worker's token and drops its leases: their jobs go back to the queue at once, and
/// whatever it still submits under them is refused.
pub fn revoke_worker(connection: &mut Db, name: &str) -> Result<usize, String> {
    let transaction = connection.transaction().map_err(db)?;
    let id: Option<i64> = transaction
        .query_row("SELECT id FROM server_workers WHERE name = ?1 AND revoked_at IS NULL", [name], |row| row.get(0))
        .optional()
        .map_err(db)?;
    let Some(id) = id else { return Err(format!("no worker `{name}` with a valid token")) };
    transaction
        .execute("UPDATE server_workers SET revoked_at = ?2 WHERE id = ?1", params![id, unix_now() as i64])
        .map_err(db)?;
    transaction
        .execute(
            "UPDATE server_test_games SET state = 'queued', lease = NULL
             WHERE state = 'running' AND lease IN (SELECT id FROM server_leases WHERE worker = ?1 AND state = 'active')",
            [id],
        )
        .map_err(db)?;
    let requeued = transaction
        .execute(
            "UPDATE server_jobs SET state = CASE kind WHEN 'test' THEN 'done' ELSE 'queued' END, lease = NULL,
               lease_expires = NULL
             WHERE state = 'running' AND lease IN (SELECT id FROM server_leases WHERE worker = ?1 AND state = 'active')",
            [id],
        )
        .map_err(db)?;
    transaction
        .execute("UPDATE server_leases SET state = 'dropped' WHERE worker = ?1 AND state = 'active'", [id])
        .map_err(db)?;
    transaction.commit().map_err(db)?;
    Ok(requeued)
}

/// One worker's results against the rest, as fishtest tallies them: the games it played, the
/// failures and time losses among them, and how far the bots it played scored from what their
/// ratings predict (the residual, in points; a worker that forges wins for a bot shows a large
/// positive one). `flagged` says why it stands out, if it does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkerTally {
    pub worker: String,
    pub games: u64,
    pub failures: u64,
    pub time_losses: u64,
    /// Sum of (score − expected score) of the job's own bot over its games with two rated bots.
    pub residual: f64,
    /// The residual in standard deviations (its games' binomial spread).
    pub z: f64,
    pub flagged: Option<String>,
}

/// Games of a worker before it can stand out (fewer say too little).
const MIN_GAMES_TO_FLAG: u64 = 8;
/// How many standard deviations make an outlier.
const OUTLIER_SIGMAS: f64 = 3.0;

/// Every remote worker's tally; `ratings` are the entries' current ratings (Elo).
pub fn tallies(connection: &Db, ratings: &std::collections::HashMap<i64, f64>) -> Result<Vec<WorkerTally>, String> {
    let rows = store::all_rows(
        connection,
        "SELECT w.name, g.black, g.white, g.black_score, g.termination, wg.subject
         FROM server_worker_games wg JOIN server_workers w ON w.id = wg.worker JOIN games g ON g.id = wg.game
         ORDER BY w.id, g.id",
        [],
        |row| {
            Ok((
                row.get::<String>(0)?,
                row.get::<i64>(1)?,
                row.get::<i64>(2)?,
                row.get::<f64>(3)?,
                row.get::<String>(4)?,
                row.get::<i64>(5)?,
            ))
        },
    )?;
    let mut tallies: Vec<(WorkerTally, f64)> = Vec::new();
    for (worker, black, white, black_score, termination, subject) in rows {
        if tallies.last().is_none_or(|(t, _)| t.worker != worker) {
            let tally =
                WorkerTally { worker, games: 0, failures: 0, time_losses: 0, residual: 0.0, z: 0.0, flagged: None };
            tallies.push((tally, 0.0));
        }
        let (tally, variance) = tallies.last_mut().expect("pushed above");
        tally.games += 1;
        if termination != "normal" && termination != "resigned" {
            tally.failures += 1;
        }
        if termination == "timeout" {
            tally.time_losses += 1;
        }
        let (own, other, score) =
            if subject == white { (white, black, 1.0 - black_score) } else { (black, white, black_score) };
        if let (Some(own), Some(other)) = (ratings.get(&own), ratings.get(&other)) {
            let expected = 1.0 / (1.0 + 10f64.powf((other - own) / 400.0));
            tally.residual += score - expected;
            *variance += expected * (1.0 - expected);
        }
    }
    let total_games: u64 = tallies.iter().map(|(t, _)| t.games).sum();
    let total_failures: u64 = tallies.iter().map(|(t, _)| t.failures).sum();
    let mut out = Vec::new();
    for (mut tally, variance) in tallies {
        tally.z = if variance > 0.0 { tally.residual / variance.sqrt() } else { 0.0 };
        // The failure rate of the other workers' games: a worker far above it makes bots fail.
        let (other_games, other_failures) = (total_games - tally.games, total_failures - tally.failures);
        let rate = if other_games > 0 { other_failures as f64 / other_games as f64 } else { 0.0 };
        let expected_failures = rate * tally.games as f64;
        let spread = (tally.games as f64 * rate.max(1.0 / (other_games as f64 + 2.0)) * (1.0 - rate)).sqrt();
        if tally.games >= MIN_GAMES_TO_FLAG {
            if tally.z.abs() >= OUTLIER_SIGMAS {
                tally.flagged = Some(format!(
                    "its bots scored {:+.1} points from what their ratings predict ({:+.1} σ)",
                    tally.residual, tally.z
                ));
            } else if other_games > 0 && tally.failures as f64 > expected_failures + OUTLIER_SIGMAS * spread.max(1.0) {
                tally.flagged = Some(format!(
                    "{} failures in {} games where the other workers' rate gives {expected_failures:.1}",
                    tally.failures, tally.games
                ));
            }
        }
        out.push(tally);
    }
    // A worker whose result differed from the server's re-play of it stands out above all (its
    // refused result counted no games, so it may have no tally yet).
    for (worker, (differed, replayed, last)) in crate::replay_check::tallies(connection)? {
        if differed == 0 {
            continue;
        }
        let why = format!("{differed} of its {replayed} re-played pairs differ from the server's re-play ({last})");
        match out.iter_mut().find(|tally| tally.worker == worker) {
            Some(tally) => tally.flagged = Some(why),
            None => out.push(WorkerTally {
                worker,
                games: 0,
                failures: 0,
                time_losses: 0,
                residual: 0.0,
                z: 0.0,
                flagged: Some(why),
            }),
        }
    }
    Ok(out)
}

/// Removes every ladder game worker `name` played and refits the ladder (the organiser's answer
/// to a worker found cheating); returns how many games went. Its token stays as it is (revoke
/// it too to stop it playing).
pub fn purge_worker(connection: &mut Db, ladder: &mut Ladder, name: &str) -> Result<usize, String> {
    let transaction = connection.transaction().map_err(db)?;
    let id: Option<i64> = transaction
        .query_row("SELECT id FROM server_workers WHERE name = ?1", [name], |row| row.get(0))
        .optional()
        .map_err(db)?;
    let Some(id) = id else { return Err(format!("there is no worker `{name}`")) };
    let games = store::all_rows(&transaction, "SELECT game FROM server_worker_games WHERE worker = ?1", [id], |row| {
        row.get::<i64>(0)
    })?;
    // What refers to a game goes first (the tables' foreign keys), then the game.
    for game in &games {
        transaction.execute("DELETE FROM server_job_games WHERE game = ?1", [game]).map_err(db)?;
        transaction.execute("DELETE FROM server_worker_games WHERE game = ?1", [game]).map_err(db)?;
        transaction.execute("DELETE FROM games WHERE id = ?1", [game]).map_err(db)?;
    }
    let purged = games.len();
    transaction.execute("UPDATE server_workers SET games = 0 WHERE id = ?1", [id]).map_err(db)?;
    transaction.commit().map_err(db)?;
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, &format!("purged the games of worker {name}"))?;
    Ok(purged)
}

/// A result the server refused, as logged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedResult {
    pub worker: String,
    pub lease: Option<String>,
    pub job: Option<i64>,
    pub reason: String,
    /// Unix seconds.
    pub at: u64,
}

/// Refused results, newest first.
pub fn refusals(connection: &Db) -> Result<Vec<RefusedResult>, String> {
    store::all_rows(
        connection,
        "SELECT coalesce(w.name, ''), r.lease, r.job, r.reason, r.at FROM server_worker_refusals r
         LEFT JOIN server_workers w ON w.id = r.worker ORDER BY r.id DESC",
        [],
        |row| {
            Ok(RefusedResult {
                worker: row.get(0)?,
                lease: row.get(1)?,
                job: row.get(2)?,
                reason: row.get(3)?,
                at: row.get::<i64>(4)? as u64,
            })
        },
    )
}

/// Puts a job back in the queue (its lease no longer holds it): a test job's pair goes back to
/// the test games' queue.
fn requeue(connection: &Db, job: i64) -> Result<(), Refusal> {
    connection
        .execute(
            "UPDATE server_test_games SET state = 'queued', lease = NULL
             WHERE id = (SELECT number FROM server_jobs WHERE id = ?1 AND kind = 'test') AND state = 'running'",
            [job],
        )
        .and_then(|_| {
            connection.execute(
                "UPDATE server_jobs SET state = CASE kind WHEN 'test' THEN 'done' ELSE 'queued' END, lease = NULL,
                   lease_expires = NULL WHERE id = ?1",
                [job],
            )
        })
        .map(drop)
        .map_err(|e| internal(db(e)))
}

/// Notes `caller`'s finding that the check's library does not load; true once enough distinct
/// workers found it ([`LOAD_VERDICTS_NEEDED`]), so the upload may be rejected.
fn load_verdict_confirmed(connection: &Db, job: &Job, caller: &Caller, why: &str) -> Result<bool, Refusal> {
    connection
        .execute(
            "INSERT INTO server_load_verdicts (job, worker, reason, at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            params![job.id, caller.id, othello_arena::text::one_line(why, 500), unix_now() as i64],
        )
        .map_err(|e| internal(db(e)))?;
    let verdicts: i64 = connection
        .query_row("SELECT count(DISTINCT worker) FROM server_load_verdicts WHERE job = ?1", [job.id], |row| row.get(0))
        .map_err(|e| internal(db(e)))?;
    Ok(verdicts >= LOAD_VERDICTS_NEEDED)
}

/// Whether a bot of `played` lost a game by a crash (or a failure to start) before it made a
/// single move: the verdict a lying worker would use to sink a classmate's bot. In words.
fn crashed_at_once(played: &Played) -> Option<String> {
    played.games.iter().find_map(|game| match &game.result.end {
        End::Forfeit { loser, failure }
            if matches!(failure.termination, Termination::Crash | Termination::LoadError)
                && !game.moves.iter().any(|m| m.color == *loser) =>
        {
            Some(format!("{} {}: {}", game.name(*loser), failure.termination, failure.detail))
        }
        _ => None,
    })
}

/// A check's probe as the server believes it: its claims held against the library's own exports
/// (read here, without loading it), its name and error made harmless as a local probe's are.
fn verify_probe(connection: &Db, job: &Job, mut played: Played) -> Result<Played, String> {
    let upload = store::upload(connection, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    crate::blobs::ensure_local(connection, &upload.path)?;
    let bytes = std::fs::read(&upload.path).map_err(|e| format!("cannot read {}: {e}", upload.path.display()))?;
    let probe = played.probe.as_mut().ok_or("a check's result has no probe of the library")?;
    crate::inspect::probe_matches_exports(probe, &bytes)?;
    if let othello_arena::plugins::PluginStatus::Error(why) = &mut probe.status {
        *why = othello_arena::text::one_line(why, 500);
    } else {
        probe.name = othello_arena::seat::sanitize_bot_name(&probe.name)
            .ok_or("the report gives the bot no visible name (a loading bot always has one)")?;
    }
    Ok(played)
}

/// A worker that sent a valid token.
#[derive(Debug, Clone)]
struct Caller {
    id: i64,
    name: String,
}

fn worker_by_token(connection: &Db, token: &str) -> Result<Option<Caller>, String> {
    let holder = store::token_holder(connection, TokenHolder::Worker, token)?;
    Ok(holder.map(|(id, name, _)| Caller { id, name }))
}

/// A job with its state (`queued`, `running`, `done`) and the lease holding it.
type JobState = (Job, String, Option<String>);

fn job_by_id(connection: &Db, id: i64) -> Result<Option<JobState>, String> {
    connection
        .query_row("SELECT id, kind, upload, number, state, lease FROM server_jobs WHERE id = ?1", [id], |row| {
            Ok((store::job_row(row)?, row.get(4)?, row.get(5)?))
        })
        .optional()
        .map_err(db)
}

/// A live lease's job and plan, or why the lease is not live: the status, the reason and the
/// job it was for.
type LeaseCheck = Result<(Job, Plan), (u16, String, Option<i64>)>;

/// What a worker says of itself when it claims.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Hello {
    #[serde(default)]
    pub host: String,
    #[serde(default)]
    pub cores: u32,
}

/// A claimed job, as the claim answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claimed {
    /// Send it with every heartbeat and with the result.
    pub lease: String,
    /// The lease lapses this long after the claim or the last heartbeat.
    pub lease_ms: u64,
    pub job: i64,
    pub plan: Plan,
    /// Where each of the plan's bots' libraries is downloaded (same order as its bots).
    pub libraries: [String; 2],
}

/// What the server answers an accepted result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    pub job: i64,
    /// Games that counted.
    pub games: usize,
    /// The same result was accepted before: nothing was counted again.
    pub duplicate: bool,
}

/// The worker API's side of the server: its own connection to the ladder, one request at a
/// time (every request is short: the games are played on the workers).
pub struct Remote {
    service: Arc<Service>,
    state: Mutex<Option<(Db, Ladder)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn internal(message: String) -> Refusal {
    Refusal::new(500, message)
}

impl Remote {
    pub fn new(service: Arc<Service>) -> Remote {
        Remote { service, state: Mutex::new(None) }
    }

    /// Runs `work` with the connection and the ladder, opened on first use.
    fn with<T>(&self, work: impl FnOnce(&mut Db, &mut Ladder) -> Result<T, Refusal>) -> Result<T, Refusal> {
        let mut state = lock(&self.state);
        if state.is_none() {
            let path = &self.service.config.ladder;
            *state = Some((store::open(path).map_err(internal)?, Ladder::open(path).map_err(internal)?));
        }
        let (connection, ladder) = state.as_mut().expect("opened above");
        work(connection, ladder)
    }

    /// The worker of `token`: 401 for an unknown or revoked one, 403 for an entrant's.
    fn caller(&self, token: Option<String>) -> Result<Caller, Refusal> {
        let Some(token) = token else {
            return Err(Refusal::new(401, "a worker sends its token as `Authorization: Bearer TOKEN`"));
        };
        self.with(|connection, _| {
            if let Some(caller) = worker_by_token(connection, &token).map_err(internal)? {
                // Once a few seconds is enough for the workers' page; a write a request would
                // cost every claim and heartbeat a commit.
                let now = unix_now() as i64;
                connection
                    .execute(
                        "UPDATE server_workers SET last_seen = ?2 WHERE id = ?1 AND coalesce(last_seen, 0) < ?3",
                        params![caller.id, now, now - LAST_SEEN_EVERY_SECS],
                    )
                    .map_err(|e| internal(db(e)))?;
                return Ok(caller);
            }
            if store::entrant_by_token(connection, &token).map_err(internal)?.is_some() {
                return Err(Refusal::new(
                    403,
                    "this is an entrant's token: it cannot claim jobs (the organiser gives each worker a token of its own)",
                ));
            }
            Err(Refusal::new(401, "this worker token is not valid (unknown or revoked): ask the organiser for one"))
        })
    }

    fn refuse(&self, caller: &Caller, lease: &str, job: Option<i64>, status: u16, reason: String) -> Refusal {
        eprintln!("worker {}: result refused (lease {lease}): {reason}", caller.name);
        let _ = self.with(|connection, _| {
            connection
                .execute(
                    "INSERT INTO server_worker_refusals (worker, lease, job, reason, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![caller.id, lease, job, reason, unix_now() as i64],
                )
                .map_err(|e| internal(db(e)))
        });
        Refusal::new(status, reason)
    }

    /// Claims the next job for `caller`, if one waits: decides what it plays and leases it.
    fn claim(&self, caller: &Caller, hello: &Hello) -> Result<Option<Claimed>, Refusal> {
        let config = self.service.config.clone();
        let shared = self.service.shared.clone();
        let lease_ms = config.lease_duration.as_millis() as u64;
        self.with(|connection, ladder| {
            connection
                .execute(
                    "UPDATE server_workers SET host = ?2, cores = ?3
                     WHERE id = ?1 AND NOT (coalesce(host, '') = ?2 AND coalesce(cores, -1) = ?3)",
                    params![caller.id, othello_arena::text::one_line(&hello.host, MAX_HOST_CHARS), hello.cores],
                )
                .map_err(|e| internal(db(e)))?;
            let mut refreshed = false;
            loop {
                let lease = store::new_token();
                let issued = now_ms();
                let expires = issued + (lease_ms as i64).min(self.lease_cap_ms());
                // Test games come after the checks and before every ladder job, as on the
                // server's own workers; their queue is their own table.
                store::requeue_lapsed(connection, issued).map_err(internal)?;
                let test = crate::test_games::claim(connection, &lease).map_err(internal)?;
                let job = match &test {
                    Some(test) => Some(store::lease_test_job(connection, test, &lease, expires).map_err(internal)?),
                    None => {
                        // While the sample pool is calibrated, placements wait (checks do not).
                        let checks_only = shared.placements_wait();
                        store::claim_job_until(connection, &lease, Some(expires), Some(caller.id), checks_only)
                            .map_err(internal)?
                    }
                };
                let Some(job) = job else {
                    if config.continuous_games
                        && !refreshed
                        && !shared.placements_wait()
                        && store::queue_refresh(connection).map_err(internal)?
                    {
                        refreshed = true;
                        continue;
                    }
                    return Ok(None);
                };
                let planned = plan_job(&job, &config, &shared, ladder, connection, true);
                let plan = match planned {
                    Ok(Planned::Play(plan)) => *plan,
                    Ok(Planned::Finished) => {
                        shared.changed();
                        continue;
                    }
                    Err(why) if job.kind == JobKind::Test => {
                        // The pair cannot be played (its opponent left the ladder …): its
                        // entrant reads why on the bot's page; the bot itself is not touched.
                        crate::test_games::finish(connection, job.number as i64, Some(&why)).map_err(internal)?;
                        store::finish_test_job(connection, &job).map_err(internal)?;
                        shared.changed();
                        continue;
                    }
                    Err(why) => {
                        eprintln!("job {} cannot be planned: {why}", job.id);
                        let reason = format!("the server could not finish its work on this bot: {why}");
                        let _ = store::finish_job(connection, &job, Status::Rejected, Some(&reason), Next::Nothing);
                        shared.changed();
                        continue;
                    }
                };
                connection
                    .execute(
                        "INSERT INTO server_leases (id, job, worker, plan, issued_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![lease, job.id, caller.id, serde_json::to_string(&plan).expect("plans serialize"), issued, expires],
                    )
                    .map_err(|e| internal(db(e)))?;
                shared.changed();
                let libraries = [0, 1].map(|i| format!("/api/worker/libraries/{}", plan.bots[i].sha256));
                let lease_ms = (expires - issued) as u64;
                return Ok(Some(Claimed { lease, lease_ms, job: job.id, plan, libraries }));
            }
        })
    }

    /// The caller's live lease `lease`: its job and plan, or 409 (foreign, lapsed, capped,
    /// released).
    fn live_lease(&self, connection: &Db, caller: &Caller, lease: &str) -> Result<LeaseCheck, Refusal> {
        let row: Option<(i64, i64, String, i64, i64, String)> = connection
            .query_row(
                "SELECT job, worker, plan, issued_at, expires_at, state FROM server_leases WHERE id = ?1",
                [lease],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?)),
            )
            .optional()
            .map_err(|e| internal(db(e)))?;
        let Some((job_id, worker, plan, issued_at, expires_at, state)) = row else {
            return Ok(Err((409, format!("there is no lease {lease}"), None)));
        };
        if worker != caller.id {
            return Ok(Err((409, format!("lease {lease} is another worker's"), Some(job_id))));
        }
        let job = job_by_id(connection, job_id).map_err(internal)?;
        let held = matches!(&job, Some((_, job_state, Some(holder))) if job_state == "running" && holder == lease);
        if state != "active" || !held || expires_at < now_ms() {
            let cap = self.lease_cap_ms();
            let why = match state.as_str() {
                "dropped" => "was dropped (the worker was revoked)".to_owned(),
                "released" => "was released".to_owned(),
                "refused" => "ended with a refused result".to_owned(),
                _ if expires_at >= issued_at + cap => format!(
                    "reached its hard cap of {} s (however often renewed): its job went back to the queue",
                    cap / 1000
                ),
                _ => "expired (not renewed in time): its job went back to the queue".to_owned(),
            };
            return Ok(Err((409, format!("lease {lease} {why}"), Some(job_id))));
        }
        let plan: Plan = serde_json::from_str(&plan).map_err(|e| internal(format!("lease {lease}'s plan: {e}")))?;
        Ok(Ok((job.expect("held above").0, plan)))
    }

    /// The hard cap of every lease, in milliseconds.
    fn lease_cap_ms(&self) -> i64 {
        self.service.config.lease_cap.as_millis() as i64
    }

    /// Renews a live lease by the lease duration, never past its hard cap.
    fn heartbeat(&self, caller: &Caller, lease: &str) -> Result<u64, Refusal> {
        let lease_ms = self.service.config.lease_duration.as_millis() as i64;
        let cap = self.lease_cap_ms();
        self.with(|connection, _| match self.live_lease(connection, caller, lease)? {
            Err((status, why, _)) => Err(Refusal::new(status, why)),
            Ok((job, _)) => {
                let issued: i64 = connection
                    .query_row("SELECT issued_at FROM server_leases WHERE id = ?1", [lease], |row| row.get(0))
                    .map_err(|e| internal(db(e)))?;
                let now = now_ms();
                let expires = (now + lease_ms).min(issued + cap);
                connection
                    .execute("UPDATE server_leases SET expires_at = ?2 WHERE id = ?1", params![lease, expires])
                    .and_then(|_| {
                        connection.execute(
                            "UPDATE server_jobs SET lease_expires = ?2 WHERE id = ?1",
                            params![job.id, expires],
                        )
                    })
                    .map_err(|e| internal(db(e)))?;
                Ok((expires - now).max(0) as u64)
            }
        })
    }

    /// Gives a lease back unplayed (a worker stopping): its job goes back to the queue at once.
    fn release(&self, caller: &Caller, lease: &str) -> Result<(), Refusal> {
        self.with(|connection, _| match self.live_lease(connection, caller, lease)? {
            Err((status, why, _)) => Err(Refusal::new(status, why)),
            Ok((job, _)) => {
                requeue(connection, job.id)?;
                connection
                    .execute("UPDATE server_leases SET state = 'released' WHERE id = ?1", [lease])
                    .map_err(|e| internal(db(e)))?;
                Ok(())
            }
        })?;
        self.service.shared.work_added();
        self.service.shared.changed();
        Ok(())
    }

    fn submit(&self, caller: &Caller, lease: &str, body: &[u8]) -> Result<Accepted, Refusal> {
        let result_hash = sha256_hex(body);
        let config = self.service.config.clone();
        let shared = self.service.shared.clone();
        let played: Played = match serde_json::from_slice(body) {
            Ok(played) => played,
            Err(e) => return Err(self.refuse(caller, lease, None, 400, format!("the result is not readable: {e}"))),
        };
        let outcome = self.with(|connection, ladder| {
            // Accepted before? The same result again is harmless; another is refused.
            let earlier: Option<(i64, i64, Option<String>, String)> = connection
                .query_row(
                    "SELECT job, worker, result_sha256, state FROM server_leases WHERE id = ?1",
                    [lease],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
                )
                .optional()
                .map_err(|e| internal(db(e)))?;
            if let Some((job, worker, Some(hash), state)) = earlier
                && worker == caller.id
                && state == "submitted"
            {
                if hash == result_hash {
                    return Ok(Ok(Accepted { job, games: 0, duplicate: true }));
                }
                let why = format!("lease {lease} has a result already: another one is not counted");
                return Ok(Err((409, why, Some(job))));
            }
            let (job, plan) = match self.live_lease(connection, caller, lease)? {
                Ok(held) => held,
                Err(refused) => return Ok(Err(refused)),
            };
            let checked = check_result(&plan, &played, &config).and_then(|played| {
                if plan.is_check() { verify_probe(connection, &job, played) } else { Ok(played) }
            });
            // A sample of the pairs between two modules is played again here: the same moves, or
            // the result is forged (or the worker broken).
            let checked = checked.and_then(|played| {
                if !crate::replay_check::sampled(&plan, lease, config.wasm_replay_percent) {
                    return Ok(played);
                }
                let Ok(Some(verdict)) = replay_verdict(connection, ladder, &config, &plan, &played) else {
                    return Ok(played);
                };
                if let Err(why) = crate::replay_check::note(connection, caller.id, job.id, lease, &verdict, now_ms()) {
                    eprintln!("worker {}: the re-play of job {} was not noted: {why}", caller.name, job.id);
                }
                verdict
                    .map(|()| played)
                    .map_err(|why| format!("the server played this pair of WebAssembly bots again and got other moves: {why}"))
            });
            let played = match checked {
                Ok(played) => played,
                Err(why) => {
                    // The job goes back to the queue for an honest worker.
                    requeue(connection, job.id)?;
                    connection
                        .execute("UPDATE server_leases SET state = 'refused' WHERE id = ?1", [lease])
                        .map_err(|e| internal(db(e)))?;
                    return Ok(Err((422, why, Some(job.id))));
                }
            };
            let mark_submitted = |connection: &Db| {
                connection
                    .execute(
                        "UPDATE server_leases SET state = 'submitted', result_sha256 = ?2 WHERE id = ?1",
                        params![lease, result_hash],
                    )
                    .map_err(|e| internal(db(e)))
            };
            if let Some(why) = played.probe.as_ref().and_then(|probe| match &probe.status {
                othello_arena::plugins::PluginStatus::Error(why) => Some(why.clone()),
                _ => None,
            }) && !load_verdict_confirmed(connection, &job, caller, &why)?
            {
                // One worker's word is not enough to reject an upload: the check goes back to
                // the queue for another worker (never this one) or the server's own.
                requeue(connection, job.id)?;
                mark_submitted(connection)?;
                let note = format!(
                    "a worker found that it does not load ({}); another worker checks it again before it is rejected",
                    othello_arena::text::one_line(&why, 200)
                );
                store::set_status(connection, job.upload, Status::Checking, Some(&note)).map_err(internal)?;
                shared.work_added();
                return Ok(Ok(Accepted { job: job.id, games: 0, duplicate: false }));
            }
            if let Some(why) = crashed_at_once(&played)
                && job.kind != JobKind::Test
                && !load_verdict_confirmed(connection, &job, caller, &why)?
            {
                // A bot that crashes before its first move loses its games (and a placement of
                // such games ends it at the bottom): one worker's word is not enough for that
                // either. The job goes to another worker (never this one) or the server's own.
                requeue(connection, job.id)?;
                mark_submitted(connection)?;
                if plan.is_check() {
                    let note = format!(
                        "a worker found that it crashes at once ({}); another worker checks it again before it counts",
                        othello_arena::text::one_line(&why, 200)
                    );
                    store::set_status(connection, job.upload, Status::Checking, Some(&note)).map_err(internal)?;
                }
                shared.work_added();
                return Ok(Ok(Accepted { job: job.id, games: 0, duplicate: false }));
            }
            let before = [0, 1].map(|slot| store::job_game(connection, job.id, slot).ok().flatten());
            if let Err(why) = complete_job(&job, &plan, &played, &config, &shared, ladder, connection) {
                eprintln!("worker {}: job {} failed: {why}", caller.name, job.id);
                let reason = format!("the server could not finish its work on this bot: {why}");
                let _ = store::finish_job(connection, &job, Status::Rejected, Some(&reason), Next::Nothing);
            }
            // Which games this worker's result added: the per-worker tallies and the purge.
            for (slot, earlier) in before.iter().enumerate() {
                if earlier.is_none()
                    && let Some(game) = store::job_game(connection, job.id, slot).map_err(internal)?
                {
                    connection
                        .execute(
                            "INSERT INTO server_worker_games (game, worker, job, subject) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                            params![game, caller.id, job.id, plan.bots[0].entry],
                        )
                        .map_err(|e| internal(db(e)))?;
                }
            }
            let games = if plan.is_check() { 0 } else { played.games.len() };
            mark_submitted(connection)?;
            connection
                .execute(
                    "UPDATE server_workers SET games = games + ?2 WHERE id = ?1",
                    params![caller.id, played.games.len() as i64],
                )
                .map_err(|e| internal(db(e)))?;
            Ok(Ok(Accepted { job: job.id, games, duplicate: false }))
        })?;
        shared.changed();
        match outcome {
            Ok(accepted) => Ok(accepted),
            Err((status, why, job)) => Err(self.refuse(caller, lease, job, status, why)),
        }
    }

    /// The library with this SHA-256, if one of `caller`'s live leases plays it: a worker fetches
    /// the libraries of its jobs, nobody else's.
    fn library(&self, caller: &Caller, sha256: &str) -> Result<Vec<u8>, Refusal> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refusal::new(400, "a library is named by its SHA-256, 64 hex digits"));
        }
        let sha256 = sha256.to_ascii_lowercase();
        let check_opponent = self.service.config.check_opponent.clone();
        let path: Option<PathBuf> = self.with(|connection, ladder| {
            let plans = store::all_rows(
                connection,
                "SELECT plan FROM server_leases WHERE worker = ?1 AND state = 'active' AND expires_at >= ?2",
                params![caller.id, now_ms()],
                |row| row.get::<String>(0),
            )
            .map_err(internal)?;
            let leased = plans
                .iter()
                .filter_map(|plan| serde_json::from_str::<Plan>(plan).ok())
                .any(|plan| plan.bots.iter().any(|bot| bot.sha256 == sha256));
            if !leased {
                return Err(Refusal::new(
                    403,
                    format!("library {sha256} is in none of this worker's live leases: a worker fetches only the bots it plays"),
                ));
            }
            library_path(connection, ladder, &check_opponent, &sha256)
        })?;
        let path = path.ok_or_else(|| Refusal::new(404, format!("no library {sha256} here")))?;
        let bytes = std::fs::read(&path).map_err(|e| internal(format!("cannot read {}: {e}", path.display())))?;
        if sha256_hex(&bytes) != sha256 {
            return Err(internal(format!("{} changed since it was rated", path.display())));
        }
        Ok(bytes)
    }

    /// The workers as anyone may see them: their host names are the organiser's to know (the
    /// admin page shows them), so `host` is left empty here.
    pub fn workers(&self) -> Result<Vec<WorkerInfo>, Refusal> {
        let mut listed = self.with(|connection, _| workers(connection).map_err(internal))?;
        for worker in &mut listed {
            worker.host = None;
        }
        Ok(listed)
    }
}

/// Checks a submitted result against the plan before it counts, and returns it as it counts:
/// the games of the plan, from its opening and at its time limit, every move legal and by the
/// side to move, and the result the one the moves lead to (a game that ends early is lost by the
/// side to move, by the failure the worker's referee recorded). Time follows the plan's one rule
/// ([`Plan::move_budget`]: its clock, limit and grace): a move the worker measured over it is its bot's timeout loss
/// there, as a local referee would have ruled, not a reason to refuse the result; a timeout
/// claimed without a time limit is refused. Failure texts are made harmless.
pub fn check_result(plan: &Plan, played: &Played, config: &crate::Config) -> Result<Played, String> {
    let expected = if plan.is_check() {
        match &played.probe {
            None => return Err("a check's result has no probe of the library".to_owned()),
            Some(probe) if !probe.is_ok() => 0,
            Some(_) => 2,
        }
    } else {
        2
    };
    if played.games.len() != expected {
        return Err(format!("{} game(s) where the plan has {expected}", played.games.len()));
    }
    let opening = plan.opening()?;
    let budget = plan.move_budget(&config.seat_options);
    let mut ruled = played.clone();
    for (slot, game) in ruled.games.iter_mut().enumerate() {
        let which = format!("game {}", slot + 1);
        if game.opening != opening.moves() || game.start != opening.position() {
            return Err(format!("{which} is not from the plan's opening {}", plan.opening));
        }
        if game.time_limit_ms != plan.time_limit_ms {
            return Err(format!("{which} was played at another time limit than the plan's"));
        }
        let mut position = game.start;
        let mut over_time = None;
        for (ply, record) in game.moves.iter().enumerate() {
            if position.is_game_over() {
                return Err(format!("{which}: move {} ({}) comes after the end of the game", ply + 1, record.mv));
            }
            if record.color != position.side_to_move() {
                return Err(format!("{which}: move {} ({}) is not by the side to move", ply + 1, record.mv));
            }
            if let Some(why) = budget.and_then(|budget| budget.overrun(record.cpu, record.elapsed)) {
                over_time = Some((ply, record.color, why));
                break;
            }
            if let Err(why) = position.check(record.mv) {
                return Err(format!("{which}: move {} ({}) is illegal: {why}", ply + 1, record.mv));
            }
            position.play_unchecked(record.mv);
        }
        if let Some((ply, loser, why)) = over_time {
            // The bot's timeout loss at that move: what follows it never happened.
            game.moves.truncate(ply);
            let detail = format!("move {}: {why}", ply + 1);
            game.result = Outcome::forfeit(loser, Failure::new(Termination::Timeout, detail));
            continue;
        }
        if let End::Forfeit { failure, .. } = &mut game.result.end {
            if failure.termination == Termination::Timeout && plan.time_limit_ms.is_none() {
                return Err(format!("{which} ends in a timeout, but the plan has no time limit"));
            }
            failure.detail = othello_arena::text::one_line(&failure.detail, 500);
            failure.stderr_tail = failure
                .stderr_tail
                .iter()
                .map(|line| othello_arena::text::one_line(line, 200))
                .filter(|line| !line.is_empty())
                .take(20)
                .collect();
        }
        let expected = if position.is_game_over() {
            Outcome::normal(&position)
        } else {
            match &game.result.end {
                End::Forfeit { loser, failure } if *loser == position.side_to_move() || game.moves.is_empty() => {
                    Outcome::forfeit(*loser, failure.clone())
                }
                _ => {
                    return Err(format!(
                        "{which} ends after {} moves without a finished board or a failure of the side to move",
                        game.moves.len()
                    ));
                }
            }
        };
        if game.result != expected {
            return Err(format!(
                "{which}'s result ({} {}–{}) is not what its moves give ({} {}–{})",
                game.result.winner_str(),
                game.result.discs[0],
                game.result.discs[1],
                expected.winner_str(),
                expected.discs[0],
                expected.discs[1]
            ));
        }
    }
    Ok(ruled)
}

/// The server's file of the library (or module) `sha256`: an upload, a pool bot, or the check
/// games' opponent.
fn library_path(
    connection: &Db,
    ladder: &Ladder,
    check_opponent: &std::path::Path,
    sha256: &str,
) -> Result<Option<PathBuf>, Refusal> {
    let upload: Option<String> = connection
        .query_row("SELECT path FROM server_uploads WHERE sha256 = ?1 LIMIT 1", [sha256], |row| row.get(0))
        .optional()
        .map_err(|e| internal(db(e)))?;
    if let Some(path) = upload {
        let path = PathBuf::from(path);
        // Taken by another replica: written here from the database first.
        crate::blobs::ensure_local(connection, &path).map_err(internal)?;
        return Ok(Some(path));
    }
    let entries = ladder.entries().map_err(internal)?;
    if let Some(entry) = entries.iter().find(|e| e.identity.kind == Kind::Library && e.identity.hash == sha256) {
        return Ok(Some(PathBuf::from(&entry.identity.locator)));
    }
    Ok((file_hash(check_opponent).ok().as_deref() == Some(sha256)).then(|| check_opponent.to_path_buf()))
}

/// The server's re-play of a worker's pair between two modules ([`crate::replay_check`]):
/// `None` when the server cannot read a module (its own trouble, not the worker's).
fn replay_verdict(
    connection: &Db,
    ladder: &Ladder,
    config: &crate::Config,
    plan: &Plan,
    played: &Played,
) -> Result<Option<Result<(), String>>, Refusal> {
    let mut modules = Vec::with_capacity(2);
    for bot in &plan.bots {
        let Some(path) = library_path(connection, ladder, &config.check_opponent, &bot.sha256)? else {
            return Ok(None);
        };
        match std::fs::read(&path) {
            Ok(bytes) if sha256_hex(&bytes) == bot.sha256 => modules.push(bytes),
            _ => return Ok(None),
        }
    }
    let verdict = crate::replay_check::replay_matches(plan, played, [&modules[0], &modules[1]], config);
    Ok(Some(verdict))
}

type RemoteState = Arc<Remote>;

/// The worker API's routes and the `/workers` page.
pub fn router<S>(service: Arc<Service>) -> Router<S> {
    let remote = Arc::new(Remote::new(service));
    Router::new()
        .route("/api/worker/claim", post(api_claim))
        .route("/api/worker/leases/{lease}/heartbeat", post(api_heartbeat))
        .route("/api/worker/leases/{lease}/release", post(api_release))
        .route("/api/worker/leases/{lease}/result", post(api_submit))
        .route("/api/worker/libraries/{sha256}", get(api_library))
        .route("/api/workers", get(api_workers))
        .route("/workers", get(page_workers))
        .layer(DefaultBodyLimit::max(MAX_RESULT_BYTES))
        .with_state(remote)
}

fn json_refusal(refusal: Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(serde_json::json!({ "error": refusal.message }))).into_response()
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

/// Runs blocking work (SQLite, the ladder's fit) off the async threads, as the caller's worker.
async fn as_worker<T: Send + 'static>(
    remote: &RemoteState,
    headers: &HeaderMap,
    work: impl FnOnce(&Remote, &Caller) -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    let remote = remote.clone();
    let token = bearer(headers);
    tokio::task::spawn_blocking(move || {
        let caller = remote.caller(token)?;
        work(&remote, &caller)
    })
    .await
    .unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}"))))
}

async fn api_claim(State(remote): State<RemoteState>, headers: HeaderMap, body: Bytes) -> Response {
    let hello: Hello = serde_json::from_slice(&body).unwrap_or_default();
    let seen = remote.service.shared.work_generation();
    let first = {
        let hello = hello.clone();
        as_worker(&remote, &headers, move |remote, caller| remote.claim(caller, &hello)).await
    };
    let claimed = match first {
        // Nothing waits: wait a little for work (long polling), then look once more.
        Ok(None) => {
            let waiting = remote.clone();
            let _ = tokio::task::spawn_blocking(move || waiting.service.shared.wait_for_work(seen)).await;
            as_worker(&remote, &headers, move |remote, caller| remote.claim(caller, &hello)).await
        }
        other => other,
    };
    match claimed {
        Ok(Some(claimed)) => axum::Json(claimed).into_response(),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_heartbeat(State(remote): State<RemoteState>, headers: HeaderMap, Path(lease): Path<String>) -> Response {
    match as_worker(&remote, &headers, move |remote, caller| remote.heartbeat(caller, &lease)).await {
        Ok(lease_ms) => axum::Json(serde_json::json!({ "lease_ms": lease_ms })).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_release(State(remote): State<RemoteState>, headers: HeaderMap, Path(lease): Path<String>) -> Response {
    match as_worker(&remote, &headers, move |remote, caller| remote.release(caller, &lease)).await {
        Ok(()) => axum::Json(serde_json::json!({ "released": true })).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_submit(
    State(remote): State<RemoteState>,
    headers: HeaderMap,
    Path(lease): Path<String>,
    body: Bytes,
) -> Response {
    match as_worker(&remote, &headers, move |remote, caller| remote.submit(caller, &lease, &body)).await {
        Ok(accepted) => axum::Json(accepted).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_library(State(remote): State<RemoteState>, headers: HeaderMap, Path(sha256): Path<String>) -> Response {
    match as_worker(&remote, &headers, move |remote, caller| remote.library(caller, &sha256)).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_workers(State(remote): State<RemoteState>) -> Response {
    let listed = tokio::task::spawn_blocking(move || remote.workers()).await;
    match listed.unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}")))) {
        Ok(workers) => axum::Json(workers).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn page_workers(State(remote): State<RemoteState>) -> Response {
    let service = remote.service.clone();
    let listed = tokio::task::spawn_blocking(move || remote.workers()).await;
    let workers = match listed.unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}")))) {
        Ok(workers) => workers,
        Err(refusal) => return json_refusal(refusal),
    };
    let local = service.config.workers;
    let body = html! {
        h1 { "Workers" }
        p.note {
            "This server plays " (local) " game(s) at once itself; the workers below play on other machines and send each game back, checked before it counts."
        }
        @if workers.is_empty() {
            p { "No remote worker yet: " code { "othello serve worker add NAME" } " gives one a token." }
        } @else {
            table #workers {
                thead { tr { th { "Worker" } th { "Cores" } th { "Games" } th { "Last seen" } th { "Playing" } } }
                tbody {
                    @for worker in &workers {
                        tr {
                            td.name { (worker.name) @if worker.revoked { " (revoked)" } }
                            td { (worker.cores.map(|c| c.to_string()).unwrap_or_else(|| "–".to_owned())) }
                            td { (worker.games) }
                            td { (worker.last_seen.map(othello_arena::ggf::format_date).unwrap_or_else(|| "never".to_owned())) }
                            td { @if worker.playing.is_empty() { "–" } @else { @for line in &worker.playing { div { (line) } } } }
                        }
                    }
                }
            }
        }
    };
    Html(crate::web::page(&service, "Workers", body).into_string()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker whose games make its bots score far above their ratings is flagged; an honest
    /// one, whose games go as the ratings say, is not.
    #[test]
    fn a_worker_whose_bots_beat_their_ratings_is_flagged_and_an_honest_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let connection = store::open(&dir.path().join("contest.sqlite3").into()).unwrap();
        for (id, name) in [(1, "subject"), (2, "opponent")] {
            connection
                .execute(
                    "INSERT INTO entries (id, kind, name, level, hash, locator, added_at) VALUES (?1, 'library', ?2, 0, ?2, ?2, 0)",
                    params![id, name],
                )
                .unwrap();
        }
        let honest = add_worker(&connection, "honest").unwrap();
        let cheat = add_worker(&connection, "cheat").unwrap();
        let id_of = |token: &str| worker_by_token(&connection, token).unwrap().unwrap().id;
        let (honest, cheat) = (id_of(&honest), id_of(&cheat));
        let mut game = 0;
        for (worker, wins) in [(honest, [1.0, 0.0]), (cheat, [1.0, 1.0])] {
            for index in 0..20 {
                game += 1;
                let score = wins[index % 2];
                connection
                    .execute(
                        "INSERT INTO games (id, black, white, black_score, termination, played_at, ggf)
                         VALUES (?1, 1, 2, ?2, 'normal', 0, '')",
                        params![game, score],
                    )
                    .unwrap();
                connection
                    .execute(
                        "INSERT INTO server_worker_games (game, worker, job, subject) VALUES (?1, ?2, 0, 1)",
                        params![game, worker],
                    )
                    .unwrap();
            }
        }
        let ratings = std::collections::HashMap::from([(1, 0.0), (2, 0.0)]);
        let tallies = tallies(&connection, &ratings).unwrap();
        let of = |name: &str| tallies.iter().find(|t| t.worker == name).unwrap().clone();
        assert_eq!(of("honest").games, 20);
        assert!(of("honest").flagged.is_none(), "{:?}", of("honest"));
        let cheat = of("cheat");
        assert!((cheat.residual - 10.0).abs() < 1e-9, "{cheat:?}");
        assert!(cheat.z > 4.0 && cheat.flagged.as_deref().is_some_and(|f| f.contains("predict")), "{cheat:?}");
    }
}
