//! The app: [`OthelloApp`] (its state and its frame: the layout around the board) and [`run`],
//! which opens the window.
//!
//! The app is a thin shell: the settings (the only state saved between runs), the player's game
//! ([`Session`] and its [`GameBookkeeping`]), the background [`Workers`], the panels' own state
//! ([`panels::PanelStates`]), the window's [`Shell`] and the [`CommandLine`].

use std::time::Duration;

use egui::{CentralPanel, Key, Panel, Ui};
use othello_arena::seat::{Isolation, RunnerCommand, SeatOptions, Seating};
use othello_sdk::Square;

use crate::actions::Action;
pub use crate::actions::Confirm;
use crate::board::{self, Orientation};
use crate::catalog::{Catalog, FolderSource};
use crate::game::Game;
use crate::players::Waker;
use crate::session::{self, Session};
use crate::settings::{SeatChoice, Settings};
use crate::{analysis, files, game_file, ladder, levels, matches, panels, shortcuts, sound};

/// Window title, and the name the settings are stored under.
const APP_NAME: &str = "Othello Arena";
/// Initial window size in points.
const INITIAL_WINDOW_SIZE: [f32; 2] = [1200.0, 780.0];
/// Smallest window size in points.
const MIN_WINDOW_SIZE: [f32; 2] = [760.0, 520.0];
/// How often the thinking indicator's clock is redrawn while a bot thinks.
const THINKING_REFRESH: Duration = Duration::from_millis(250);
/// The analysis bot taken when none is chosen, if it is loaded.
const DEFAULT_ANALYSER: &str = "Alpha-beta";
/// Said when there is no bot to analyse with.
const NO_ANALYSER: &str =
    "No loaded bot has the analysis export (Alpha-beta and MCTS have it): build the sample bots or see the Plugins tab";
/// How often the game clock is redrawn while it runs.
const CLOCK_REFRESH: Duration = Duration::from_millis(100);
/// How often the settings are saved besides on exit (so a killed app loses little).
const SETTINGS_SAVE_INTERVAL: Duration = Duration::from_secs(10);
/// Each side panel takes this share of the window's width, within the bounds below. The panels'
/// widths depend on the window only (not on their contents), so the board keeps its size when the
/// tab changes.
const SIDE_PANEL_SHARE: f32 = 0.24;
/// Narrowest and widest a side panel gets.
const SIDE_PANEL_MIN: f32 = 186.0;
const SIDE_PANEL_MAX: f32 = 320.0;
/// The Matches and Ladder tabs show tables: their left panel starts wider (this share of the
/// window, at most [`WIDE_PANEL_MAX`]) and can be dragged wider still, up to half the window.
const WIDE_PANEL_SHARE: f32 = 0.4;
const WIDE_PANEL_MAX: f32 = 520.0;
const WIDE_PANEL_LIMIT_SHARE: f32 = 0.5;
/// Room left for the board between the panels when the left one is wide.
const BOARD_ROOM: f32 = 330.0;
/// Game steps taken in one frame at most (a forced pass is a step that makes the next one due).
const MAX_STEPS_PER_FRAME: usize = 4;
/// How long closing the app waits for a running match to end its bots.
const MATCH_STOP_WAIT: Duration = Duration::from_secs(2);
/// Length of the flip animation.
const FLIP_ANIMATION: Duration = Duration::from_millis(300);

/// What the command line tells the app: extra plugin folders and how to run bots.
#[derive(Debug, Clone)]
pub struct Launch {
    /// `--plugins DIR` folders, scanned besides the standard ones and the ones added in the app.
    pub plugin_folders: Vec<std::path::PathBuf>,
    /// Starts the runner process of every bot (the app always isolates its bots).
    pub runner: RunnerCommand,
    /// The limits of every bot seat.
    pub options: SeatOptions,
    /// The engines of the engines file (`--engines FILE` or `./engines.json`), offered as players
    /// beside the engines added in the app.
    pub engines: Vec<othello_arena::nboard::EngineSpec>,
}

impl Launch {
    /// How the app's bots run: each in a runner process of its own.
    pub fn seating(&self) -> Seating {
        Seating { isolation: Isolation::Isolated(self.runner.clone()), options: self.options }
    }
}

/// Opens the app's window and runs it until it is closed.
pub fn run(launch: Launch) -> Result<(), String> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(APP_NAME)
            .with_inner_size(INITIAL_WINDOW_SIZE)
            .with_min_inner_size(MIN_WINDOW_SIZE),
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    let creator: eframe::AppCreator<'_> =
        Box::new(move |cc| Ok(Box::new(OthelloApp::from_creation_context(cc, launch))));
    eframe::run_native(APP_NAME, options, creator).map_err(|e| {
        format!(
            "the app could not start: {e}\n(without a display, the headless arena still works: see `othello --help`)"
        )
    })
}

/// The left panel's tabs. A new tab is one variant here, its entry in [`Tab::ALL`] and
/// [`Tab::title`], and its panel in `OthelloApp::tab_contents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Play,
    Plugins,
    Matches,
    Ladder,
}

impl Tab {
    /// The tabs in the order shown.
    pub const ALL: [Tab; 4] = [Tab::Play, Tab::Plugins, Tab::Matches, Tab::Ladder];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Play => "Play",
            Tab::Plugins => "Plugins",
            Tab::Matches => "Matches",
            Tab::Ladder => "Ladder",
        }
    }
}

/// A message for the user in the bottom line: an error (red) or a confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub is_error: bool,
}

/// The app: a thin shell over its parts. Only [`Settings`] are saved between runs; the rest is
/// runtime state, grouped by who owns it.
pub struct OthelloApp {
    /// What is saved between runs (the panels' choices among them).
    pub(crate) settings: Settings,
    /// The player's game: its seats, bots, clock, undo and variations.
    pub(crate) session: Session,
    /// What the app keeps beside the session about the player's game (names, clock follow-up).
    pub(crate) bookkeeping: GameBookkeeping,
    /// The background workers, each reporting over a channel and waking the UI.
    pub(crate) workers: Workers,
    /// The panels' own runtime state (text being typed, open windows and dialogs, the Matches and
    /// Ladder tabs with their workers, the editor's draft).
    pub(crate) panels: panels::PanelStates,
    /// The window around the panels: tab, message line, growth, quitting.
    pub(crate) shell: Shell,
    /// What the command line gave for this run.
    pub(crate) command_line: CommandLine,
}

/// The app's background workers: each runs on threads of its own, reports over a channel and
/// wakes the UI; the app takes their news once a frame.
pub(crate) struct Workers {
    /// The plugin folders' scan.
    pub(crate) catalog: Catalog,
    /// Move evaluations on the board (the analysis bot's worker).
    pub(crate) analysis: analysis::AnalysisView,
    /// The analysis of a whole game (game analysis), running or done.
    pub(crate) review: Option<crate::review::GameReview>,
    /// The game database (a WTHOR file's import and opening tree).
    pub(crate) database: crate::wthor::Database,
    /// The open and save dialogs, and the list of a multi-game file's games.
    pub(crate) files: files::Files,
    pub(crate) sounds: sound::Sounds,
}

