//! The remote workers' tables: the workers and their tokens, their games and tallies, the
//! results refused and the re-plays of their games.

use std::collections::HashMap;

use othello_db::{Db, OptionalExtension, params};
use serde::Serialize;

use othello_arena::record::unix_now;
use othello_ladder::Ladder;

use crate::plan::Plan;
use crate::store::db;
use crate::store::{self, Job, TokenHolder};

/// Workers that must find a check's library unloadable before its upload is rejected on their
/// word alone (the server's own workers are believed at once).
pub const LOAD_VERDICTS_NEEDED: i64 = 2;

pub fn now_ms() -> i64 {
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
pub fn add_worker(connection: &Db, name: &str) -> Result<String, crate::store::Error> {
    store::add_token_holder(connection, TokenHolder::Worker, name)
}

/// Every worker, with what each is playing now.
pub fn workers(connection: &Db) -> Result<Vec<WorkerInfo>, crate::store::Error> {
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
pub fn revoke_worker(connection: &mut Db, name: &str) -> Result<usize, crate::store::Error> {
    let transaction = connection.transaction().map_err(db)?;
    let id: Option<i64> = transaction
        .query_row("SELECT id FROM server_workers WHERE name = ?1 AND revoked_at IS NULL", [name], |row| row.get(0))
        .optional()
        .map_err(db)?;
    let Some(id) = id else { return Err(format!("no worker `{name}` with a valid token").into()) };
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
pub fn tallies(
    connection: &Db,
    ratings: &std::collections::HashMap<i64, f64>,
) -> Result<Vec<WorkerTally>, crate::store::Error> {
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
    for (worker, (differed, replayed, last)) in replay_tallies(connection)? {
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
pub fn purge_worker(connection: &mut Db, ladder: &mut Ladder, name: &str) -> Result<usize, crate::store::Error> {
    let transaction = connection.transaction().map_err(db)?;
    let id: Option<i64> = transaction
        .query_row("SELECT id FROM server_workers WHERE name = ?1", [name], |row| row.get(0))
        .optional()
        .map_err(db)?;
    let Some(id) = id else { return Err(format!("there is no worker `{name}`").into()) };
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
pub fn refusals(connection: &Db) -> Result<Vec<RefusedResult>, crate::store::Error> {
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
pub fn requeue(connection: &Db, job: i64) -> Result<(), crate::store::Error> {
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
        .map_err(db)
}

/// Notes `caller`'s finding that the check's library does not load; true once enough distinct
/// workers found it ([`LOAD_VERDICTS_NEEDED`]), so the upload may be rejected.
pub fn load_verdict_confirmed(
    connection: &Db,
    job: &Job,
    caller: &Caller,
    why: &str,
) -> Result<bool, crate::store::Error> {
    connection
        .execute(
            "INSERT INTO server_load_verdicts (job, worker, reason, at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            params![job.id, caller.id, othello_arena::text::one_line(why, 500), unix_now() as i64],
        )
        .map_err(db)?;
    let verdicts: i64 = connection
        .query_row("SELECT count(DISTINCT worker) FROM server_load_verdicts WHERE job = ?1", [job.id], |row| row.get(0))
        .map_err(db)?;
    Ok(verdicts >= LOAD_VERDICTS_NEEDED)
}

/// A worker that sent a valid token.
#[derive(Debug, Clone)]
pub struct Caller {
    pub id: i64,
    pub name: String,
}

pub fn worker_by_token(connection: &Db, token: &str) -> Result<Option<Caller>, crate::store::Error> {
    let holder = store::token_holder(connection, TokenHolder::Worker, token)?;
    Ok(holder.map(|(id, name, _)| Caller { id, name }))
}

/// A job with its state (`queued`, `running`, `done`) and the lease holding it.
pub type JobState = (Job, String, Option<String>);

pub fn job_by_id(connection: &Db, id: i64) -> Result<Option<JobState>, crate::store::Error> {
    connection
        .query_row("SELECT id, kind, upload, number, state, lease FROM server_jobs WHERE id = ?1", [id], |row| {
            Ok((store::job_row(row)?, row.get(4)?, row.get(5)?))
        })
        .optional()
        .map_err(db)
}

/// Notes a re-play of `worker`'s result for `job`.
pub fn note_replay(
    connection: &Db,
    worker: i64,
    job: i64,
    lease: &str,
    verdict: &Result<(), String>,
    now_ms: i64,
) -> Result<(), crate::store::Error> {
    let detail = verdict.as_ref().err().cloned().unwrap_or_default();
    connection
        .execute(
            "INSERT INTO server_worker_replays (worker, job, lease, matched, detail, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![worker, job, lease, verdict.is_ok(), detail, now_ms],
        )
        .map(drop)
        .map_err(|e| format!("server database: {e}").into())
}

/// Each worker's re-plays by name: (those that differed, all), and the last difference.
pub fn replay_tallies(connection: &Db) -> Result<HashMap<String, (u64, u64, String)>, crate::store::Error> {
    let rows = store::all_rows(
        connection,
        "SELECT w.name, r.matched, r.detail FROM server_worker_replays r JOIN server_workers w ON w.id = r.worker
         ORDER BY r.at, r.job, r.lease",
        [],
        |row| Ok((row.get::<String>(0)?, row.get::<bool>(1)?, row.get::<String>(2)?)),
    )?;
    let mut tallies: HashMap<String, (u64, u64, String)> = HashMap::new();
    for (worker, matched, detail) in rows {
        let tally = tallies.entry(worker).or_default();
        tally.1 += 1;
        if !matched {
            tally.0 += 1;
            tally.2 = detail;
        }
    }
    Ok(tallies)
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
