//! SQLite files made before the server recorded its migrations (server schema 1 to 3, kept in
//! the ladder's `settings` as `server_schema`): the steps those programs took, in order, to bring
//! such a file to what migration 1 creates. Nothing else runs them.

use std::path::Path;

use othello_db::{Db, OptionalExtension, params};

/// The server's schema version, in the ladder's `settings` table.
/// The last server schema version before migrations were recorded.
const SERVER_SCHEMA_VERSION: i64 = 3;
const SERVER_SCHEMA_KEY: &str = "server_schema";

const SERVER_SCHEMA: &str = "
CREATE TABLE server_entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,           -- SHA-256 of the token, hex; the token itself is never stored
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE TABLE server_uploads (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    sha256 TEXT NOT NULL,
    file_name TEXT NOT NULL,
    path TEXT NOT NULL,                        -- uploads/<sha256>/<file name>, in a folder of its own
    size INTEGER NOT NULL,
    uploaded_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'checking', 'rating', 'rated', 'rejected')),
    reason TEXT,                               -- why it was rejected, or why its placement stopped
    report TEXT,                               -- the check report, JSON
    entry INTEGER REFERENCES entries(id)       -- its ladder entry once checked
);
CREATE INDEX server_uploads_by_entrant ON server_uploads(entrant, uploaded_at);
-- Checks first, then placement pairs, then (when nothing else waits) refresh pairs of the rated
-- bots; a job a worker held when the server died goes back to
-- the queue on restart. `lease` names who holds a running job (a local worker now; a remote
-- worker's lease with its expiry later).
CREATE TABLE server_jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('check', 'pair', 'refresh')),
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    number INTEGER NOT NULL DEFAULT 0,         -- the pair's number in the upload's placement
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    lease_expires INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (upload, kind, number)
);
CREATE INDEX server_jobs_queue ON server_jobs(state, kind, id);
-- Which job played which ladder game: written in the game's own transaction, so a job played
-- again after a crash records each of its games once.
CREATE TABLE server_job_games (
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    slot INTEGER NOT NULL,
    game INTEGER NOT NULL REFERENCES games(id),
    PRIMARY KEY (job, slot)
);
";

/// Version 3: `server_jobs` allows the kind `test` (a pair of test games a remote worker leases:
/// its `number` is the pair's id in `server_test_games`). SQLite cannot change a CHECK in place,
/// so the table is copied with foreign keys off (the tables naming it keep naming the same ids)
/// and checked before the commit.
const JOBS_WITH_TEST_KIND: &str = "
CREATE TABLE server_jobs_v3 (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('check', 'pair', 'refresh', 'test')),
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    number INTEGER NOT NULL DEFAULT 0,         -- the pair's number in the upload's placement; a test: its id
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    lease_expires INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (upload, kind, number)
);
INSERT INTO server_jobs_v3 (id, kind, upload, number, state, lease, lease_expires, attempts, created_at, finished_at)
    SELECT id, kind, upload, number, state, lease, lease_expires, attempts, created_at, finished_at FROM server_jobs;
DROP TABLE server_jobs;
ALTER TABLE server_jobs_v3 RENAME TO server_jobs;
CREATE INDEX server_jobs_queue ON server_jobs(state, kind, id);
";

fn migrate(connection: &Db, path: &Path) -> Result<(), String> {
    let error = |e: othello_db::Error| format!("cannot set up the server's tables in {}: {e}", path.display());
    // A table is copied in version 3: foreign keys are off for that (a pragma that is a no-op
    // inside a transaction), checked by hand before the commit, and as they were after.
    let foreign_keys: bool = connection.query_row("PRAGMA foreign_keys", [], |row| row.get(0)).map_err(error)?;
    connection.execute_batch("PRAGMA foreign_keys = OFF").map_err(error)?;
    let migrated = migrate_tables(connection, path);
    if foreign_keys {
        connection.execute_batch("PRAGMA foreign_keys = ON").map_err(error)?;
    }
    migrated
}

fn migrate_tables(connection: &Db, path: &Path) -> Result<(), String> {
    let error = |e: othello_db::Error| format!("cannot set up the server's tables in {}: {e}", path.display());
    let transaction = connection.transaction().map_err(error)?;
    let version: Option<String> = transaction
        .query_row("SELECT value FROM settings WHERE key = ?1", params![SERVER_SCHEMA_KEY], |row| row.get(0))
        .optional()
        .map_err(error)?;
    let version: i64 = version.and_then(|v| v.parse().ok()).unwrap_or(0);
    if version > SERVER_SCHEMA_VERSION {
        return Err(format!(
            "{}: its server tables are of a newer othello (version {version}; this one knows up to {SERVER_SCHEMA_VERSION})",
            path.display()
        ));
    }
    if version < 1 {
        transaction.execute_batch(SERVER_SCHEMA).map_err(error)?;
    }
    if version < 2 {
        transaction.execute_batch(FINAL_SCHEMA).map_err(error)?;
    }
    if version < 3 {
        transaction.execute_batch(JOBS_WITH_TEST_KIND).map_err(error)?;
        // Only the tables naming jobs: what else the file holds is not this migration's.
        let broken: i64 = transaction
            .query_row(
                "SELECT count(*) FROM sqlite_master m, pragma_foreign_key_check(m.name) c
                 WHERE m.type = 'table' AND m.name IN ('server_job_games', 'server_leases', 'server_load_verdicts')
                   AND c.parent = 'server_jobs'",
                [],
                |row| row.get(0),
            )
            .map_err(error)?;
        if broken > 0 {
            return Err(format!("{}: {broken} rows name jobs that are gone after version 3", path.display()));
        }
    }
    transaction
        .execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![SERVER_SCHEMA_KEY, SERVER_SCHEMA_VERSION.to_string()],
        )
        .map_err(error)?;
    transaction.commit().map_err(error)
}