/// The window around the panels.
pub(crate) struct Shell {
    /// For waking the UI from worker threads started later.
    pub(crate) egui_ctx: egui::Context,
    pub(crate) tab: Tab,
    pub(crate) message: Option<Message>,
    /// How much larger than usual text and panels are drawn (see [`growth_for`]).
    pub(crate) growth: f32,
    /// The Matches and Ladder tabs' wider left panel's width at the last frame.
    pub(crate) wide_panel_width: f32,
    /// The user said yes to quitting (or nothing was at stake): the window may close.
    pub(crate) quitting: bool,
    /// First run (no saved settings): the opponent is chosen once the first plugin scan is done.
    pub(crate) newcomer: bool,
}

/// What the command line gave for this run.
pub(crate) struct CommandLine {
    /// `--plugins` folders.
    pub(crate) plugin_folders: Vec<std::path::PathBuf>,
    /// The engines file's engines (read-only here: edited in the file).
    pub(crate) engines: Vec<othello_arena::nboard::EngineSpec>,
    /// The sandbox mode given (`auto` unless `--sandbox` said otherwise).
    pub(crate) sandbox: othello_arena::seat::SandboxMode,
}

/// What the app keeps about the player's game beside the [`Session`].
pub(crate) struct GameBookkeeping {
    /// The players' names of a game opened from a file, shown instead of the seats' names until
    /// the next new game.
    pub(crate) loaded_names: Option<[String; 2]>,
    /// Who played the game on the board, kept from the moment it ended: a seat changed afterwards
    /// does not rewrite a finished game's record (cleared when the game goes on again).
    pub(crate) finished_names: Option<[String; 2]>,
    /// The loss on time the message line has told (so it tells each once).
    pub(crate) flag_told: bool,
    /// The game's clock came from its file (kept whatever the clock setting says).
    pub(crate) clock_from_file: bool,
    /// The number of moves the game began with (new, loaded, set up), until its first move is
    /// made: till then the clock follows the setting, afterwards a change applies from the next
    /// game.
    pub(crate) clock_open_at: Option<usize>,
    /// Moves and whether the game was over at the last frame, to know what to sound.
    pub(crate) heard: (usize, bool),
}

