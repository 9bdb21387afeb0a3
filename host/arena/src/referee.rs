//! The referee: plays one game between two seats, validating every answer.

use std::ops::ControlFlow;
use std::time::Duration;

use othello_sdk::{Color, IllegalMove, Move, Position};

use crate::record::{GameRecord, GameResult, MoveRecord, unix_now};
use crate::seat::{Failure, Seat, Termination};

/// A legal sequence of moves from the standard start that both players must
/// accept before the bots take over (an XOT-style opening).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Opening {
    moves: Vec<Move>,
}

impl Opening {
    /// No opening: the bots start from the standard position.
    pub fn none() -> Opening {
        Opening::default()
    }

    /// Checks that `moves` (passes included) are legal from the start.
    pub fn new(moves: Vec<Move>) -> Result<Opening, IllegalMove> {
        let mut position = Position::start();
        for &mv in &moves {
            position.try_play(mv)?;
        }
        Ok(Opening { moves })
    }

    /// Parses a transcript such as `f5d6c3d3c4f4c5b3`.
    pub fn parse(text: &str) -> Result<Opening, othello_sdk::TranscriptError> {
        Ok(Opening { moves: othello_sdk::parse_transcript(text)? })
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position the bots start from.
    pub fn position(&self) -> Position {
        let mut position = Position::start();
        for &mv in &self.moves {
            position.play_unchecked(mv);
        }
        position
    }
}

/// What the referee reports while a game is played.
#[derive(Debug)]
pub enum GameEvent<'a> {
    /// Both seats started the game (their names are final now).
    Started { black: &'a str, white: &'a str, position: &'a Position },
    /// A move was played; `position` is the position after it.
    Moved { record: &'a MoveRecord, position: &'a Position },
}

/// The game was stopped by its observer before it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// Plays a game to its end. Every turn of a side asks its seat, forced passes
/// included; any failure or illegal answer loses the game for that side.
pub fn play_game(
    black: &mut dyn Seat,
    white: &mut dyn Seat,
    opening: &Opening,
    time_limit: Option<Duration>,
) -> GameRecord {
    match play_game_observed(black, white, opening, time_limit, &mut |_| ControlFlow::Continue(())) {
        Ok(record) => record,
        Err(Stopped) => unreachable!("the observer never stops the game"),
    }
}

/// [`play_game`] with an observer that sees every move as it is played and
/// may stop the game (then no record is made: the game is unfinished).
pub fn play_game_observed(
    black: &mut dyn Seat,
    white: &mut dyn Seat,
    opening: &Opening,
    time_limit: Option<Duration>,
    observer: &mut dyn FnMut(GameEvent<'_>) -> ControlFlow<()>,
) -> Result<GameRecord, Stopped> {
    let start = opening.position();
    let started_at = unix_now();
    let mut position = start;
    let mut moves = Vec::with_capacity(TYPICAL_GAME_MOVES);

    let started =
        black.new_game().map_err(|f| (Color::Black, f)).and_then(|()| white.new_game().map_err(|f| (Color::White, f)));
    let names = [black.name().to_owned(), white.name().to_owned()];
    let finish = |moves, result| GameRecord {
        black: names[0].clone(),
        white: names[1].clone(),
        opening: opening.moves().to_vec(),
        start,
        moves,
        time_limit_ms: time_limit.map(|t| t.as_millis() as u64),
        started_at,
        result,
    };
    if let Err((loser, failure)) = started {
        return Ok(finish(moves, GameResult::forfeit(loser, failure)));
    }
    if observer(GameEvent::Started { black: &names[0], white: &names[1], position: &position }).is_break() {
        return Err(Stopped);
    }

    while !position.is_game_over() {
        let color = position.side_to_move();
        let seat: &mut dyn Seat = if color == Color::Black { &mut *black } else { &mut *white };
        let reply = match seat.think(&position, time_limit) {
            Ok(reply) => reply,
            Err(failure) => return Ok(finish(moves, GameResult::forfeit(color, failure))),
        };
        let mv = match validate(&position, reply.byte) {
            Ok(mv) => mv,
            Err(detail) => {
                let failure = Failure::new(Termination::IllegalMove, detail);
                return Ok(finish(moves, GameResult::forfeit(color, failure)));
            }
        };
        position.play_unchecked(mv);
        moves.push(MoveRecord { color, mv, elapsed: reply.elapsed, info: reply.info });
        let record = moves.last().expect("just pushed");
        if observer(GameEvent::Moved { record, position: &position }).is_break() {
            return Err(Stopped);
        }
    }
    let result = GameResult::normal(&position);
    Ok(finish(moves, result))
}

/// Moves in a typical game, to size the move list once.
const TYPICAL_GAME_MOVES: usize = 64;

/// Decodes and checks a move byte; the error names the byte and what it meant.
pub fn validate(position: &Position, byte: u8) -> Result<Move, String> {
    let mv = Move::from_byte(byte).map_err(|e| e.to_string())?;
    position.check(mv).map(|_| mv).map_err(|reason| {
        let what = match mv {
            Move::Pass => "a pass".to_owned(),
            Move::Play(square) => square.to_string(),
        };
        format!("move byte {byte:#04x} ({what}): {reason}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_answers_name_the_byte_and_the_reason() {
        let start = Position::start();
        assert_eq!(validate(&start, 0x43).unwrap_err(), "move byte 0x43 (d5): d5 is occupied");
        assert_eq!(
            validate(&start, 0xFF).unwrap_err(),
            "move byte 0xff (a pass): cannot pass with legal moves (d3, c4, f5, e6)"
        );
        assert!(validate(&start, 0x38).unwrap_err().contains("off the board"));
        assert_eq!(validate(&start, 0x00).unwrap_err(), "move byte 0x00 (a1): a1 flips no disc");
        assert_eq!(validate(&start, 0x23), Ok(Move::Play("d3".parse().unwrap())));
        // Black (b1) cannot flip anything; white could play c1.
        let must_pass = Position::from_board_string(&format!("OX{} X", "-".repeat(62))).unwrap();
        assert_eq!(
            validate(&must_pass, 0x02).unwrap_err(),
            "move byte 0x02 (c1): c1 is not legal: the side to move has no legal move and must pass"
        );
        assert_eq!(validate(&must_pass, 0xFF), Ok(Move::Pass));
    }
}
