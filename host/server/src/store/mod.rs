//! The server's tables in the ladder's own SQLite file: entrants (tokens stored as SHA-256
//! hashes), uploads (content-addressed files), their check reports and the job queue.
//!
//! The ladder's schema version (`PRAGMA user_version`) is left alone, so the `othello` ladder
//! commands keep reading the file; the server's tables carry their own version in the ladder's
//! `settings` table (`server_schema`) and are created when the file is opened ([`open`]).

use std::path::{Path, PathBuf};

pub mod blobs;
pub mod copies;
pub mod finals;
pub mod leases;
mod legacy_sqlite;
pub mod replicas;
pub mod sessions;
pub mod settings;
pub mod test_games;
pub mod workers;

use othello_db::{Db, Location, Migration, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use othello_arena::record::unix_now;

/// The server's migrations (the set `server` in `schema_migrations`), after the ladder's.
pub const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, name: "server", sql: include_str!("../../migrations/0001_server.sql") },
    Migration { version: 2, name: "replicas", sql: include_str!("../../migrations/0002_replicas.sql") },
];

/// Opens the ladder (an SQLite file, checked and created as the ladder does, or a PostgreSQL
/// database) and brings the server's tables up to date.
pub fn open(location: &Location) -> Result<Db, Error> {
    let connection = othello_ladder::schema::open(location)?;
    let error = |e: othello_db::Error| format!("cannot set up the server's tables in {location}: {e}");
    // A file of an older server: its own steps first (one copies a table, with foreign keys off,
    // which SQLite allows only outside a transaction), then it counts as at migration 1.
    let legacy = legacy_sqlite::needs_upgrade(&connection).map_err(error)?;
    if legacy {
        legacy_sqlite::upgrade(&connection, location)?;
    }
    connection.migrate("server", MIGRATIONS, |_| Ok(legacy.then_some(1))).map_err(error)?;
    Ok(connection)
}

/// An upload's bot name: what its check report says (`init`'s answer), else its file's name.
pub fn bot_name(report: Option<String>, file_name: String) -> String {
    report
        .and_then(|report| serde_json::from_str::<serde_json::Value>(&report).ok())
        .and_then(|report| report.get("name")?.as_str().map(str::to_owned))
        .unwrap_or(file_name)
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// What a store function fails with: the database's own error, or why in words (a name taken,
/// no such worker, the ladder's errors).
#[derive(Debug)]
pub enum Error {
    Database(othello_db::Error),
    Other(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Database(e) => write!(f, "database: {e}"),
            Error::Other(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

impl From<othello_db::Error> for Error {
    fn from(e: othello_db::Error) -> Error {
        Error::Database(e)
    }
}

impl From<String> for Error {
    fn from(why: String) -> Error {
        Error::Other(why)
    }
}

impl From<&str> for Error {
    fn from(why: &str) -> Error {
        Error::Other(why.to_owned())
    }
}

/// The layers above that still speak in words (the command line's `Result<_, String>`).
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}

/// A database error as a store error (for `map_err`).
pub(crate) fn db(e: othello_db::Error) -> Error {
    Error::Database(e)
}

/// Every row `sql` selects with `params`, each read by `read`.
pub(crate) fn all_rows<T>(
    connection: &Db,
    sql: &str,
    params: impl othello_db::Params,
    read: impl FnMut(&othello_db::Row) -> othello_db::Result<T>,
) -> Result<Vec<T>, Error> {
    connection.query_map(sql, params, read).map_err(db)
}

/// One entrant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entrant {
    pub id: i64,
    pub name: String,
    pub created_at: u64,
    pub revoked: bool,
}

/// The longest entrant name accepted.
pub const MAX_ENTRANT_NAME_CHARS: usize = 64;

/// A new random token: 32 bytes from the operating system's generator, as hex.
pub fn new_token() -> String {
    use rand::RngExt;
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Who holds a token, each kind in a table of its own with the same columns (`id`, `name`,
/// `token_hash`, `created_at`, `revoked_at`): entrants upload bots, workers play jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenHolder {
    Entrant,
    Worker,
}

impl TokenHolder {
    fn table(self) -> &'static str {
        match self {
            TokenHolder::Entrant => "server_entrants",
            TokenHolder::Worker => "server_workers",
        }
    }

    /// `an entrant`, `a worker`, as the messages name one.
    fn noun(self) -> &'static str {
        match self {
            TokenHolder::Entrant => "an entrant",
            TokenHolder::Worker => "a worker",
        }
    }
}

/// Adds an entrant or a worker; returns its one-time token (only its hash is stored).
pub fn add_token_holder(connection: &Db, holder: TokenHolder, name: &str) -> Result<String, Error> {
    let (table, noun) = (holder.table(), holder.noun());
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_ENTRANT_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(
            format!("{noun}'s name is 1 to {MAX_ENTRANT_NAME_CHARS} characters, without control characters").into()
        );
    }
    let token = new_token();
    match connection.execute(
        &format!("INSERT INTO {table} (name, token_hash, created_at) VALUES (?1, ?2, ?3)"),
        params![name, sha256_hex(token.as_bytes()), unix_now() as i64],
    ) {
        Ok(_) => Ok(token),
        Err(e) if e.is_unique_violation() => {
            Err(format!("there is {noun} `{name}` already (revoke it, or choose another name)").into())
        }
        Err(e) => Err(db(e)),
    }
}

