//! What a finished game leaves behind: the players, the start, every move with
//! its time and search report, and the result. Serializable, so the arena's
//! state files and the GUI can keep it.

use std::time::Duration;

use othello_sdk::{Color, Move, Position, SearchInfo, format_transcript};
use serde::{Deserialize, Serialize};

use crate::seat::Termination;

/// One move a bot played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    #[serde(with = "serde_color")]
    pub color: Color,
    #[serde(rename = "move", with = "serde_move")]
    pub mv: Move,
    /// Time the bot took, as the host measured it.
    #[serde(rename = "elapsed_ns", with = "serde_duration")]
    pub elapsed: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "serde_info")]
    pub info: Option<SearchInfo>,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner; `None` for a draw.
    #[serde(with = "serde_opt_color")]
    pub winner: Option<Color>,
    /// Final discs `[black, white]`, empties to the winner. A failure scores 64–0 for the winner.
    pub score: [u32; 2],
    pub termination: Termination,
    /// The side that failed (`None` when the game ended normally).
    #[serde(with = "serde_opt_color")]
    pub loser: Option<Color>,
    /// Why the loser failed ("" for a normal end).
    pub detail: String,
    /// The failing bot's last stderr lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl GameResult {
    /// `black`, `white` or `draw`.
    pub fn outcome_str(&self) -> &'static str {
        match self.winner {
            Some(Color::Black) => "black",
            Some(Color::White) => "white",
            None => "draw",
        }
    }

    /// The result of a game played to the end in `position`.
    pub fn normal(position: &Position) -> GameResult {
        let (black, white) = position.final_score();
        GameResult::from_final_score(black, white)
    }

    /// The result of a game played to the end with this final score.
    pub fn from_final_score(black: u32, white: u32) -> GameResult {
        let winner = match black.cmp(&white) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        };
        GameResult {
            winner,
            score: [black, white],
            termination: Termination::Normal,
            loser: None,
            detail: String::new(),
            stderr_tail: Vec::new(),
        }
    }

    /// The result of a game that `loser` forfeited.
    pub fn forfeit(loser: Color, failure: crate::seat::Failure) -> GameResult {
        GameResult {
            winner: Some(!loser),
            score: if loser == Color::Black { [0, FORFEIT_DISCS] } else { [FORFEIT_DISCS, 0] },
            termination: failure.termination,
            loser: Some(loser),
            detail: failure.detail,
            stderr_tail: failure.stderr_tail,
        }
    }
}

/// The winner's disc count in a forfeited game.
pub const FORFEIT_DISCS: u32 = 64;

/// A finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Display names of the players.
    pub black: String,
    pub white: String,
    /// The opening moves forced on both players, from the standard start
    /// (empty when the game started from `start` directly).
    #[serde(with = "serde_moves")]
    pub opening: Vec<Move>,
    /// Where the bots started playing (after the opening).
    #[serde(with = "serde_position")]
    pub start: Position,
    /// The moves the bots played, passes included.
    pub moves: Vec<MoveRecord>,
    /// The time limit per move the bots were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_ms: Option<u64>,
    /// When the game started, seconds since the Unix epoch (UTC).
    pub started_at: u64,
    pub result: GameResult,
}

impl GameRecord {
    /// The position after the last move.
    pub fn final_position(&self) -> Position {
        let mut position = self.start;
        for record in &self.moves {
            position.play_unchecked(record.mv);
        }
        position
    }

    /// The position before each move and after the last (for replaying).
    pub fn positions(&self) -> Vec<Position> {
        let mut position = self.start;
        let mut positions = Vec::with_capacity(self.moves.len() + 1);
        positions.push(position);
        for record in &self.moves {
            position.play_unchecked(record.mv);
            positions.push(position);
        }
        positions
    }

    /// The whole game as a transcript from the standard start (opening
    /// included, passes omitted), e.g. `f5d6c3…`. Starts at `start` when
    /// there is no opening.
    pub fn transcript(&self) -> String {
        let moves: Vec<Move> = self.opening.iter().copied().chain(self.moves.iter().map(|m| m.mv)).collect();
        format_transcript(&moves)
    }

    /// The name of the player of `color`.
    pub fn name(&self, color: Color) -> &str {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

/// The current time in seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

mod serde_color {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name(*color))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        parse(&String::deserialize(d)?).ok_or_else(|| serde::de::Error::custom("expected `black` or `white`"))
    }

    pub(super) fn name(color: Color) -> &'static str {
        match color {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Color> {
        match text {
            "black" => Some(Color::Black),
            "white" => Some(Color::White),
            _ => None,
        }
    }
}

mod serde_opt_color {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(color: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match color {
            Some(color) => s.serialize_str(super::serde_color::name(*color)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => super::serde_color::parse(&text)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom("expected `black`, `white` or null")),
        }
    }
}

mod serde_move {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(mv: &Move, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(mv)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

mod serde_moves {
    use super::*;
    use serde::{Deserializer, Serializer};

    /// Written as a transcript with explicit passes (`f5d6pa…`) so it replays exactly.
    pub fn serialize<S: Serializer>(moves: &[Move], s: S) -> Result<S::Ok, S::Error> {
        let text: String = moves
            .iter()
            .map(|mv| match mv {
                Move::Pass => "pa".to_owned(),
                Move::Play(square) => square.to_string(),
            })
            .collect();
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Move>, D::Error> {
        let text = String::deserialize(d)?;
        othello_sdk::parse_transcript(&text).map_err(serde::de::Error::custom)
    }
}

mod serde_position {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(position: &Position, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&position.to_board_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        Position::from_board_string(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

mod serde_duration {
    use super::*;
    use serde::{Deserializer, Serializer};

    /// Nanoseconds (u64 holds 584 years).
    pub fn serialize<S: Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(duration.as_nanos().min(u64::MAX as u128) as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_nanos(u64::deserialize(d)?))
    }
}

mod serde_info {
    use super::*;
    use serde::{Deserializer, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Info {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eval: Option<f64>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        win_rate: Option<f64>,
    }

    pub fn serialize<S: Serializer>(info: &Option<SearchInfo>, s: S) -> Result<S::Ok, S::Error> {
        info.map(|i| Info { eval: i.eval, exact: i.exact, depth: i.depth, nodes: i.nodes, win_rate: i.win_rate })
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SearchInfo>, D::Error> {
        Ok(Option::<Info>::deserialize(d)?.map(|i| SearchInfo {
            eval: i.eval,
            exact: i.exact,
            depth: i.depth,
            nodes: i.nodes,
            win_rate: i.win_rate,
        }))
    }
}
