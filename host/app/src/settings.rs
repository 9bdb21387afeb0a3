//! What the app remembers between runs (saved by eframe's persistence).
//!
//! Only choices the user made live here; games, workers and scans are runtime state.

pub use crate::analysis::EvalView;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Default time per move for a bot, in milliseconds.
pub const DEFAULT_TIME_PER_MOVE_MS: u64 = 1000;
/// Default pause between moves when two bots play, in milliseconds.
pub const DEFAULT_BOT_DELAY_MS: u64 = 400;
/// Default games per pairing in the Matches panel.
pub const DEFAULT_MATCH_GAMES: u32 = 10;
/// Default time per move of a match's bots, in milliseconds.
pub const DEFAULT_MATCH_TIME_PER_MOVE_MS: u64 = 200;
/// Default random opening plies of a match (pairs of games share an opening, colours swapped).
pub const DEFAULT_OPENING_PLIES: u32 = 4;

/// Who plays a colour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SeatChoice {
    #[default]
    Human,
    /// A bot library by path, with its level (for bots that have levels).
    Bot { path: PathBuf, level: Option<u32> },
}

impl SeatChoice {
    pub fn is_human(&self) -> bool {
        matches!(self, SeatChoice::Human)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub black: SeatChoice,
    pub white: SeatChoice,
    /// Time per move for bots, 0 = unlimited.
    pub time_per_move_ms: u64,
    /// Show the legal moves on a human's turn.
    pub show_legal_moves: bool,
    /// Animate flipped discs.
    pub animate: bool,
    /// Pause between moves when two bots play.
    pub bot_delay_ms: u64,
    /// Plugin folders added in the Plugins panel (besides the standard ones).
    pub extra_plugin_folders: Vec<PathBuf>,
    /// The last GGF file opened or saved.
    pub game_file: String,
    /// The Matches panel's choices.
    pub matches: MatchOptions,
    /// Draw move evaluations on the board (with the analysis bot).
    pub show_evaluations: bool,
    /// The bot that values the moves (a library with the analysis export).
    pub analysis_bot: Option<PathBuf>,
    /// How the board is turned on screen.
    pub orientation: crate::board::Orientation,
    /// Sound on a move, a pass and the end of a game (needs the `sound` build feature).
    pub sound: bool,
    /// How much the runner isolates each bot, as the command line's `--sandbox`.
    pub sandbox: SandboxChoice,
    /// NBoard engines added with "Add engine…", offered as players.
    pub engines: Vec<Engine>,
    /// Whose point of view the board's evaluations and the analysis read from.
    pub eval_view: EvalView,
    /// The game clock when a human plays: minutes per side, 0 = no clock.
    pub clock_minutes: u32,
    /// Seconds added to a side's clock after each of its moves.
    pub clock_increment_s: u32,
    /// The longest analysis of a position, in milliseconds.
    pub analysis_max_ms: u64,
    /// From this many empties on, the analysis searches until every value is exact (0 = never).
    pub solve_from_empties: u32,
    /// Plies of the best line shown with the analysis (0 = none).
    pub best_line_plies: u32,
    /// Practice: no evaluations, best line or bots' values while a human's game goes on; all of
    /// them, and game analysis, once it is over.
    pub practice: bool,
    /// The WTHOR game file (`.wtb`) last imported.
    pub wthor_file: String,
    /// Text, panels and graphs grow with a large window.
    pub grow_with_window: bool,
}

/// The sandbox mode of the bots' runners: `auto`, `strict` or `off` (as `--sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxChoice {
    /// Every layer the machine offers.
    #[default]
    Auto,
    /// Every layer, or the bot does not start (the missing layer is named).
    Strict,
    /// A plain runner process.
    Off,
}

impl SandboxChoice {
    pub const ALL: [SandboxChoice; 3] = [SandboxChoice::Auto, SandboxChoice::Strict, SandboxChoice::Off];