/// Gives the entrant or worker `name` a new token (returned; only its hash is kept): the old one
/// stops working at once, a revoked holder is restored, and an entrant's logins are ended.
pub fn reissue_token(connection: &Db, holder: TokenHolder, name: &str) -> Result<String, Error> {
    let (table, noun) = (holder.table(), holder.noun());
    let id: Option<i64> = connection
        .query_row(&format!("SELECT id FROM {table} WHERE name = ?1"), [name.trim()], |row| row.get(0))
        .optional()
        .map_err(db)?;
    let Some(id) = id else {
        return Err(format!("there is no {} `{name}`", &noun[noun.find(' ').map_or(0, |i| i + 1)..]).into());
    };
    let token = new_token();
    connection
        .execute(
            &format!("UPDATE {table} SET token_hash = ?2, revoked_at = NULL WHERE id = ?1"),
            params![id, sha256_hex(token.as_bytes())],
        )
        .map_err(db)?;
    if holder == TokenHolder::Entrant {
        crate::store::sessions::end_all(connection, crate::store::sessions::Kind::Entrant, id)?;
    }
    Ok(token)
}

/// The entrant `id`, unless it is unknown or revoked.
pub fn entrant_by_id(connection: &Db, id: i64) -> Result<Option<Entrant>, Error> {
    connection
        .query_row(
            "SELECT id, name, created_at FROM server_entrants WHERE id = ?1 AND revoked_at IS NULL",
            [id],
            |row| {
                Ok(Entrant {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    created_at: row.get::<i64>(2)? as u64,
                    revoked: false,
                })
            },
        )
        .optional()
        .map_err(db)
}

/// The id, name and creation time (Unix seconds) of the entrant or worker whose token this is,
/// unless it is unknown or revoked.
pub fn token_holder(connection: &Db, holder: TokenHolder, token: &str) -> Result<Option<(i64, String, u64)>, Error> {
    connection
        .query_row(
            &format!(
                "SELECT id, name, created_at FROM {} WHERE token_hash = ?1 AND revoked_at IS NULL",
                holder.table()
            ),
            [sha256_hex(token.trim().as_bytes())],
            |row| Ok((row.get(0)?, row.get(1)?, row.get::<i64>(2)? as u64)),
        )
        .optional()
        .map_err(db)
}

/// Adds an entrant; returns its one-time token (only its hash is stored).
pub fn add_entrant(connection: &Db, name: &str) -> Result<String, Error> {
    add_token_holder(connection, TokenHolder::Entrant, name)
}

pub fn entrants(connection: &Db) -> Result<Vec<Entrant>, Error> {
    all_rows(connection, "SELECT id, name, created_at, revoked_at FROM server_entrants ORDER BY id", [], |row| {
        Ok(Entrant {
            id: row.get(0)?,
            name: row.get(1)?,
            created_at: row.get::<i64>(2)? as u64,
            revoked: row.get::<Option<i64>>(3)?.is_some(),
        })
    })
}

/// Revokes an entrant's token: it no longer logs in nor uploads (its bots stay on the ladder).
pub fn revoke_entrant(connection: &Db, name: &str) -> Result<(), Error> {
    let changed = connection
        .execute(
            "UPDATE server_entrants SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
            params![name, unix_now() as i64],
        )
        .map_err(db)?;
    if changed == 0 {
        return Err(format!("no entrant `{name}` with a valid token").into());
    }
    let id: i64 =
        connection.query_row("SELECT id FROM server_entrants WHERE name = ?1", [name], |row| row.get(0)).map_err(db)?;
    crate::store::sessions::end_all(connection, crate::store::sessions::Kind::Entrant, id)
}

