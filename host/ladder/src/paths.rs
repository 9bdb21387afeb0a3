//! Where the ladder lives by default: the platform's data folder.

use std::path::PathBuf;

/// The ladder's file name in the data folder.
pub const LADDER_FILE_NAME: &str = "ladder.sqlite3";
/// The application's folder in the data folder.
pub const DATA_FOLDER_NAME: &str = "othello-arena";

/// The default ladder: `$XDG_DATA_HOME/othello-arena/ladder.sqlite3`, or
/// `~/.local/share/othello-arena/ladder.sqlite3` when `XDG_DATA_HOME` is unset (on macOS
/// `~/Library/Application Support/othello-arena/ladder.sqlite3`). `None` without a home folder.
pub fn default_ladder_path() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            let home = PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?);
            Some(if cfg!(target_os = "macos") {
                home.join("Library/Application Support")
            } else {
                home.join(".local/share")
            })
        })?;
    Some(data.join(DATA_FOLDER_NAME).join(LADDER_FILE_NAME))
}
