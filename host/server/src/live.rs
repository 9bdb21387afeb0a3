//! The games being played now, move by move, for the arena screen: each worker's current game
//! (kept after it ends until the worker starts another, so the screen can show its result).
//! A move bumps [`Live::moves`], which the event stream sends as a `live` event; it does not
//! touch the change counter, so the leaderboard is not recomputed for every move.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;

use std::ops::ControlFlow;

use othello_arena::record::{GameRecord, MoveRecord, unix_now};
use othello_arena::referee::{GameEvent, Opening, Referee, play_game_observed};
use othello_arena::seat::{Failure, Seat, open_seat};
use othello_ladder::play::{Player, RecordGame};
use othello_sdk::{Color, Position};

use crate::Shared;

/// One move as the arena shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveMove {
    pub color: char,
    #[serde(rename = "move")]
    pub mv: String,
    /// The mover's time, in milliseconds.
    pub ms: f64,
    /// The mover's evaluation in discs, when the bot gave one.
    pub eval: Option<f64>,
    /// Its search depth, when the bot gave one.
    pub depth: Option<u32>,
}

impl LiveMove {
    pub fn of(record: &MoveRecord) -> LiveMove {
        LiveMove {
            color: if record.color == Color::Black { 'X' } else { 'O' },
            mv: record.mv.to_string(),
            ms: (record.elapsed.as_secs_f64() * 1e4).round() / 10.0,
            eval: record.info.as_ref().and_then(|i| i.eval),
            depth: record.info.as_ref().and_then(|i| i.depth),
        }
    }
}

/// A game being played (or just ended) on one worker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveGame {
    /// Unique while the server runs: the screen notices a new game by it.
    pub live_id: u64,
    /// What the game is (`Final, game 3`, `Placement`, …).
    pub title: String,
    /// A game of the final (the arena screen prefers them).
    pub in_final: bool,
    pub black: String,
    pub white: String,
    /// The board before each move and after the last (as the replay's).
    pub positions: Vec<String>,
    pub moves: Vec<LiveMove>,
    pub time_limit_ms: Option<u64>,
    /// Thinking time so far, black then white, in milliseconds.
    pub used_ms: [f64; 2],
    /// `None` while it is being played.
    pub result: Option<String>,
    /// Its ladder game once recorded (`/games/{id}`).
    pub game: Option<i64>,
}

/// Ended games kept after their worker moved on (the screen shows an ended game's result a
/// few seconds before it follows another).
const RECENT: usize = 4;