/// The entrant whose token this is, unless it is unknown or revoked.
pub fn entrant_by_token(connection: &Db, token: &str) -> Result<Option<Entrant>, Error> {
    let holder = token_holder(connection, TokenHolder::Entrant, token)?;
    Ok(holder.map(|(id, name, created_at)| Entrant { id, name, created_at, revoked: false }))
}

/// Where an upload stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Queued,
    Checking,
    Rating,
    Rated,
    Rejected,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Checking => "checking",
            Status::Rating => "rating",
            Status::Rated => "rated",
            Status::Rejected => "rejected",
        }
    }

    fn parse(text: &str) -> Status {
        match text {
            "checking" => Status::Checking,
            "rating" => Status::Rating,
            "rated" => Status::Rated,
            "rejected" => Status::Rejected,
            _ => Status::Queued,
        }
    }
}

/// One uploaded library.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Upload {
    pub id: i64,
    pub entrant: i64,
    pub entrant_name: String,
    pub sha256: String,
    pub file_name: String,
    #[serde(skip)]
    pub path: PathBuf,
    pub size: u64,
    pub uploaded_at: u64,
    pub status: Status,
    pub reason: Option<String>,
    #[serde(skip)]
    pub report: Option<String>,
    pub entry: Option<i64>,
}

const UPLOAD_COLUMNS: &str = "u.id, u.entrant, e.name, u.sha256, u.file_name, u.path, u.size, u.uploaded_at, u.status,
     u.reason, u.report, u.entry FROM server_uploads u JOIN server_entrants e ON e.id = u.entrant";

fn upload_row(row: &othello_db::Row) -> othello_db::Result<Upload> {
    Ok(Upload {
        id: row.get(0)?,
        entrant: row.get(1)?,
        entrant_name: row.get(2)?,
        sha256: row.get(3)?,
        file_name: row.get(4)?,
        path: PathBuf::from(row.get::<String>(5)?),
        size: row.get::<i64>(6)? as u64,
        uploaded_at: row.get::<i64>(7)? as u64,
        status: Status::parse(&row.get::<String>(8)?),
        reason: row.get(9)?,
        report: row.get(10)?,
        entry: row.get(11)?,
    })
}

pub fn upload(connection: &Db, id: i64) -> Result<Option<Upload>, Error> {
    connection.query_row(&format!("SELECT {UPLOAD_COLUMNS} WHERE u.id = ?1"), [id], upload_row).optional().map_err(db)
}

/// An entrant's uploads, newest first.
pub fn uploads_of(connection: &Db, entrant: i64) -> Result<Vec<Upload>, Error> {
    all_rows(
        connection,
        &format!("SELECT {UPLOAD_COLUMNS} WHERE u.entrant = ?1 ORDER BY u.id DESC"),
        [entrant],
        upload_row,
    )
}

/// Every upload that has a ladder entry, by entry id (the leaderboard's entrant column).
pub fn uploads_by_entry(connection: &Db) -> Result<Vec<Upload>, Error> {
    all_rows(connection, &format!("SELECT {UPLOAD_COLUMNS} WHERE u.entry IS NOT NULL ORDER BY u.id"), [], upload_row)
}

/// SQL for the upload that counts for entrant `{e}` among its uploads in `{states}`: the one it
/// chose if that one is in those states, else its newest. `{e}` is an SQL expression.
pub fn current_upload_sql(e: &str, states: &str) -> String {
    format!(
        "coalesce((SELECT c.upload FROM server_chosen_versions c JOIN server_uploads cu ON cu.id = c.upload
                   WHERE c.entrant = {e} AND cu.entry IS NOT NULL AND cu.status IN ({states})),
                  (SELECT max(v.id) FROM server_uploads v
                   WHERE v.entrant = {e} AND v.entry IS NOT NULL AND v.status IN ({states})))"
    )
}

/// Makes `upload` the version of `entrant` that counts.
pub fn choose_version(connection: &Db, entrant: i64, upload: i64) -> Result<(), Error> {
    connection
        .execute(
            "INSERT INTO server_chosen_versions (entrant, upload) VALUES (?1, ?2)
             ON CONFLICT (entrant) DO UPDATE SET upload = excluded.upload",
            params![entrant, upload],
        )
        .map(drop)
        .map_err(db)
}

/// The version each entrant chose, by entrant id.
pub fn chosen_versions(connection: &Db) -> Result<std::collections::HashMap<i64, i64>, Error> {
    Ok(all_rows(connection, "SELECT entrant, upload FROM server_chosen_versions", [], |row| {
        Ok((row.get(0)?, row.get(1)?))
    })?
    .into_iter()
    .collect())
}

