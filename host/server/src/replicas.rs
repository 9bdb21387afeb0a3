//! Several `othello serve` processes on one database: replicas.
//!
//! Each process announces itself in `server_replicas` and renews its row every [`HEARTBEAT`]
//! from a thread of its own ([`Replica::keep_alive`]). Its rating workers hold their games under
//! leases named after it (`local:<replica>:<worker>`), so a replica not seen for
//! [`REPLICA_TIMEOUT`] — killed, its machine gone — loses them: the next claim of any replica
//! puts them back in their queues ([`requeue_abandoned`]), and each game is still recorded once
//! (a job's slots and a final's games are recorded only under the lease that holds them).
//! Work one process must do at a time (the pool's calibration) goes to the replica that holds
//! its role in `server_leaders` ([`Replica::lead`]); the others take it over when it lapses.
//! The same keep-alive thread relays page changes between replicas through a counter in the
//! database ([`ChangeRelay`]), so every replica's live pages follow every replica's games.

use std::sync::atomic::Ordering;
use std::time::Duration;

use othello_db::{Db, OptionalExtension, params};

use crate::Shared;

/// How often a replica renews its row (and relays page changes).
pub const HEARTBEAT: Duration = Duration::from_millis(500);
/// A replica not seen for this long is gone: its leases lapse, its roles pass to another.
pub const REPLICA_TIMEOUT: Duration = Duration::from_secs(10);

/// The role of the replica that calibrates the sample pool.
pub const POOL_CALIBRATION: &str = "pool-calibration";

/// The prefix of every lease a server's own workers hold.
const LOCAL_LEASE: &str = "local:";

fn db(e: othello_db::Error) -> String {
    format!("database: {e}")
}

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
    pub fn register(connection: &Db, address: &str) -> Result<Replica, String> {
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
    pub fn beat(&self, connection: &Db, address: &str) -> Result<(), String> {
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
    pub fn leave(&self, connection: &Db) -> Result<(), String> {
        let transaction = connection.transaction().map_err(db)?;
        transaction.execute("DELETE FROM server_leaders WHERE replica = ?1", [&self.id]).map_err(db)?;
        transaction.execute("DELETE FROM server_replicas WHERE id = ?1", [&self.id]).map_err(db)?;
        transaction.commit().map_err(db)
    }

    /// Takes or renews `role` for [`REPLICA_TIMEOUT`]: true when this replica holds it now (it
    /// was free, lapsed, or already this replica's).
    pub fn lead(&self, connection: &Db, role: &str) -> Result<bool, String> {
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
    pub fn resign(&self, connection: &Db, role: &str) -> Result<(), String> {
        connection
            .execute("DELETE FROM server_leaders WHERE role = ?1 AND replica = ?2", params![role, self.id])
            .map(drop)
            .map_err(db)
    }

    /// Renews this replica's row and relays page changes every [`HEARTBEAT`] until the server
    /// stops; then leaves. Runs on a thread of its own.
    pub fn keep_alive(&self, connection: &Db, address: &str, shared: &Shared) {
        let mut relay = ChangeRelay::new(connection).unwrap_or_else(|why| {
            eprintln!("replica {}: {why}", self.id);
            ChangeRelay { shown: 0, counter: 0, moves_reported: 0, others: String::new() }
        });
        let mut last_beat: Option<std::time::Instant> = None;
        while !shared.workers_stopped.load(Ordering::SeqCst) {
            if last_beat.is_none_or(|at| at.elapsed() >= HEARTBEAT) {
                if let Err(why) = self.beat(connection, address) {
                    eprintln!("replica {}: cannot renew its row: {why}", self.id);
                }
                last_beat = Some(std::time::Instant::now());
            }
            if shared.stop.load(Ordering::SeqCst) {
                // Stopping: the workers finish their games; nothing to relay to pages any more.
                std::thread::sleep(HEARTBEAT / 10);
                continue;
            }
            if let Err(why) = relay.relay(connection, shared) {
                eprintln!("replica {}: cannot relay page changes: {why}", self.id);
            }
            shared.sleep_unless_stopped(HEARTBEAT);
        }
        if let Err(why) = self.leave(connection) {
            eprintln!("replica {}: {why}", self.id);
        }
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
pub fn requeue_abandoned(connection: &Db) -> Result<usize, String> {
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
pub fn requeue_before_replicas(connection: &Db) -> Result<usize, String> {
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

/// Relays page changes between this replica and the others: a change here bumps the shared
/// counter; the counter moved by another replica tells this one's pages. The same for the games
/// being played: each replica reports its own in its row and reads the others'.
pub struct ChangeRelay {
    /// This replica's own change count last relayed.
    shown: u64,
    /// The shared counter last seen.
    counter: i64,
    /// This replica's move count last reported.
    moves_reported: u64,
    /// The other replicas' games as last read.
    others: String,
}

impl ChangeRelay {
    fn new(connection: &Db) -> Result<ChangeRelay, String> {
        Ok(ChangeRelay { shown: 0, counter: counter(connection)?, moves_reported: 0, others: String::new() })
    }

    /// Reports this replica's live games when they moved, and takes the others'.
    fn relay_live(&mut self, connection: &Db, shared: &Shared) -> Result<(), String> {
        let moves = *shared.live.moves.borrow();
        if moves != self.moves_reported {
            let report = serde_json::to_string(&shared.live.report()).expect("live games serialize");
            connection
                .execute("UPDATE server_replicas SET live = ?2 WHERE id = ?1", params![shared.replica.id, report])
                .map_err(db)?;
            self.moves_reported = moves;
        }
        let reports: Vec<String> = connection
            .query_map(
                "SELECT live FROM server_replicas WHERE id != ?1 AND seen_at >= ?2 ORDER BY id",
                params![shared.replica.id, now_ms() - REPLICA_TIMEOUT.as_millis() as i64],
                |row| row.get(0),
            )
            .map_err(db)?;
        let others = reports.concat();
        if others != self.others {
            let games = reports
                .iter()
                .flat_map(|report| serde_json::from_str::<Vec<crate::live::ReportedGame>>(report).unwrap_or_default())
                .collect();
            self.others = others;
            shared.live.set_others(games);
            // Its own bump is not this replica's move.
            self.moves_reported = *shared.live.moves.borrow();
        }
        Ok(())
    }

    fn relay(&mut self, connection: &Db, shared: &Shared) -> Result<(), String> {
        self.relay_live(connection, shared)?;
        let local = *shared.changes.borrow();
        if local != self.shown {
            self.counter = connection
                .query_row(
                    "UPDATE server_change_counter SET value = value + 1 WHERE name = 'pages' RETURNING value",
                    [],
                    |row| row.get(0),
                )
                .map_err(db)?;
            self.shown = local;
            return Ok(());
        }
        let now = counter(connection)?;
        if now != self.counter {
            self.counter = now;
            shared.changed();
            self.shown = *shared.changes.borrow();
        }
        Ok(())
    }
}

fn counter(connection: &Db) -> Result<i64, String> {
    connection
        .query_row("SELECT value FROM server_change_counter WHERE name = 'pages'", [], |row| row.get(0))
        .map_err(db)
}
