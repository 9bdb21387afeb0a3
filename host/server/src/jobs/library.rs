//! Whether a bot's library on disk is still the one its ladder entry names (the workers skip an
//! opponent whose file was rebuilt or removed).

use std::collections::HashMap;

use othello_ladder::identity::{Identity, Kind, file_hash, still_matches};

thread_local! {
    /// Each library's SHA-256 as of its size and modification time, per worker thread.
    static LIBRARY_HASHES: std::cell::RefCell<HashMap<std::path::PathBuf, (u64, std::time::SystemTime, String)>> =
        std::cell::RefCell::new(HashMap::new());
}

/// [`still_matches`] for every pair without hashing the whole pool each time (megabytes per
/// library: most of a pair's time in a debug build): a library's hash is computed again only when
/// its size or modification time changed (a rebuild changes both).
pub fn still_built(identity: &Identity) -> bool {
    if identity.kind != Kind::Library {
        return still_matches(identity);
    }
    let path = std::path::PathBuf::from(&identity.locator);
    let Ok(stamp) = std::fs::metadata(&path).and_then(|m| Ok((m.len(), m.modified()?))) else { return false };
    LIBRARY_HASHES.with(|hashes| {
        let mut hashes = hashes.borrow_mut();
        if let Some((len, modified, hash)) = hashes.get(&path)
            && (*len, *modified) == stamp
        {
            return *hash == identity.hash;
        }
        match file_hash(&path) {
            Ok(hash) => {
                let matches = hash == identity.hash;
                hashes.insert(path, (stamp.0, stamp.1, hash));
                matches
            }
            Err(_) => false,
        }
    })
}
