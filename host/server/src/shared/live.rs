//! The games being played now, move by move, for the arena screen: each worker's current game
//! (kept after it ends until the worker starts another, so the screen can show its result).
//! A move bumps [`Live::moves`], which the event stream sends as a `live` event; it does not
//! touch the change counter, so the leaderboard is not recomputed for every move.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use othello_arena::record::{GameRecord, MoveRecord};
use othello_arena::referee::{GameEvent, Opening};
use othello_ladder::play::{Observer, Player};
use othello_sdk::{Color, Position};

use crate::shared::Shared;

/// One move as the arena shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveGame {
    /// Unique while the server runs: the screen notices a new game by it.
    pub live_id: u64,
    /// What the game is (`Final, game 3`, `Placement`, …).
    pub title: String,
    /// A game of the final (the arena screen prefers them).
    pub in_final: bool,
    pub black: String,
    pub white: String,
    /// The ladder entries playing (0 for a bot not on the ladder: a check's upload, its
    /// `random`), for the entrants below.
    #[serde(skip)]
    pub entries: [i64; 2],
    /// The entrant of each side's bot (`None` for the pool's), filled in when it is served.
    pub black_entrant: Option<String>,
    pub white_entrant: Option<String>,
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
    /// The other replicas' games, as they last reported them ([`crate::jobs::replicas`]).
    others: Mutex<Vec<LiveGame>>,
    next_id: AtomicU64,
    /// Bumped at every move, start and end of a live game.
    pub moves: tokio::sync::watch::Sender<u64>,
}

/// A replica's games as it reports them to the others (with the entries the API leaves out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportedGame {
    pub game: LiveGame,
    pub entries: [i64; 2],
}

impl Default for Live {
    fn default() -> Live {
        // Live ids of replicas differ: each starts from a random 24-bit block (ids stay below
        // 2^48, exact in the pages' JavaScript numbers).
        let block = std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), 0u8) >> 40;
        Live {
            games: Mutex::new((BTreeMap::new(), std::collections::VecDeque::new())),
            others: Mutex::new(Vec::new()),
            next_id: AtomicU64::new((block << 24) + 1),
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
        [(black, black_entry), (white, white_entry)]: [(String, i64); 2],
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
            entries: [black_entry, white_entry],
            black_entrant: None,
            white_entrant: None,
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
        // Winner first, in words, as every list and replay says it: `White wins 43–21, played out`.
        let score = match record.result.winner {
            Some(Color::Black) => 1.0,
            Some(Color::White) => 0.0,
            None => 0.5,
        };
        let result = format!(
            "{}, {}",
            outcome_text(score, Some(record.result.discs)),
            ending_text(record.result.termination().as_str(), score)
        );
        self.with_game(live_id, |game| {
            game.result = Some(result);
            game.game = game_id;
        });
    }

    /// This replica's own games, to report to the others.
    pub fn report(&self) -> Vec<ReportedGame> {
        let guard = self.games.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .0
            .values()
            .chain(guard.1.iter())
            .map(|game| ReportedGame { game: game.clone(), entries: game.entries })
            .collect()
    }

    /// The other replicas' games as they last reported them.
    pub fn set_others(&self, reported: Vec<ReportedGame>) {
        let games = reported
            .into_iter()
            .map(|ReportedGame { mut game, entries }| {
                game.entries = entries;
                game
            })
            .collect();
        *self.others.lock().unwrap_or_else(|p| p.into_inner()) = games;
        self.moves.send_modify(|n| *n += 1);
    }

    /// The games of every replica, those being played first, the final's first among them, then
    /// the newest.
    pub fn games(&self) -> Vec<LiveGame> {
        let guard = self.games.lock().unwrap_or_else(|p| p.into_inner());
        let mut games: Vec<LiveGame> = guard.0.values().chain(guard.1.iter()).cloned().collect();
        drop(guard);
        games.extend(self.others.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned());
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

/// The worker playing on this thread, as the live games are keyed.
fn worker_name() -> String {
    std::thread::current().name().unwrap_or("worker").to_owned()
}

/// Shows the games a worker plays on the arena screen, every move as it is played, and stops
/// them (an error, the game unrecorded) when the server stops.
pub struct LiveObserver<'a> {
    shared: &'a Shared,
    title: &'a str,
    in_final: bool,
    /// The game being played, or the last one.
    live_id: Option<u64>,
}

impl<'a> LiveObserver<'a> {
    /// `title` says what the games are (`Placement`, `Final, game 3` …).
    pub fn new(shared: &'a Shared, title: &'a str, in_final: bool) -> LiveObserver<'a> {
        LiveObserver { shared, title, in_final, live_id: None }
    }

    /// The last game ended as `record`, recorded as ladder game `game_id` if it was.
    pub fn finished(&self, record: &GameRecord, game_id: Option<i64>) {
        if let Some(live_id) = self.live_id {
            self.shared.live.finished(live_id, record, game_id);
        }
    }
}

impl Observer for LiveObserver<'_> {
    fn starting(&mut self, black: &Player, white: &Player, opening: &Opening, time_limit: Option<Duration>) {
        let players = [(black.label(), black.entry.id), (white.label(), white.entry.id)];
        let position = opening.position();
        self.live_id =
            Some(self.shared.live.start(&worker_name(), self.title, self.in_final, players, &position, time_limit));
    }

    fn event(&mut self, event: GameEvent<'_>) -> Result<(), String> {
        if self.shared.stop.load(Ordering::SeqCst) {
            return Err("the server is stopping".to_owned());
        }
        if let (GameEvent::Moved { record, position }, Some(live_id)) = (event, self.live_id) {
            self.shared.live.moved(live_id, LiveMove::of(record), position);
        }
        Ok(())
    }

    fn recorded(&mut self, game: &GameRecord) {
        self.finished(game, None);
    }
}

/// A game's result in words, the winner first so a white win never reads like a loss:
/// `Black wins 40–24`, `White wins 40–24` (the winner's discs first), `Draw 32–32`.
pub fn outcome_text(black_score: f64, discs: Option<[u32; 2]>) -> String {
    let (words, ours_first) = if black_score >= 1.0 {
        ("Black wins", true)
    } else if black_score <= 0.0 {
        ("White wins", false)
    } else {
        ("Draw", true)
    };
    match discs {
        Some([black, white]) if ours_first => format!("{words} {black}–{white}"),
        Some([black, white]) => format!("{words} {white}–{black}"),
        None => words.to_owned(),
    }
}

/// How a game ended in words, from the ladder's termination and who lost: a failure is named
/// as what the loser did (`crash by Black`, `timeout by White`, `illegal move by Black`), never
/// as a resignation; a game played to its end is `played out`.
pub fn ending_text(termination: &str, black_score: f64) -> String {
    let what = match termination {
        "normal" => return "played out".to_owned(),
        "resigned" => "resignation".to_owned(),
        "load-error" => "failure to load".to_owned(),
        other => other.replace('-', " "),
    };
    match black_score {
        s if s <= 0.0 => format!("{what} by Black"),
        s if s >= 1.0 => format!("{what} by White"),
        _ => what,
    }
}
