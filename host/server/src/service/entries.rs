//! Who an entry on the ladder is: one row per entrant's upload. A file byte for byte another
//! entrant's (or the organiser's pool's) is a copy: refused with a message naming it, or entered
//! as an entry of its own named `Name (Entrant)` (the organiser's [`CopyRule`]); a
//! bot's name must not look like another entrant's or a pool bot's (told apart by
//! [`othello_arena::text::skeleton`]: NFKC, UTS #39 confusables, case folded). Both rules are
//! checked at the upload (copies) and again when the check names the bot, before it gets an entry.

use othello_db::{Db, params};

use othello_arena::record::unix_now;
use othello_arena::text::skeleton;
use othello_ladder::Ladder;
use othello_ladder::identity::Kind;

use crate::store;
use crate::store::db;
use crate::store::settings::CopyRule;

/// Whose the file `sha256` is when it is not `entrant`'s own: another entrant's upload, or a bot
/// of the organiser's pool. In words, for the message and the organiser's page.
pub fn original_of(connection: &Db, ladder: &Ladder, entrant: i64, sha256: &str) -> Result<Option<String>, String> {
    let others = store::all_rows(
        connection,
        "SELECT u.id, e.name, u.report, u.file_name FROM server_uploads u
         JOIN server_entrants e ON e.id = u.entrant WHERE u.sha256 = ?1 AND u.entrant != ?2 ORDER BY u.id LIMIT 1",
        params![sha256, entrant],
        |row| Ok((row.get::<i64>(0)?, row.get::<String>(1)?, store::bot_name(row.get(2)?, row.get(3)?))),
    )?;
    if let Some((id, owner, name)) = others.into_iter().next() {
        return Ok(Some(format!("{owner}'s upload {id} ({name})")));
    }
    let uploaded = uploaded_entries(connection)?;
    Ok(ladder
        .entries()?
        .into_iter()
        .find(|e| e.identity.kind == Kind::Library && e.identity.hash == sha256 && !uploaded.contains(&e.id))
        .map(|e| format!("the organiser's pool bot {}", e.identity.label())))
}

/// Flags `entrant`'s file for the organiser when it is a copy, and refuses it unless the
/// organiser enters copies: the refusal names whose file it is.
pub fn refuse_copy(connection: &Db, ladder: &Ladder, entrant: i64, sha256: &str) -> Result<Option<String>, String> {
    let Some(original) = original_of(connection, ladder, entrant, sha256)? else { return Ok(None) };
    let rule = crate::store::settings::copy_rule(connection)?;
    connection
        .execute(
            "INSERT INTO server_copies (entrant, sha256, original, at, entered) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![entrant, sha256, original, unix_now() as i64, rule == CopyRule::Enter],
        )
        .map_err(db)?;
    Ok((rule == CopyRule::Refuse).then(|| {
        format!(
            "this file is byte for byte a copy of {original}: a copy is not entered (each entry is one entrant's \
             own bot); build your own, or change it and upload that"
        )
    }))
}

/// The name a checked bot gets on the ladder, or why it gets no entry: a copy is refused, or
/// (when the organiser enters copies) named `Name (Entrant)`, its own entry beside the original's;
/// a name that looks like another's is refused.
pub fn entry_name(
    connection: &Db,
    ladder: &Ladder,
    entrant: i64,
    sha256: &str,
    name: &str,
) -> Result<Result<String, String>, String> {
    let name = match original_of(connection, ladder, entrant, sha256)? {
        None => name.to_owned(),
        Some(original) => match crate::store::settings::copy_rule(connection)? {
            CopyRule::Refuse => {
                return Ok(Err(format!("it is byte for byte a copy of {original}: a copy is not entered")));
            }
            CopyRule::Enter => {
                let owner: String = connection
                    .query_row("SELECT name FROM server_entrants WHERE id = ?1", [entrant], |row| row.get(0))
                    .map_err(db)?;
                format!("{name} ({owner})")
            }
        },
    };
    Ok(match name_taken(connection, ladder, entrant, &name)? {
        Some(why) => Err(why),
        None => Ok(name),
    })
}

/// Ladder entries that are entrants' uploads.
fn uploaded_entries(connection: &Db) -> Result<std::collections::HashSet<i64>, String> {
    let entries =
        store::all_rows(connection, "SELECT DISTINCT entry FROM server_uploads WHERE entry IS NOT NULL", [], |row| {
            row.get::<i64>(0)
        })?;
    Ok(entries.into_iter().collect())
}

/// Why `name` cannot be `entrant`'s bot's name, if it cannot: it looks like (same skeleton) the
/// name of another entrant's bot or of a pool bot. An entrant's own earlier versions may share it.
pub fn name_taken(connection: &Db, ladder: &Ladder, entrant: i64, name: &str) -> Result<Option<String>, String> {
    let wanted = skeleton(name);
    let owners = store::all_rows(
        connection,
        "SELECT u.entry, u.entrant, e.name FROM server_uploads u JOIN server_entrants e ON e.id = u.entrant
         WHERE u.entry IS NOT NULL",
        [],
        |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?, row.get::<String>(2)?)),
    )?;
    for entry in ladder.entries()? {
        if skeleton(&entry.identity.name) != wanted {
            continue;
        }
        match owners.iter().find(|(id, _, _)| *id == entry.id) {
            Some((_, owner, _)) if *owner == entrant => {}
            Some((_, _, owner_name)) => {
                return Ok(Some(format!(
                    "its name `{name}` looks like `{}`, {owner_name}'s bot: names are told apart by how they look \
                     (letters that look alike, case, width); give your bot another name in `init`",
                    entry.identity.name
                )));
            }
            None => {
                return Ok(Some(format!(
                    "its name `{name}` looks like `{}`, a bot of the organiser's pool: give your bot another name in `init`",
                    entry.identity.name
                )));
            }
        }
    }
    Ok(None)
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
pub fn copies(connection: &Db) -> Result<Vec<Copy>, store::Error> {
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
