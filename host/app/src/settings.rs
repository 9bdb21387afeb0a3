//! What the app remembers between runs (saved by eframe's persistence).
//!
//! Only choices the user made live here; games, workers and scans are runtime state.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Default time per move for a bot, in milliseconds.
pub const DEFAULT_TIME_PER_MOVE_MS: u64 = 1000;
/// Default pause between moves when two bots play, in milliseconds.
pub const DEFAULT_BOT_DELAY_MS: u64 = 400;
/// Default games per pairing in the Matches panel.
pub const DEFAULT_MATCH_GAMES: u32 = 10;
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
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions { games: DEFAULT_MATCH_GAMES, rounds: 1, opening_plies: DEFAULT_OPENING_PLIES, concurrency: 1 }
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