/// Notes an upload of `entrant` refused before it was stored.
pub fn note_refused_upload(connection: &Db, entrant: i64, reason: &str) -> Result<(), Error> {
    connection
        .execute(
            "INSERT INTO server_refused_uploads (entrant, reason, at) VALUES (?1, ?2, ?3)",
            params![entrant, othello_arena::text::one_line(reason, 300), unix_now() as i64],
        )
        .map(drop)
        .map_err(db)
}

/// Uploads of `entrant` since `since` (Unix seconds), refused ones included, for the rate limit.
pub fn uploads_since(connection: &Db, entrant: i64, since: u64) -> Result<u32, Error> {
    connection
        .query_row(
            "SELECT (SELECT count(*) FROM server_uploads WHERE entrant = ?1 AND uploaded_at >= ?2)
                  + (SELECT count(*) FROM server_refused_uploads WHERE entrant = ?1 AND at >= ?2)",
            params![entrant, since as i64],
            |row| row.get::<i64>(0),
        )
        .map(|n| n as u32)
        .map_err(db)
}

/// The entrant's upload of this very file, if any.
pub fn upload_by_hash(connection: &Db, entrant: i64, sha256: &str) -> Result<Option<Upload>, Error> {
    connection
        .query_row(
            &format!("SELECT {UPLOAD_COLUMNS} WHERE u.entrant = ?1 AND u.sha256 = ?2 ORDER BY u.id LIMIT 1"),
            params![entrant, sha256],
            upload_row,
        )
        .optional()
        .map_err(db)
}

/// Records an upload whose file is in place and queues its check, in one transaction.
pub fn add_upload(
    connection: &mut Db,
    entrant: i64,
    sha256: &str,
    file_name: &str,
    path: &Path,
    size: u64,
) -> Result<i64, Error> {
    let transaction = connection.transaction().map_err(db)?;
    let now = unix_now() as i64;
    let id = transaction
        .insert(
            "INSERT INTO server_uploads (entrant, sha256, file_name, path, size, uploaded_at, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued')",
            params![entrant, sha256, file_name, path.to_string_lossy(), size as i64, now],
        )
        .map_err(db)?;
    // A new version counts from now on (the newest by default): the entrant may choose again.
    transaction.execute("DELETE FROM server_chosen_versions WHERE entrant = ?1", [entrant]).map_err(db)?;
    transaction
        .execute(
            "INSERT INTO server_jobs (kind, upload, number, created_at) VALUES ('check', ?1, 0, ?2)",
            params![id, now],
        )
        .map_err(db)?;
    transaction.commit().map_err(db)?;
    Ok(id)
}

pub fn set_status(connection: &Db, upload: i64, status: Status, reason: Option<&str>) -> Result<(), Error> {
    connection
        .execute(
            "UPDATE server_uploads SET status = ?2, reason = coalesce(?3, reason) WHERE id = ?1",
            params![upload, status.as_str(), reason],
        )
        .map_err(db)?;
    Ok(())
}

/// What kind of work a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Load the library, read its exports, play two games against `random`.
    Check,
    /// One pair of placement games (colours swapped) against an opponent from the pool.
    Pair,
    /// One pair of games of a rated bot, played when nothing else waits, so ratings stay fresh.
    Refresh,
    /// A pair of unrated test games leased to a remote worker (`number`: the pair's id in
    /// `server_test_games`, which is their queue: such a job is never claimed from here).
    Test,
}

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub kind: JobKind,
    pub upload: i64,
    pub number: u32,
}

/// A job from its first four columns: `id, kind, upload, number`.
pub(crate) fn job_row(row: &othello_db::Row) -> othello_db::Result<Job> {
    Ok(Job {
        id: row.get(0)?,
        kind: match row.get::<String>(1)?.as_str() {
            "check" => JobKind::Check,
            "pair" => JobKind::Pair,
            "test" => JobKind::Test,
            _ => JobKind::Refresh,
        },
        upload: row.get(2)?,
        number: row.get::<i64>(3)? as u32,
    })
}

/// Puts back in their queues the jobs whose remote leases lapsed before `now_ms`. A test job's
/// pair goes back to the test games' queue (its job row rests until the pair is leased again).
pub fn requeue_lapsed(connection: &Db, now_ms: i64) -> Result<(), Error> {
    connection
        .execute(
            "UPDATE server_test_games SET state = 'queued', lease = NULL WHERE state = 'running' AND lease IN
               (SELECT lease FROM server_jobs WHERE kind = 'test' AND state = 'running'
                  AND lease_expires IS NOT NULL AND lease_expires < ?1)",
            [now_ms],
        )
        .map_err(db)?;
    connection
        .execute(
            "UPDATE server_jobs SET state = CASE kind WHEN 'test' THEN 'done' ELSE 'queued' END, lease = NULL,
               lease_expires = NULL
             WHERE state = 'running' AND lease_expires IS NOT NULL AND lease_expires < ?1",
            [now_ms],
        )
        .map(drop)
        .map_err(db)
}

