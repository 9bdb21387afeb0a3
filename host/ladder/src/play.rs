//! Playing the ladder's games: a pair of games on one opening with colours swapped, refereed by
//! the arena's referee, each game committed to the ladder as soon as it ends.

use std::path::PathBuf;
use std::time::Duration;

use std::ops::ControlFlow;

use othello_arena::record::{GameRecord, unix_now};
use othello_arena::referee::{GameEvent, Opening, Referee, Stopped, play_game_observed};
use othello_arena::seat::{Failure, Seat, SeatSpec, Seating, open_seat};
use othello_sdk::Color;

use crate::store::{Entry, Ladder};

/// An entry ready to play: its stored entry and the seat it is opened with.
#[derive(Debug, Clone)]
pub struct Player {
    pub entry: Entry,
    pub spec: SeatSpec,
}

impl Player {
    /// The entry's bot as `seating` runs bots (its library, or its `nboard:COMMAND`).
    pub fn new(entry: Entry, seating: &Seating) -> Player {
        let spec = seating.spec(PathBuf::from(&entry.identity.locator), entry.identity.level);
        Player { entry, spec }
    }

    /// `Name` or `Name@LEVEL`, as the games' records name it.
    pub fn label(&self) -> String {
        self.entry.identity.label()
    }
}

/// A seat, or why it could not be opened (its games are then lost by that failure).
pub type Opened = Result<Box<dyn Seat>, Failure>;

/// Plays `first` with black then with white against `second` from `opening`, records both games
/// and returns them. A seat that cannot be opened loses both games by its load failure.
pub fn play_pair(
    ladder: &mut Ladder,
    first: &Player,
    second: &Player,
    opening: &Opening,
    time_limit: Option<Duration>,
) -> Result<[GameRecord; 2], String> {
    play_pair_with(first, second, opening, time_limit, &mut |_, black, white, record| {
        ladder.record_game(black.entry.id, white.entry.id, record).map(drop)
    })
}

/// Records game `index` (0 or 1) of a pair, played by `black` and `white`.
pub type RecordGame<'a> = dyn FnMut(usize, &Player, &Player, &GameRecord) -> Result<(), String> + 'a;

/// Watches the games of [`play_pair_observed`] and [`play_one`] as they are played (a server
/// shows them move by move). Every method does nothing unless implemented.
pub trait Observer {
    /// A game of `black` against `white` is about to start from `opening`.
    fn starting(&mut self, _black: &Player, _white: &Player, _opening: &Opening, _time_limit: Option<Duration>) {}

    /// What the referee reports of the game being played (its start, each move). An error stops
    /// the game, unrecorded, and is what the pair returns.
    fn event(&mut self, _event: GameEvent<'_>) -> Result<(), String> {
        Ok(())
    }

    /// A game of the pair ended and was recorded.
    fn recorded(&mut self, _game: &GameRecord) {}
}

/// No observer: the games are only played and recorded.
impl Observer for () {}

/// [`play_pair`] with the recording left to `record(game index, black, white, game)`, called as
/// soon as each game ends (a server records each game under its job, exactly once).
pub fn play_pair_with(
    first: &Player,
    second: &Player,
    opening: &Opening,
    time_limit: Option<Duration>,
    record: &mut RecordGame<'_>,
) -> Result<[GameRecord; 2], String> {
    play_pair_observed(first, second, opening, time_limit, record, &mut ())
}

/// [`play_pair_with`] with each game shown to `observer` as it is played; `record` is called
/// before the observer hears that a game was recorded.
pub fn play_pair_observed(
    first: &Player,
    second: &Player,
    opening: &Opening,
    time_limit: Option<Duration>,
    record: &mut RecordGame<'_>,
    observer: &mut dyn Observer,
) -> Result<[GameRecord; 2], String> {
    let mut a = open_seat(&first.spec);
    let mut b = open_seat(&second.spec);
    let one = play_one((first, &mut a), (second, &mut b), opening, time_limit, observer)?;
    record(0, first, second, &one)?;
    observer.recorded(&one);
    let two = play_one((second, &mut b), (first, &mut a), opening, time_limit, observer)?;
    record(1, second, first, &two)?;
    observer.recorded(&two);
    Ok([one, two])
}

/// Plays one game of `black` against `white` on their seats (see [`open_seat`]) from `opening`,
/// shown to `observer` (all but [`Observer::recorded`]: recording it is the caller's). A seat that
/// could not be opened loses the game by its failure. Fails only when the observer stops the game.
pub fn play_one(
    (black, black_seat): (&Player, &mut Opened),
    (white, white_seat): (&Player, &mut Opened),
    opening: &Opening,
    time_limit: Option<Duration>,
    observer: &mut dyn Observer,
) -> Result<GameRecord, String> {
    observer.starting(black, white, opening, time_limit);
    let mut record = match (black_seat, white_seat) {
        (Ok(b), Ok(w)) => {
            let mut stopped_by = None;
            let played = play_game_observed(b.as_mut(), w.as_mut(), opening, time_limit, &mut |event| match observer
                .event(event)
            {
                Ok(()) => ControlFlow::Continue(()),
                Err(why) => {
                    stopped_by = Some(why);
                    ControlFlow::Break(())
                }
            });
            played.map_err(|Stopped| stopped_by.unwrap_or_else(|| "the game was stopped".to_owned()))?
        }
        (black_seat, white_seat) => {
            // Black's failure first, as the referee starts black's seat first.
            let mut referee = Referee::new(opening);
            if let Err(failure) = black_seat {
                referee.forfeit(Color::Black, failure.clone());
            }
            if let Err(failure) = white_seat {
                referee.forfeit(Color::White, failure.clone());
            }
            referee.into_record([black.label(), white.label()], time_limit, unix_now()).expect("a forfeit ends it")
        }
    };
    // The ladder's names: the level is part of who played.
    record.black = black.label();
    record.white = white.label();
    record.clock = Some(othello_arena::seat::game_clock(
        black.spec.options.clock,
        [&black.spec.library, &white.spec.library].map(|l| l.as_path()),
    ));
    Ok(record)
}
