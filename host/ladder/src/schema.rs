//! Opening a ladder database: an SQLite file (refusing anything that is not one of ours, without
//! writing a byte to it) or a PostgreSQL database; the schema comes from the ladder's migrations.

use std::path::Path;
use std::time::Duration;

use othello_db::{Db, Location, Migration};
use rusqlite::{Connection, OpenFlags};

/// `PRAGMA application_id` of a ladder: "OTLD" (Othello ladder) in ASCII.
pub const APPLICATION_ID: i32 = 0x4F54_4C44;
/// `PRAGMA user_version`: the schema's version. A newer file is refused, never downgraded.
pub const SCHEMA_VERSION: i32 = 1;
/// How long a write waits for another process's write to finish before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The ladder's migrations (the set `ladder` in `schema_migrations`). A file of schema 1 made
/// before migrations were recorded is taken as at migration 1.
pub const MIGRATIONS: &[Migration] = &[Migration { version: 1, name: "ladder", sql: SCHEMA }];

const SCHEMA: &str = "
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('library', 'engine')),
    name TEXT NOT NULL,
    level INTEGER NOT NULL DEFAULT 0,          -- 0 = the bot's default level
    hash TEXT NOT NULL,                        -- SHA-256 of the library (of an engine's command and files)
    locator TEXT NOT NULL,                     -- where it was last found: a path or nboard:COMMAND
    added_at INTEGER NOT NULL,                 -- Unix seconds
    UNIQUE (kind, name, level, hash)
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    black INTEGER NOT NULL REFERENCES entries(id),
    white INTEGER NOT NULL REFERENCES entries(id),
    black_score REAL NOT NULL CHECK (black_score IN (0.0, 0.5, 1.0)),
    termination TEXT NOT NULL,                 -- normal, resigned, timeout, crash, load-error …
    failed INTEGER REFERENCES entries(id),     -- the entry that lost by a failure, if any
    played_at INTEGER NOT NULL,                -- Unix seconds
    ggf TEXT NOT NULL                          -- the whole game, one GGF line
);
-- Covers the refit's tallies and the leaderboard's records: neither reads the games themselves.
CREATE INDEX games_results ON games(black, white, black_score, failed, played_at);
CREATE INDEX games_by_white ON games(white);
CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY,
    taken_at INTEGER NOT NULL,
    games INTEGER NOT NULL,                    -- games in the ladder when it was taken
    reason TEXT NOT NULL
);
CREATE TABLE snapshot_ratings (
    snapshot INTEGER NOT NULL REFERENCES snapshots(id),
    entry INTEGER NOT NULL REFERENCES entries(id),
    rating REAL NOT NULL,
    error REAL NOT NULL,
    PRIMARY KEY (snapshot, entry)
);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

