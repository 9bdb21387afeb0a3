//! Game analysis: the analysis bot (the same engine that values the moves on the board) searches
//! every position of a finished or unfinished game on a worker thread of its own, and reports
//! each move's verdict over a channel as it comes: the best move, its value, the played move's
//! value and so what the played move lost. The move list and the graph mark the mistakes, as
//! Egaroucid's and NBoard's game analysis do.
//!
//! Values are the mover's view, as bots report them: in discs, or for a bot that only reports win
//! rates, in percentage points of the mover's chance.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread;
use std::time::Duration;

use othello_arena::seat::{AnalysisError, SeatSpec, StopHandle, open_seat_stoppable};
use othello_sdk::{Color, Move, MoveValue, Position, Square};

use crate::game::Game;
use crate::players::Waker;

/// Time the analysis bot gets for each position of the game.
pub const BUDGET_PER_POSITION: Duration = Duration::from_millis(500);
/// How often a paused analysis looks whether it may go on.
const PAUSE_POLL: Duration = Duration::from_millis(50);

/// The pause of a game analysis, shared with its worker: asked by the app while a bot of the game
/// thinks, and the worker says when it waits (its search in progress, at most
/// [`BUDGET_PER_POSITION`], ends first).
#[derive(Default)]
struct Pause {
    asked: AtomicBool,
    waiting: AtomicBool,
}
/// A move that loses at least this many discs against the best is a mistake, and at least
/// [`BLUNDER_DISCS`] a blunder.
pub const MISTAKE_DISCS: f64 = 4.0;
pub const BLUNDER_DISCS: f64 = 10.0;
/// The same in percentage points of the winning chance, for bots that report win rates only.
pub const MISTAKE_POINTS: f64 = 10.0;
pub const BLUNDER_POINTS: f64 = 25.0;

/// The unit of a move's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Discs,
    /// Percentage points of the mover's winning chance.
    WinPercent,
}

/// How bad a move was, by what it lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Fine,
    Mistake,
    Blunder,
}

impl Severity {
    /// The mark after the move in the list: "", "?" or "??".
    pub fn mark(self) -> &'static str {
        match self {
            Severity::Fine => "",
            Severity::Mistake => "?",
            Severity::Blunder => "??",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Severity::Fine => "fine",
            Severity::Mistake => "mistake",
            Severity::Blunder => "blunder",
        }
    }
}

/// The verdict on one move of the game.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReview {
    /// The move's ply (1-based: the move is `moves()[ply - 1]`).
    pub ply: usize,
    pub color: Color,
    pub played: Square,
    pub best: Square,
    /// The best move's value and the played move's, the mover's view, in `unit`.
    pub best_value: f64,
    pub played_value: Option<f64>,
    pub unit: Unit,
    /// Both values are exact (solved).
    pub exact: bool,
}

impl MoveReview {
    /// What the played move lost against the best (0 for the best move or as good a one).
    pub fn loss(&self) -> Option<f64> {
        self.played_value.map(|played| (self.best_value - played).max(0.0))
    }

    pub fn severity(&self) -> Severity {
        let (mistake, blunder) = match self.unit {
            Unit::Discs => (MISTAKE_DISCS, BLUNDER_DISCS),
            Unit::WinPercent => (MISTAKE_POINTS, BLUNDER_POINTS),
        };
        match self.loss() {
            Some(loss) if loss >= blunder => Severity::Blunder,
            Some(loss) if loss >= mistake => Severity::Mistake,
            _ => Severity::Fine,
        }
    }

    /// The played move's value from Black's point of view.
    pub fn played_for_black(&self) -> Option<f64> {
        self.played_for(Color::Black)
    }

    /// A value of this move (the mover's view) from `side`'s point of view.
    fn value_for(&self, value: f64, side: Color) -> f64 {
        match self.unit {
            Unit::Discs => crate::analysis::discs_for(value, self.color, side),
            Unit::WinPercent => 100.0 * crate::analysis::rate_for(value / 100.0, self.color, side),
        }
    }

    /// The played move's value from `side`'s point of view (for the graph).
    pub fn played_for(&self, side: Color) -> Option<f64> {
        Some(self.value_for(self.played_value?, side))
    }

    /// One line in the mover's view: "12. W c4?: lost 6.0 discs, best d3 (+2.0)".
    pub fn describe(&self) -> String {
        self.describe_for(self.color)
    }

    /// One line, the best move's value from `side`'s point of view (the loss is a loss whoever
    /// reads it): "12. W c4?: lost 6.0 discs, best d3 (-2.0)". Moves are numbered by ply.
    pub fn describe_for(&self, side: Color) -> String {
        let letter = if self.color == Color::Black { 'B' } else { 'W' };
        let head = format!("{}. {letter} {}{}", self.ply, self.played, self.severity().mark());
        let value = |v: f64| match self.unit {
            Unit::Discs => crate::analysis::format_discs(self.value_for(v, side), self.exact),
            Unit::WinPercent => format!("{:.1}%", self.value_for(v, side)),
        };
        let unit = match self.unit {
            Unit::Discs => "discs",
            Unit::WinPercent => "points",
        };
        match self.loss() {
            Some(loss) if self.played == self.best || loss < 0.5 => {
                format!("{head}: best ({})", value(self.best_value))
            }
            Some(loss) => format!("{head}: lost {loss:.1} {unit}, best {} ({})", self.best, value(self.best_value)),
            None => format!("{head}: best {} ({}), played move not valued", self.best, value(self.best_value)),
        }
    }
}

