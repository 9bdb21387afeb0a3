//! Who an entry on the ladder is: one row per entrant's upload. A file byte for byte another
//! entrant's (or the organiser's pool's) is a copy: refused with a message naming it, or entered
//! as an entry of its own named `Name (Entrant)` (the organiser's [`CopyRule`]); a
//! bot's name must not look like another entrant's or a pool bot's (told apart by
//! [`othello_arena::text::skeleton`]: NFKC, UTS #39 confusables, case folded). Both rules are
//! checked at the upload (copies) and again when the check names the bot, before it gets an entry.

use othello_db::Db;

use othello_arena::text::skeleton;
use othello_ladder::Ladder;
use othello_ladder::identity::Kind;

use crate::store::copies;
use crate::store::settings::CopyRule;

/// Whose the file `sha256` is when it is not `entrant`'s own: another entrant's upload, or a bot
/// of the organiser's pool. In words, for the message and the organiser's page.
pub fn original_of(connection: &Db, ladder: &Ladder, entrant: i64, sha256: &str) -> Result<Option<String>, String> {
    if let Some((id, owner, name)) = copies::upload_of_another(connection, entrant, sha256)? {
        return Ok(Some(format!("{owner}'s upload {id} ({name})")));
    }
    let uploaded = copies::uploaded_entries(connection)?;
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
    copies::note_copy(connection, entrant, sha256, &original, rule == CopyRule::Enter)?;
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
                let owner = copies::entrant_name(connection, entrant)?;
                format!("{name} ({owner})")
            }
        },
    };
    Ok(match name_taken(connection, ladder, entrant, &name)? {
        Some(why) => Err(why),
        None => Ok(name),
    })
}

/// Why `name` cannot be `entrant`'s bot's name, if it cannot: it looks like (same skeleton) the
/// name of another entrant's bot or of a pool bot. An entrant's own earlier versions may share it.
pub fn name_taken(connection: &Db, ladder: &Ladder, entrant: i64, name: &str) -> Result<Option<String>, String> {
    let wanted = skeleton(name);
    let owners = copies::entry_owners(connection)?;
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

pub use crate::store::copies::{Copy, copies};
