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

use othello_db::Db;

use othello_arena::record::{End, Outcome};
use othello_arena::seat::{Failure, Termination};
use othello_ladder::Ladder;
use othello_ladder::identity::{Kind, file_hash};

use crate::jobs::worker::{Planned, complete_job, plan_job};
pub use crate::plan::{Accepted, Claimed, Hello};
use crate::plan::{Plan, Played};
use crate::service::{Refusal, Service};
use crate::store::leases;
pub use crate::store::workers::{
    Caller, LOAD_VERDICTS_NEEDED, RefusedResult, WorkerInfo, WorkerTally, add_worker, purge_worker, refusals,
    revoke_worker, tallies, workers,
};
use crate::store::workers::{job_by_id, load_verdict_confirmed, now_ms, requeue, worker_by_token};
use crate::store::{self, Job, JobKind, Next, Status, sha256_hex};

/// Default lease of a remote worker's job: lapses unless a heartbeat renews it within this time.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);
/// Default hard cap of a lease, however often it is renewed: a worker cannot hold a job forever.
pub const DEFAULT_LEASE_CAP: Duration = Duration::from_secs(30 * 60);
/// Longest host name a worker's claim may set (what is longer is cut).
const MAX_HOST_CHARS: usize = 64;

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
    crate::store::blobs::ensure_local(connection, &upload.path)?;
    let bytes = std::fs::read(&upload.path).map_err(|e| format!("cannot read {}: {e}", upload.path.display()))?;
    let probe = played.probe.as_mut().ok_or("a check's result has no probe of the library")?;
    crate::service::inspect::probe_matches_exports(probe, &bytes)?;
    if let othello_arena::plugins::PluginStatus::Error(why) = &mut probe.status {
        *why = othello_arena::text::one_line(why, 500);
    } else {
        probe.name = othello_arena::seat::sanitize_bot_name(&probe.name)
            .ok_or("the report gives the bot no visible name (a loading bot always has one)")?;
    }
    Ok(played)
}

/// A live lease's job and plan, or why the lease is not live: the status, the reason and the
/// job it was for.
type LeaseCheck = Result<(Job, Plan), (u16, String, Option<i64>)>;

