//! Every upload's bytes in the database (`server_upload_files`, by SHA-256), beside the file each
//! server keeps under its uploads folder: a replica plays, serves and re-plays a bot another
//! replica took by writing the file from the database the first time it needs it, and a backup
//! of the database (`pg_dump`) holds every bot.
//!
//! Every replica of a ladder is started with the same uploads folder path (its own disk or a
//! shared one), so an upload's path in `server_uploads` names its file on each of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use othello_db::{Db, OptionalExtension, params};

use crate::store::{db, sha256_hex};

/// The upload files this process knows to be on its disk (so a claim stats each file once).
fn present() -> &'static Mutex<HashSet<PathBuf>> {
    static PRESENT: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    PRESENT.get_or_init(Mutex::default)
}

/// Keeps `bytes` (whose SHA-256 is `sha256`) in the database, once.
pub fn keep(connection: &Db, sha256: &str, bytes: &[u8]) -> Result<(), crate::store::Error> {
    connection
        .execute(
            "INSERT INTO server_upload_files (sha256, bytes, stored_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (sha256) DO NOTHING",
            params![sha256, bytes, othello_arena::record::unix_now() as i64],
        )
        .map(drop)
        .map_err(db)
}

/// Writes `bytes` to `path` under a temporary name and renames it: a crash never leaves half a
/// library, and two replicas writing the same file at once both end with the whole of it.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let name = path.file_name().map_or_else(|| "upload".into(), |n| n.to_string_lossy().into_owned());
    let partial = folder.join(format!(".{name}.{}.partial", std::process::id()));
    std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path))
}

/// Makes sure the upload file at `path` is on this machine, writing it from the database when
/// another replica took it. A path no upload has is left as it is (a pool bot's library).
pub fn ensure_local(connection: &Db, path: &Path) -> Result<(), crate::store::Error> {
    if present().lock().unwrap_or_else(|p| p.into_inner()).contains(path) {
        return Ok(());
    }
    if !path.is_file() {
        let stored: Option<(String, Vec<u8>)> = connection
            .query_row(
                "SELECT f.sha256, f.bytes FROM server_uploads u JOIN server_upload_files f ON f.sha256 = u.sha256
                 WHERE u.path = ?1 LIMIT 1",
                [path.to_string_lossy().as_ref()],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(db)?;
        let Some((sha256, bytes)) = stored else { return Ok(()) };
        if sha256_hex(&bytes) != sha256 {
            return Err(format!("the stored bytes of upload {sha256} do not match their hash").into());
        }
        write_file(path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    present().lock().unwrap_or_else(|p| p.into_inner()).insert(path.to_path_buf());
    Ok(())
}

/// [`ensure_local`] for every upload: before a worker of this replica plays what it claimed
/// (the bots of a pair, a final or test games may be any entrant's).
pub fn ensure_all_local(connection: &Db) -> Result<(), crate::store::Error> {
    let paths: Vec<String> =
        connection.query_map("SELECT DISTINCT path FROM server_uploads", [], |row| row.get(0)).map_err(db)?;
    for path in paths {
        ensure_local(connection, Path::new(&path))?;
    }
    Ok(())
}

/// Keeps in the database the bytes of the uploads a server of an earlier release took (they
/// were only in its folder). Returns how many.
pub fn keep_earlier_uploads(connection: &Db) -> Result<usize, crate::store::Error> {
    let missing: Vec<(String, String)> = connection
        .query_map(
            "SELECT DISTINCT u.sha256, u.path FROM server_uploads u
             WHERE NOT EXISTS (SELECT 1 FROM server_upload_files f WHERE f.sha256 = u.sha256)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map_err(db)?;
    let mut kept = 0;
    for (sha256, path) in missing {
        match std::fs::read(&path) {
            Ok(bytes) if sha256_hex(&bytes) == sha256 => {
                keep(connection, &sha256, &bytes)?;
                kept += 1;
            }
            // Gone or changed on disk: a replica cannot get it from the database either.
            _ => eprintln!("upload {sha256}: its file {path} is missing or changed; it stays out of the database"),
        }
    }
    Ok(kept)
}
