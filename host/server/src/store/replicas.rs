//! Several `othello serve` processes on one database: replicas.
//!
//! Each process announces itself in `server_replicas` and renews its row every [`HEARTBEAT`]
//! from a thread of its own ([`crate::jobs::replicas::keep_alive`]). Its rating workers hold their games under
//! leases named after it (`local:<replica>:<worker>`), so a replica not seen for
//! [`REPLICA_TIMEOUT`] — killed, its machine gone — loses them: the next claim of any replica
//! puts them back in their queues ([`requeue_abandoned`]), and each game is still recorded once
//! (a job's slots and a final's games are recorded only under the lease that holds them).
//! Work one process must do at a time (the pool's calibration) goes to the replica that holds
//! its role in `server_leaders` ([`Replica::lead`]); the others take it over when it lapses.
//! The same keep-alive thread relays page changes between replicas through a counter in the
//! database ([`crate::jobs::replicas::ChangeRelay`]), so every replica's live pages follow every replica's games.

use std::time::Duration;

use othello_db::{Db, OptionalExtension, params};

use crate::store::db;

/// How often a replica renews its row (and relays page changes).
pub const HEARTBEAT: Duration = Duration::from_millis(500);
/// A replica not seen for this long is gone: its leases lapse, its roles pass to another.
pub const REPLICA_TIMEOUT: Duration = Duration::from_secs(10);

/// The role of the replica that calibrates the sample pool.
pub const POOL_CALIBRATION: &str = "pool-calibration";

/// The prefix of every lease a server's own workers hold.
const LOCAL_LEASE: &str = "local:";

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// This process among the replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replica {
    /// Random, hexadecimal (so it is never a pattern in `LIKE`).
    pub id: String,
}

impl Replica {
    /// Announces a new replica serving at `address`.
    pub fn register(connection: &Db, address: &str) -> Result<Replica, crate::store::Error> {
        let id = crate::store::new_token()[..16].to_owned();
        let now = now_ms();
        connection
            .execute(
                "INSERT INTO server_replicas (id, address, started_at, seen_at) VALUES (?1, ?2, ?3, ?3)",
                params![id, address, now],
            )
            .map_err(db)?;
        Ok(Replica { id })
    }

    /// The lease the server's own worker `worker` holds its games under.
    pub fn local_lease(&self, worker: usize) -> String {
        format!("{LOCAL_LEASE}{}:{worker}", self.id)
    }

    /// Renews this replica's row (re-announcing it if another replica took it for gone: its
    /// leases were requeued then, and the games it plays now are refused at their end).
    pub fn beat(&self, connection: &Db, address: &str) -> Result<(), crate::store::Error> {
        let now = now_ms();
        let renewed = connection
            .execute("UPDATE server_replicas SET seen_at = ?2 WHERE id = ?1", params![self.id, now])
            .map_err(db)?;
        if renewed == 0 {
            connection
                .execute(
                    "INSERT INTO server_replicas (id, address, started_at, seen_at) VALUES (?1, ?2, ?3, ?3)
                     ON CONFLICT (id) DO NOTHING",
                    params![self.id, address, now],
                )
                .map_err(db)?;
        }
        // Its roles last as long as it does.
        connection
            .execute(
                "UPDATE server_leaders SET expires_at = ?2 WHERE replica = ?1",
                params![self.id, now + REPLICA_TIMEOUT.as_millis() as i64],
            )
            .map_err(db)?;
        // Rows of replicas long gone are only clutter.
        connection
            .execute("DELETE FROM server_replicas WHERE seen_at < ?1", [now - 100 * REPLICA_TIMEOUT.as_millis() as i64])
            .map_err(db)?;
        Ok(())
    }

    /// Leaves the replicas (a clean stop): its roles are free at once.
    pub fn leave(&self, connection: &Db) -> Result<(), crate::store::Error> {
        let transaction = connection.transaction().map_err(db)?;
        transaction.execute("DELETE FROM server_leaders WHERE replica = ?1", [&self.id]).map_err(db)?;
        transaction.execute("DELETE FROM server_replicas WHERE id = ?1", [&self.id]).map_err(db)?;
        transaction.commit().map_err(db)
    }

