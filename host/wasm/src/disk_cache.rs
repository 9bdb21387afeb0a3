//! Compiled modules kept on disk between runs, so that a module is compiled once per machine
//! (and per wasmtime engine), not once per process: `CACHE/<module sha256>-<engine key>.cwasm`,
//! the module's code as wasmtime serializes it.
//!
//! The folder is the user's own (made `0700` on Unix): a compiled module is native code that
//! runs as it is read back, so only this user's programs may write one. Sandboxed bots cannot
//! (their runners may only read the one file they are given).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::Module;

use crate::engine;

/// The environment variable naming the cache folder (empty: no disk cache). Default: the
/// user's cache folder (`$XDG_CACHE_HOME`, `~/.cache`, `%LOCALAPPDATA%`) + `othello/wasm`.
pub const CACHE_DIR_ENV: &str = "OTHELLO_WASM_CACHE";

/// The folder compiled modules are kept in, if there is one.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(CACHE_DIR_ENV) {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|dir| !dir.is_empty()).map(|home| Path::new(&home).join(".cache")))
        .or_else(|| std::env::var_os("LOCALAPPDATA").filter(|dir| !dir.is_empty()).map(PathBuf::from))?;
    Some(base.join("othello").join("wasm"))
}

/// The file of the module `hash` compiled by this engine.
fn path_of(hash: &[u8; 32]) -> Option<PathBuf> {
    let mut hasher = std::hash::DefaultHasher::new();
    engine().precompile_compatibility_hash().hash(&mut hasher);
    let engine_key = hasher.finish();
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    Some(cache_dir()?.join(format!("{hex}-{engine_key:016x}.cwasm")))
}

/// The module `hash` as compiled in an earlier run, if the cache has it.
pub(crate) fn read(hash: &[u8; 32]) -> Option<Module> {
    read_file(&path_of(hash)?)
}

/// The compiled module in `path`, if it is one this engine runs.
pub(crate) fn read_file(path: &Path) -> Option<Module> {
    let bytes = std::fs::read(path).ok()?;
    // SAFETY: `deserialize` runs the file's code as it is; the file is one this user's programs
    // wrote (`write`: the user's own folder, or a path the host gave its runner), and wasmtime
    // checks that it was made by this version and configuration of the engine.
    unsafe { Module::deserialize(engine(), &bytes) }.ok()
}

/// Keeps `module` (of `hash`) for the next runs; a cache that cannot be written is skipped.
pub(crate) fn write(hash: &[u8; 32], module: &Module) {
    let (Some(path), Ok(bytes)) = (path_of(hash), module.serialize()) else { return };
    let Some(folder) = path.parent() else { return };
    if make_private_folder(folder).is_err() {
        return;
    }
    // Under a name of this process and thread, then renamed: a reader never sees half a file.
    let partial = folder.join(format!(
        ".partial-{}-{}",
        std::process::id(),
        format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "")
    ));
    if std::fs::write(&partial, bytes).is_ok() && std::fs::rename(&partial, &path).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// The file a runner loads `module` (of `hash`) from: the cache's, written now if it is not there.
pub(crate) fn artifact_of(hash: &[u8; 32], module: &Module) -> Option<PathBuf> {
    let path = path_of(hash)?;
    if !path.is_file() {
        write(hash, module);
    }
    path.is_file().then_some(path)
}

/// Creates `folder` (and its parents) readable and writable by this user only.
fn make_private_folder(folder: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)
}