impl OthelloApp {
    /// The app with the settings saved by the last run.
    /// On the first run (nothing saved) a newcomer's game is set up: see [`OthelloApp::first_run`].
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, launch: Launch) -> OthelloApp {
        let saved: Option<Settings> = cc.storage.and_then(|s| eframe::get_value(s, eframe::APP_KEY));
        let newcomer = saved.is_none();
        let mut app = OthelloApp::new(&cc.egui_ctx, saved.unwrap_or_default(), launch);
        app.shell.newcomer = newcomer;
        app
    }

    /// The app with `settings`, scanning the standard plugin folders and those of `launch`.
    pub fn new(ctx: &egui::Context, settings: Settings, launch: Launch) -> OthelloApp {
        let extra = standard_extra(&launch.plugin_folders, &settings.extra_plugin_folders);
        let mut app = OthelloApp::with_config(ctx, settings, FolderSource::Standard { extra }, &launch);
        app.command_line.plugin_folders = launch.plugin_folders;
        app
    }

    /// The app as a newcomer first sees it: Human (Black) against the sample alpha-beta bot (White)
    /// at a middle level, once the plugin scan finds it; without it, the strongest other bot found
    /// (by level count), or Human against Human with a pointer to the Plugins tab.
    pub fn first_run(ctx: &egui::Context, plugins: FolderSource, launch: &Launch) -> OthelloApp {
        let mut app = OthelloApp::with_config(ctx, Settings::default(), plugins, launch);
        app.shell.newcomer = true;
        app
    }

    /// The app with `settings`, scanning `plugins`, running bots as `launch` says.
    pub fn with_config(ctx: &egui::Context, settings: Settings, plugins: FolderSource, launch: &Launch) -> OthelloApp {
        // The desktop's file dialogs are for the real app; tests (exact plugin folders) use the
        // path field and never wait on a dialog.
        let plugins_are_standard = matches!(plugins, FolderSource::Standard { .. });
        let catalog = Catalog::new(plugins, launch.runner.clone(), launch.options, waker_factory(ctx)());
        let mut seating = launch.seating();
        seating.options.sandbox = effective_sandbox(launch.options.sandbox, &settings);
        let session = Session::new(&settings, seating, waker_factory(ctx));
        OthelloApp {
            settings,
            session,
            bookkeeping: GameBookkeeping {
                loaded_names: None,
                finished_names: None,
                flag_told: false,
                clock_from_file: false,
                clock_open_at: Some(0),
                heard: (0, false),
            },
            workers: Workers {
                catalog,
                analysis: Default::default(),
                review: None,
                database: Default::default(),
                files: files::Files::new(plugins_are_standard),
                sounds: sound::Sounds::new(),
            },
            panels: Default::default(),
            shell: Shell {
                egui_ctx: ctx.clone(),
                tab: Tab::Play,
                message: None,
                growth: 1.0,
                wide_panel_width: 0.0,
                quitting: false,
                newcomer: false,
            },
            command_line: CommandLine {
                plugin_folders: Vec::new(),
                engines: launch.engines.clone(),
                sandbox: launch.options.sandbox,
            },
        }
    }

    /// The engines of the engines file, offered as players.
    pub fn file_engines(&self) -> &[othello_arena::nboard::EngineSpec] {
        &self.command_line.engines
    }

    /// The sandbox mode the command line imposes for this run, if it gave one (other than `auto`).
    pub fn command_line_sandbox(&self) -> Option<othello_arena::seat::SandboxMode> {
        (self.command_line.sandbox != othello_arena::seat::SandboxMode::Auto).then_some(self.command_line.sandbox)
    }

    /// Runs the bots started from now on with the settings' sandbox mode (the seats restart).
    pub fn apply_sandbox(&mut self) {
        let mode = effective_sandbox(self.command_line.sandbox, &self.settings);
        if self.session.seating().options.sandbox != mode {
            self.session.set_sandbox(mode, &self.settings);
        }
    }

    /// The window is closing: Quit was given (and confirmed, if a game was in progress).
    pub fn is_quitting(&self) -> bool {
        self.shell.quitting
    }

    /// The action waiting for confirmation, if any.
    pub fn confirmation(&self) -> Option<&Confirm> {
        self.panels.confirm.as_ref()
    }

    /// How much larger than usual text and panels are drawn (1 up to a 1280×820 window).
    pub fn growth(&self) -> f32 {
        self.shell.growth
    }

    /// The tab shown in the left panel.
    pub fn tab(&self) -> Tab {
        self.shell.tab
    }

    /// A game is under way: moves were played and it has not ended (discarding it loses them).
    pub fn game_in_progress(&self) -> bool {
        !self.game().moves().is_empty() && !self.game().is_over()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings, to change (apply a sandbox change with [`OthelloApp::apply_sandbox`]).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn game(&self) -> &Game {
        &self.session.game
    }

    /// The libraries found in the plugin folders (empty until the first scan finishes).
    pub fn plugins(&self) -> &[othello_arena::plugins::PluginInfo] {
        self.workers.catalog.entries()
    }

    /// A plugin scan is under way.
    pub fn is_scanning_plugins(&self) -> bool {
        self.workers.catalog.is_scanning()
    }

    /// The Matches panel: the running or last event.
    pub fn matches(&self) -> &matches::MatchesState {
        &self.panels.matches
    }

    pub fn message(&self) -> Option<&Message> {
        self.shell.message.as_ref()
    }

    /// The Ladder tab.
    pub fn ladder(&self) -> &ladder::LadderState {
        &self.panels.ladder
    }

    /// The Ladder tab, to point it at another ladder file.
    pub fn ladder_mut(&mut self) -> &mut ladder::LadderState {
        &mut self.panels.ladder
    }

    /// The move evaluations on the board.
    pub fn analysis(&self) -> &analysis::AnalysisView {
        &self.workers.analysis
    }

    /// The position being set up, while the editor is open.
    pub fn editor(&self) -> Option<&panels::editor::EditorState> {
        self.panels.editor.as_ref()
    }

    /// Starts a new game from `position` with the current seats (the editor's "Play from here").
    pub fn start_from(&mut self, position: othello_sdk::Position, what: &str) {
        self.session.restart(Game::new(position), &self.settings);
        self.begin_clock();
        self.show_info(format!("{what}: {} to move", color_name(position.side_to_move())));
    }

    /// Sets up a pasted position line (OBF: 64 squares and the side to move), after asking if a
    /// game is in progress; a malformed one leaves the game as it is and says why.
    pub fn load_position(&mut self, text: &str) {
        match panels::editor::parse_position(text) {
            Ok(position) => self.discard_with(crate::actions::Discard::Position(position)),
            Err(why) => self.show_error(format!("Position not set up: {why}")),
        }
    }

    /// Starts a new game with the current seats (not with a bot whose library is gone).
    pub fn new_game(&mut self) {
        if let Some((color, name)) = self.missing_seat() {
            self.show_error(format!(
                "{name} is no longer in its folder: choose another player for {} (Play tab)",
                color_name(color)
            ));
            return;
        }
        self.shell.message = None;
        self.bookkeeping.loaded_names = None;
        self.bookkeeping.finished_names = None;
        self.session.restart(Game::default(), &self.settings);
        self.begin_clock();
    }

    /// Puts `choice` in the seat of `color`; the game goes on with the new players (a finished
    /// game keeps the names of those who played it). A bot put in the seat of the side to move
    /// moves at once: the message line says so.
    pub fn set_seat(&mut self, color: othello_sdk::Color, choice: SeatChoice) {
        let is_bot = !choice.is_human();
        match color {
            othello_sdk::Color::Black => self.settings.black = choice,
            othello_sdk::Color::White => self.settings.white = choice,
        }
        self.session.seat_players(&self.settings);
        let name = self.seat_name(color);
        let side = color_name(color);
        let text = match self.game().to_move() {
            _ if self.game().is_over() => {
                format!("{name} plays {side} from the next game; the finished game keeps its players")
            }
            Some(to_move) if to_move == color && is_bot && !self.game().moves().is_empty() => {
                format!("{name} now plays {side} and moves at once (Undo takes its move back)")
            }
            _ => format!("{name} plays {side}"),
        };
        self.show_info(text);
    }

    /// Loads a pasted transcript as a new game; a bad one leaves the game as it is and says why.
    pub fn load_transcript(&mut self, text: &str) {
        if text.trim().is_empty() {
            self.show_error("Nothing to load: paste a transcript such as f5d6c3 into the field first".to_owned());
            return;
        }
        match Game::from_transcript(text.trim()) {
            Ok(game) => {
                let moves = game.moves().len();
                self.bookkeeping.loaded_names = None;
                self.bookkeeping.finished_names = None;
                self.session.restart(game, &self.settings);
                self.begin_clock();
                self.shell.message =
                    Some(Message { text: format!("Transcript loaded ({moves} moves)"), is_error: false });
            }
            Err(error) => {
                self.shell.message = Some(Message { text: format!("Transcript not loaded: {error}"), is_error: true });
            }
        }
    }

    /// The name of the player of `color`: the name in the file of a game opened, else "Human" or
    /// the bot's name.
    pub fn player_name(&self, color: othello_sdk::Color) -> String {
        if let Some(names) = self.bookkeeping.loaded_names.as_ref().or(self.bookkeeping.finished_names.as_ref()) {
            return names[usize::from(color == othello_sdk::Color::White)].clone();
        }
        self.seat_name(color)
    }

    /// The name of who sits in the seat of `color` now: "Human" or the bot's name.
    fn seat_name(&self, color: othello_sdk::Color) -> String {
        match self.session.seat(color) {
            session::Seat::Human => "Human".to_owned(),
            // Before the bot has said its name: the name the plugin scan read, else the file's.
            session::Seat::Bot(worker) => worker.name().map(str::to_owned).unwrap_or_else(|| {
                let library = &worker.spec().library;
                self.workers
                    .catalog
                    .entry(library)
                    .map_or_else(|| othello_arena::seat::library_stem(library), |entry| entry.name.clone())
            }),
        }
    }

    /// The seat whose bot library is gone from its folder (deleted since it was chosen), if any:
    /// a game with it would be lost at once on a load error.
    pub fn missing_seat(&self) -> Option<(othello_sdk::Color, String)> {
        othello_sdk::Color::ALL.into_iter().find_map(|color| {
            let choice = if color == othello_sdk::Color::Black { &self.settings.black } else { &self.settings.white };
            match choice {
                SeatChoice::Bot { path, .. }
                    if !path.to_string_lossy().starts_with("nboard:")
                        && !path.exists()
                        && !self.workers.catalog.is_scanning() =>
                {
                    Some((color, othello_arena::seat::library_stem(path)))
                }
                _ => None,
            }
        })
    }

    /// Saves the game as GGF at `path`.
    /// The game on the board is saved: a replay with its own players, else the player's game.
    pub fn save_game(&mut self, path: &std::path::Path) {
        let text = match self.replay() {
            Some(replay) => {
                let [black, white] = &replay.names;
                let players = game_file::Players { black, white, time_limit_ms: None };
                game_file::to_ggf(&replay.game, &players) + "\n"
            }
            None => {
                let black = self.player_name(othello_sdk::Color::Black);
                let white = self.player_name(othello_sdk::Color::White);
                let ms = self.settings.time_per_move_ms;
                let players =
                    game_file::Players { black: &black, white: &white, time_limit_ms: (ms > 0).then_some(ms) };
                let now = self.session.now();
                let clock = self.session.clock().filter(|_| !self.game().is_over()).map(|c| c.saved(now));
                game_file::to_ggf_with_clock(self.game(), &players, clock) + "\n"
            }
        };
        match std::fs::write(path, text) {
            Ok(()) => {
                self.settings.game_file = path.display().to_string();
                let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
                self.show_info(format!("Saved to {}", shown.display()));
            }
            Err(e) => self.show_error(format!("Cannot save {}: {e}", path.display())),
        }
    }

    /// Opens game `index` of a GGF file; on error the current game is kept.
    pub fn open_game_at(&mut self, path: &std::path::Path, index: usize) {
        match game_file::open_at(path, index) {
            Ok(loaded) => {
                let others = match loaded.others {
                    0 => String::new(),
                    n => format!(" (game {} of {})", index + 1, n + 1),
                };
                let text = format!("Opened {} vs {} from {}{others}", loaded.black, loaded.white, path.display());
                self.session.restart(loaded.game, &self.settings);
                let text = match loaded.clock.filter(|_| !self.game().is_over()) {
                    Some(saved) => {
                        // The game's own clock, exactly as saved, paused until the player resumes.
                        self.bookkeeping.clock_open_at = None;
                        self.bookkeeping.clock_from_file = true;
                        self.session.set_clock(Some(crate::clock::GameClock::restored(saved)));
                        self.session.paused = true;
                        format!("{text}; its clock is paused: Resume (Ctrl+P) goes on")
                    }
                    None => {
                        self.begin_clock();
                        text
                    }
                };
                self.bookkeeping.loaded_names = Some([loaded.black, loaded.white]);
                self.bookkeeping.finished_names = None;
                self.settings.game_file = path.display().to_string();
                self.show_info(text);
            }
            Err(why) => self.show_error(format!("Not opened: {why}")),
        }
    }

    pub(crate) fn show_error(&mut self, text: String) {
        self.shell.message = Some(Message { text, is_error: true });
    }

    pub(crate) fn show_info(&mut self, text: String) {
        self.shell.message = Some(Message { text, is_error: false });
    }

    /// Moves the game on and decides when the next frame is needed.
    fn advance(&mut self, ctx: &egui::Context) {
        self.workers.catalog.update();
        if self.shell.newcomer && !self.workers.catalog.is_scanning() {
            self.shell.newcomer = false;
            self.seat_newcomer_opponent();
        }
        let bot_delay = Duration::from_millis(self.settings.bot_delay_ms);
        // A forced pass or a new move can make the next step due at once.
        let mut wake_in = None;
        for _ in 0..MAX_STEPS_PER_FRAME {
            wake_in = self.session.drive(bot_delay);
            if wake_in != Some(Duration::ZERO) {
                break;
            }
        }
        if let Some(delay) = wake_in {
            ctx.request_repaint_after(delay);
        }
        if self.session.thinking().is_some() {
            ctx.request_repaint_after(THINKING_REFRESH);
        }
        if self.flip_progress() < 1.0 {
            ctx.request_repaint();
        }
        self.panels.matches.update();
        self.keep_finished_names();
        self.follow_clock(ctx);
        // An analysis of a game no longer kept anywhere (a new game, a replay closed) stops: its
        // runner is killed.
        let kept = |review: &crate::review::GameReview| {
            review.is_for(&self.session.game)
                || [self.panels.matches.viewer(), self.panels.ladder.replay()]
                    .into_iter()
                    .flatten()
                    .any(|v| review.is_for(&v.game))
        };
        if self.workers.review.as_ref().is_some_and(|r| *r.status() == crate::review::Status::Running && !kept(r)) {
            self.workers.review = None;
        }
        if let Some(review) = &mut self.workers.review {
            // A bot of the game thinking has the cores: the game analysis waits meanwhile.
            review.set_paused(self.session.thinking().is_some());
            review.update();
            if let Some(summary) = review.take_summary() {
                let failed = matches!(review.status(), crate::review::Status::Failed(_));
                self.shell.message = Some(Message { text: summary, is_error: failed });
            }
        }
        self.follow_analysis();
        self.poll_file_dialog();
        match self.workers.database.update() {
            Some(Ok((source, games, skipped))) => {
                let skipped = if skipped > 0 { format!(" ({skipped} unreadable left out)") } else { String::new() };
                self.show_info(format!("Imported {games} games from {source}{skipped}"));
            }
            Some(Err(why)) => self.show_error(format!("Not imported: {why}")),
            None => {}
        }
    }

    /// A game that has just ended keeps the names of who played it; one that goes on again
    /// (undo) names its seats again.
    fn keep_finished_names(&mut self) {
        if !self.game().is_over() {
            self.bookkeeping.finished_names = None;
        } else if self.bookkeeping.finished_names.is_none() && self.bookkeeping.loaded_names.is_none() {
            self.bookkeeping.finished_names = Some(othello_sdk::Color::ALL.map(|c| self.seat_name(c)));
        }
    }

    /// Reads the clock's time from `source` from now on (tests drive it by hand); the clock
    /// starts afresh.
    pub fn set_time_source(&mut self, source: crate::clock::TimeSource) {
        self.session.set_time_source(source);
        self.begin_clock();
    }

    /// The time `color` has left on the game clock, if one is set.
    pub fn clock_left(&self, color: othello_sdk::Color) -> Option<Duration> {
        self.session.clock_left(color)
    }

    /// The game clock, if one is set.
    pub fn clock(&self) -> Option<&crate::clock::GameClock> {
        self.session.clock()
    }

    /// A game begins: its clock is set afresh from the setting.
    fn begin_clock(&mut self) {
        self.bookkeeping.clock_from_file = false;
        self.session.set_clock(None);
        self.bookkeeping.clock_open_at = Some(self.game().moves().len());
        self.set_clock_from_setting();
    }

    /// The clock the setting asks for, if any: a total per side and an increment, when a human
    /// plays.
    fn wanted_clock(&self) -> Option<(Duration, Duration)> {
        (self.settings.clock_minutes > 0 && self.session.has_human()).then(|| {
            let total = Duration::from_secs(u64::from(self.settings.clock_minutes) * 60);
            let increment = Duration::from_secs(u64::from(self.settings.clock_increment_s));
            (total, increment)
        })
    }

    /// Sets the clock afresh from the setting; it starts with the game's next move.
    fn set_clock_from_setting(&mut self) {
        let wanted = self.wanted_clock().filter(|_| !self.game().is_over());
        let clock = wanted.map(|(total, increment)| crate::clock::GameClock::new(total, increment, self.game()));
        self.session.set_clock(clock);
    }

    /// Keeps the game clock with the game: set when a game begins and a human plays, charged as
    /// moves are made, and a side out of time loses. As on lichess, the clock starts with the
    /// game's first move. Until the first move the clock follows the setting
    /// (typing or dragging "10 min" passes through "1 min", which must not stick); once the game
    /// is under way a change applies from the next game, except that 0 (or no human left) turns
    /// the clock off at once.
    fn follow_clock(&mut self, ctx: &egui::Context) {
        let wanted = self.wanted_clock();
        // A game opened with its own clock keeps it whatever the setting, while a human plays.
        let own_clock =
            self.bookkeeping.clock_open_at.is_none() && self.bookkeeping.clock_from_file && self.session.has_human();
        if wanted.is_none() && self.session.clock().is_some() && !own_clock {
            self.session.set_clock(None);
        }
        if let Some(at) = self.bookkeeping.clock_open_at {
            if self.game().moves().len() != at || self.game().is_over() {
                self.bookkeeping.clock_open_at = None; // under way: the clock stays as it was set
            } else if self.session.clock().map(crate::clock::GameClock::setting) != wanted {
                self.set_clock_from_setting();
            }
        }
        self.session.follow_clock();
        let flag = self.session.lost_on_time();
        if let Some(loser) = flag.filter(|_| !self.bookkeeping.flag_told) {
            self.show_info(format!("{} ran out of time: {} wins", color_name(loser), color_name(!loser)));
        }
        self.bookkeeping.flag_told = flag.is_some();
        if self.session.clock().is_some_and(|c| c.running().is_some()) {
            ctx.request_repaint_after(CLOCK_REFRESH);
        }
    }

    /// The game on the board: a replay's, or the player's.
    pub fn board_game(&self) -> &Game {
        self.replay().map_or(self.game(), |replay| &replay.game)
    }

    /// The game analysis, running or done (shown while it is of the game on the board).
    pub fn game_review(&self) -> Option<&crate::review::GameReview> {
        self.workers.review.as_ref()
    }

    /// Analyses every move of the game on the board with the analysis bot, in the background
    /// (a running analysis of another game stops).
    pub fn analyse_game(&mut self) {
        if self.hints_hidden() {
            self.show_error("Practice: the game is analysed once it is over".to_owned());
            return;
        }
        let Some(path) = self.choose_analysis_bot() else {
            self.show_error(NO_ANALYSER.to_owned());
            return;
        };
        let game = self.board_game().clone();
        if game.moves().is_empty() {
            self.show_error("No moves to analyse yet".to_owned());
            return;
        }
        self.workers.review = None; // stops a running one: its runner is killed
        let spec = self.session.seating().spec(&path, None);
        let paused = self.session.thinking().is_some();
        match crate::review::GameReview::start(spec, &game, waker_factory(&self.shell.egui_ctx)(), paused) {
            Ok(review) => {
                let name = self.plugins().iter().find(|p| p.path == path).map(|p| p.name.clone());
                let review = review.named(name);
                self.show_info(review.start_message());
                self.workers.review = Some(review);
            }
            Err(why) => self.show_error(why),
        }
    }

    /// The analysis bot: the one chosen, else the sample Alpha-beta (exact in the endgame) or the
    /// first other loaded bot with the analysis export, as Egaroucid and NBoard analyse with their
    /// engine without asking first.
    pub fn analysis_bot(&self) -> Option<std::path::PathBuf> {
        self.settings.analysis_bot.clone().or_else(|| {
            let analysers = || self.plugins().iter().filter(|p| p.is_ok() && p.analysis);
            analysers().find(|p| p.name == DEFAULT_ANALYSER).or_else(|| analysers().next()).map(|p| p.path.clone())
        })
    }

    /// The analysis bot, which becomes the chosen one (shown and remembered) when it was the
    /// default; the message line names a default taken.
    fn choose_analysis_bot(&mut self) -> Option<std::path::PathBuf> {
        let path = self.analysis_bot()?;
        if self.settings.analysis_bot.is_none() {
            let name = self
                .plugins()
                .iter()
                .find(|p| p.path == path)
                .map_or_else(|| othello_arena::seat::library_stem(&path), |p| p.name.clone());
            self.show_info(format!("{name} is the analysis bot (another can be chosen in the Play tab, Analysis)"));
            self.settings.analysis_bot = Some(path.clone());
        }
        Some(path)
    }

    /// The replayed game on the board instead of the player's, if any: a match game on the
    /// Matches tab, a ladder game on the Ladder tab. The player's game is kept meanwhile.
    pub fn replay(&self) -> Option<&matches::Viewer> {
        match self.shell.tab {
            Tab::Matches => self.panels.matches.viewer(),
            Tab::Ladder => self.panels.ladder.replay(),
            _ => None,
        }
    }

    pub(crate) fn replay_mut(&mut self) -> Option<&mut matches::Viewer> {
        match self.shell.tab {
            Tab::Matches => self.panels.matches.viewer.as_mut(),
            Tab::Ladder => self.panels.ladder.replay.as_mut(),
            _ => None,
        }
    }

    /// Points the analysis at the position on the board (or stops it), and takes its news.
    fn follow_analysis(&mut self) {
        if self.settings.show_evaluations && self.settings.analysis_bot.is_none() && !self.workers.catalog.is_scanning()
        {
            self.choose_analysis_bot();
        }
        let position = self.game().viewed();
        let plan = crate::analysis::Plan {
            max_ms: self.settings.analysis_max_ms,
            solve_from_empties: self.settings.solve_from_empties,
            line_plies: self.settings.best_line_plies as usize,
        };
        let wanted = match &self.settings.analysis_bot {
            Some(path)
                if self.settings.show_evaluations
                    && !self.hints_hidden()
                    && self.panels.editor.is_none()
                    && !position.legal_moves().is_empty() =>
            {
                Some((self.session.seating().spec(path, None), position, plan))
            }
            _ => None,
        };
        // A bot of the game on move has the cores: the analysis waits (its values stay shown).
        if wanted.is_some() && self.session.thinking().is_some() {
            self.workers.analysis.pause();
            return;
        }
        self.workers.analysis.follow(wanted, &*waker_factory(&self.shell.egui_ctx));
        self.workers.analysis.update();
    }

    /// Imports the games of the WTHOR file of the settings, in the background.
    pub fn import_wthor(&mut self) {
        let path = std::path::PathBuf::from(self.settings.wthor_file.trim());
        if path.as_os_str().is_empty() {
            self.show_error("Type the path of a WTHOR file (.wtb) first".to_owned());
            return;
        }
        self.workers.database.import(&path, waker_factory(&self.shell.egui_ctx)());
    }

    /// The game database, once a file is imported.
    pub fn opening_tree(&self) -> Option<&crate::wthor::OpeningTree> {
        self.workers.database.tree()
    }

    /// Practice mode hides the hints now: the player's game is on the board and goes on with a
    /// human in it (once it is over everything shows again).
    pub fn hints_hidden(&self) -> bool {
        self.settings.practice && self.replay().is_none() && self.session.has_human() && !self.game().is_over()
    }

    /// Sounds what happened since the last frame: a move, a pass, the end of the game. Moves taken
    /// back, a new game or a game loaded make no sound.
    fn sound_cues(&mut self) {
        let game = &self.session.game;
        let now = (game.moves().len(), game.is_over());
        let (moves_before, over_before) = std::mem::replace(&mut self.bookkeeping.heard, now);
        if !self.settings.sound || self.session.last_applied().is_none() {
            return;
        }
        // A few moves can come in one frame (a bot's answer, then a forced pass): a pass among them
        // is what the ear should hear.
        let new_moves = game.moves().get(moves_before..).filter(|_| now.0 > moves_before && now.0 <= moves_before + 2);
        let cue = if now.1 && !over_before {
            Some(sound::Cue::GameEnd)
        } else {
            new_moves.map(|moves| {
                if moves.iter().any(|m| m.mv == othello_sdk::Move::Pass) { sound::Cue::Pass } else { sound::Cue::Move }
            })
        };
        if let Some(cue) = cue {
            self.workers.sounds.play(cue);
        }
    }

    /// The app's sounds (what was played last).
    pub fn sounds(&self) -> &sound::Sounds {
        &self.workers.sounds
    }

    /// Progress of the flip animation of the viewed position's last move (1 = done).
    fn flip_progress(&self) -> f32 {
        if !self.settings.animate {
            return 1.0;
        }
        match self.session.last_applied() {
            Some((ply, at)) if ply == self.game().cursor() => {
                (at.elapsed().as_secs_f32() / FLIP_ANIMATION.as_secs_f32()).min(1.0)
            }
            _ => 1.0,
        }
    }

    /// The newcomer's opponent (see [`OthelloApp::first_run`]), unless a game has begun meanwhile.
    fn seat_newcomer_opponent(&mut self) {
        if !self.game().moves().is_empty() || !self.settings.black.is_human() || !self.settings.white.is_human() {
            return;
        }
        let usable = || self.workers.catalog.entries().iter().filter(|e| e.is_ok());
        let chosen = usable()
            .find(|e| e.name == levels::ALPHA_BETA_NAME)
            .or_else(|| usable().max_by_key(|e| e.levels))
            .map(|e| (e.path.clone(), e.levels, e.name.clone()));
        match chosen {
            Some((path, count, name)) => {
                let level = (count > 0).then(|| levels::middle(count));
                self.settings.white = SeatChoice::Bot { path, level };
                self.session.seat_players(&self.settings);
                let level_text = level.map(|l| format!(" at level {l} of {count}")).unwrap_or_default();
                self.show_info(format!("You play Black against {name}{level_text}. Change players in the Play tab."));
            }
            None => self.show_info(
                "No bot found: two humans play. Build the sample bots (cargo run --release) or see the Plugins tab."
                    .to_owned(),
            ),
        }
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        if self.panels.confirm.is_some() {
            return; // the dialog has the keyboard (Enter / Escape)
        }
        for (shortcut, action) in shortcuts::bindings() {
            if ctx.input_mut(|input| input.consume_shortcut(&shortcut)) {
                self.perform(action, ctx);
            }
        }
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        // The keys walk the game on the board: a replay's, or the player's.
        let game = match self.replay_mut() {
            Some(replay) => &mut replay.game,
            None => &mut self.session.game,
        };
        ctx.input(|input| {
            if input.key_pressed(Key::ArrowLeft) {
                game.view_back();
            }
            if input.key_pressed(Key::ArrowRight) {
                game.view_forward();
            }
            if input.key_pressed(Key::Home) || input.key_pressed(Key::ArrowUp) {
                game.view_first();
            }
            if input.key_pressed(Key::End) || input.key_pressed(Key::ArrowDown) {
                game.view_last();
            }
        });
    }

    /// Carries out a panel's actions in their order.
    fn perform_all(&mut self, actions: Vec<Action>, ctx: &egui::Context) {
        let ctx = ctx.clone();
        for action in actions {
            self.perform(action, &ctx);
        }
    }

    /// The Position panel (the editor), its action carried out.
    fn position_panel(&mut self, ui: &mut Ui) {
        let mut editor = self.panels.editor.take();
        let mut input = std::mem::take(&mut self.panels.position_input);
        let action = panels::editor::show(self, &mut editor, &mut input, ui);
        self.panels.editor = editor;
        self.panels.position_input = input;
        if let Some(action) = action {
            self.perform(action, &ui.ctx().clone());
        }
    }

    /// The left panel's contents for the current tab.
    fn tab_contents(&mut self, ui: &mut Ui) {
        match self.shell.tab {
            Tab::Play => {
                // While a position is being set up the editor comes first, where it is seen (the
                // place is decided once a frame, so the panel is drawn once).
                let editing = self.panels.editor.is_some();
                if editing {
                    self.position_panel(ui);
                    ui.separator();
                }
                let mut records = std::mem::take(&mut self.panels.records);
                let mut actions = panels::players::show(self, &mut records, ui);
                self.panels.records = records;
                ui.separator();
                actions.extend(panels::analysis::show(self, ui));
                ui.separator();
                actions.extend(panels::analysis::game_analysis(self, ui));
                ui.separator();
                let mut database = std::mem::take(&mut self.panels.database);
                actions.extend(database.show(self, ui));
                self.panels.database = database;
                self.perform_all(actions, ui.ctx());
                if !editing {
                    ui.separator();
                    self.position_panel(ui);
                }
            }
            Tab::Plugins => {
                let mut plugins = std::mem::take(&mut self.panels.plugins);
                let action = plugins.show(self, ui);
                self.panels.plugins = plugins;
                if let Some(action) = action {
                    self.perform(action, &ui.ctx().clone());
                }
            }
            Tab::Matches | Tab::Ladder => {
                let wake = waker_factory(&self.shell.egui_ctx);
                let shared = panels::Shared {
                    catalog: &self.workers.catalog,
                    seating: self.session.seating(),
                    time_per_move_ms: self.settings.time_per_move_ms,
                    wake: &*wake,
                };
                let action = if self.shell.tab == Tab::Matches {
                    panels::matches::show(&mut self.panels.matches, &mut self.settings.matches, &shared, ui)
                } else {
                    panels::ladder::show(&mut self.panels.ladder, &shared, ui)
                };
                if let Some(action) = action {
                    self.perform(action, &ui.ctx().clone());
                }
            }
        }
    }

    /// The board in the middle: the editor's draft while it is open (a click edits the draft, the
    /// editor's own state), else the player's game (a click is the human's move).
    fn board(&mut self, ui: &mut Ui) -> Option<Action> {
        if let Some(editor) = &mut self.panels.editor {
            editor_board(editor, self.settings.orientation, ui);
            return None;
        }
        game_board(self, ui)
    }
}