    /// Takes or renews `role` for [`REPLICA_TIMEOUT`]: true when this replica holds it now (it
    /// was free, lapsed, or already this replica's).
    pub fn lead(&self, connection: &Db, role: &str) -> Result<bool, crate::store::Error> {
        let now = now_ms();
        let transaction = connection.transaction().map_err(db)?;
        let holder: Option<(String, i64)> = transaction
            .query_row("SELECT replica, expires_at FROM server_leaders WHERE role = ?1", [role], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()
            .map_err(db)?;
        let expires = now + REPLICA_TIMEOUT.as_millis() as i64;
        let mine = match holder {
            None => {
                transaction
                    .execute(
                        "INSERT INTO server_leaders (role, replica, expires_at) VALUES (?1, ?2, ?3)",
                        params![role, self.id, expires],
                    )
                    .map_err(db)?;
                true
            }
            Some((replica, expires_at)) if replica == self.id || expires_at < now => {
                transaction
                    .execute(
                        "UPDATE server_leaders SET replica = ?2, expires_at = ?3 WHERE role = ?1",
                        params![role, self.id, expires],
                    )
                    .map_err(db)?;
                true
            }
            Some(_) => false,
        };
        transaction.commit().map_err(db)?;
        Ok(mine)
    }

    /// Gives `role` up (its work is done).
    pub fn resign(&self, connection: &Db, role: &str) -> Result<(), crate::store::Error> {
        connection
            .execute("DELETE FROM server_leaders WHERE role = ?1 AND replica = ?2", params![role, self.id])
            .map(drop)
            .map_err(db)
    }
}

/// The condition on a queue's `lease` column that its holder is a server's own worker of a
/// replica gone (not seen since `?1`).
fn abandoned(lease_column: &str) -> String {
    format!(
        "{lease_column} LIKE '{LOCAL_LEASE}%' AND NOT EXISTS (SELECT 1 FROM server_replicas r
           WHERE r.seen_at >= ?1 AND {lease_column} LIKE '{LOCAL_LEASE}' || r.id || ':%')"
    )
}

/// Puts back in their queues the jobs, final games and test games the workers of a replica gone
/// were playing (a crash, `kill -9`, a machine lost). Returns how many.
pub fn requeue_abandoned(connection: &Db) -> Result<usize, crate::store::Error> {
    let seen_since = now_ms() - REPLICA_TIMEOUT.as_millis() as i64;
    let jobs = connection
        .execute(
            &format!(
                "UPDATE server_jobs SET state = CASE kind WHEN 'test' THEN 'done' ELSE 'queued' END, lease = NULL,
                   lease_expires = NULL WHERE state = 'running' AND {}",
                abandoned("lease")
            ),
            [seen_since],
        )
        .map_err(db)?;
    let finals = connection
        .execute(
            &format!(
                "UPDATE server_final_games SET state = 'queued', lease = NULL WHERE state = 'running' AND {}",
                abandoned("lease")
            ),
            [seen_since],
        )
        .map_err(db)?;
    let tests = connection
        .execute(
            &format!(
                "UPDATE server_test_games SET state = 'queued', lease = NULL WHERE state = 'running' AND {}",
                abandoned("lease")
            ),
            [seen_since],
        )
        .map_err(db)?;
    Ok(jobs + finals + tests)
}

/// Puts back in their queues the games a server of an earlier release was playing when it
/// stopped (its workers' leases, `local-<n>`, name no replica). Returns how many.
pub fn requeue_before_replicas(connection: &Db) -> Result<usize, crate::store::Error> {
    let mut requeued = connection
        .execute(
            "UPDATE server_jobs SET state = CASE kind WHEN 'test' THEN 'done' ELSE 'queued' END, lease = NULL,
               lease_expires = NULL WHERE state = 'running' AND lease LIKE 'local-%'",
            [],
        )
        .map_err(db)?;
    for table in ["server_final_games", "server_test_games"] {
        requeued += connection
            .execute(
                &format!(
                    "UPDATE {table} SET state = 'queued', lease = NULL WHERE state = 'running' AND lease LIKE 'local-%'"
                ),
                [],
            )
            .map_err(db)?;
    }
    Ok(requeued)
}

/// Reports this replica's live games (JSON) in its row.
pub fn report_live(connection: &Db, replica: &str, report: &str) -> Result<(), crate::store::Error> {
    connection.execute("UPDATE server_replicas SET live = ?2 WHERE id = ?1", params![replica, report])?;
    Ok(())
}

/// The live games the other replicas seen lately reported (JSON each), in the order of their ids.
pub fn live_reports(connection: &Db, replica: &str) -> Result<Vec<String>, crate::store::Error> {
    Ok(connection.query_map(
        "SELECT live FROM server_replicas WHERE id != ?1 AND seen_at >= ?2 ORDER BY id",
        params![replica, now_ms() - REPLICA_TIMEOUT.as_millis() as i64],
        |row| row.get(0),
    )?)
}

/// Bumps the shared page counter; returns its new value.
pub fn bump_counter(connection: &Db) -> Result<i64, crate::store::Error> {
    Ok(connection.query_row(
        "UPDATE server_change_counter SET value = value + 1 WHERE name = 'pages' RETURNING value",
        [],
        |row| row.get(0),
    )?)
}

/// The shared page counter.
pub fn counter(connection: &Db) -> Result<i64, crate::store::Error> {
    connection
        .query_row("SELECT value FROM server_change_counter WHERE name = 'pages'", [], |row| row.get(0))
        .map_err(db)
}
