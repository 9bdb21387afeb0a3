//! The app's commands, shared by the menu bar, the toolbar and the keyboard shortcuts, and the
//! confirmation that the ones discarding a game in progress (or resigning it) ask for first.

use std::path::PathBuf;

use othello_sdk::Color;

use crate::{OthelloApp, Tab};

/// A command the user can give from the menu, a button or a shortcut, or a change a panel asks
/// for (panels read the app and return these; [`OthelloApp::perform`] carries them out).
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    NewGame,
    /// Swap the players and start a new game.
    SwapColours,
    /// Open a game file (the file dialog, or the path field without one).
    Open,
    /// Save the game (the file dialog, or the path field without one).
    Save,
    Undo,
    Redo,
    /// The side to move resigns.
    Resign,
    /// Stop the game without a result.
    Abort,
    TogglePause,
    /// Let one bot move while paused.
    Step,
    CopyTranscript,
    /// Analyse every move of the game on the board (game analysis).
    AnalyseGame,
    ShowTab(Tab),
    /// Take back a loss on the game clock, giving the loser the time of that turn back.
    TakeBackTimeLoss,
    /// Show the position after this many moves of the game on the board.
    View(usize),
    /// Continue the player's game from the position viewed (later moves become a variation).
    PlayOnFromViewed,
    /// The user has seen the pass notice.
    AcknowledgePass,
    /// Make this variation of the player's game its current line.
    SwitchVariation(usize),
    /// Load a pasted transcript (asking first if a game is in progress).
    LoadTranscript(String),
    /// A human's move on the player's game (as a click on the board).
    Play(othello_sdk::Square),
    /// Import the games of this WTHOR file.
    ImportWthor(PathBuf),
    /// Open the position editor on the position viewed (the game's bots and clock wait).
    EditPosition,
    /// Close the editor; the game goes on as it was.
    CancelEditing,
    /// Play from this position set up (asking first if a game is in progress).
    SetUpPosition(othello_sdk::Position),
    /// Set up a pasted position line (OBF).
    LoadPosition(String),
    /// Scan the plugin folders again.
    Rescan,
    /// Scan this folder too (remembered), or no longer.
    AddPluginFolder(PathBuf),
    RemovePluginFolder(PathBuf),
    /// Turn the board view.
    Orient(crate::Orientation),
    /// Say this in the message line, as a confirmation or as a refusal.
    Tell(String),
    Refuse(String),
    /// Open or save the game file at this path (the path field).
    OpenPath(PathBuf),
    SavePath(PathBuf),
    /// The settings as a panel edited them (a changed sandbox restarts the seats' bots).
    ChangeSettings(Box<crate::Settings>),
    /// Put this player in the seat of this colour.
    SetSeat(Color, crate::SeatChoice),
    /// Open the "Add engine" form (for this seat, or from the engines list).
    OpenEngineForm(Option<Color>),
    /// Add this engine, and seat it for this colour if the form was opened from a seat.
    AddEngine(crate::settings::Engine, Option<Color>),
    /// Remove the added engine at this index (a seat it held goes back to a human).
    RemoveEngine(usize),
    /// Open a Help window.
    OpenHelp(crate::panels::menu::HelpWindow),
    /// Clear the message line.
    DismissMessage,
    /// The user said yes to the question asked, or no.
    GoAhead(Confirm),
    CancelConfirmation,
    /// Open this game of the multi-game file listed, or close the list.
    PickGame(usize),
    CloseGamePicker,
    Quit,
}

/// What happens once the user says yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirm {
    /// An action that replaces the game in progress.
    Discard(Discard),
    /// The side to move resigns.
    Resign(Color),
    /// Saving over an existing file.
    Overwrite(PathBuf),
    /// Take back the loss on time of this side.
    TakeBackTimeLoss(Color),
    /// Quit with a game in progress.
    Quit,
}

/// The ways to replace the game on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discard {
    NewGame,
    SwapColours,
    LoadTranscript(String),
    /// Open the game at this index of a game file.
    Open(PathBuf, usize),
    /// Start from a position set up (pasted or edited).
    Position(othello_sdk::Position),
}