/// The editor's draft on the board, with the sign that edit mode is on.
fn editor_board(editor: &mut panels::editor::EditorState, orientation: Orientation, ui: &mut Ui) {
    let view = board::BoardView {
        position: editor.draft(),
        hints: othello_sdk::Bitboard::EMPTY,
        last_move: None,
        flipped: othello_sdk::Bitboard::EMPTY,
        flip_progress: 1.0,
        interactive: false,
        editing: true,
        orientation,
        evaluations: Vec::new(),
        best: None,
    };
    let sign = "Editing the position: click squares to change them; the editor (Play tab) plays from it or cancels";
    ui.vertical_centered(|ui| {
        ui.label(egui::RichText::new(sign).strong().color(egui::Color32::from_rgb(0xf0, 0xd0, 0x70)))
    });
    if let Some(square) = ui.vertical_centered(|ui| view.show(ui)).inner {
        editor.apply(square);
    }
}

/// The player's game on the board, with the hints and values it may show. Reads the app only;
/// returns the square clicked as a move.
fn game_board(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    let game = &app.session.game;
    let human = app.session.human_to_move();
    let hints = match human {
        Some(_) if app.settings.show_legal_moves => game.viewed().legal_moves(),
        _ => othello_sdk::Bitboard::EMPTY,
    };
    let view = board_view(game, hints, human.is_some(), app.flip_progress(), app.settings.orientation);
    let view = if app.settings.show_evaluations && !app.hints_hidden() {
        let position = game.viewed();
        let values = app.workers.analysis.values_for(&position);
        let side = position.side_to_move();
        board::BoardView {
            evaluations: values
                .iter()
                .map(|v| board::Evaluation {
                    square: v.square,
                    value: analysis::shown_value(v, side, app.settings.eval_view),
                })
                .collect(),
            best: values.first().map(|v| v.square),
            ..view
        }
    } else {
        view
    };
    let clicked: Option<Square> = ui.vertical_centered(|ui| view.show(ui)).inner;
    // An illegal click changes nothing.
    clicked.map(Action::Play)
}