enum Report {
    Move(MoveReview),
    /// A pass (nothing to choose) or a position the bot gave no value for.
    Skipped,
    Failed(String),
}

/// Where the analysis of a game stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Running,
    Done,
    Failed(String),
}

/// The analysis of one game, running or done.
pub struct GameReview {
    start: Position,
    moves: Vec<Move>,
    /// By move index: the verdict, once the position was searched.
    reviews: Vec<Option<MoveReview>>,
    handled: usize,
    status: Status,
    /// The end was reported to the user already.
    announced: bool,
    /// The analysing bot's name, for the summary.
    bot_name: Option<String>,
    reports: Receiver<Report>,
    stop: StopHandle,
    pause: Arc<Pause>,
}

impl GameReview {
    /// Starts analysing every move of `game` with the bot of `spec`, paused from the start if
    /// `paused` (a bot of the game thinks).
    pub fn start(spec: SeatSpec, game: &Game, wake: Waker, paused: bool) -> Result<GameReview, String> {
        let stop = StopHandle::new().map_err(|e| format!("cannot start the game analysis: {e}"))?;
        let (sender, reports) = channel();
        let positions: Vec<(Position, Move)> =
            game.moves().iter().enumerate().map(|(i, m)| (game.position_at(i), m.mv)).collect();
        let thread_stop = stop.clone();
        let pause = Arc::new(Pause::default());
        pause.asked.store(paused, Ordering::SeqCst);
        let thread_pause = pause.clone();
        thread::Builder::new()
            .name("game analysis".to_owned())
            .spawn(move || run(&spec, &thread_stop, &positions, &sender, &wake, &thread_pause))
            .map_err(|e| format!("cannot start the game analysis thread: {e}"))?;
        let moves: Vec<Move> = game.moves().iter().map(|m| m.mv).collect();
        Ok(GameReview {
            start: game.start(),
            reviews: vec![None; moves.len()],
            moves,
            handled: 0,
            status: Status::Running,
            announced: false,
            bot_name: None,
            reports,
            stop,
            pause,
        })
    }

    /// Pauses the analysis (while a bot of the game thinks: the cores are the bot's) or lets it
    /// go on.
    pub fn set_paused(&self, paused: bool) {
        self.pause.asked.store(paused, Ordering::SeqCst);
    }

    /// The worker waits, paused (no search of it runs).
    pub fn is_waiting(&self) -> bool {
        self.pause.waiting.load(Ordering::SeqCst)
    }

    /// Names the analysing bot in the messages.
    pub fn named(mut self, bot_name: Option<String>) -> GameReview {
        self.bot_name = bot_name;
        self
    }

    /// The line for the user as the analysis starts.
    pub fn start_message(&self) -> String {
        format!("Analysing the game's {} moves{}…", self.moves.len(), self.with_bot())
    }

    /// " with NAME", or nothing for a bot without a name.
    fn with_bot(&self) -> String {
        self.bot_name.as_ref().map_or(String::new(), |name| format!(" with {name}"))
    }

    /// Takes the worker's news.
    pub fn update(&mut self) {
        while self.status == Status::Running {
            match self.reports.try_recv() {
                Ok(Report::Move(review)) => {
                    if let Some(slot) = self.reviews.get_mut(review.ply - 1) {
                        *slot = Some(review);
                    }
                    self.handled += 1;
                }
                Ok(Report::Skipped) => self.handled += 1,
                Ok(Report::Failed(why)) => self.status = Status::Failed(why),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.status = if self.handled == self.moves.len() {
                        Status::Done
                    } else {
                        Status::Failed("the analysis stopped".to_owned())
                    };
                }
            }
        }
    }

    /// Once, when the analysis has ended: a line for the user saying what it found.
    pub fn take_summary(&mut self) -> Option<String> {
        if self.status == Status::Running || self.announced {
            return None;
        }
        self.announced = true;
        let with = self.with_bot();
        Some(match &self.status {
            Status::Failed(why) => format!("Game analysis{with} failed: {why}"),
            _ => match self.mistakes().count() {
                0 => format!("Game analysed{with}: no mistake found"),
                n => format!("Game analysed{with}: {n} mistakes, marked in the move list and on the graph"),
            },
        })
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Positions searched so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.handled, self.moves.len())
    }

    /// The analysis is of `game` (or of the part of it played when the analysis began).
    pub fn is_for(&self, game: &Game) -> bool {
        game.start() == self.start
            && game.moves().len() >= self.moves.len()
            && game.moves().iter().zip(&self.moves).all(|(played, reviewed)| played.mv == *reviewed)
    }

    /// The verdict on the move of `ply` (1-based), once searched.
    pub fn of_ply(&self, ply: usize) -> Option<&MoveReview> {
        self.reviews.get(ply.checked_sub(1)?)?.as_ref()
    }

    /// Every verdict so far, in move order.
    pub fn reviews(&self) -> impl Iterator<Item = &MoveReview> {
        self.reviews.iter().flatten()
    }

    /// The mistakes and blunders found so far, in move order.
    pub fn mistakes(&self) -> impl Iterator<Item = &MoveReview> {
        self.reviews().filter(|r| r.severity() > Severity::Fine)
    }
}

