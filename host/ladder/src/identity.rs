//! Who a rated entry is: the bot's name, its level and the SHA-256 of what runs (the library
//! file, or an engine's command and program files). A rebuilt library has a new hash, so it is a
//! new version of the same bot, rated on its own beside the old one.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use othello_arena::nboard::EngineSpec;

/// What kind of player an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A bot library (plugin).
    Library,
    /// An external engine spoken to over the NBoard protocol (`nboard:COMMAND`).
    Engine,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Library => "library",
            Kind::Engine => "engine",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        match text {
            "library" => Some(Kind::Library),
            "engine" => Some(Kind::Engine),
            _ => None,
        }
    }
}

/// A rated entry's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub kind: Kind,
    /// The bot's own name (from its `init`, the file stem if it cannot load, or the engine's
    /// command name), without the level.
    pub name: String,
    /// Strength level (`None` = the bot's default); `bot@3` is an entry of its own.
    pub level: Option<u32>,
    /// SHA-256 in hex of the library file (of an engine: of its command and program files).
    pub hash: String,
    /// Where it is found: the library's path, or `nboard:COMMAND`.
    pub locator: String,
}

impl Identity {
    /// `Name` or `Name@LEVEL`.
    pub fn label(&self) -> String {
        label(&self.name, self.level)
    }
}

/// `Name` or `Name@LEVEL`.
pub fn label(name: &str, level: Option<u32>) -> String {
    match level {
        Some(level) => format!("{name}@{level}"),
        None => name.to_owned(),
    }
}

/// Hex digits of a hash shown to people (the version's short form, as git shows commits).
pub const SHORT_HASH_DIGITS: usize = 8;

/// The first [`SHORT_HASH_DIGITS`] hex digits.
pub fn short_hash(hash: &str) -> &str {
    &hash[..hash.len().min(SHORT_HASH_DIGITS)]
}

/// Size of the buffer files are hashed through.
const HASH_BUFFER_BYTES: usize = 64 * 1024;

fn hash_into(hasher: &mut Sha256, path: &Path) -> Result<(), String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut buffer = vec![0u8; HASH_BUFFER_BYTES];
    loop {
        let read = file.read(&mut buffer).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if read == 0 {
            return Ok(());
        }
        hasher.update(&buffer[..read]);
    }
}

/// SHA-256 of a file, in hex.
pub fn file_hash(path: &Path) -> Result<String, String> {
    let mut hasher = Sha256::new();
    hash_into(&mut hasher, path)?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The identity of a bot library at `path` that calls itself `name` (at `level`).
pub fn library_identity(path: &Path, name: &str, level: Option<u32>) -> Result<Identity, String> {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    Ok(Identity {
        kind: Kind::Library,
        name: name.to_owned(),
        level,
        hash: file_hash(&path)?,
        locator: path.to_string_lossy().into_owned(),
    })
}

/// The identity of an NBoard engine named `nboard:COMMAND` (or `nboard:{JSON}`, an engines-file
/// entry): its description (command, working folder, init lines), then the contents of its program
/// (looked up on `PATH` when it has no folder) and of every other word that names an existing file
/// (a script run by an interpreter, a weights file).
pub fn engine_identity(bot: &str, level: Option<u32>) -> Result<Identity, String> {
    let spec = EngineSpec::from_bot_name(bot).ok_or_else(|| format!("`{bot}` is not an nboard:COMMAND engine"))??;
    let words = spec.words()?;
    let program = spec.program();
    let program_file = find_program(&program).ok_or_else(|| {
        format!("`{}`: the engine's program `{}` is not a file nor on PATH", spec.display_name(), program.display())
    })?;
    let mut hasher = Sha256::new();
    // For a plain command, its text as it was hashed before engines files existed.
    let description = spec.bot_name();
    hasher.update(description.strip_prefix(othello_arena::nboard::protocol::NBOARD_PREFIX).unwrap_or(&description));
    hasher.update([0]);
    hash_into(&mut hasher, &program_file)?;
    for word in &words[1..] {
        let path = match &spec.working_directory {
            Some(folder) => folder.join(word),
            None => PathBuf::from(word),
        };
        if path.is_file() {
            hasher.update([0]);
            hash_into(&mut hasher, &path)?;
        }
    }
    Ok(Identity {
        kind: Kind::Engine,
        name: spec.display_name(),
        level,
        hash: hex(&hasher.finalize()),
        locator: bot.to_owned(),
    })
}

/// A program's file: a path as it is, else the first match on `PATH`.
fn find_program(path: &Path) -> Option<PathBuf> {
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    let program = path.as_os_str();
    let search = std::env::var_os("PATH")?;
    std::env::split_paths(&search).map(|dir| dir.join(program)).find(|candidate| candidate.is_file())
}

/// Whether what runs at `identity.locator` is still the version `identity` names.
pub fn still_matches(identity: &Identity) -> bool {
    let now = match identity.kind {
        Kind::Library => file_hash(Path::new(&identity.locator)),
        Kind::Engine => engine_identity(&identity.locator, identity.level).map(|i| i.hash),
    };
    now.is_ok_and(|hash| hash == identity.hash)
}

/// `alphabeta@3` → (`alphabeta`, 3); a plain name, an existing path or a name whose `@` is not
/// followed by a number has no level.
pub fn split_level(bot: &str) -> (&str, Option<u32>) {
    if Path::new(bot).exists() {
        return (bot, None);
    }
    match bot.rsplit_once('@') {
        Some((name, level)) if !name.is_empty() => match level.parse() {
            Ok(level) => (name, Some(level)),
            Err(_) => (bot, None),
        },
        _ => (bot, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuilt_library_is_a_new_version_and_a_copy_is_the_same_one() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("liba.so"), dir.path().join("libb.so"));
        std::fs::write(&a, b"one build").unwrap();
        std::fs::write(&b, b"one build").unwrap();
        let first = library_identity(&a, "Bot", Some(3)).unwrap();
        assert_eq!(first.hash, library_identity(&b, "Bot", Some(3)).unwrap().hash);
        assert_eq!(first.label(), "Bot@3");
        assert!(still_matches(&first));
        std::fs::write(&a, b"another build").unwrap();
        assert!(!still_matches(&first));
        assert_ne!(first.hash, library_identity(&a, "Bot", Some(3)).unwrap().hash);
        // SHA-256 of "another build", as `sha256sum` gives it.
        assert_eq!(file_hash(&a).unwrap().len(), 64);
    }

    #[test]
    fn an_engine_is_its_command_and_program_files() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("engine.sh");
        std::fs::write(&script, "echo hi\n").unwrap();
        let bot = format!("nboard:sh {}", script.display());
        let first = engine_identity(&bot, None).unwrap();
        assert_eq!(first.kind, Kind::Engine);
        assert!(still_matches(&first));
        std::fs::write(&script, "echo changed\n").unwrap();
        assert!(!still_matches(&first), "a changed script is a new version");
        let other = engine_identity(&format!("{bot} --fast"), None).unwrap();
        assert_ne!(other.hash, engine_identity(&bot, None).unwrap().hash, "other options, other entry");
        assert!(engine_identity("nboard:/no/such/engine", None).unwrap_err().contains("not a file"));
    }

    #[test]
    fn levels_are_split_off_names() {
        assert_eq!(split_level("alphabeta@3"), ("alphabeta", Some(3)));
        assert_eq!(split_level("alphabeta"), ("alphabeta", None));
        assert_eq!(split_level("me@home"), ("me@home", None));
    }
}
