//! The bot libraries the app knows about: scanned from the plugin folders on a background
//! thread, rescanned when a library in them is added, removed or rebuilt.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::{Duration, SystemTime};

use super::players::Waker;

/// How often the plugin folders are checked for changes.
pub const RESCAN_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// One library found in a plugin folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginEntry {
    pub path: PathBuf,
    /// The bot's name from `init`, for a working library.
    pub name: Option<String>,
    /// Strength levels (0 = none).
    pub levels: u32,
    /// `Ok` or why the library cannot be used.
    pub status: Result<(), String>,
}

impl PluginEntry {
    /// The name to show: the bot's own, else the file stem.
    pub fn display_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| file_stem(&self.path))
    }

    pub fn is_usable(&self) -> bool {
        self.status.is_ok()
    }
}

pub fn file_stem(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    stem.strip_prefix(std::env::consts::DLL_PREFIX).filter(|s| !s.is_empty()).map(str::to_owned).unwrap_or(stem)
}

/// A fingerprint of the libraries in the folders: paths with their sizes and modification times.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn fingerprint(folders: &[PathBuf]) -> Fingerprint {
    let mut prints: Fingerprint = library_files(folders)
        .into_iter()
        .map(|path| {
            let meta = std::fs::metadata(&path).ok();
            let size = meta.as_ref().map_or(0, |m| m.len());
            let modified = meta.and_then(|m| m.modified().ok());
            (path, size, modified)
        })
        .collect();
    prints.sort();
    prints
}

/// Files with the platform's shared-library extension in the folders.
fn library_files(folders: &[PathBuf]) -> Vec<PathBuf> {
    let suffix = std::env::consts::DLL_SUFFIX;
    let mut files = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_file() && path.to_string_lossy().ends_with(suffix) {
                files.push(path);
            }
        }
    }
    files.sort();
    files.dedup();
    files
}

/// Checks every library of the folders (slow: each is loaded in isolation).
fn scan(folders: &[PathBuf]) -> Vec<PluginEntry> {
    library_files(folders).into_iter().map(|path| PluginEntry { path, name: None, levels: 0, status: Ok(()) }).collect()
}

/// A scan result from the watcher.
struct Scanned {
    folders: Vec<PathBuf>,
    entries: Vec<PluginEntry>,
}

enum Command {
    Folders(Vec<PathBuf>),
    Rescan,
}

/// The catalogue, kept up to date by a watcher thread that polls the folders every
/// [`RESCAN_POLL_INTERVAL`] and rescans (waking the UI) only when a library changed.
pub struct Catalog {
    folders: Vec<PathBuf>,
    entries: Vec<PluginEntry>,
    commands: Sender<Command>,
    results: Receiver<Scanned>,
    scanning: bool,
    /// When the last scan finished.
    pub scanned_at: Option<SystemTime>,
}

impl Catalog {
    /// Starts watching `folders`; the first scan starts at once.
    pub fn new(folders: Vec<PathBuf>, wake: Waker) -> Catalog {
        let (commands, command_rx) = channel();
        let (result_tx, results) = channel();
        let watched = folders.clone();
        // If the thread cannot start, the catalogue just stays empty.
        let _ = thread::Builder::new()
            .name("plugin watcher".into())
            .spawn(move || watch(watched, command_rx, result_tx, wake));
        Catalog { folders, entries: Vec::new(), commands, results, scanning: true, scanned_at: None }
    }

    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    pub fn set_folders(&mut self, folders: Vec<PathBuf>) {
        self.folders = folders.clone();
        self.scanning = true;
        let _ = self.commands.send(Command::Folders(folders));
    }

    pub fn entries(&self) -> &[PluginEntry] {
        &self.entries
    }

    pub fn entry(&self, path: &Path) -> Option<&PluginEntry> {
        self.entries.iter().find(|e| e.path == path)
    }

    pub fn is_scanning(&self) -> bool {
        self.scanning
    }

    pub fn rescan(&mut self) {
        self.scanning = true;
        let _ = self.commands.send(Command::Rescan);
    }

    /// Takes the watcher's latest scan, if any; returns whether the list changed.
    pub fn update(&mut self) -> bool {
        let mut changed = false;
        while let Ok(scanned) = self.results.try_recv() {
            if scanned.folders == self.folders {
                self.scanning = false;
                self.scanned_at = Some(SystemTime::now());
                changed |= scanned.entries != self.entries;
                self.entries = scanned.entries;
            }
        }
        changed
    }
}

fn watch(mut folders: Vec<PathBuf>, commands: Receiver<Command>, results: Sender<Scanned>, wake: Waker) {
    let mut scanned_print: Option<Fingerprint> = None;
    let mut forced = true;
    loop {
        let print = fingerprint(&folders);
        if forced || scanned_print.as_ref() != Some(&print) {
            let entries = scan(&folders);
            scanned_print = Some(print);
            if results.send(Scanned { folders: folders.clone(), entries }).is_err() {
                return;
            }
            wake();
        }
        forced = false;
        match commands.recv_timeout(RESCAN_POLL_INTERVAL) {
            Ok(Command::Folders(new)) => {
                folders = new;
                forced = true;
            }
            Ok(Command::Rescan) => forced = true,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The standard plugin folders: `./plugins`, the executable's folder, then the user's extra ones.
pub fn standard_folders(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = vec![PathBuf::from("plugins")];
    if let Some(dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_owned)) {
        folders.push(dir);
    }
    for folder in extra {
        if !folders.contains(folder) {
            folders.push(folder.clone());
        }
    }
    folders
}
