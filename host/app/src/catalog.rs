//! The bot libraries the app knows about, kept up to date by a watcher thread: it polls the
//! plugin folders every [`RESCAN_POLL_INTERVAL`] and, when a library was added, removed or
//! rebuilt, probes them all again (each in a runner child, as `othello list` does) and wakes the UI.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::{Duration, SystemTime};

use super::players::Waker;
use othello_arena::plugins::{PluginInfo, plugin_folders, probe_all, scan};
use othello_arena::seat::{RunnerCommand, SandboxLayer, SandboxMode, SeatOptions, sandbox_report};

/// How often the plugin folders are checked for changes.
pub const RESCAN_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Where to look for plugins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderSource {
    /// `./plugins`, these extra folders and the executable's folder (those that exist, re-checked
    /// on every poll so a folder created later is found).
    Standard { extra: Vec<PathBuf> },
    /// Exactly these folders.
    Exact(Vec<PathBuf>),
}

impl FolderSource {
    pub fn folders(&self) -> Vec<PathBuf> {
        match self {
            FolderSource::Standard { extra } => plugin_folders(extra),
            FolderSource::Exact(folders) => folders.clone(),
        }
    }
}

/// A fingerprint of the libraries in the folders: paths with their sizes and modification times.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn fingerprint(files: &[PathBuf]) -> Fingerprint {
    files
        .iter()
        .map(|path| {
            let meta = std::fs::metadata(path).ok();
            (path.clone(), meta.as_ref().map_or(0, |m| m.len()), meta.and_then(|m| m.modified().ok()))
        })
        .collect()
}

/// A scan result from the watcher.
struct Scanned {
    source: FolderSource,
    folders: Vec<PathBuf>,
    entries: Vec<PluginInfo>,
    /// The sandbox layers of this machine (asked of the runner once, with the first scan).
    sandbox: Option<SandboxState>,
}

/// What the sandbox of isolated bots does on this machine: each layer, active or why missing.
pub type SandboxState = Result<Vec<SandboxLayer>, String>;

enum Command {
    Source(FolderSource),
    Rescan,
}

/// The catalogue of plugins, with its watcher thread.
pub struct Catalog {
    source: FolderSource,
    folders: Vec<PathBuf>,
    entries: Vec<PluginInfo>,
    commands: Sender<Command>,
    results: Receiver<Scanned>,
    scanning: bool,
    sandbox: Option<SandboxState>,
    /// When the last scan finished.
    pub scanned_at: Option<SystemTime>,
}

impl Catalog {
    /// Starts watching; the first scan starts at once.
    pub fn new(source: FolderSource, runner: RunnerCommand, options: SeatOptions, wake: Waker) -> Catalog {
        let (commands, command_rx) = channel();
        let (result_tx, results) = channel();
        let watched = source.clone();
        // Without the thread the catalogue stays empty; the app still works with humans.
        let _ = thread::Builder::new()
            .name("plugin watcher".into())
            .spawn(move || watch(watched, (runner, options), command_rx, result_tx, wake));
        Catalog {
            folders: source.folders(),
            source,
            entries: Vec::new(),
            commands,
            results,
            scanning: true,
            sandbox: None,
            scanned_at: None,
        }
    }

    /// The folders scanned last.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    pub fn source(&self) -> &FolderSource {
        &self.source
    }

    pub fn set_source(&mut self, source: FolderSource) {
        self.source = source.clone();
        self.scanning = true;
        let _ = self.commands.send(Command::Source(source));
    }

    pub fn entries(&self) -> &[PluginInfo] {
        &self.entries
    }

    /// The library at `path` (the same file named relatively or absolutely).
    pub fn entry(&self, path: &Path) -> Option<&PluginInfo> {
        self.entries.iter().find(|e| e.path == path).or_else(|| {
            let canonical = path.canonicalize().ok()?;
            self.entries.iter().find(|e| e.path.canonicalize().ok().as_ref() == Some(&canonical))
        })
    }

    /// The sandbox layers of this machine, once the watcher has asked the runner.
    pub fn sandbox(&self) -> Option<&SandboxState> {
        self.sandbox.as_ref()
    }

    pub fn is_scanning(&self) -> bool {
        self.scanning
    }

    pub fn rescan(&mut self) {
        self.scanning = true;
        let _ = self.commands.send(Command::Rescan);
    }

    /// Takes the watcher's latest scan, if any.
    pub fn update(&mut self) {
        while let Ok(scanned) = self.results.try_recv() {
            if scanned.sandbox.is_some() {
                self.sandbox = scanned.sandbox;
            }
            if scanned.source == self.source {
                self.scanning = false;
                self.scanned_at = Some(SystemTime::now());
                self.folders = scanned.folders;
                self.entries = scanned.entries;
            }
        }
    }
}

fn watch(
    mut source: FolderSource,
    (runner, options): (RunnerCommand, SeatOptions),
    commands: Receiver<Command>,
    results: Sender<Scanned>,
    wake: Waker,
) {
    let mut scanned_print: Option<Fingerprint> = None;
    let mut forced = true;
    let mut sandbox = Some(match options.sandbox {
        SandboxMode::Off => Ok(Vec::new()),
        _ => sandbox_report(&runner),
    });
    loop {
        let folders = source.folders();
        let files = scan(&folders);
        let print = fingerprint(&files);
        if forced || scanned_print.as_ref() != Some(&print) {
            let entries = probe_all(&files, &runner, &options);
            scanned_print = Some(print);
            let scanned = Scanned { source: source.clone(), folders, entries, sandbox: sandbox.take() };
            if results.send(scanned).is_err() {
                return;
            }
            wake();
        }
        forced = false;
        match commands.recv_timeout(RESCAN_POLL_INTERVAL) {
            Ok(Command::Source(new)) => {
                source = new;
                forced = true;
            }
            Ok(Command::Rescan) => forced = true,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
