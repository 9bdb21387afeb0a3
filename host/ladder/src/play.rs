//! Playing the ladder's games: a pair of games on one opening with colours swapped, refereed by
//! the arena's referee, each game committed to the ladder as soon as it ends.

use std::path::PathBuf;
use std::time::Duration;

use othello_arena::record::{GameRecord, unix_now};
use othello_arena::referee::{Opening, Referee, play_game};
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
type Opened = Result<Box<dyn Seat>, Failure>;

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

/// [`play_pair`] with the recording left to `record(game index, black, white, game)`, called as
/// soon as each game ends (a server records each game under its job, exactly once).
pub fn play_pair_with(
    first: &Player,
    second: &Player,
    opening: &Opening,
    time_limit: Option<Duration>,
    record: &mut RecordGame<'_>,
) -> Result<[GameRecord; 2], String> {
    let mut a = open_seat(&first.spec);
    let mut b = open_seat(&second.spec);
    let one = play_one((first, &mut a), (second, &mut b), opening, time_limit);
    record(0, first, second, &one)?;
    let two = play_one((second, &mut b), (first, &mut a), opening, time_limit);
    record(1, second, first, &two)?;
    Ok([one, two])
}

fn play_one(
    (black, black_seat): (&Player, &mut Opened),
    (white, white_seat): (&Player, &mut Opened),
    opening: &Opening,
    time_limit: Option<Duration>,
) -> GameRecord {
    let mut record = match (black_seat, white_seat) {
        (Ok(b), Ok(w)) => play_game(b.as_mut(), w.as_mut(), opening, time_limit),
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
    record
}
