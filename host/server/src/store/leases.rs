//! The remote workers' leases: who holds which job, under which plan, until when, and what came
//! of it (the rules of a lease are [`crate::jobs::remote`]'s).

use othello_db::{Db, OptionalExtension, params};

use othello_arena::record::unix_now;

use crate::store::{Error, all_rows};

/// A lease as stored.
#[derive(Debug, Clone)]
pub struct Lease {
    pub job: i64,
    pub worker: i64,
    /// The plan, as JSON.
    pub plan: String,
    pub issued_at: i64,
    pub expires_at: i64,
    /// `active`, `submitted`, `released`, `refused` or `dropped`.
    pub state: String,
}

/// Lease `id`, if there is one.
pub fn lease(connection: &Db, id: &str) -> Result<Option<Lease>, Error> {
    Ok(connection
        .query_row(
            "SELECT job, worker, plan, issued_at, expires_at, state FROM server_leases WHERE id = ?1",
            [id],
            |row| {
                Ok(Lease {
                    job: row.get(0)?,
                    worker: row.get(1)?,
                    plan: row.get(2)?,
                    issued_at: row.get(3)?,
                    expires_at: row.get(4)?,
                    state: row.get(5)?,
                })
            },
        )
        .optional()?)
}

/// Leases job `job` to `worker` as `id`, playing `plan` (JSON), from `issued` until `expires`
/// (Unix milliseconds).
pub fn add(
    connection: &Db,
    id: &str,
    job: i64,
    worker: i64,
    plan: &str,
    issued: i64,
    expires: i64,
) -> Result<(), Error> {
    connection.execute(
        "INSERT INTO server_leases (id, job, worker, plan, issued_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, job, worker, plan, issued, expires],
    )?;
    Ok(())
}

/// Moves lease `id` and its job `job` to expire at `expires`.
pub fn renew(connection: &Db, id: &str, job: i64, expires: i64) -> Result<(), Error> {
    connection.execute("UPDATE server_leases SET expires_at = ?2 WHERE id = ?1", params![id, expires])?;
    connection.execute("UPDATE server_jobs SET lease_expires = ?2 WHERE id = ?1", params![job, expires])?;
    Ok(())
}

/// Ends lease `id` as `state` (`released`, `refused`).
pub fn set_state(connection: &Db, id: &str, state: &str) -> Result<(), Error> {
    connection.execute("UPDATE server_leases SET state = ?2 WHERE id = ?1", params![id, state])?;
    Ok(())
}

/// What was sent under a lease: its job, worker, the result's SHA-256 (if any) and its state.
pub type Sent = (i64, i64, Option<String>, String);

/// The result sent under lease `id`.
pub fn result_of(connection: &Db, id: &str) -> Result<Option<Sent>, Error> {
    Ok(connection
        .query_row("SELECT job, worker, result_sha256, state FROM server_leases WHERE id = ?1", [id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?)
}

/// Notes that lease `id` was answered by the result of SHA-256 `result`.
pub fn mark_submitted(connection: &Db, id: &str, result: &str) -> Result<(), Error> {
    connection.execute(
        "UPDATE server_leases SET state = 'submitted', result_sha256 = ?2 WHERE id = ?1",
        params![id, result],
    )?;
    Ok(())
}

/// The plans (JSON) of `worker`'s leases live at `now_ms`.
pub fn live_plans(connection: &Db, worker: i64, now_ms: i64) -> Result<Vec<String>, Error> {
    all_rows(
        connection,
        "SELECT plan FROM server_leases WHERE worker = ?1 AND state = 'active' AND expires_at >= ?2",
        params![worker, now_ms],
        |row| row.get::<String>(0),
    )
}

/// A worker's `last_seen` is renewed at most this often (seconds).
const LAST_SEEN_EVERY_SECS: i64 = 5;

/// Notes that `worker` was seen now.
pub fn seen(connection: &Db, worker: i64) -> Result<(), Error> {
    // Once a few seconds is enough for the workers' page; a write a request would cost every
    // claim and heartbeat a commit.
    let now = unix_now() as i64;
    connection.execute(
        "UPDATE server_workers SET last_seen = ?2 WHERE id = ?1 AND coalesce(last_seen, 0) < ?3",
        params![worker, now, now - LAST_SEEN_EVERY_SECS],
    )?;
    Ok(())
}

/// What `worker` says of itself when it claims.
pub fn note_host(connection: &Db, worker: i64, host: &str, cores: u32) -> Result<(), Error> {
    // Written only when it changed (a commit less on every claim).
    connection.execute(
        "UPDATE server_workers SET host = ?2, cores = ?3
         WHERE id = ?1 AND NOT (coalesce(host, '') = ?2 AND coalesce(cores, -1) = ?3)",
        params![worker, host, cores],
    )?;
    Ok(())
}

/// Logs a result refused from `worker`.
pub fn note_refusal(connection: &Db, worker: i64, lease: &str, job: Option<i64>, reason: &str) -> Result<(), Error> {
    connection.execute(
        "INSERT INTO server_worker_refusals (worker, lease, job, reason, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![worker, lease, job, reason, unix_now() as i64],
    )?;
    Ok(())
}

/// Notes that ladder game `game` of job `job` came from `worker` (`subject`: the job's own bot's
/// entry), for the tallies and the purge.
pub fn note_game(connection: &Db, game: i64, worker: i64, job: i64, subject: i64) -> Result<(), Error> {
    connection.execute(
        "INSERT INTO server_worker_games (game, worker, job, subject) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
        params![game, worker, job, subject],
    )?;
    Ok(())
}

/// Adds `games` to `worker`'s count.
pub fn count_games(connection: &Db, worker: i64, games: i64) -> Result<(), Error> {
    connection.execute("UPDATE server_workers SET games = games + ?2 WHERE id = ?1", params![worker, games])?;
    Ok(())
}

/// The stored path of an upload with SHA-256 `sha256`, if any.
pub fn upload_path(connection: &Db, sha256: &str) -> Result<Option<String>, Error> {
    Ok(connection
        .query_row("SELECT path FROM server_uploads WHERE sha256 = ?1 LIMIT 1", [sha256], |row| row.get(0))
        .optional()?)
}