/// Adds `server_job_games.time_limit_ms` to a file made before it (its rows stay unknown).
fn add_job_game_time(connection: &Db) -> othello_db::Result<()> {
    let has: bool = connection.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('server_job_games') WHERE name = 'time_known'",
        [],
        |row| row.get(0),
    )?;
    if !has {
        connection.execute_batch(
            "ALTER TABLE server_job_games ADD COLUMN time_limit_ms INTEGER;
             ALTER TABLE server_job_games ADD COLUMN time_known INTEGER NOT NULL DEFAULT 0;",
        )?;
    }
    Ok(())
}

const FINAL_SCHEMA: &str = "
CREATE TABLE server_finals (
    id INTEGER PRIMARY KEY,
    format TEXT NOT NULL CHECK (format IN ('round-robin', 'knockout')),
    games_per_pair INTEGER NOT NULL,           -- even: each opening is played with colours swapped
    time_ms INTEGER,                           -- per move; NULL = no limit
    seed INTEGER NOT NULL,                     -- of the openings
    started_at INTEGER NOT NULL,
    finished_at INTEGER
);
-- The bots of a final, seeded by their ladder rating when it started (1 = the best).
CREATE TABLE server_final_bots (
    final INTEGER NOT NULL REFERENCES server_finals(id),
    seed INTEGER NOT NULL,
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    entry INTEGER NOT NULL REFERENCES entries(id),
    name TEXT NOT NULL,
    entrant TEXT NOT NULL,
    PRIMARY KEY (final, seed)
);
-- One row per game, claimed in id order. `done` with `game` NULL: the server gave up on it
-- (it could not be played three times over, for a reason of its own, not the bots').
CREATE TABLE server_final_games (
    id INTEGER PRIMARY KEY,
    final INTEGER NOT NULL REFERENCES server_finals(id),
    round INTEGER NOT NULL,                    -- 1 for a round robin; a knockout's round
    match_no INTEGER NOT NULL,                 -- the pairing: its place in the round
    number INTEGER NOT NULL,                   -- the game in the pairing: 2k and 2k+1 share opening k
    black INTEGER NOT NULL,                    -- seeds
    white INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    game INTEGER REFERENCES games(id),
    black_score REAL,
    black_discs INTEGER,
    white_discs INTEGER,
    failed INTEGER,                            -- the seed that lost by a failure, if one did
    finished_at INTEGER,
    UNIQUE (final, round, match_no, number)
);
CREATE INDEX server_final_games_queue ON server_final_games(final, state, id);
";

const WORKER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_workers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,           -- SHA-256 of the token, hex, as for entrants
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    host TEXT,                                 -- what the worker said at its last claim
    cores INTEGER,
    last_seen INTEGER,
    games INTEGER NOT NULL DEFAULT 0           -- games it played that counted
);
-- One claim of a job by a remote worker. The job's own `lease` and `lease_expires` (Unix ms)
-- name the lease holding it now; a job given to another worker no longer names this one.
CREATE TABLE IF NOT EXISTS server_leases (
    id TEXT PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    plan TEXT NOT NULL,                        -- what the server decided the job plays, JSON
    issued_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,               -- Unix ms
    state TEXT NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'submitted', 'released', 'refused', 'dropped')),
    result_sha256 TEXT                         -- of the accepted result: the same one again is harmless
);
CREATE INDEX IF NOT EXISTS server_leases_by_worker ON server_leases(worker, state);
-- A remote worker's finding that a check's library does not load: an upload is rejected on
-- that word only once a second worker (or the server's own) finds the same.
CREATE TABLE IF NOT EXISTS server_load_verdicts (
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (job, worker)
);
-- Which remote worker played which ladder game (the per-worker tallies and the purge).
CREATE TABLE IF NOT EXISTS server_worker_games (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    job INTEGER NOT NULL,
    subject INTEGER NOT NULL                   -- the entry the job was for (the plan's first bot)
);
CREATE INDEX IF NOT EXISTS server_worker_games_by_worker ON server_worker_games(worker);
-- Results refused (forged, late, under another's lease), for the organiser.
CREATE TABLE IF NOT EXISTS server_worker_refusals (
    id INTEGER PRIMARY KEY,
    worker INTEGER REFERENCES server_workers(id),
    lease TEXT,
    job INTEGER,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
);
";

fn migrate_workers(connection: &Db) -> othello_db::Result<()> {
    connection.execute_batch(WORKER_SCHEMA)?;
    connection.execute_batch(REPLAY_SCHEMA)
}

const REPLAY_SCHEMA: &str = "
-- Every re-play of a worker's pair: whether its moves were the server's, and the first difference.
CREATE TABLE IF NOT EXISTS server_worker_replays (
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    job INTEGER NOT NULL,
    lease TEXT NOT NULL,
    matched INTEGER NOT NULL,
    detail TEXT NOT NULL,
    at INTEGER NOT NULL
);
";

const SESSION_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_sessions (
    id_hash TEXT PRIMARY KEY,                  -- SHA-256 of the cookie's session id, hex
    kind TEXT NOT NULL CHECK (kind IN ('entrant', 'admin')),
    holder INTEGER NOT NULL,                   -- the entrant's id (0 for the organiser)
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL                -- Unix seconds
);
CREATE INDEX IF NOT EXISTS server_sessions_by_holder ON server_sessions(kind, holder);
";

const TEST_GAME_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_test_games (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    opponent INTEGER NOT NULL REFERENCES entries(id),   -- a ladder entry
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    reason TEXT,                                        -- why it could not be played
    requested_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX IF NOT EXISTS server_test_games_queue ON server_test_games(state, id);
CREATE INDEX IF NOT EXISTS server_test_games_by_entrant ON server_test_games(entrant, requested_at);
-- The games themselves (never in the ladder's `games`).
CREATE TABLE IF NOT EXISTS server_test_game_records (
    id INTEGER PRIMARY KEY,
    test INTEGER NOT NULL REFERENCES server_test_games(id),
    slot INTEGER NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    black_score REAL NOT NULL,
    termination TEXT NOT NULL,
    played_at INTEGER NOT NULL,
    ggf TEXT NOT NULL,
    UNIQUE (test, slot)
);
";

const ENTRIES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_copies (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    sha256 TEXT NOT NULL,
    original TEXT NOT NULL,                    -- whose file it is, in words
    at INTEGER NOT NULL,
    entered INTEGER NOT NULL DEFAULT 0         -- 1: entered as an entry of its own; 0: refused
);
";

fn migrate_entries(connection: &Db) -> othello_db::Result<()> {
    connection.execute_batch(ENTRIES_SCHEMA)?;
    // Tables made before the organiser could choose: every copy then was refused.
    let has_entered: bool = connection.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('server_copies') WHERE name = 'entered'",
        [],
        |row| row.get(0),
    )?;
    if !has_entered {
        connection.execute_batch("ALTER TABLE server_copies ADD COLUMN entered INTEGER NOT NULL DEFAULT 0")?;
    }
    Ok(())
}

/// Uploads refused before they were stored: they count toward the hourly limit too.
const REFUSED_UPLOADS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS server_refused_uploads (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS server_refused_uploads_by_entrant ON server_refused_uploads(entrant, at);
-- The version an entrant chose to count (refresh pairs, the final, test games' opponents);
-- without a row, its newest checked version counts. A new upload ends the choice.
CREATE TABLE IF NOT EXISTS server_chosen_versions (
    entrant INTEGER PRIMARY KEY REFERENCES server_entrants(id),
    upload INTEGER NOT NULL REFERENCES server_uploads(id)
);
";

/// Whether `connection` is a file an older server set up (its `server_schema` setting is 1 to 3)
/// and migrations have not been recorded for it yet.
pub fn needs_upgrade(connection: &Db) -> othello_db::Result<bool> {
    if connection.sqlite().is_none() || connection.has_table("schema_migrations")? && recorded(connection)? {
        return Ok(false);
    }
    let version: Option<String> = connection
        .query_row("SELECT value FROM settings WHERE key = ?1", params![SERVER_SCHEMA_KEY], |row| row.get(0))
        .optional()?;
    Ok(version.is_some())
}

fn recorded(connection: &Db) -> othello_db::Result<bool> {
    connection.query_row("SELECT count(*) > 0 FROM schema_migrations WHERE set_name = 'server'", [], |row| row.get(0))
}

/// Every step an older server took when it opened the file, in its order.
pub fn upgrade(connection: &Db, location: &othello_db::Location) -> Result<(), String> {
    let path = location.file().expect("a file is SQLite");
    migrate(connection, path)?;
    let error = |e: othello_db::Error| format!("cannot set up the server's tables in {}: {e}", path.display());
    migrate_workers(connection).map_err(error)?;
    connection.execute_batch(TEST_GAME_SCHEMA).map_err(error)?;
    connection.execute_batch(REFUSED_UPLOADS_SCHEMA).map_err(error)?;
    add_job_game_time(connection).map_err(error)?;
    connection.execute_batch(SESSION_SCHEMA).map_err(error)?;
    migrate_entries(connection).map_err(error)?;
    // As migration 1 leaves it: an older server refuses the file from now on.
    connection.execute("UPDATE settings SET value = '4' WHERE key = ?1", params![SERVER_SCHEMA_KEY]).map_err(error)?;
    Ok(())
}
