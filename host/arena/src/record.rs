//! What a finished game leaves behind: the players, the start, every move with
//! its time and search report, and the result. Serializable, so the arena's
//! state files and the GUI can keep it.

use std::time::Duration;

use othello_sdk::{Color, Move, Position, SearchInfo, format_transcript};
use serde::{Deserialize, Serialize};

use crate::seat::{Failure, Termination};

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<SearchInfo>,
    /// CPU time of the bot's whole process tree for this move, where the seat measured it
    /// (absent in older records and in GGF, which has no field for it).
    #[serde(rename = "cpu_ns", default, skip_serializing_if = "Option::is_none", with = "serde_opt_duration")]
    pub cpu: Option<Duration>,
    /// Time the bot's CPU share held it back during this move (its threads wanted more CPUs than
    /// `--threads` gave it); absent when it was not held back or the seat has no share.
    #[serde(rename = "throttled_ns", default, skip_serializing_if = "Option::is_none", with = "serde_opt_duration")]
    pub throttled: Option<Duration>,
}

/// How a finished game ended: who won, the final discs and why it ended. The one result type of
/// the arena, the app, GGF and JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "FlatOutcome", try_from = "FlatOutcome")]
pub struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// Final discs `[black, white]`, empties to the winner. A resignation or a failure scores
    /// 64–0 for the winner.
    pub discs: [u32; 2],
    pub end: End,
}

/// Why a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Played to the end: neither side could move.
    Normal,
    /// `loser` gave up (a human at the board, or a player told to stop).
    Resigned { loser: Color },
    /// `loser` failed: crash, timeout, illegal move, out of memory or load error.
    Forfeit { loser: Color, failure: Failure },
}

impl Outcome {
    /// The result of a game played to the end in `position`.
    pub fn normal(position: &Position) -> Outcome {
        let (black, white) = position.final_score();
        Outcome::from_final_score(black, white)
    }

    /// The result of a game played to the end with this final score.
    pub fn from_final_score(black: u32, white: u32) -> Outcome {
        let winner = match black.cmp(&white) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        };
        Outcome { winner, discs: [black, white], end: End::Normal }
    }

    /// The result of a game that `loser` forfeited.
    pub fn forfeit(loser: Color, failure: Failure) -> Outcome {
        Outcome { winner: Some(!loser), discs: won_outright(!loser), end: End::Forfeit { loser, failure } }
    }

    /// The result of a game that `loser` resigned.
    pub fn resigned(loser: Color) -> Outcome {
        Outcome { winner: Some(!loser), discs: won_outright(!loser), end: End::Resigned { loser } }
    }

    /// `black`, `white` or `draw`.
    pub fn winner_str(&self) -> &'static str {
        match self.winner {
            Some(Color::Black) => "black",
            Some(Color::White) => "white",
            None => "draw",
        }
    }

    /// The side that resigned or failed (`None` when the game was played to the end).
    pub fn loser(&self) -> Option<Color> {
        match &self.end {
            End::Normal => None,
            End::Resigned { loser } | End::Forfeit { loser, .. } => Some(*loser),
        }
    }

    /// The failure that lost the game, for a forfeit.
    pub fn failure(&self) -> Option<&Failure> {
        match &self.end {
            End::Forfeit { failure, .. } => Some(failure),
            _ => None,
        }
    }

    /// How the game ended, as one name: `normal`, `resigned`, or the failure's (`timeout` …).
    pub fn termination(&self) -> Termination {
        match &self.end {
            End::Normal => Termination::Normal,
            End::Resigned { .. } => Termination::Resigned,
            End::Forfeit { failure, .. } => failure.termination,
        }
    }

    /// What happened, for people ("" for a normal end).
    pub fn detail(&self) -> &str {
        match &self.end {
            End::Normal => "",
            End::Resigned { .. } => "resigned",
            End::Forfeit { failure, .. } => &failure.detail,
        }
    }
}

fn won_outright(winner: Color) -> [u32; 2] {
    if winner == Color::Black { [FORFEIT_DISCS, 0] } else { [0, FORFEIT_DISCS] }
}

/// [`Outcome`] as JSON and state files hold it: one flat object.
#[derive(Serialize, Deserialize)]
struct FlatOutcome {
    #[serde(with = "serde_opt_color")]
    winner: Option<Color>,
    score: [u32; 2],
    termination: Termination,
    #[serde(with = "serde_opt_color")]
    loser: Option<Color>,
    detail: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    stderr_tail: Vec<String>,
}

impl From<Outcome> for FlatOutcome {
    fn from(outcome: Outcome) -> FlatOutcome {
        let (termination, loser, detail) = (outcome.termination(), outcome.loser(), outcome.detail().to_owned());
        let stderr_tail = match outcome.end {
            End::Forfeit { failure, .. } => failure.stderr_tail,
            _ => Vec::new(),
        };
        FlatOutcome { winner: outcome.winner, score: outcome.discs, termination, loser, detail, stderr_tail }
    }
}

impl TryFrom<FlatOutcome> for Outcome {
    type Error = String;

    fn try_from(flat: FlatOutcome) -> Result<Outcome, String> {
        let end = match (flat.termination, flat.loser) {
            (Termination::Normal, None) => End::Normal,
            (Termination::Resigned, Some(loser)) => End::Resigned { loser },
            (termination, Some(loser)) if termination.is_failure() => {
                End::Forfeit { loser, failure: Failure::new(termination, flat.detail).with_output(flat.stderr_tail) }
            }
            (termination, loser) => {
                return Err(format!("a `{termination}` end with loser {loser:?} is not a game result"));
            }
        };
        if let Some(loser) = flat.loser
            && flat.winner != Some(!loser)
        {
            return Err(format!("the winner of a game {loser:?} lost must be the other side"));
        }
        Ok(Outcome { winner: flat.winner, discs: flat.score, end })
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
    pub result: Outcome,
    /// The clock the time limit was counted on (`cpu`, `wall`, or `fuel` for two WebAssembly
    /// bots), when the program that played it says: the referee alone does not know it, the
    /// events, the ladder and the server set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::seat::Clock>,
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

mod serde_opt_duration {
    use super::*;
    use serde::{Deserializer, Serializer};

    /// Nanoseconds, when known.
    pub fn serialize<S: Serializer>(duration: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match duration {
            Some(d) => s.serialize_some(&(d.as_nanos().min(u64::MAX as u128) as u64)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_nanos))
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
