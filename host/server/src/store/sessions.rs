//! Login sessions: a page's cookie holds a random session id, never the token itself. The id is
//! stored as its SHA-256 (as tokens are), made anew at every login, ended at logout or when the
//! holder's token is replaced, and it expires.

use std::time::Duration;

use othello_db::{Db, OptionalExtension, params};

use othello_arena::record::unix_now;

use crate::store::db;
use crate::store::{new_token, sha256_hex};

/// How long an entrant's login lasts.
pub const ENTRANT_SESSION: Duration = Duration::from_secs(7 * 24 * 3600);
/// How long the organiser's login lasts.
pub const ADMIN_SESSION: Duration = Duration::from_secs(12 * 3600);

/// Who holds a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Entrant,
    Admin,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Entrant => "entrant",
            Kind::Admin => "admin",
        }
    }

    /// How long a session of this kind lasts.
    pub fn lifetime(self) -> Duration {
        match self {
            Kind::Entrant => ENTRANT_SESSION,
            Kind::Admin => ADMIN_SESSION,
        }
    }
}

/// Starts a session for `holder`; returns its id (only its hash is stored). Expired sessions are
/// cleared on the way.
pub fn start(connection: &Db, kind: Kind, holder: i64) -> Result<String, crate::store::Error> {
    let id = new_token();
    let now = unix_now() as i64;
    connection.execute("DELETE FROM server_sessions WHERE expires_at < ?1", [now]).map_err(db)?;
    connection
        .execute(
            "INSERT INTO server_sessions (id_hash, kind, holder, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![sha256_hex(id.as_bytes()), kind.as_str(), holder, now, now + kind.lifetime().as_secs() as i64],
        )
        .map_err(db)?;
    Ok(id)
}

/// The holder of a live session of `kind`, if `id` is one.
pub fn holder(connection: &Db, kind: Kind, id: &str) -> Result<Option<i64>, crate::store::Error> {
    connection
        .query_row(
            "SELECT holder FROM server_sessions WHERE id_hash = ?1 AND kind = ?2 AND expires_at >= ?3",
            params![sha256_hex(id.as_bytes()), kind.as_str(), unix_now() as i64],
            |row| row.get(0),
        )
        .optional()
        .map_err(db)
}

/// Ends one session (logout).
pub fn end(connection: &Db, id: &str) -> Result<(), crate::store::Error> {
    connection
        .execute("DELETE FROM server_sessions WHERE id_hash = ?1", [sha256_hex(id.as_bytes())])
        .map(drop)
        .map_err(db)
}

/// Ends every session of `holder` (its token was replaced or revoked).
pub fn end_all(connection: &Db, kind: Kind, holder: i64) -> Result<(), crate::store::Error> {
    connection
        .execute("DELETE FROM server_sessions WHERE kind = ?1 AND holder = ?2", params![kind.as_str(), holder])
        .map(drop)
        .map_err(db)
}
