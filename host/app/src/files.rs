//! Opening and saving game files: the path in the Play tab's field, a list to pick from when a
//! file holds several games, and a question before a file is replaced.

use std::path::PathBuf;

use crate::actions::{Confirm, Discard};
use crate::{OthelloApp, game_file};

/// The games of a multi-game file, waiting for the user to pick one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePicker {
    pub path: PathBuf,
    /// One line per game ([`game_file::summary`]).
    pub games: Vec<String>,
}

/// The state of file choosing.
#[derive(Default)]
pub struct Files {
    pub(crate) picker: Option<GamePicker>,
}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }
}

impl OthelloApp {
    /// The list of a multi-game file's games, while the user picks one.
    pub fn game_picker(&self) -> Option<&GamePicker> {
        self.files.picker.as_ref()
    }

    /// Game > Open: the file named in the path field.
    pub(crate) fn open_dialog(&mut self) {
        let path = PathBuf::from(self.settings.game_file.trim());
        self.open_path(path);
    }

    /// Game > Save: the file named in the path field.
    pub(crate) fn save_dialog(&mut self) {
        let path = PathBuf::from(self.settings.game_file.trim());
        self.save_path(path);
    }

    /// Opens the game of a file, or lists a multi-game file's games to pick from. Asks before
    /// discarding a game in progress.
    pub fn open_path(&mut self, path: PathBuf) {
        match game_file::list(&path) {
            Ok(games) if games.len() == 1 => self.discard_with(Discard::Open(path, 0)),
            Ok(games) => {
                let games = games.iter().enumerate().map(|(i, g)| game_file::summary(i + 1, g)).collect();
                self.files.picker = Some(GamePicker { path, games });
            }
            Err(why) => self.show_error(format!("Not opened: {why}")),
        }
    }

    /// The user picked game `index` of the listed file.
    pub fn pick_game(&mut self, index: usize) {
        if let Some(picker) = self.files.picker.take() {
            self.discard_with(Discard::Open(picker.path, index));
        }
    }

    pub fn close_game_picker(&mut self) {
        self.files.picker = None;
    }

    /// Saves the game to `path`, asking first if the file exists.
    pub fn save_path(&mut self, path: PathBuf) {
        if path.exists() {
            self.confirm = Some(Confirm::Overwrite(path));
        } else {
            self.save_game(&path);
        }
    }

    /// Takes the answer of a native file dialog, if one is open.
    pub(crate) fn poll_file_dialog(&mut self) {}
}