impl Drop for GameReview {
    fn drop(&mut self) {
        // Kills the runner at once, even in the middle of a search; a paused worker goes on to
        // find it gone and ends.
        self.stop.stop();
        self.pause.asked.store(false, Ordering::SeqCst);
    }
}

/// The worker: opens the bot, then searches each position in turn.
fn run(
    spec: &SeatSpec,
    stop: &StopHandle,
    positions: &[(Position, Move)],
    reports: &Sender<Report>,
    wake: &Waker,
    pause: &Pause,
) {
    let send = |report| {
        let delivered = reports.send(report).is_ok();
        wake();
        delivered
    };
    let mut seat = match open_seat_stoppable(spec, stop).and_then(|mut seat| seat.new_game().map(|()| seat)) {
        Ok(seat) => seat,
        Err(failure) => {
            send(Report::Failed(format!("the analysis bot did not start: {failure}")));
            return;
        }
    };
    if !seat.analyzes() {
        send(Report::Failed(AnalysisError::Unsupported.to_string()));
        return;
    }
    for (index, (position, mv)) in positions.iter().enumerate() {
        let Move::Play(played) = *mv else {
            if !send(Report::Skipped) {
                return;
            }
            continue;
        };
        while pause.asked.load(Ordering::SeqCst) {
            pause.waiting.store(true, Ordering::SeqCst);
            thread::sleep(PAUSE_POLL);
        }
        pause.waiting.store(false, Ordering::SeqCst);
        let analysis = match seat.analyze(position, Some(BUDGET_PER_POSITION)) {
            Ok(analysis) => analysis,
            Err(error) => {
                send(Report::Failed(format!("move {}: {error}", index + 1)));
                return;
            }
        };
        let report = match verdict(index + 1, position.side_to_move(), played, &analysis.values) {
            Some(review) => Report::Move(review),
            None => Report::Skipped,
        };
        if !send(report) {
            return;
        }
    }
}

/// The verdict on `played` among `values` (best first, the mover's view).
fn verdict(ply: usize, color: Color, played: Square, values: &[MoveValue]) -> Option<MoveReview> {
    let best = values.first()?;
    let (unit, value_of): (Unit, fn(&MoveValue) -> Option<f64>) = if best.eval.is_some() {
        (Unit::Discs, |v| v.eval)
    } else {
        (Unit::WinPercent, |v| v.win_rate.map(|r| r * 100.0))
    };
    let played_move = values.iter().find(|v| v.square == played);
    Some(MoveReview {
        ply,
        color,
        played,
        best: best.square,
        best_value: value_of(best)?,
        played_value: played_move.and_then(value_of),
        unit,
        exact: best.exact && played_move.is_some_and(|v| v.exact),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(square: &str, eval: f64) -> MoveValue {
        MoveValue { eval: Some(eval), ..MoveValue::new(square.parse().unwrap()) }
    }

    #[test]
    fn a_move_is_judged_by_what_it_lost_against_the_best() {
        let values = [value("d3", 6.0), value("c4", 1.0), value("e6", -5.0)];
        let best = verdict(1, Color::Black, "d3".parse().unwrap(), &values).unwrap();
        assert_eq!((best.loss(), best.severity()), (Some(0.0), Severity::Fine));
        let mistake = verdict(1, Color::Black, "c4".parse().unwrap(), &values).unwrap();
        assert_eq!((mistake.loss(), mistake.severity()), (Some(5.0), Severity::Mistake));
        assert_eq!(mistake.describe(), "1. B c4?: lost 5.0 discs, best d3 (+6.0)");
        assert_eq!(mistake.describe_for(Color::White), "1. B c4?: lost 5.0 discs, best d3 (-6.0)", "White's view");
        let blunder = verdict(2, Color::White, "e6".parse().unwrap(), &values).unwrap();
        assert_eq!(blunder.severity(), Severity::Blunder);
        assert_eq!(blunder.played_for_black(), Some(5.0), "White's -5 is +5 for Black");
        let rates = [
            MoveValue { win_rate: Some(0.7), ..MoveValue::new("d3".parse().unwrap()) },
            MoveValue { win_rate: Some(0.55), ..MoveValue::new("c4".parse().unwrap()) },
        ];
        let by_rate = verdict(1, Color::Black, "c4".parse().unwrap(), &rates).unwrap();
        assert_eq!(by_rate.unit, Unit::WinPercent);
        assert_eq!(by_rate.severity(), Severity::Mistake, "15 points lost");
    }
}
