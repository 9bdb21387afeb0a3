//! Analysis: a bot's value of every legal move (the optional `othello_analyze` export), checked
//! by the host before anyone sees it.
//!
//! The bot's answer is never trusted: a count above the capacity, a byte that is not a legal
//! move, a move given twice, or a value that is not a finite number in its range is left out,
//! and each is named in [`Analysis::rejected`].

use std::fmt;
use std::time::Duration;

use othello_sdk::abi::{OTHELLO_ANALYZE_CAPACITY, OthelloMoveValue, info_flags};
use othello_sdk::{Move, MoveValue, Position};

use super::failure::Failure;

/// The largest disc difference a game can end with.
const MAX_DISC_DIFFERENCE: f64 = 64.0;

/// A checked analysis of one position.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Analysis {
    /// One value per legal move the bot reported soundly (the side to move's view), best first.
    pub values: Vec<MoveValue>,
    /// What was left out of the bot's answer, and why.
    pub rejected: Vec<String>,
    /// Wall time of the call, as the host measured it.
    pub elapsed: Duration,
}

impl Analysis {
    /// The best move's value (the first one), if any.
    pub fn best(&self) -> Option<&MoveValue> {
        self.values.first()
    }
}

/// Why a seat gave no analysis.
#[derive(Debug, Clone, PartialEq)]
pub enum AnalysisError {
    /// The bot has no analysis export (or the seat kind cannot analyse).
    Unsupported,
    /// The bot answered that it failed (`OTHELLO_ANALYZE_ERROR`), with its reason; it is still
    /// running and may be asked again.
    Refused(String),
    /// The bot crashed, hung past its time or broke its channel: its runner was ended, and the
    /// seat needs a new game (`Seat::new_game`) before it is asked again.
    Failed(Failure),
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::Unsupported => f.write_str("this bot does not analyse (no othello_analyze export)"),
            AnalysisError::Refused(why) => write!(f, "the analysis failed: {why}"),
            AnalysisError::Failed(failure) => write!(f, "{failure}"),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// Checks a bot's raw answer for `position`: `returned` is the count it returned, `raw` the
/// elements the host read (at most the capacity). Values are sorted best first for the side to
/// move: those with an eval by eval, then those with only a win rate by win rate.
pub fn validate(position: &Position, returned: u32, raw: &[OthelloMoveValue]) -> (Vec<MoveValue>, Vec<String>) {
    let mut rejected = Vec::new();
    if returned > OTHELLO_ANALYZE_CAPACITY {
        rejected.push(format!(
            "claimed {returned} values with room for {OTHELLO_ANALYZE_CAPACITY}: only the first \
             {OTHELLO_ANALYZE_CAPACITY} were read"
        ));
    }
    let legal = position.legal_moves();
    let mut values: Vec<MoveValue> = Vec::new();
    for (index, value) in raw.iter().enumerate() {
        let at = index + 1;
        let square = match Move::from_byte(value.mv) {
            Ok(Move::Play(square)) if legal.contains(square) => square,
            Ok(Move::Play(square)) => {
                rejected.push(format!("value {at}: {square} is not a legal move"));
                continue;
            }
            Ok(Move::Pass) => {
                rejected.push(format!("value {at}: a pass is not a move to value"));
                continue;
            }
            Err(_) => {
                rejected.push(format!("value {at}: byte {:#04x} is not a square", value.mv));
                continue;
            }
        };
        if values.iter().any(|v| v.square == square) {
            rejected.push(format!("value {at}: {square} was already valued (the first value kept)"));
            continue;
        }
        let has = |flag| value.flags & flag != 0;
        let mut checked = MoveValue::new(square);
        if has(info_flags::EVAL) {
            if value.eval.is_finite() && value.eval.abs() <= MAX_DISC_DIFFERENCE {
                checked.eval = Some(value.eval);
                checked.exact = has(info_flags::EXACT);
            } else {
                rejected
                    .push(format!("value {at}: eval {} of {square} is not a disc difference in -64..64", value.eval));
            }
        }
        if has(info_flags::WIN_RATE) {
            if (0.0..=1.0).contains(&value.win_rate) {
                checked.win_rate = Some(value.win_rate);
            } else {
                rejected.push(format!("value {at}: win rate {} of {square} is not in 0..1", value.win_rate));
            }
        }
        if has(info_flags::DEPTH) {
            checked.depth = Some(value.depth);
        }
        if checked.eval.is_none() && checked.win_rate.is_none() {
            rejected.push(format!("value {at}: {square} has neither an eval nor a win rate"));
            continue;
        }
        values.push(checked);
    }
    values.sort_by(|a, b| {
        let (class_a, key_a) = sort_key(a);
        let (class_b, key_b) = sort_key(b);
        class_b.cmp(&class_a).then(key_b.total_cmp(&key_a))
    });
    (values, rejected)
}

/// Larger is better for the side to move: moves with an eval first (by eval), then moves with
/// only a win rate (by win rate); the two are not comparable.
fn sort_key(value: &MoveValue) -> (u8, f64) {
    match (value.eval, value.win_rate) {
        (Some(eval), _) => (2, eval),
        (None, Some(rate)) => (1, rate),
        (None, None) => (0, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(mv: &str, flags: u32, eval: f64, win_rate: f64) -> OthelloMoveValue {
        let byte = mv.parse::<Move>().map_or(0x88, Move::to_byte);
        OthelloMoveValue { size: 32, mv: byte, flags, depth: 5, eval, win_rate, ..Default::default() }
    }

    #[test]
    fn sound_values_are_kept_best_first_and_garbage_is_named() {
        let start = Position::start();
        let (eval, depth, rate) = (info_flags::EVAL | info_flags::DEPTH, info_flags::DEPTH, info_flags::WIN_RATE);
        let answer = [
            raw("d3", eval, -1.0, 0.0),
            raw("f5", eval | info_flags::EXACT, 3.0, 0.0),
            raw("f5", eval, 9.0, 0.0),         // repeated
            raw("a1", eval, 1.0, 0.0),         // not legal
            raw("e6", eval, f64::NAN, 0.0),    // NaN, and nothing else
            raw("c4", eval | rate, 99.0, 0.6), // eval out of range, win rate kept
            raw("zz", eval, 1.0, 0.0),         // not a square
            raw("e6", depth, 0.0, 0.0),        // nothing to show
        ];
        let (values, rejected) = validate(&start, 1000, &answer);
        let squares: Vec<String> = values.iter().map(|v| v.square.to_string()).collect();
        assert_eq!(squares, ["f5", "d3", "c4"], "{values:?}");
        assert!(values[0].exact && values[0].eval == Some(3.0) && values[0].depth == Some(5));
        assert_eq!((values[2].eval, values[2].win_rate), (None, Some(0.6)));
        assert_eq!(rejected.len(), 8, "{rejected:#?}");
        assert!(rejected[0].starts_with("claimed 1000 values with room for 64"));
        assert!(rejected.iter().any(|r| r.contains("f5 was already valued")));
        assert!(rejected.iter().any(|r| r.contains("a1 is not a legal move")));
        assert!(rejected.iter().any(|r| r.contains("eval NaN of e6")));
        assert!(rejected.iter().any(|r| r.contains("byte 0x88 is not a square")));
    }
}