/// The window size (in points) up to which the app is drawn at its own size; a larger window
/// draws text, side panels and graphs larger, in proportion, up to [`MAX_GROWTH`].
const GROWTH_FROM: [f32; 2] = [1280.0, 820.0];
const MAX_GROWTH: f32 = 1.75;
/// Steps of the growth (so a window being resized does not restyle at every pixel).
const GROWTH_STEP: f32 = 0.05;

/// How much larger than usual a window of `size` points draws its text and panels (a 1920×1080
/// screen: 1.3×), so the side panels and their text keep their share beside the board. (Not the
/// zoom factor: that would change the window's size in points, and so the growth, again.)
pub fn growth_for(size: egui::Vec2) -> f32 {
    let growth = (size.x / GROWTH_FROM[0]).min(size.y / GROWTH_FROM[1]).clamp(1.0, MAX_GROWTH);
    ((growth / GROWTH_STEP) + 1e-3).floor() * GROWTH_STEP
}

/// Text and controls `growth` times their usual size.
fn apply_growth(ctx: &egui::Context, growth: f32) {
    let usual = egui::Style::default();
    ctx.all_styles_mut(|style| {
        for (text_style, font) in &mut style.text_styles {
            if let Some(base) = usual.text_styles.get(text_style) {
                font.size = base.size * growth;
            }
        }
        style.spacing.interact_size = usual.spacing.interact_size * growth;
        style.spacing.button_padding = usual.spacing.button_padding * growth;
        style.spacing.item_spacing = usual.spacing.item_spacing * growth;
        style.spacing.icon_width = usual.spacing.icon_width * growth;
        style.spacing.icon_width_inner = usual.spacing.icon_width_inner * growth;
    });
}