/// The worker API's side of the server: its own connection to the ladder, one request at a
/// time (every request is short: the games are played on the workers).
pub struct Remote {
    pub service: Arc<Service>,
    state: Mutex<Option<(Db, Ladder)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn internal(message: impl ToString) -> Refusal {
    Refusal::internal(message)
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
    pub fn caller(&self, token: Option<String>) -> Result<Caller, Refusal> {
        let Some(token) = token else {
            return Err(Refusal::new(401, "a worker sends its token as `Authorization: Bearer TOKEN`"));
        };
        self.with(|connection, _| {
            if let Some(caller) = worker_by_token(connection, &token)? {
                leases::seen(connection, caller.id)?;
                return Ok(caller);
            }
            if store::entrant_by_token(connection, &token)?.is_some() {
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
        let _ = self.with(|connection, _| Ok(leases::note_refusal(connection, caller.id, lease, job, &reason)?));
        Refusal::new(status, reason)
    }

    /// Claims the next job for `caller`, if one waits: decides what it plays and leases it.
    pub fn claim(&self, caller: &Caller, hello: &Hello) -> Result<Option<Claimed>, Refusal> {
        let config = self.service.config.clone();
        let shared = self.service.shared.clone();
        let lease_ms = config.lease_duration.as_millis() as u64;
        self.with(|connection, ladder| {
            let host = othello_arena::text::one_line(&hello.host, MAX_HOST_CHARS);
            leases::note_host(connection, caller.id, &host, hello.cores)?;
            let mut refreshed = false;
            loop {
                let lease = store::new_token();
                let issued = now_ms();
                let expires = issued + (lease_ms as i64).min(self.lease_cap_ms());
                // Test games come after the checks and before every ladder job, as on the
                // server's own workers; their queue is their own table.
                store::requeue_lapsed(connection, issued)?;
                let test = crate::store::test_games::claim(connection, &lease)?;
                let job = match &test {
                    Some(test) => Some(store::lease_test_job(connection, test, &lease, expires)?),
                    None => {
                        // While the sample pool is calibrated, placements wait (checks do not).
                        let checks_only = shared.placements_wait();
                        store::claim_job_until(connection, &lease, Some(expires), Some(caller.id), checks_only)?
                    }
                };
                let Some(job) = job else {
                    if config.continuous_games
                        && !refreshed
                        && !shared.placements_wait()
                        && store::queue_refresh(connection)?
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
                        crate::store::test_games::finish(connection, job.number as i64, Some(&why))?;
                        store::finish_test_job(connection, &job)?;
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
                let plan_json = serde_json::to_string(&plan).expect("plans serialize");
                leases::add(connection, &lease, job.id, caller.id, &plan_json, issued, expires)?;
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
        let Some(leases::Lease { job: job_id, worker, plan, issued_at, expires_at, state }) =
            leases::lease(connection, lease)?
        else {
            return Ok(Err((409, format!("there is no lease {lease}"), None)));
        };
        if worker != caller.id {
            return Ok(Err((409, format!("lease {lease} is another worker's"), Some(job_id))));
        }
        let job = job_by_id(connection, job_id)?;
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
    pub fn heartbeat(&self, caller: &Caller, lease: &str) -> Result<u64, Refusal> {
        let lease_ms = self.service.config.lease_duration.as_millis() as i64;
        let cap = self.lease_cap_ms();
        self.with(|connection, _| match self.live_lease(connection, caller, lease)? {
            Err((status, why, _)) => Err(Refusal::new(status, why)),
            Ok((job, _)) => {
                let issued = leases::lease(connection, lease)?.map_or(0, |held| held.issued_at);
                let now = now_ms();
                let expires = (now + lease_ms).min(issued + cap);
                leases::renew(connection, lease, job.id, expires)?;
                Ok((expires - now).max(0) as u64)
            }
        })
    }

    /// Gives a lease back unplayed (a worker stopping): its job goes back to the queue at once.
    pub fn release(&self, caller: &Caller, lease: &str) -> Result<(), Refusal> {
        self.with(|connection, _| match self.live_lease(connection, caller, lease)? {
            Err((status, why, _)) => Err(Refusal::new(status, why)),
            Ok((job, _)) => {
                requeue(connection, job.id)?;
                leases::set_state(connection, lease, "released")?;
                Ok(())
            }
        })?;
        self.service.shared.work_added();
        self.service.shared.changed();
        Ok(())
    }

    pub fn submit(&self, caller: &Caller, lease: &str, body: &[u8]) -> Result<Accepted, Refusal> {
        let result_hash = sha256_hex(body);
        let config = self.service.config.clone();
        let shared = self.service.shared.clone();
        let played: Played = match serde_json::from_slice(body) {
            Ok(played) => played,
            Err(e) => return Err(self.refuse(caller, lease, None, 400, format!("the result is not readable: {e}"))),
        };
        let outcome = self.with(|connection, ladder| {
            // Accepted before? The same result again is harmless; another is refused.
            let earlier = leases::result_of(connection, lease)?;
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
            let checked = check_result(&plan, &played, &config)
                .and_then(|played| if plan.is_check() { verify_probe(connection, &job, played) } else { Ok(played) });
            // A sample of the pairs between two modules is played again here: the same moves, or
            // the result is forged (or the worker broken).
            let checked = checked.and_then(|played| {
                if !crate::jobs::replay_check::sampled(&plan, lease, config.wasm_replay_percent) {
                    return Ok(played);
                }
                let Ok(Some(verdict)) = replay_verdict(connection, ladder, &config, &plan, &played) else {
                    return Ok(played);
                };
                if let Err(why) =
                    crate::jobs::replay_check::note(connection, caller.id, job.id, lease, &verdict, now_ms())
                {
                    eprintln!("worker {}: the re-play of job {} was not noted: {why}", caller.name, job.id);
                }
                verdict.map(|()| played).map_err(|why| {
                    format!("the server played this pair of WebAssembly bots again and got other moves: {why}")
                })
            });
            let played = match checked {
                Ok(played) => played,
                Err(why) => {
                    // The job goes back to the queue for an honest worker.
                    requeue(connection, job.id)?;
                    leases::set_state(connection, lease, "refused")?;
                    return Ok(Err((422, why, Some(job.id))));
                }
            };
            let mark_submitted = |connection: &Db| leases::mark_submitted(connection, lease, &result_hash);
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
                store::set_status(connection, job.upload, Status::Checking, Some(&note))?;
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
                    store::set_status(connection, job.upload, Status::Checking, Some(&note))?;
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
                    && let Some(game) = store::job_game(connection, job.id, slot)?
                {
                    leases::note_game(connection, game, caller.id, job.id, plan.bots[0].entry)?;
                }
            }
            let games = if plan.is_check() { 0 } else { played.games.len() };
            mark_submitted(connection)?;
            leases::count_games(connection, caller.id, played.games.len() as i64)?;
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
    pub fn library(&self, caller: &Caller, sha256: &str) -> Result<Vec<u8>, Refusal> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refusal::new(400, "a library is named by its SHA-256, 64 hex digits"));
        }
        let sha256 = sha256.to_ascii_lowercase();
        let check_opponent = self.service.config.check_opponent.clone();
        let path: Option<PathBuf> = self.with(|connection, ladder| {
            let plans = leases::live_plans(connection, caller.id, now_ms())?;
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
pub fn check_result(plan: &Plan, played: &Played, config: &crate::config::Config) -> Result<Played, String> {
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
    let upload = leases::upload_path(connection, sha256)?;
    if let Some(path) = upload {
        let path = PathBuf::from(path);
        // Taken by another replica: written here from the database first.
        crate::store::blobs::ensure_local(connection, &path).map_err(internal)?;
        return Ok(Some(path));
    }
    let entries = ladder.entries().map_err(internal)?;
    if let Some(entry) = entries.iter().find(|e| e.identity.kind == Kind::Library && e.identity.hash == sha256) {
        return Ok(Some(PathBuf::from(&entry.identity.locator)));
    }
    Ok((file_hash(check_opponent).ok().as_deref() == Some(sha256)).then(|| check_opponent.to_path_buf()))
}

/// The server's re-play of a worker's pair between two modules ([`crate::jobs::replay_check`]):
/// `None` when the server cannot read a module (its own trouble, not the worker's).
fn replay_verdict(
    connection: &Db,
    ladder: &Ladder,
    config: &crate::config::Config,
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
    let verdict = crate::jobs::replay_check::replay_matches(plan, played, [&modules[0], &modules[1]], config);
    Ok(Some(verdict))
}