    pub fn mode(self) -> othello_arena::seat::SandboxMode {
        use othello_arena::seat::SandboxMode;
        match self {
            SandboxChoice::Auto => SandboxMode::Auto,
            SandboxChoice::Strict => SandboxMode::Strict,
            SandboxChoice::Off => SandboxMode::Off,
        }
    }

    pub fn from_mode(mode: othello_arena::seat::SandboxMode) -> SandboxChoice {
        use othello_arena::seat::SandboxMode;
        match mode {
            SandboxMode::Auto => SandboxChoice::Auto,
            SandboxMode::Strict => SandboxChoice::Strict,
            SandboxMode::Off => SandboxChoice::Off,
        }
    }

    pub fn name(self) -> &'static str {
        self.mode().as_str()
    }
}

/// An NBoard engine (a program speaking the NBoard protocol, such as Edax) the user added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Engine {
    /// The name shown in the player choice.
    pub name: String,
    /// The command line that starts it in NBoard mode (`edax -q -nboard`).
    pub command: String,
    /// The folder it runs in (empty = the app's); engines often find their data files there.
    pub working_folder: String,
}

impl Engine {
    /// The arena's seat spec of this engine: `nboard:` and the engine, run in its working folder
    /// (see [`EngineSpec`](othello_arena::nboard::EngineSpec)).
    pub fn seat_path(&self) -> PathBuf {
        let folder = self.working_folder.trim();
        let spec = othello_arena::nboard::EngineSpec {
            name: self.name.trim().to_owned(),
            command: self.command.trim().to_owned(),
            arguments: Vec::new(),
            working_directory: (!folder.is_empty()).then(|| PathBuf::from(folder)),
            protocol: None,
            init_strings: Vec::new(),
            read: Vec::new(),
            env: Vec::new(),
        };
        PathBuf::from(spec.bot_name())
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            black: SeatChoice::Human,
            white: SeatChoice::Human,
            time_per_move_ms: DEFAULT_TIME_PER_MOVE_MS,
            show_legal_moves: true,
            animate: true,
            bot_delay_ms: DEFAULT_BOT_DELAY_MS,
            extra_plugin_folders: Vec::new(),
            game_file: "game.ggf".to_owned(),
            matches: MatchOptions::default(),
            show_evaluations: false,
            analysis_bot: None,
            orientation: Default::default(),
            sound: true,
            sandbox: SandboxChoice::Auto,
            engines: Vec::new(),
            eval_view: EvalView::Black,
            clock_minutes: 0,
            clock_increment_s: 0,
            analysis_max_ms: crate::analysis::Plan::default().max_ms,
            solve_from_empties: 0,
            best_line_plies: crate::analysis::Plan::default().line_plies as u32,
            practice: false,
            wthor_file: String::new(),
            grow_with_window: true,
        }
    }
}

/// How the Matches panel runs an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MatchOptions {
    /// Games per pairing (played in colour-swapped pairs).
    pub games: u32,
    /// Rounds of a round robin.
    pub rounds: u32,
    /// Random opening plies (0 = from the start position).
    pub opening_plies: u32,
    /// Games played at once.
    pub concurrency: usize,
    /// Time per move of the match's bots, 0 = unlimited (the match's own, not the Play tab's).
    pub time_per_move_ms: u64,
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            games: DEFAULT_MATCH_GAMES,
            rounds: 1,
            opening_plies: DEFAULT_OPENING_PLIES,
            concurrency: 1,
            time_per_move_ms: DEFAULT_MATCH_TIME_PER_MOVE_MS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_survive_a_round_trip_and_missing_fields_take_defaults() {
        let settings = Settings {
            white: SeatChoice::Bot { path: "plugins/libalphabeta.so".into(), level: Some(3) },
            show_legal_moves: false,
            ..Settings::default()
        };
        let text = serde_json::to_string(&settings).unwrap();
        assert_eq!(serde_json::from_str::<Settings>(&text).unwrap(), settings);
        let old: Settings = serde_json::from_str(r#"{"show_legal_moves":false}"#).unwrap();
        assert_eq!(old, Settings { show_legal_moves: false, ..Settings::default() });
    }
}