/// The smallest the tab bar's titles shrink to, as a share of the buttons' text size.
const MIN_TAB_TEXT_SHARE: f32 = 0.7;

/// The left panel's tabs on one line whatever the panel's width: the titles shrink to fit rather
/// than wrap (a wrapped bar moved the panel's contents down on some tabs and not others).
fn tab_bar(current: &mut Tab, ui: &mut Ui) {
    ui.horizontal(|ui| {
        let full = ui.style().text_styles.get(&egui::TextStyle::Button).map_or(14.0, |font| font.size);
        ui.spacing_mut().item_spacing.x = full / 6.0;
        ui.spacing_mut().button_padding.x = full / 3.0;
        let padding = 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x;
        let color = ui.visuals().text_color();
        let font = egui::FontId::proportional(full);
        let text_width: f32 = Tab::ALL
            .iter()
            .map(|tab| ui.painter().layout_no_wrap(tab.title().to_owned(), font.clone(), color).size().x)
            .sum();
        let room = ui.available_width() - padding * Tab::ALL.len() as f32;
        let size = (full * room / text_width).clamp(full * MIN_TAB_TEXT_SHARE, full);
        for tab in Tab::ALL {
            ui.selectable_value(current, tab, egui::RichText::new(tab.title()).size(size));
        }
    });
}