impl Confirm {
    /// The dialog's question, its explanation and the label of the button that goes ahead.
    pub fn texts(&self) -> (String, String, &'static str) {
        let lost = "The game in progress will be lost (save it first to keep it).";
        match self {
            Confirm::Discard(Discard::NewGame) => ("Start a new game?".into(), lost.into(), "Start new game"),
            Confirm::Discard(Discard::SwapColours) => {
                ("Swap colours and start a new game?".into(), lost.into(), "Swap and start")
            }
            Confirm::Discard(Discard::LoadTranscript(_)) => ("Load the transcript?".into(), lost.into(), "Load"),
            Confirm::Discard(Discard::Position(_)) => {
                ("Play from the position set up?".into(), lost.into(), "Discard and set up")
            }
            Confirm::Discard(Discard::Open(path, _)) => {
                (format!("Open a game from {}?", path.display()), lost.into(), "Discard and open")
            }
            Confirm::Resign(color) => (
                format!("Resign as {}?", crate::color_name(*color)),
                format!("{} wins the game. Undo takes the resignation back.", crate::color_name(!*color)),
                "Resign now",
            ),
            Confirm::Overwrite(path) => {
                (format!("Replace {}?", path.display()), "The file exists; saving replaces it.".into(), "Replace")
            }
            Confirm::TakeBackTimeLoss(color) => (
                format!("Take back {}'s loss on time?", crate::color_name(*color)),
                format!(
                    "The game goes on: {}'s clock shows again what it showed when its last turn began, and the clock stays paused until you resume (Ctrl+P).",
                    crate::color_name(*color)
                ),
                "Take back",
            ),
            Confirm::Quit => ("Quit?".into(), lost.into(), "Quit"),
        }
    }
}

impl OthelloApp {
    /// Does `action`, asking first when it would discard a game in progress or resign.
    pub fn perform(&mut self, action: Action, ctx: &egui::Context) {
        match action {
            Action::NewGame => self.discard_with(Discard::NewGame),
            Action::SwapColours => self.discard_with(Discard::SwapColours),
            Action::Open => self.open_dialog(),
            Action::Save => self.save_dialog(),
            // Undo and redo change the player's game: not while a replay hides it.
            Action::Undo | Action::Redo if self.replay().is_some() => {
                self.show_error("A replay is on the board: press Back to my game to undo or redo in yours".to_owned());
            }
            Action::Undo => self.session.undo(&self.settings),
            Action::Redo => self.session.redo(),
            Action::Resign => {
                if self.can_resign()
                    && let Some(color) = self.game().to_move()
                {
                    self.panels.confirm = Some(Confirm::Resign(color));
                }
            }
            Action::Abort => {
                if !self.game().is_over() {
                    self.session.abort(&self.settings);
                }
            }
            Action::TogglePause => {
                if self.can_pause() {
                    self.session.toggle_pause();
                }
            }
            Action::Step => {
                if self.session.paused {
                    self.session.step();
                }
            }
            Action::CopyTranscript => {
                let transcript = self.game().transcript();
                ctx.copy_text(transcript.clone());
                let shown = if transcript.is_empty() { "(no moves yet)".to_owned() } else { transcript };
                self.show_info(format!("Copied: {shown}"));
            }
            Action::AnalyseGame => self.analyse_game(),
            Action::ShowTab(tab) => self.shell.tab = tab,
            Action::View(ply) => match self.replay_mut() {
                Some(replay) => replay.game.view(ply),
                None => self.session.game.view(ply),
            },
            Action::PlayOnFromViewed => self.session.play_on_from_viewed(&self.settings),
            Action::AcknowledgePass => self.session.acknowledge_pass(),
            Action::SwitchVariation(index) => self.session.switch_variation(index, &self.settings),
            Action::LoadTranscript(text) => {
                if text.trim().is_empty() || crate::Game::from_transcript(text.trim()).is_err() {
                    self.load_transcript(&text); // says what is wrong and keeps the game
                } else {
                    self.discard_with(Discard::LoadTranscript(text));
                }
            }
            Action::Play(square) => {
                self.session.click(square);
            }
            Action::ImportWthor(path) => {
                self.settings.wthor_file = path.display().to_string();
                self.import_wthor();
            }
            Action::EditPosition => {
                self.panels.editor = Some(crate::panels::editor::EditorState::new(&self.game().viewed()));
                // The game's bots and clock wait while the board shows the draft; Cancel leaves
                // the game as it was.
                self.panels.paused_before_edit = self.session.paused;
                if !self.session.paused {
                    self.session.toggle_pause();
                }
            }
            Action::CancelEditing => {
                self.panels.editor = None;
                if self.session.paused && !self.panels.paused_before_edit {
                    self.session.toggle_pause();
                }
            }
            Action::SetUpPosition(position) => self.discard_with(Discard::Position(position)),
            Action::LoadPosition(text) => self.load_position(&text),
            Action::Orient(orientation) => self.settings.orientation = orientation,
            Action::Rescan => self.workers.catalog.rescan(),
            Action::AddPluginFolder(folder) => {
                if !self.settings.extra_plugin_folders.contains(&folder) {
                    self.settings.extra_plugin_folders.push(folder);
                    crate::panels::plugins::set_extra_folders(self);
                }
            }
            Action::RemovePluginFolder(folder) => {
                self.settings.extra_plugin_folders.retain(|f| *f != folder);
                crate::panels::plugins::set_extra_folders(self);
            }
            Action::Tell(text) => self.show_info(text),
            Action::Refuse(text) => self.show_error(text),
            Action::OpenPath(path) => self.open_path(path),
            Action::SavePath(path) => self.save_path(path),
            Action::TakeBackTimeLoss => {
                if let Some(loser) = self.session.lost_on_time() {
                    self.panels.confirm = Some(Confirm::TakeBackTimeLoss(loser));
                }
            }
            Action::ChangeSettings(settings) => {
                let sandbox_changed = settings.sandbox != self.settings.sandbox;
                self.settings = *settings;
                if sandbox_changed {
                    self.apply_sandbox();
                }
            }
            Action::SetSeat(color, choice) => self.set_seat(color, choice),
            Action::OpenEngineForm(seat) => {
                self.panels.engine_form = Some(crate::panels::engines::EngineForm { seat, ..Default::default() });
            }
            Action::AddEngine(engine, seat) => {
                let path = engine.seat_path();
                self.show_info(format!("Engine {} added", engine.name));
                self.settings.engines.retain(|e| e.name != engine.name);
                self.settings.engines.push(engine);
                if let Some(color) = seat {
                    self.set_seat(color, crate::SeatChoice::Bot { path, level: None });
                }
            }
            Action::RemoveEngine(index) => crate::panels::engines::remove_engine(self, index),
            Action::OpenHelp(window) => self.panels.help.open(window),
            Action::DismissMessage => self.shell.message = None,
            Action::GoAhead(confirm) => self.go_ahead(confirm),
            Action::CancelConfirmation => self.cancel_confirmation(),
            Action::PickGame(index) => self.pick_game(index),
            Action::CloseGamePicker => self.close_game_picker(),
            Action::Quit => {
                if self.game_in_progress() {
                    self.panels.confirm = Some(Confirm::Quit);
                } else {
                    self.quit(ctx);
                }
            }
        }
    }