/// Marks a test job done (its pair is recorded or finished with the reason in its own table).
pub fn finish_test_job(connection: &Db, job: &Job) -> Result<(), Error> {
    connection
        .execute(
            "UPDATE server_jobs SET state = 'done', lease = NULL, lease_expires = NULL, finished_at = ?2 WHERE id = ?1",
            params![job.id, unix_now() as i64],
        )
        .map(drop)
        .map_err(db)
}

/// Leases the pair of test games `test` (claimed from its queue) to a remote worker: its job row,
/// made on its first lease and reused on the next ones.
pub fn lease_test_job(
    connection: &Db,
    test: &crate::store::test_games::TestJob,
    lease: &str,
    expires: i64,
) -> Result<Job, Error> {
    connection
        .query_row(
            "INSERT INTO server_jobs (kind, upload, number, state, lease, lease_expires, attempts, created_at)
             VALUES ('test', ?1, ?2, 'running', ?3, ?4, 1, ?5)
             ON CONFLICT (upload, kind, number) DO UPDATE SET state = 'running', lease = excluded.lease,
               lease_expires = excluded.lease_expires, attempts = server_jobs.attempts + 1, finished_at = NULL
             RETURNING id, kind, upload, number",
            params![test.upload, test.id, lease, expires, unix_now() as i64],
            job_row,
        )
        .map_err(db)
}

/// Claims the next job for `lease` (checks first, then pairs, oldest first), held until it is
/// finished or the server stops (a local worker's).
pub fn claim_job(connection: &mut Db, lease: &str) -> Result<Option<Job>, Error> {
    claim_job_until(connection, lease, None, None, false)
}

/// [`claim_job`] of checks only (while the sample pool is calibrated, placements wait).
pub fn claim_check(connection: &mut Db, lease: &str) -> Result<Option<Job>, Error> {
    claim_job_until(connection, lease, None, None, true)
}

/// [`claim_job`] with a lease that lapses at `expires` (Unix milliseconds) unless renewed: a
/// remote worker's. Jobs whose leases have lapsed go back to the queue first. A remote `worker`
/// is never given again a job it found unloadable or crashing at once (a second worker must
/// confirm it).
pub fn claim_job_until(
    connection: &mut Db,
    lease: &str,
    expires: Option<i64>,
    worker: Option<i64>,
    checks_only: bool,
) -> Result<Option<Job>, Error> {
    let transaction = connection.transaction().map_err(db)?;
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    requeue_lapsed(&transaction, now_ms)?;
    crate::store::replicas::requeue_abandoned(&transaction)?;
    let job = transaction
        .query_row(
            &format!(
                "SELECT id, kind, upload, number FROM server_jobs WHERE state = 'queued' AND kind != 'test'
                   AND (?2 = 0 OR kind = 'check')
                   AND id NOT IN (SELECT job FROM server_load_verdicts WHERE worker = ?1)
                 ORDER BY kind = 'check' DESC, kind = 'pair' DESC, id LIMIT 1{}",
                transaction.skip_locked()
            ),
            params![worker, checks_only],
            job_row,
        )
        .optional()
        .map_err(db)?;
    if let Some(job) = &job {
        transaction
            .execute(
                "UPDATE server_jobs SET state = 'running', lease = ?2, lease_expires = ?3, attempts = attempts + 1
                 WHERE id = ?1",
                params![job.id, lease, expires],
            )
            .map_err(db)?;
    }
    transaction.commit().map_err(db)?;
    Ok(job)
}

/// What follows a finished job.
pub enum Next {
    /// Nothing more for this upload.
    Nothing,
    /// Queue the upload's next placement pair.
    Pair(u32),
    /// Queue placement pairs `first`, `first + 1` … (`count` of them), played by as many
    /// workers at once.
    Pairs { first: u32, count: u32 },
}