/// The board showing `game`'s viewed position: the one place the app builds a [`board::BoardView`]
/// (the Play game and a watched match game alike).
pub(crate) fn board_view(
    game: &Game,
    hints: othello_sdk::Bitboard,
    interactive: bool,
    flip_progress: f32,
    orientation: Orientation,
) -> board::BoardView {
    let last = game.viewed_last_move();
    board::BoardView {
        position: game.viewed(),
        hints,
        last_move: last.and_then(|m| m.mv.square()),
        flipped: last.map_or(othello_sdk::Bitboard::EMPTY, |m| m.flipped),
        flip_progress,
        interactive,
        editing: false,
        orientation,
        evaluations: Vec::new(),
        best: None,
    }
}

/// The sandbox mode the app's bots run with: `--sandbox` when the command line gave one other than
/// the default `auto`, otherwise the settings' choice.
fn effective_sandbox(
    command_line: othello_arena::seat::SandboxMode,
    settings: &Settings,
) -> othello_arena::seat::SandboxMode {
    match command_line {
        othello_arena::seat::SandboxMode::Auto => settings.sandbox.mode(),
        explicit => explicit,
    }
}

/// The extra plugin folders: the command line's, then the ones added in the app.
pub(crate) fn standard_extra(
    command_line: &[std::path::PathBuf],
    added: &[std::path::PathBuf],
) -> Vec<std::path::PathBuf> {
    let mut extra = command_line.to_vec();
    extra.extend(added.iter().filter(|f| !command_line.contains(f)).cloned());
    extra
}

