//! Opening and saving game files: the desktop's file dialog (through the XDG desktop portal, so no
//! GTK is needed) or, when no portal runs, the path in the Play tab's field; a list to pick from
//! when a file holds several games, and a question before a file is replaced.
//!
//! Whether a portal runs is asked of the session bus once, on a thread, at start-up: the UI never
//! waits for D-Bus, and until the answer comes the path field is used. A dialog runs on a thread of
//! its own too and reports over a channel.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::actions::{Confirm, Discard};
use crate::{OthelloApp, game_file};

/// The games of a multi-game file, waiting for the user to pick one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePicker {
    pub path: PathBuf,
    /// One line per game ([`game_file::summary`]).
    pub games: Vec<String>,
}

/// The D-Bus name of the desktop portal that shows file dialogs.
const PORTAL_NAME: &str = "org.freedesktop.portal.Desktop";

/// Whether the desktop offers file dialogs.
enum Portal {
    /// Being asked; the path field is used meanwhile.
    Checking(Receiver<bool>),
    Available,
    Missing,
}

/// What a file dialog was opened for, and what it answered (`None`: cancelled).
enum DialogAnswer {
    Open(Option<PathBuf>),
    Save(Option<PathBuf>),
}

/// The state of file choosing.
pub struct Files {
    pub(crate) picker: Option<GamePicker>,
    portal: Portal,
    /// The file dialog on screen, if one is.
    dialog: Option<Receiver<DialogAnswer>>,
}

impl Files {
    /// Starts asking whether a portal runs (`ask_portal` false: never use dialogs, as in tests).
    pub fn new(ask_portal: bool) -> Files {
        let portal = if ask_portal {
            let (tx, rx) = channel();
            let spawned = std::thread::Builder::new().name("portal check".into()).spawn(move || {
                let _ = tx.send(portal_running());
            });
            if spawned.is_ok() { Portal::Checking(rx) } else { Portal::Missing }
        } else {
            Portal::Missing
        };
        Files { picker: None, portal, dialog: None }
    }

    /// The desktop portal's file dialogs can be used (known to run).
    pub fn has_dialogs(&mut self) -> bool {
        if let Portal::Checking(answer) = &self.portal {
            match answer.try_recv() {
                Ok(true) => self.portal = Portal::Available,
                Ok(false) | Err(TryRecvError::Disconnected) => self.portal = Portal::Missing,
                Err(TryRecvError::Empty) => {}
            }
        }
        matches!(self.portal, Portal::Available)
    }
}

/// Asks the session bus whether the desktop portal runs or can be started. Fails (false) at once
/// without a session bus.
fn portal_running() -> bool {
    let Ok(connection) = zbus::blocking::Connection::session() else { return false };
    let Ok(bus) = zbus::blocking::fdo::DBusProxy::new(&connection) else { return false };
    let Ok(name) = zbus::names::BusName::try_from(PORTAL_NAME) else { return false };
    bus.name_has_owner(name).unwrap_or(false)
        || bus.list_activatable_names().is_ok_and(|names| names.iter().any(|n| n.as_str() == PORTAL_NAME))
}

/// A dialog for GGF files starting in the folder of `current`.
fn dialog(title: &str, current: &Path) -> rfd::FileDialog {
    let mut dialog = rfd::FileDialog::new().set_title(title).add_filter("GGF games", &["ggf"]);
    if let Some(folder) = current.parent().filter(|f| f.is_dir()) {
        dialog = dialog.set_directory(folder);
    }
    if let Some(name) = current.file_name() {
        dialog = dialog.set_file_name(name.to_string_lossy());
    }
    dialog
}

impl OthelloApp {
    /// The list of a multi-game file's games, while the user picks one.
    pub fn game_picker(&self) -> Option<&GamePicker> {
        self.workers.files.picker.as_ref()
    }

    /// Game > Open: the desktop's file dialog, or the file named in the path field without one.
    pub(crate) fn open_dialog(&mut self) {
        let path = PathBuf::from(self.settings.game_file.trim());
        if !self.start_dialog(&path, false) {
            self.open_path(path);
        }
    }

    /// Game > Save: the desktop's file dialog, or the file named in the path field without one.
    pub(crate) fn save_dialog(&mut self) {
        let path = PathBuf::from(self.settings.game_file.trim());
        if !self.start_dialog(&path, true) {
            self.save_path(path);
        }
    }

    /// Opens a file dialog on its thread; false if the desktop has none (or one is open already).
    fn start_dialog(&mut self, current: &Path, save: bool) -> bool {
        if !self.workers.files.has_dialogs() {
            return false;
        }
        if self.workers.files.dialog.is_some() {
            return true; // one at a time: the open dialog answers first
        }
        let (tx, rx) = channel();
        let wake = (crate::waker_factory(&self.shell.egui_ctx))();
        let current = current.to_owned();
        let spawned = std::thread::Builder::new().name("file dialog".into()).spawn(move || {
            let answer = if save {
                DialogAnswer::Save(dialog("Save the game", &current).save_file())
            } else {
                DialogAnswer::Open(dialog("Open a game", &current).pick_file())
            };
            let _ = tx.send(answer);
            wake();
        });
        if spawned.is_err() {
            return false;
        }
        self.workers.files.dialog = Some(rx);
        true
    }

    /// Opens the game of a file, or lists a multi-game file's games to pick from. Asks before
    /// discarding a game in progress.
    pub fn open_path(&mut self, path: PathBuf) {
        match game_file::list(&path) {
            Ok(games) if games.len() == 1 => self.discard_with(Discard::Open(path, 0)),
            Ok(games) => {
                let games = games.iter().enumerate().map(|(i, g)| game_file::summary(i + 1, g)).collect();
                self.workers.files.picker = Some(GamePicker { path, games });
            }
            Err(why) => self.show_error(format!("Not opened: {why}")),
        }
    }

    /// The user picked game `index` of the listed file.
    pub fn pick_game(&mut self, index: usize) {
        if let Some(picker) = self.workers.files.picker.take() {
            self.discard_with(Discard::Open(picker.path, index));
        }
    }

    pub fn close_game_picker(&mut self) {
        self.workers.files.picker = None;
    }

    /// Saves the game to `path`, asking first if the file exists.
    pub fn save_path(&mut self, path: PathBuf) {
        if path.exists() {
            self.panels.confirm = Some(Confirm::Overwrite(path));
        } else {
            self.save_game(&path);
        }
    }

    /// Takes the answer of the file dialog, if one is open. The dialog already asked before
    /// replacing a file.
    pub(crate) fn poll_file_dialog(&mut self) {
        let Some(answer) = self.workers.files.dialog.as_ref().map(Receiver::try_recv) else { return };
        match answer {
            Ok(DialogAnswer::Open(Some(path))) => {
                self.workers.files.dialog = None;
                self.open_path(path);
            }
            Ok(DialogAnswer::Save(Some(path))) => {
                self.workers.files.dialog = None;
                self.save_game(&path);
            }
            Ok(_) | Err(TryRecvError::Disconnected) => self.workers.files.dialog = None,
            Err(TryRecvError::Empty) => {}
        }
    }
}