/// Marks `job` done and, in the same transaction, queues what follows and sets the upload's
/// status: a crash leaves either the job to redo or its successor queued, never both or neither.
pub fn finish_job(
    connection: &mut Db,
    job: &Job,
    status: Status,
    reason: Option<&str>,
    next: Next,
) -> Result<(), Error> {
    let transaction = connection.transaction().map_err(db)?;
    let now = unix_now() as i64;
    transaction
        .execute(
            "UPDATE server_jobs SET state = 'done', lease = NULL, finished_at = ?2 WHERE id = ?1",
            params![job.id, now],
        )
        .map_err(db)?;
    // A placement played in several chains ends with the last of its pairs being played: a bot
    // shown `rated` gets no placement game more. The count is taken in this transaction, so of
    // two pairs finishing at once the second to commit sees the first done (this job is done
    // already: every pair still running is another chain's).
    let (status, reason) = if status == Status::Rated
        && job.kind == JobKind::Pair
        && earlier_running_pairs(&transaction, job.upload, i64::MAX)? > 0
    {
        (Status::Rating, None)
    } else {
        (status, reason)
    };
    // A bot once rated stays so: a pair finishing later never puts it back to `rating`.
    transaction
        .execute(
            "UPDATE server_uploads SET status = ?2, reason = coalesce(?3, reason)
             WHERE id = ?1 AND NOT (status = 'rated' AND ?2 = 'rating')",
            params![job.upload, status.as_str(), reason],
        )
        .map_err(db)?;
    let numbers = match next {
        Next::Nothing => 0..0,
        Next::Pair(number) => number..number + 1,
        Next::Pairs { first, count } => first..first + count,
    };
    for number in numbers {
        transaction
            .execute(
                "INSERT INTO server_jobs (kind, upload, number, created_at) VALUES ('pair', ?1, ?2, ?3)
                 ON CONFLICT (upload, kind, number) DO NOTHING",
                params![job.upload, number, now],
            )
            .map_err(db)?;
    }
    transaction.commit().map_err(db)
}

/// Placement pairs of `upload` being played that were claimed before `job` (older ids): the
/// games they will add count against the game cap before `job`'s.
pub fn earlier_running_pairs(connection: &Db, upload: i64, job: i64) -> Result<u32, Error> {
    connection
        .query_row(
            "SELECT count(*) FROM server_jobs WHERE upload = ?1 AND kind = 'pair' AND state = 'running' AND id < ?2",
            params![upload, job],
            |row| row.get::<i64>(0),
        )
        .map(|n| n as u32)
        .map_err(db)
}

/// Saves a check report and the ladder entry the check found.
pub fn save_report(connection: &Db, upload: i64, report: &str, entry: Option<i64>) -> Result<(), Error> {
    connection
        .execute(
            "UPDATE server_uploads SET report = ?2, entry = coalesce(?3, entry) WHERE id = ?1",
            params![upload, report, entry],
        )
        .map_err(db)?;
    Ok(())
}

/// The ladder game a job recorded in `slot`, if it did.
pub fn job_game(connection: &Db, job: i64, slot: usize) -> Result<Option<i64>, Error> {
    connection
        .query_row("SELECT game FROM server_job_games WHERE job = ?1 AND slot = ?2", params![job, slot as i64], |row| {
            row.get(0)
        })
        .optional()
        .map_err(db)
}

/// Notes, inside the game's own transaction, that `job` recorded `game` in `slot`.
pub fn note_job_game(
    transaction: &Db,
    job: i64,
    slot: usize,
    game: i64,
    time_limit_ms: Option<u64>,
) -> othello_db::Result<()> {
    transaction
        .execute(
            "INSERT INTO server_job_games (job, slot, game, time_limit_ms, time_known) VALUES (?1, ?2, ?3, ?4, 1)",
            params![job, slot as i64, game, time_limit_ms.map(|ms| ms as i64)],
        )
        .map(drop)
}

/// The time a move a ladder game was played at, as the server planned it (the GGF record keeps
/// whole seconds only): `None` when the server does not know (a game of an older server, of
/// `othello rate`), `Some(None)` for no limit.
pub fn game_time_limit(connection: &Db, game: i64) -> Result<Option<Option<u64>>, Error> {
    let planned: Option<Option<i64>> = connection
        .query_row(
            "SELECT time_limit_ms, has_time FROM (
                SELECT time_limit_ms, time_known AS has_time FROM server_job_games WHERE game = ?1
                UNION ALL
                SELECT f.time_ms, 1 FROM server_final_games g JOIN server_finals f ON f.id = g.final WHERE g.game = ?1) AS limits
             WHERE has_time = 1 LIMIT 1",
            [game],
            |row| row.get(0),
        )
        .optional()
        .map_err(db)?;
    Ok(planned.map(|ms| ms.map(|ms| ms as u64)))
}

/// Jobs queued or running (the queue's length, for the pages).
pub fn pending_jobs(connection: &Db) -> Result<u64, Error> {
    connection
        .query_row("SELECT count(*) FROM server_jobs WHERE state != 'done' AND kind != 'test'", [], |row| {
            row.get::<i64>(0)
        })
        .map(|n| n as u64)
        .map_err(db)
}

