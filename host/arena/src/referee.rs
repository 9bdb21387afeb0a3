//! The referee: plays one game between two seats, validating every answer.

use std::ops::ControlFlow;
use std::time::Duration;

use othello_sdk::{Color, IllegalMove, Move, Position};

use crate::record::{GameRecord, MoveRecord, Outcome, unix_now};
use crate::seat::{Failure, Reply, Seat, Termination};

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

/// What the referee made of a seat's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// A legal move (or forced pass), recorded with its time and search report.
    Play(MoveRecord),
    /// The answer loses the game for the side to move: its seat failed, or the move is illegal.
    Forfeit(Failure),
}

/// Judges the answer of the seat of the side to move in `position`: a legal move is recorded, an
/// illegal one or a failure loses. Every player's answer goes through here — the arena's games
/// through [`Referee`], the app's live game directly (it adds undo and pause around it).
pub fn judge(position: &Position, answer: Result<Reply, Failure>) -> Judgement {
    let color = position.side_to_move();
    let reply = match answer {
        Ok(reply) => reply,
        Err(failure) => return Judgement::Forfeit(failure),
    };
    match validate(position, reply.byte) {
        Ok(mv) => Judgement::Play(MoveRecord {
            color,
            mv,
            elapsed: reply.elapsed,
            info: reply.info,
            cpu: reply.cpu,
            throttled: reply.throttled,
        }),
        Err(detail) => Judgement::Forfeit(Failure::new(Termination::IllegalMove, detail)),
    }
}

/// One game, step by step: whose turn it is, each answer judged and applied, and the end decided.
///
/// ```
/// use std::time::Duration;
/// use othello_arena::referee::{Opening, Referee};
/// use othello_arena::seat::Reply;
///
/// let mut referee = Referee::new(&Opening::none());
/// // Black answers d3 (row 2, column 3) …
/// referee.submit(Ok(Reply { byte: 0x23, elapsed: Duration::ZERO, info: None, cpu: None, throttled: None }));
/// // … and White an occupied square: White forfeits.
/// referee.submit(Ok(Reply { byte: 0x33, elapsed: Duration::ZERO, info: None, cpu: None, throttled: None }));
/// let outcome = referee.outcome().expect("over");
/// assert_eq!(outcome.termination().as_str(), "illegal-move");
/// assert_eq!(outcome.discs, [64, 0]);
/// ```
#[derive(Debug, Clone)]
pub struct Referee {
    opening: Vec<Move>,
    start: Position,
    position: Position,
    moves: Vec<MoveRecord>,
    outcome: Option<Outcome>,
}

impl Referee {
    /// A game from the position after `opening`.
    pub fn new(opening: &Opening) -> Referee {
        let start = opening.position();
        let outcome = start.is_game_over().then(|| Outcome::normal(&start));
        Referee {
            opening: opening.moves().to_vec(),
            start,
            position: start,
            moves: Vec::with_capacity(TYPICAL_GAME_MOVES),
            outcome,
        }
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The side whose seat must answer next; `None` once the game is over.
    pub fn to_move(&self) -> Option<Color> {
        self.outcome.is_none().then(|| self.position.side_to_move())
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[MoveRecord] {
        &self.moves
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Takes the answer of the side to move: judges it, applies a legal move and decides whether
    /// the game is over. Returns the move played, if any. An answer after the end changes nothing.
    pub fn submit(&mut self, answer: Result<Reply, Failure>) -> Option<&MoveRecord> {
        let color = self.to_move()?;
        match judge(&self.position, answer) {
            Judgement::Play(record) => {
                self.position.play_unchecked(record.mv);
                self.moves.push(record);
                if self.position.is_game_over() {
                    self.outcome = Some(Outcome::normal(&self.position));
                }
                self.moves.last()
            }
            Judgement::Forfeit(failure) => {
                self.outcome = Some(Outcome::forfeit(color, failure));
                None
            }
        }
    }

    /// `color` gives up (no effect once the game is over).
    pub fn resign(&mut self, color: Color) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome::resigned(color));
        }
    }

    /// `color` loses by `failure` before or between its moves (e.g. its bot did not load).
    pub fn forfeit(&mut self, color: Color, failure: Failure) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome::forfeit(color, failure));
        }
    }

    /// The record of the finished game; `None` while it goes on.
    pub fn into_record(
        self,
        players: [String; 2],
        time_limit: Option<Duration>,
        started_at: u64,
    ) -> Option<GameRecord> {
        let [black, white] = players;
        Some(GameRecord {
            black,
            white,
            opening: self.opening,
            start: self.start,
            moves: self.moves,
            time_limit_ms: time_limit.map(|t| t.as_millis() as u64),
            started_at,
            result: self.outcome?,
            clock: None,
        })
    }
}

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
    let started_at = unix_now();
    let mut referee = Referee::new(opening);
    let started =
        black.new_game().map_err(|f| (Color::Black, f)).and_then(|()| white.new_game().map_err(|f| (Color::White, f)));
    let names = [black.name().to_owned(), white.name().to_owned()];
    match started {
        Err((loser, failure)) => referee.forfeit(loser, failure),
        Ok(()) => {
            let started = GameEvent::Started { black: &names[0], white: &names[1], position: referee.position() };
            if observer(started).is_break() {
                return Err(Stopped);
            }
        }
    }
    while let Some(color) = referee.to_move() {
        let seat: &mut dyn Seat = if color == Color::Black { &mut *black } else { &mut *white };
        let answer = seat.think(referee.position(), time_limit);
        if referee.submit(answer).is_some() {
            let record = referee.moves().last().expect("just played");
            if observer(GameEvent::Moved { record, position: referee.position() }).is_break() {
                return Err(Stopped);
            }
        }
    }
    Ok(referee.into_record(names, time_limit, started_at).expect("the loop ends with the game"))
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
