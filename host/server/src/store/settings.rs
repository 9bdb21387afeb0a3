//! The organiser's settings in the ladder's `settings` table: the organiser's token (stored as
//! its SHA-256, like the entrants' tokens, and never an entrant's) and the time control of
//! rating games, which the workers read for every new job.

use othello_db::Location;
use std::time::Duration;

use othello_db::{Db, OptionalExtension, params};

use crate::store::db;
use crate::store::{new_token, sha256_hex};

const ADMIN_TOKEN_KEY: &str = "server_admin_token";
const TIME_CONTROL_KEY: &str = "server_time_ms";
const COPIES_KEY: &str = "server_copies";
const SEEDING_KEY: &str = "server_seeding";

/// What the server does with a file byte for byte another entrant's (or a pool bot's): the
/// organiser's choice. Either way the organiser's page lists the copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyRule {
    /// Refused with a message naming whose file it is (the default).
    Refuse,
    /// Entered as an entry of its own: its own ladder row, rating and games, named
    /// `Name (Entrant)` so that it is told apart from the original.
    Enter,
}

impl CopyRule {
    pub fn as_str(self) -> &'static str {
        match self {
            CopyRule::Refuse => "refuse",
            CopyRule::Enter => "enter",
        }
    }

    pub fn parse(text: &str) -> Result<CopyRule, String> {
        match text.trim() {
            "refuse" => Ok(CopyRule::Refuse),
            "enter" => Ok(CopyRule::Enter),
            other => Err(format!("`{other}`: copies are either `refuse`d or `enter`ed as entries of their own")),
        }
    }
}

/// Longest time per move the organiser may set: ten minutes.
pub const MAX_TIME_MS: u64 = 600_000;

fn setting(connection: &Db, key: &str) -> Result<Option<String>, crate::store::Error> {
    connection.query_row("SELECT value FROM settings WHERE key = ?1", [key], |row| row.get(0)).optional().map_err(db)
}

fn set_setting(connection: &Db, key: &str, value: &str) -> Result<(), crate::store::Error> {
    connection
        .execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )
        .map(drop)
        .map_err(db)
}

/// Makes a new organiser token (the one before stops working); returns it. Only its hash is kept.
pub fn new_admin_token(connection: &Db) -> Result<String, crate::store::Error> {
    let token = new_token();
    set_setting(connection, ADMIN_TOKEN_KEY, &sha256_hex(token.as_bytes()))?;
    crate::store::sessions::end_all(connection, crate::store::sessions::Kind::Admin, 0)?;
    Ok(token)
}

/// Whether `token` is the organiser's.
pub fn is_admin_token(connection: &Db, token: &str) -> Result<bool, crate::store::Error> {
    Ok(setting(connection, ADMIN_TOKEN_KEY)?.is_some_and(|hash| hash == sha256_hex(token.trim().as_bytes())))
}

/// The time per move the organiser set (`Some(None)`: no limit), or `None` when it was never set
/// (the command line's `--time-ms` holds then).
pub fn stored_time_limit(connection: &Db) -> Result<Option<Option<Duration>>, crate::store::Error> {
    Ok(setting(connection, TIME_CONTROL_KEY)?
        .and_then(|v| v.parse::<u64>().ok())
        .map(|ms| (ms > 0).then(|| Duration::from_millis(ms))))
}

/// The time per move of new rating games: the organiser's setting, else the command line's.
pub fn time_limit(connection: &Db, config: &crate::config::Config) -> Result<Option<Duration>, crate::store::Error> {
    Ok(stored_time_limit(connection)?.unwrap_or(config.time_limit))
}

/// Sets the time per move of rating games from now on (0 = no limit).
pub fn set_time_ms(connection: &Db, ms: u64) -> Result<(), crate::store::Error> {
    if ms > MAX_TIME_MS {
        return Err(format!("a time per move of at most {MAX_TIME_MS} ms (0 = no limit)").into());
    }
    set_setting(connection, TIME_CONTROL_KEY, &ms.to_string())
}

/// `othello serve admin-token`: a new organiser token.
pub fn admin_token(ladder: &Location) -> Result<String, crate::store::Error> {
    new_admin_token(&crate::store::open(ladder)?)
}

/// `othello serve time-control MS`.
pub fn set_time_control(ladder: &Location, ms: u64) -> Result<(), crate::store::Error> {
    set_time_ms(&crate::store::open(ladder)?, ms)
}

/// The organiser's rule for copies (refused unless the organiser chose otherwise).
pub fn copy_rule(connection: &Db) -> Result<CopyRule, crate::store::Error> {
    Ok(match setting(connection, COPIES_KEY)?.as_deref() {
        Some("enter") => CopyRule::Enter,
        _ => CopyRule::Refuse,
    })
}

pub fn set_copy_rule(connection: &Db, rule: CopyRule) -> Result<(), crate::store::Error> {
    set_setting(connection, COPIES_KEY, rule.as_str())
}

/// `othello serve copies refuse|enter`.
pub fn set_copies(ladder: &Location, rule: &str) -> Result<(), crate::store::Error> {
    set_copy_rule(&crate::store::open(ladder)?, CopyRule::parse(rule)?)
}

/// Whether the sample pool's calibration began and has not ended (a server stopped during it
/// goes on at its next start).
pub fn seeding_unfinished(connection: &Db) -> Result<bool, crate::store::Error> {
    Ok(setting(connection, SEEDING_KEY)?.as_deref() == Some("running"))
}

pub fn set_seeding_unfinished(connection: &Db, unfinished: bool) -> Result<(), crate::store::Error> {
    set_setting(connection, SEEDING_KEY, if unfinished { "running" } else { "done" })
}