/// "Black" or "White", as the app writes a colour.
pub fn color_name(color: othello_sdk::Color) -> &'static str {
    match color {
        othello_sdk::Color::Black => "Black",
        othello_sdk::Color::White => "White",
    }
}

/// Makes wakers that repaint the UI, for worker threads.
pub(crate) fn waker_factory(ctx: &egui::Context) -> Box<dyn Fn() -> Waker> {
    let ctx = ctx.clone();
    Box::new(move || {
        let ctx = ctx.clone();
        Box::new(move || ctx.request_repaint())
    })
}

impl eframe::App for OthelloApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        let growth = if self.settings.grow_with_window { growth_for(ctx.viewport_rect().size()) } else { 1.0 };
        if growth != self.shell.growth {
            self.shell.growth = growth;
            apply_growth(&ctx, growth);
        }
        // The window's close button asks like Quit does when a game is in progress.
        if ctx.input(|input| input.viewport().close_requested()) && !self.shell.quitting {
            if self.game_in_progress() {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.panels.confirm = Some(Confirm::Quit);
            } else {
                self.shell.quitting = true;
            }
        }
        self.handle_keys(&ctx);
        self.advance(&ctx);

        let menu = Panel::top("menu").show(ui, |ui| panels::menu::show(self, ui)).inner;
        self.perform_all(menu, &ctx);
        let toolbar = Panel::top("toolbar").show(ui, |ui| panels::toolbar::show(self, ui)).inner;
        let dismissed = Panel::bottom("messages").show(ui, |ui| panels::toolbar::message_line(self, ui)).inner;
        self.perform_all(toolbar.into_iter().chain(dismissed).collect(), &ctx);
        let width = ui.available_width();
        let side = (width * SIDE_PANEL_SHARE).clamp(SIDE_PANEL_MIN, SIDE_PANEL_MAX * self.shell.growth);
        // The tables' tabs get a wider panel of their own, which the user may drag wider; the
        // other tabs keep the board's size whatever the tab.
        let left = if matches!(self.shell.tab, Tab::Matches | Tab::Ladder) {
            // The board keeps room enough to be read beside the two panels.
            let widest = (width * WIDE_PANEL_LIMIT_SHARE).min(width - side - BOARD_ROOM).max(side);
            let wide = (width * WIDE_PANEL_SHARE).clamp(side, (WIDE_PANEL_MAX * self.shell.growth).min(widest));
            // A table wider than the panel at the last frame widens it by as much, as far as the
            // board allows (the width remembered from a smaller window, or with smaller text, is
            // too narrow for the table otherwise).
            let overflow = match self.shell.tab {
                Tab::Ladder => self.panels.ladder.table_overflow,
                _ => self.panels.matches.table_overflow,
            };
            let narrowest = if overflow > 0.0 { (self.shell.wide_panel_width + overflow).min(widest) } else { side };
            Panel::left("side-wide").resizable(true).default_size(wide).size_range(narrowest.max(side)..=widest)
        } else {
            Panel::left("side").exact_size(side).resizable(false)
        };
        let shown = left.show(ui, |ui| {
            tab_bar(&mut self.shell.tab, ui);
            ui.separator();
            egui::ScrollArea::vertical().id_salt("tab").auto_shrink([false, false]).show(ui, |ui| {
                ui.set_max_width(ui.available_width());
                self.tab_contents(ui);
            });
        });
        if matches!(self.shell.tab, Tab::Matches | Tab::Ladder) {
            self.shell.wide_panel_width = shown.response.rect.width();
        }
        let mut replay_request = panels::matches::ReplayRequest::Nothing;
        Panel::right("info").exact_size(side).resizable(false).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt("info").auto_shrink([false, false]).show(ui, |ui| {
                ui.set_max_width(ui.available_width());
                if self.replay().is_some() {
                    panels::status::own_clock_line(self, ui);
                }
                if self.shell.tab == Tab::Matches && self.panels.matches.viewer().is_some() {
                    replay_request = panels::matches::show_viewer_info(
                        &mut self.panels.matches,
                        self.workers.review.as_ref(),
                        self.settings.eval_view,
                        ui,
                    );
                    return;
                }
                if self.shell.tab == Tab::Ladder
                    && let Some(replay) = &mut self.panels.ladder.replay
                {
                    let heading = format!("Ladder game {}", replay.index);
                    replay_request = panels::matches::replay_info(
                        replay,
                        &heading,
                        false,
                        self.workers.review.as_ref(),
                        self.settings.eval_view,
                        ui,
                    );
                    if replay_request == panels::matches::ReplayRequest::Back {
                        self.panels.ladder.replay = None;
                    }
                    return;
                }
                let mut action = panels::status::show(self, ui);
                ui.separator();
                let side = self.settings.eval_view.line_side(self.session.human_color());
                let review = self.workers.review.as_ref();
                if self.hints_hidden() {
                    ui.heading("Evaluation");
                    ui.weak("Practice: the bots' values show once the game is over.");
                } else {
                    let clicked = panels::eval_graph::show_game(&self.session.game, review, side, ui);
                    action = clicked.map(Action::View).or(action);
                    let clicked = panels::eval_graph::show_losses(&self.session.game, review, ui);
                    action = clicked.map(Action::View).or(action);
                }
                ui.separator();
                let can_play_on = self.session.can_play_on();
                let moves =
                    self.panels.moves.show(&self.session.game, review, self.settings.eval_view, can_play_on, ui);
                if let Some(action) = moves.or(action) {
                    self.perform(action, &ctx);
                }
            });
        });
        if replay_request == panels::matches::ReplayRequest::Analyse {
            self.analyse_game();
        }
        CentralPanel::default_margins().show(ui, |ui| {
            if let Some(replay) = self.replay() {
                panels::matches::show_viewer_board(replay, self.settings.orientation, ui);
            } else if let Some(action) = self.board(ui) {
                self.perform(action, ui.ctx());
            }
        });
        if let Some(answer) = panels::confirm::show(self, &ctx) {
            self.perform(answer, &ctx);
        }
        panels::menu::help_windows(&mut self.panels.help, self.settings.eval_view, &ctx);
        if let Some(action) = panels::engines::form_window(&mut self.panels.engine_form, &ctx) {
            self.perform(action, &ctx);
        }
        // After the frame's clicks, so a move made in this frame sounds in this frame.
        self.sound_cues();
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.settings);
    }

    fn auto_save_interval(&self) -> Duration {
        SETTINGS_SAVE_INTERVAL
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // A bot thinking now must not outlive the window (its think may have no time limit).
        self.session.stop_bots();
        self.workers.review = None; // kills the game analysis's runner
        self.panels.matches.stop_and_wait(MATCH_STOP_WAIT);
        self.panels.ladder.stop_and_wait(MATCH_STOP_WAIT);
    }
}