    /// Pausing makes sense: the game goes on, and bots play it or a clock runs in it.
    pub fn can_pause(&self) -> bool {
        !self.game().is_over() && (!self.session.has_human() || self.session.clock().is_some())
    }

    /// Closes the window (the question, if any, was asked).
    fn quit(&mut self, ctx: &egui::Context) {
        self.shell.quitting = true;
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }

    /// Resigning makes sense: the game goes on and its first move was played.
    pub fn can_resign(&self) -> bool {
        !self.game().is_over() && !self.game().moves().is_empty()
    }

    /// Replaces the game as `discard` says, after a confirmation if a game is in progress.
    pub fn discard_with(&mut self, discard: Discard) {
        if self.game_in_progress() {
            self.panels.confirm = Some(Confirm::Discard(discard));
        } else {
            self.go_ahead(Confirm::Discard(discard));
        }
    }

    /// The user said yes to `confirm` (or no question was needed).
    pub fn go_ahead(&mut self, confirm: Confirm) {
        let ctx = self.shell.egui_ctx.clone();
        self.panels.confirm = None;
        match confirm {
            Confirm::Discard(Discard::NewGame) => self.new_game(),
            Confirm::Discard(Discard::SwapColours) => {
                std::mem::swap(&mut self.settings.black, &mut self.settings.white);
                self.new_game();
            }
            Confirm::Discard(Discard::LoadTranscript(text)) => self.load_transcript(&text),
            Confirm::Discard(Discard::Open(path, index)) => self.open_game_at(&path, index),
            Confirm::Discard(Discard::Position(position)) => {
                self.panels.editor = None;
                self.bookkeeping.loaded_names = None;
                self.start_from(position, "Position set up");
            }
            Confirm::Resign(color) => {
                if self.game().to_move() == Some(color) {
                    self.session.resign(&self.settings);
                }
            }
            Confirm::Overwrite(path) => self.save_game(&path),
            Confirm::TakeBackTimeLoss(_) => {
                if let Some(loser) = self.session.take_back_time_loss() {
                    self.show_info(format!(
                        "{}'s loss on time taken back: the clock is paused, Resume (Ctrl+P) goes on",
                        crate::color_name(loser)
                    ));
                }
            }
            Confirm::Quit => self.quit(&ctx),
        }
    }

    /// The user said no: nothing changes.
    pub fn cancel_confirmation(&mut self) {
        self.panels.confirm = None;
    }
}