/// The newest ladder game's id, if any (the arena screen shows it).
pub fn latest_game(connection: &Db) -> Result<Option<i64>, Error> {
    connection.query_row("SELECT max(id) FROM games", [], |row| row.get(0)).map_err(db)
}

const SUBMISSIONS_KEY: &str = "server_submissions";

/// Whether entrants may upload (the organiser closes submissions before a final).
pub fn submissions_open(connection: &Db) -> Result<bool, Error> {
    let value: Option<String> = connection
        .query_row("SELECT value FROM settings WHERE key = ?1", [SUBMISSIONS_KEY], |row| row.get(0))
        .optional()
        .map_err(db)?;
    Ok(value.as_deref() != Some("closed"))
}

pub fn set_submissions_open(connection: &Db, open: bool) -> Result<(), Error> {
    connection
        .execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![SUBMISSIONS_KEY, if open { "open" } else { "closed" }],
        )
        .map(drop)
        .map_err(db)
}

/// Queues a refresh pair for the entrants' current bots (each entrant's newest rated upload), the
/// one with the fewest refresh pairs first, unless a job is waiting already. Returns whether it
/// queued one.
pub fn queue_refresh(connection: &mut Db) -> Result<bool, Error> {
    let transaction = connection.transaction().map_err(db)?;
    let waiting: i64 = transaction
        .query_row("SELECT count(*) FROM server_jobs WHERE state = 'queued'", [], |row| row.get(0))
        .map_err(db)?;
    if waiting > 0 {
        return Ok(false);
    }
    let next: Option<(i64, i64)> = transaction
        .query_row(
            &format!("SELECT u.id, (SELECT count(*) FROM server_jobs j WHERE j.upload = u.id AND j.kind = 'refresh') AS played
             FROM server_uploads u
             WHERE u.status = 'rated' AND u.entry IS NOT NULL
               AND u.id = {}
               -- A bot that lost every game by a failure (its placement gave up on it) plays no more.
               AND NOT ((SELECT count(*) FROM games g WHERE g.black = u.entry OR g.white = u.entry) >= ?1
                    AND (SELECT count(*) FROM games g WHERE g.black = u.entry OR g.white = u.entry)
                      = (SELECT count(*) FROM games g WHERE g.termination NOT IN ('normal', 'resigned')
                           AND ((g.black = u.entry AND g.black_score = 0) OR (g.white = u.entry AND g.black_score = 1))))
             ORDER BY played, u.id LIMIT 1", current_upload_sql("u.entrant", "'rated'")),
            [othello_ladder::session::GIVE_UP_AFTER_FAILED_GAMES],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(db)?;
    let Some((upload, played)) = next else { return Ok(false) };
    transaction
        .execute(
            "INSERT INTO server_jobs (kind, upload, number, created_at) VALUES ('refresh', ?1, ?2, ?3)",
            params![upload, played, unix_now() as i64],
        )
        .map_err(db)?;
    transaction.commit().map_err(db)?;
    Ok(true)
}

/// One ladder game's result.
pub struct GameResult {
    pub black: i64,
    pub white: i64,
    pub black_score: f64,
    pub failed: Option<i64>,
}

/// Every ladder game's result, oldest first (the index on the results covers it).
pub fn game_results(connection: &othello_db::Db) -> Result<Vec<GameResult>, Error> {
    connection
        .query_map("SELECT black, white, black_score, failed FROM games ORDER BY id", [], |row| {
            Ok(GameResult { black: row.get(0)?, white: row.get(1)?, black_score: row.get(2)?, failed: row.get(3)? })
        })
        .map_err(db)
}

/// The version of entrant `entrant` that counts now, if one does: the one it chose when that
/// passed its check, else its newest that did.
pub fn current_version(connection: &Db, entrant: i64) -> Result<Option<i64>, Error> {
    let sql = format!("SELECT {}", current_upload_sql("?1", "'rating', 'rated'"));
    Ok(connection.query_row(&sql, [entrant], |row| row.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A placement played in two chains: the bot is `rated` only once neither pair is running,
    /// whichever chain ends the placement first.
    #[test]
    fn a_placement_is_rated_once_its_last_running_pair_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let mut connection = open(&dir.path().join("contest.sqlite3").into()).unwrap();
        let token = add_entrant(&connection, "Alice").unwrap();
        let entrant = entrant_by_token(&connection, &token).unwrap().unwrap();
        let upload = add_upload(&mut connection, entrant.id, "00", "bot.so", Path::new("bot.so"), 1).unwrap();
        let check = claim_job(&mut connection, "worker 0").unwrap().unwrap();
        finish_job(&mut connection, &check, Status::Rating, None, Next::Pairs { first: 0, count: 2 }).unwrap();
        let first = claim_job(&mut connection, "worker 0").unwrap().unwrap();
        let second = claim_job(&mut connection, "worker 1").unwrap().unwrap();
        assert_eq!((first.kind, second.kind), (JobKind::Pair, JobKind::Pair));

        // The first chain ends the placement while the second still plays its pair.
        finish_job(&mut connection, &first, Status::Rated, Some("the game cap (4) was reached"), Next::Nothing)
            .unwrap();
        let status = |connection: &Db| self::upload(connection, upload).unwrap().unwrap();
        assert_eq!(status(&connection).status, Status::Rating, "a pair is still being played");
        assert_eq!(status(&connection).reason, None);

        finish_job(&mut connection, &second, Status::Rated, Some("the game cap (4) was reached"), Next::Nothing)
            .unwrap();
        assert_eq!(status(&connection).status, Status::Rated);
        assert_eq!(status(&connection).reason.as_deref(), Some("the game cap (4) was reached"));
        assert_eq!(claim_job(&mut connection, "worker 0").unwrap(), None, "nothing more to play");
    }

    /// A ladder of schema 2 (jobs of three kinds, a lease naming one) opens as schema 3: its
    /// jobs and the lease's reference are kept, and a job of kind `test` can be leased.
    #[test]
    fn a_schema_2_ladder_gains_the_test_job_kind_and_keeps_its_jobs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("contest.sqlite3");
        let mut connection = open(&path.clone().into()).unwrap();
        let token = add_entrant(&connection, "Alice").unwrap();
        let entrant = entrant_by_token(&connection, &token).unwrap().unwrap();
        let upload = add_upload(&mut connection, entrant.id, "00", "bot.so", Path::new("bot.so"), 1).unwrap();
        // Back to schema 2 as an older server left it: its CHECK, a running job, a lease on it.
        connection
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 DROP TABLE server_jobs;
                 CREATE TABLE server_jobs (
                    id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('check', 'pair', 'refresh')),
                    upload INTEGER NOT NULL REFERENCES server_uploads(id),
                    number INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
                    lease TEXT, lease_expires INTEGER, attempts INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL, finished_at INTEGER, UNIQUE (upload, kind, number));
                 CREATE INDEX server_jobs_queue ON server_jobs(state, kind, id);
                 PRAGMA foreign_keys = ON;
                 UPDATE settings SET value = '2' WHERE key = 'server_schema';
                 DROP TABLE schema_migrations;
                 DROP TABLE server_replicas; DROP TABLE server_leaders;
                 DROP TABLE server_upload_files; DROP TABLE server_change_counter;",
            )
            .unwrap();
        connection
            .execute(
                "INSERT INTO server_jobs (id, kind, upload, state, lease, lease_expires, created_at)
                 VALUES (7, 'check', ?1, 'running', 'L', 1, 0)",
                [upload],
            )
            .unwrap();
        let worker = crate::store::workers::add_worker(&connection, "w").unwrap();
        let worker = token_holder(&connection, TokenHolder::Worker, &worker).unwrap().unwrap().0;
        connection
            .execute(
                "INSERT INTO server_leases (id, job, worker, plan, issued_at, expires_at) VALUES ('L', 7, ?1, '{}', 0, 1)",
                [worker],
            )
            .unwrap();
        assert!(
            connection
                .execute(
                    "INSERT INTO server_jobs (kind, upload, number, created_at) VALUES ('test', ?1, 1, 0)",
                    [upload]
                )
                .is_err(),
            "schema 2 knows no test jobs"
        );
        drop(connection);

        let connection = open(&path.clone().into()).unwrap();
        let kept: (String, String) = connection
            .query_row("SELECT kind, lease FROM server_jobs WHERE id = 7", [], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap();
        assert_eq!(kept, ("check".to_owned(), "L".to_owned()));
        let broken: i64 =
            connection.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0)).unwrap();
        assert_eq!(broken, 0, "the lease still names its job");
        let test = crate::store::test_games::TestJob { id: 1, upload, opponent: 1 };
        let job = lease_test_job(&connection, &test, "M", 10).unwrap();
        assert_eq!((job.kind, job.number), (JobKind::Test, 1));
        assert_eq!(lease_test_job(&connection, &test, "N", 20).unwrap().id, job.id, "leased again: the same job");
    }
}