/// Every worker's current game, and the last few ended ones.
pub struct Live {
    games: Mutex<(BTreeMap<String, LiveGame>, std::collections::VecDeque<LiveGame>)>,
    next_id: AtomicU64,
    /// Bumped at every move, start and end of a live game.
    pub moves: tokio::sync::watch::Sender<u64>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            games: Mutex::new((BTreeMap::new(), std::collections::VecDeque::new())),
            next_id: AtomicU64::new(1),
            moves: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Live {
    fn update(&self, change: impl FnOnce(&mut (BTreeMap<String, LiveGame>, std::collections::VecDeque<LiveGame>))) {
        change(&mut self.games.lock().unwrap_or_else(|p| p.into_inner()));
        self.moves.send_modify(|n| *n += 1);
    }

    /// A game starts on `worker`; returns its live id.
    pub fn start(
        &self,
        worker: &str,
        title: &str,
        in_final: bool,
        [black, white]: [String; 2],
        position: &Position,
        time_limit: Option<Duration>,
    ) -> u64 {
        let live_id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let game = LiveGame {
            live_id,
            title: title.to_owned(),
            in_final,
            black,
            white,
            positions: vec![position.to_board_string()],
            moves: Vec::new(),
            time_limit_ms: time_limit.map(|t| t.as_millis() as u64),
            used_ms: [0.0; 2],
            result: None,
            game: None,
        };
        self.update(|(games, recent)| {
            if let Some(before) = games.insert(worker.to_owned(), game)
                && before.result.is_some()
            {
                recent.push_front(before);
                recent.truncate(RECENT);
            }
        });
        live_id
    }

    fn with_game(&self, live_id: u64, change: impl FnOnce(&mut LiveGame)) {
        self.update(|(games, _)| {
            if let Some(game) = games.values_mut().find(|g| g.live_id == live_id) {
                change(game);
            }
        });
    }

    pub fn moved(&self, live_id: u64, mv: LiveMove, position: &Position) {
        self.with_game(live_id, |game| {
            game.used_ms[usize::from(mv.color == 'O')] += mv.ms;
            game.moves.push(mv);
            game.positions.push(position.to_board_string());
        });
    }

    pub fn finished(&self, live_id: u64, record: &GameRecord, game_id: Option<i64>) {
        let result = format!(
            "{} ({}–{}){}",
            match record.result.winner {
                Some(Color::Black) => "1-0",
                Some(Color::White) => "0-1",
                None => "½-½",
            },
            record.result.discs[0],
            record.result.discs[1],
            match record.result.termination().as_str() {
                "normal" => String::new(),
                other => format!(", {other}"),
            }
        );
        self.with_game(live_id, |game| {
            game.result = Some(result);
            game.game = game_id;
        });
    }

    /// The games, those being played first, the final's first among them, then the newest.
    pub fn games(&self) -> Vec<LiveGame> {
        let guard = self.games.lock().unwrap_or_else(|p| p.into_inner());
        let mut games: Vec<LiveGame> = guard.0.values().chain(guard.1.iter()).cloned().collect();
        drop(guard);
        games.sort_by(|a, b| {
            a.result
                .is_some()
                .cmp(&b.result.is_some())
                .then(b.in_final.cmp(&a.in_final))
                .then(b.live_id.cmp(&a.live_id))
        });
        games
    }
}

/// A seat, or why it could not be opened (its games are then lost by that failure).
pub type Opened = Result<Box<dyn Seat>, Failure>;

/// The worker playing on this thread, as the live games are keyed.
fn worker_name() -> String {
    std::thread::current().name().unwrap_or("worker").to_owned()
}

/// Plays one game as the ladder's `play_pair_with` does, every move shown live; stops (an
/// error, the game unrecorded) when the server stops. Returns the record and its live id (for
/// [`Live::finished`]).
pub fn play_one(
    shared: &Shared,
    title: &str,
    in_final: bool,
    (black, black_seat): (&Player, &mut Opened),
    (white, white_seat): (&Player, &mut Opened),
    opening: &Opening,
    time_limit: Option<Duration>,
) -> Result<(GameRecord, u64), String> {
    let live = &shared.live;
    let live_id =
        live.start(&worker_name(), title, in_final, [black.label(), white.label()], &opening.position(), time_limit);
    let mut record = match (black_seat, white_seat) {
        (Ok(b), Ok(w)) => play_game_observed(b.as_mut(), w.as_mut(), opening, time_limit, &mut |event| {
            if shared.stop.load(Ordering::SeqCst) {
                return ControlFlow::Break(());
            }
            if let GameEvent::Moved { record, position } = event {
                live.moved(live_id, LiveMove::of(record), position);
            }
            ControlFlow::Continue(())
        })
        .map_err(|_| "the server is stopping".to_owned())?,
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
    Ok((record, live_id))
}

/// The ladder's `play_pair_with`, every move shown live on the arena screen: `first` with black
/// then with white against `second` from `opening`, each game passed to `record` as it ends.
pub fn play_pair(
    shared: &Shared,
    title: &str,
    first: &Player,
    second: &Player,
    opening: &Opening,
    time_limit: Option<Duration>,
    record: &mut RecordGame<'_>,
) -> Result<[GameRecord; 2], String> {
    let mut a = open_seat(&first.spec);
    let mut b = open_seat(&second.spec);
    let (one, live_one) = play_one(shared, title, false, (first, &mut a), (second, &mut b), opening, time_limit)?;
    record(0, first, second, &one)?;
    shared.live.finished(live_one, &one, None);
    let (two, live_two) = play_one(shared, title, false, (second, &mut b), (first, &mut a), opening, time_limit)?;
    record(1, second, first, &two)?;
    shared.live.finished(live_two, &two, None);
    Ok([one, two])
}