/// Opens (or creates) the ladder at `location`, checked and ready for several processes at once.
pub fn open(location: &Location) -> Result<Db, String> {
    match location {
        Location::File(path) => open_file(path),
        Location::Postgres(url) => open_postgres(url),
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Db, String> {
    let shown = Location::Postgres(url.to_owned());
    let db = Db::connect_postgres(url).map_err(|e| format!("cannot connect to the ladder {shown}: {e}"))?;
    db.migrate("ladder", MIGRATIONS, |_| Ok(None)).map_err(|e| format!("cannot set up the ladder {shown}: {e}"))?;
    Ok(db)
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str) -> Result<Db, String> {
    Err(format!(
        "{} is a PostgreSQL database, and this program was built without PostgreSQL (feature `postgres`)",
        Location::Postgres(url.to_owned())
    ))
}

fn open_file(path: &Path) -> Result<Db, String> {
    let shown = path.display();
    let exists = path.exists();
    if exists && !path.is_file() {
        return Err(format!("{shown} is not a file, so it cannot be a ladder"));
    }
    if !exists && let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create the folder {}: {e}", parent.display()))?;
    }
    let flags = if exists {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX
    };
    let mut connection = Connection::open_with_flags(path, flags).map_err(|e| format!("cannot open {shown}: {e}"))?;
    connection.busy_timeout(BUSY_TIMEOUT).map_err(|e| format!("cannot open {shown}: {e}"))?;
    // Read-only checks first: nothing is written to a file that is not ours. They read in one
    // transaction, so a ladder another process is creating is seen whole or not at all.
    {
        let snapshot = connection.transaction().map_err(|e| format!("cannot open {shown}: {e}"))?;
        check(&snapshot, path)?;
    }
    use_write_ahead_log(&connection).map_err(|e| format!("cannot use {shown} as a ladder (write-ahead log): {e}"))?;
    // WAL with full sync: a committed game survives `kill -9` and a power cut alike.
    connection.pragma_update(None, "synchronous", "FULL").map_err(|e| format!("{shown}: {e}"))?;
    connection.pragma_update(None, "foreign_keys", "ON").map_err(|e| format!("{shown}: {e}"))?;
    let db = Db::from_sqlite(connection, Location::File(path.to_owned()));
    db.migrate("ladder", MIGRATIONS, |db| baseline(db, path))
        .map_err(|e| format!("cannot set up the ladder {shown}: {e}"))?;
    Ok(db)
}

/// Switches the file to write-ahead logging, unless it is already. The switch needs the file to
/// itself, and SQLite does not wait for that with the busy timeout: when another process holds
/// it (creating the same ladder at the same moment), it is tried again until [`BUSY_TIMEOUT`].
fn use_write_ahead_log(connection: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        let mode: String = connection.pragma_query_value(None, "journal_mode", |row| row.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(WAL_SWITCH_RETRY);
            }
            other => return other,
        }
    }
}

/// Pause between two tries of the switch to write-ahead logging.
const WAL_SWITCH_RETRY: Duration = Duration::from_millis(5);

/// What the file's header and catalogue say it is.
struct Header {
    application_id: i32,
    user_version: i32,
    tables: i64,
}

fn header(connection: &Connection, path: &Path) -> Result<Header, String> {
    let refuse = |e: rusqlite::Error| refusal(path, &e.to_string());
    let application_id = connection.pragma_query_value(None, "application_id", |row| row.get(0)).map_err(refuse)?;
    let user_version = connection.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(refuse)?;
    let tables = connection
        .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
        .map_err(|e| refusal(path, &e.to_string()))?;
    Ok(Header { application_id, user_version, tables })
}

fn refusal(path: &Path, why: &str) -> String {
    format!("{} is not a usable othello ladder ({why}); it was left untouched", path.display())
}

/// Refuses a file that is not a ladder of a schema this program reads.
fn check(connection: &Connection, path: &Path) -> Result<(), String> {
    let header = header(connection, path)?;
    match header {
        // A new or empty file: ours to set up.
        Header { application_id: 0, user_version: 0, tables: 0 } => Ok(()),
        Header { application_id: 0, .. } => {
            Err(refusal(path, "it is an SQLite database of another program: it has tables but no ladder id"))
        }
        Header { application_id, .. } if application_id != APPLICATION_ID => Err(refusal(
            path,
            &format!("it is an SQLite database of another program: application id {application_id:#010x}"),
        )),
        Header { user_version, .. } if user_version > SCHEMA_VERSION => Err(refusal(
            path,
            &format!(
                "it was written by a newer othello (schema {user_version}; this one reads up to {SCHEMA_VERSION})"
            ),
        )),
        Header { user_version, .. } if user_version < 1 => {
            Err(refusal(path, "its ladder id is set but it has no schema version: it is damaged"))
        }
        _ => Ok(()),
    }
}

/// Under the migrations' write lock, before the first: a file of schema 1 (made before
/// migrations were recorded) is at migration 1; a new one gets the ladder's id and version now,
/// in the transaction that creates its tables, so no other process sees it half made. The check
/// is repeated under the lock: another process may have set the file up a moment ago.
fn baseline(db: &Db, path: &Path) -> othello_db::Result<Option<i64>> {
    let connection = db.sqlite().expect("a file is SQLite");
    let header = header(connection, path).map_err(othello_db::Error::Other)?;
    if header.application_id == APPLICATION_ID {
        return Ok(Some(header.user_version.into()));
    }
    connection.pragma_update(None, "application_id", APPLICATION_ID)?;
    connection.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(None)
}
