//! The copies sent (a file byte for byte another's) and the owners of the ladder's entries: what
//! the rules of [`crate::service::entries`] read and note.

use std::collections::HashSet;

use othello_db::{Db, params};

use othello_arena::record::unix_now;

use crate::store::{self, Error};

/// Another entrant's upload of the file `sha256` (not `entrant`'s): its id, its entrant's name
/// and its bot's name.
pub fn upload_of_another(connection: &Db, entrant: i64, sha256: &str) -> Result<Option<(i64, String, String)>, Error> {
    let others = store::all_rows(
        connection,
        "SELECT u.id, e.name, u.report, u.file_name FROM server_uploads u
         JOIN server_entrants e ON e.id = u.entrant WHERE u.sha256 = ?1 AND u.entrant != ?2 ORDER BY u.id LIMIT 1",
        params![sha256, entrant],
        |row| Ok((row.get::<i64>(0)?, row.get::<String>(1)?, store::bot_name(row.get(2)?, row.get(3)?))),
    )?;
    Ok(others.into_iter().next())
}

/// Notes that `entrant` sent a copy of `original` (entered or refused).
pub fn note_copy(connection: &Db, entrant: i64, sha256: &str, original: &str, entered: bool) -> Result<(), Error> {
    connection.execute(
        "INSERT INTO server_copies (entrant, sha256, original, at, entered) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![entrant, sha256, original, unix_now() as i64, entered],
    )?;
    Ok(())
}

/// Entrant `id`'s name.
pub fn entrant_name(connection: &Db, id: i64) -> Result<String, Error> {
    Ok(connection.query_row("SELECT name FROM server_entrants WHERE id = ?1", [id], |row| row.get(0))?)
}

/// Ladder entries that are entrants' uploads.
pub fn uploaded_entries(connection: &Db) -> Result<HashSet<i64>, Error> {
    let entries =
        store::all_rows(connection, "SELECT DISTINCT entry FROM server_uploads WHERE entry IS NOT NULL", [], |row| {
            row.get::<i64>(0)
        })?;
    Ok(entries.into_iter().collect())
}

/// Every ladder entry of an upload: the entry, its entrant and the entrant's name.
pub fn entry_owners(connection: &Db) -> Result<Vec<(i64, i64, String)>, Error> {
    store::all_rows(
        connection,
        "SELECT u.entry, u.entrant, e.name FROM server_uploads u JOIN server_entrants e ON e.id = u.entrant
         WHERE u.entry IS NOT NULL",
        [],
        |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?, row.get::<String>(2)?)),
    )
}

/// A copy sent: who sent it, whose file it is, when (Unix seconds), whether it was entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    pub sender: String,
    pub original: String,
    pub at: u64,
    pub entered: bool,
}

/// Copies sent so far (refused or entered), newest first.
pub fn copies(connection: &Db) -> Result<Vec<Copy>, Error> {
    store::all_rows(
        connection,
        "SELECT e.name, c.original, c.at, c.entered FROM server_copies c JOIN server_entrants e ON e.id = c.entrant
         ORDER BY c.id DESC",
        [],
        |row| {
            Ok(Copy { sender: row.get(0)?, original: row.get(1)?, at: row.get::<i64>(2)? as u64, entered: row.get(3)? })
        },
    )
}
