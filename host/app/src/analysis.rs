//! Move evaluations on the board: an analysis bot (any bot with the optional analysis export)
//! values every legal move of the position on screen, on a worker thread of its own with its own
//! seat (its own runner process), so neither the game's bots nor the UI ever wait for it.
//!
//! The worker asks the bot again and again with growing time budgets ([`BUDGETS_MS`]) and sends
//! each result at once, so the values on the board deepen while the user looks. When the
//! position changes (a move, undo, new game, the editor) or evaluations are turned off, a busy
//! worker is dropped: its runner is killed at once ([`StopHandle`]); an idle one just gets the
//! new position.
//!
//! Convention: values are shown from Black's point of view by default, positive = Black ahead, in
//! discs (a win rate as Black's chance in %); the setting [`EvalView::SideToMove`] shows them as
//! Egaroucid and NBoard do, from the side to move's. The bot reports the side to move's view;
//! [`shown_value`] turns it as the setting says.

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread;
use std::time::Duration;

use othello_arena::seat::{Analysis, AnalysisError, SeatSpec, StopHandle, open_seat_stoppable};
use othello_sdk::{Color, MoveValue, Position};
use serde::{Deserialize, Serialize};

use super::players::Waker;

/// The time budgets of the successive analyses of one position, in milliseconds: each result is
/// shown as soon as it comes, and the last one stands.
pub const BUDGETS_MS: [u64; 7] = [100, 250, 500, 1000, 2000, 4000, 8000];

/// An evaluation as the app shows it: from the point of view of `side`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShownValue {
    /// Whose view: + = this side ahead.
    pub side: Color,
    /// Disc difference, + = `side` ahead.
    pub discs: Option<f64>,
    /// `side`'s chance of winning, 0..1.
    pub wins: Option<f64>,
    pub exact: bool,
}

/// `value` (the side to move's view, as bots report) from Black's point of view.
pub fn black_view(value: &MoveValue, side_to_move: Color) -> ShownValue {
    let black = side_to_move == Color::Black;
    ShownValue {
        side: Color::Black,
        // `+ 0.0` turns a negated zero into a plain one, so it is not shown as "-0".
        discs: value.eval.map(|e| if black { e } else { -e + 0.0 }),
        wins: value.win_rate.map(|r| if black { r } else { 1.0 - r }),
        exact: value.exact,
    }
}

/// Whose point of view evaluations are shown from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EvalView {
    /// + = Black ahead, whoever is to move (the app's graph and read-out always read so).
    #[default]
    Black,
    /// + = the side to move ahead, as Egaroucid and NBoard show them.
    SideToMove,
}

/// `value` from the point of view `view` asks for: Black's, or the side to move's (as reported).
pub fn shown_value(value: &MoveValue, side_to_move: Color, view: EvalView) -> ShownValue {
    match view {
        EvalView::Black => black_view(value, side_to_move),
        EvalView::SideToMove => {
            ShownValue { side: side_to_move, discs: value.eval, wins: value.win_rate, exact: value.exact }
        }
    }
}

impl ShownValue {
    /// The short text drawn on a square: `+4`, `-2`, `0` (discs) or `57%` (the side's chance).
    pub fn label(&self) -> String {
        match (self.discs, self.wins) {
            (Some(discs), _) => {
                let rounded = discs.round() as i64;
                if rounded > 0 { format!("+{rounded}") } else { rounded.to_string() }
            }
            (None, Some(rate)) => format!("{:.0}%", rate * 100.0),
            (None, None) => String::new(),
        }
    }

    /// The same for people reading it aloud: "+4 discs, Black's view (exact)".
    pub fn description(&self) -> String {
        let exact = if self.exact { " (exact)" } else { "" };
        let side = crate::color_name(self.side);
        match (self.discs, self.wins) {
            (Some(_), _) => format!("{} discs, {side}'s view{exact}", self.label()),
            (None, Some(_)) => format!("{side} wins {}", self.label()),
            (None, None) => "no value".to_owned(),
        }
    }
}

enum Request {
    Analyze(Position),
}

enum Event {
    /// One analysis of `position` within `budget_ms`.
    Values {
        position: Position,
        budget_ms: u64,
        analysis: Analysis,
    },
    /// All budgets of `position` are done (or every value is exact).
    Finished {
        position: Position,
    },
    Failed {
        position: Option<Position>,
        why: String,
    },
}

/// What the analysis shows now.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// No analysis bot chosen, or evaluations off.
    Off,
    /// Starting the bot or searching, no values yet.
    Searching,
    /// Values shown; the search goes on deeper.
    Deepening { budget_ms: u64 },
    /// The last budget is done.
    Done,
    /// The bot cannot analyse, or failed (with why).
    Failed(String),
}

/// The analysis worker of the position on screen.
pub struct AnalysisWorker {
    spec: SeatSpec,
    requests: Sender<Request>,
    events: Receiver<Event>,
    /// The position asked for last.
    position: Position,
    busy: bool,
    stop: StopHandle,
}

impl AnalysisWorker {
    /// Starts a worker that opens the bot of `spec` and analyses `position`.
    pub fn spawn(spec: SeatSpec, position: Position, wake: Waker) -> Result<AnalysisWorker, String> {
        let stop = StopHandle::new().map_err(|e| format!("cannot start the analysis: {e}"))?;
        let (requests, request_rx) = channel::<Request>();
        let (event_tx, events) = channel::<Event>();
        let thread_spec = spec.clone();
        let thread_stop = stop.clone();
        let name = format!("analysis {}", othello_arena::seat::library_stem(&spec.library));
        thread::Builder::new()
            .name(name)
            .spawn(move || run(&thread_spec, &thread_stop, request_rx, event_tx, wake))
            .map_err(|e| format!("cannot start the analysis thread: {e}"))?;
        let worker = AnalysisWorker { spec, requests, events, position, busy: true, stop };
        let _ = worker.requests.send(Request::Analyze(position));
        Ok(worker)
    }

    pub fn spec(&self) -> &SeatSpec {
        &self.spec
    }

    /// The position being (or last) analysed.
    pub fn position(&self) -> Position {
        self.position
    }

    /// Still searching (a new position would have to wait, so the worker is replaced instead).
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Asks an idle worker to analyse `position` (its bot stays loaded).
    pub fn analyze(&mut self, position: Position) -> bool {
        if self.busy || self.requests.send(Request::Analyze(position)).is_err() {
            return false;
        }
        self.position = position;
        self.busy = true;
        true
    }

    /// The worker's news for its current position: the newest analysis, and the status.
    pub fn poll(&mut self) -> (Option<(u64, Analysis)>, Option<Status>) {
        let (mut newest, mut status) = (None, None);
        loop {
            match self.events.try_recv() {
                Ok(Event::Values { position, budget_ms, analysis }) if position == self.position => {
                    newest = Some((budget_ms, analysis));
                    status = Some(Status::Deepening { budget_ms });
                }
                Ok(Event::Finished { position }) if position == self.position => {
                    self.busy = false;
                    status = Some(Status::Done);
                }
                Ok(Event::Failed { position, why }) if position.is_none_or(|p| p == self.position) => {
                    self.busy = false;
                    status = Some(Status::Failed(why));
                }
                Ok(_) => {} // about a position no longer shown
                Err(TryRecvError::Empty) => return (newest, status),
                Err(TryRecvError::Disconnected) => {
                    if self.busy {
                        self.busy = false;
                        status = Some(Status::Failed("the analysis stopped".to_owned()));
                    }
                    return (newest, status);
                }
            }
        }
    }
}

impl Drop for AnalysisWorker {
    fn drop(&mut self) {
        // Kills the runner at once, even in the middle of an analysis.
        self.stop.stop();
    }
}

/// The worker thread: opens the bot, then analyses each requested position with growing budgets.
fn run(spec: &SeatSpec, stop: &StopHandle, requests: Receiver<Request>, events: Sender<Event>, wake: Waker) {
    let send = |event| {
        let delivered = events.send(event).is_ok();
        wake();
        delivered
    };
    let mut seat = match open_seat_stoppable(spec, stop).and_then(|mut seat| seat.new_game().map(|()| seat)) {
        Ok(seat) => seat,
        Err(failure) => {
            send(Event::Failed { position: None, why: format!("the analysis bot did not start: {failure}") });
            return;
        }
    };
    if !seat.analyzes() {
        send(Event::Failed { position: None, why: AnalysisError::Unsupported.to_string() });
        return;
    }
    for Request::Analyze(position) in requests {
        for budget_ms in BUDGETS_MS {
            match seat.analyze(&position, Some(Duration::from_millis(budget_ms))) {
                Ok(analysis) => {
                    let all_exact = !analysis.values.is_empty() && analysis.values.iter().all(|v| v.exact);
                    if !send(Event::Values { position, budget_ms, analysis }) {
                        return;
                    }
                    if all_exact {
                        break; // nothing deeper to find
                    }
                }
                Err(error) => {
                    send(Event::Failed { position: Some(position), why: error.to_string() });
                    return; // a failed seat needs a fresh worker
                }
            }
        }
        if !send(Event::Finished { position }) {
            return;
        }
    }
}

/// The app's analysis: which worker runs, and what the board shows.
#[derive(Default)]
pub struct AnalysisView {
    worker: Option<AnalysisWorker>,
    /// The position the values belong to.
    position: Option<Position>,
    values: Vec<MoveValue>,
    /// Values the host left out of the bot's last answer.
    rejected: Vec<String>,
    status: Option<Status>,
    /// The bot that failed on the current position: not started again until the position or
    /// the bot changes.
    failed: Option<SeatSpec>,
}

impl AnalysisView {
    /// Makes the analysis follow `wanted` (the bot and the position to analyse; `None` = off).
    /// A new position drops the values at once; a busy worker for another position or bot is
    /// stopped (its runner killed).
    pub fn follow(&mut self, wanted: Option<(SeatSpec, Position)>, make_waker: &dyn Fn() -> Waker) {
        let Some((spec, position)) = wanted else {
            self.clear();
            return;
        };
        if self.position != Some(position) {
            self.position = Some(position);
            self.values.clear();
            self.rejected.clear();
            self.status = Some(Status::Searching);
            self.failed = None;
        }
        if self.failed.as_ref() == Some(&spec) {
            return; // it failed here: the failure stays shown
        }
        self.failed = None;
        let kept = match &mut self.worker {
            Some(worker) if worker.spec() == &spec => worker.position() == position || worker.analyze(position),
            _ => false,
        };
        if !kept {
            self.worker = None; // stops a busy one: its runner is killed
            match AnalysisWorker::spawn(spec, position, make_waker()) {
                Ok(worker) => self.worker = Some(worker),
                Err(why) => self.status = Some(Status::Failed(why)),
            }
        }
    }

    /// Takes the worker's news.
    pub fn update(&mut self) {
        let Some(worker) = &mut self.worker else { return };
        let (newest, status) = worker.poll();
        if let Some((_, analysis)) = newest {
            self.values = analysis.values;
            self.rejected = analysis.rejected;
        }
        if let Some(status) = status {
            if matches!(status, Status::Failed(_)) {
                // A failed seat is not asked again; another position or bot starts afresh.
                self.failed = self.worker.take().map(|worker| worker.spec().clone());
            }
            self.status = Some(status);
        }
    }

    /// Stops the analysis and forgets its values.
    pub fn clear(&mut self) {
        self.worker = None;
        self.failed = None;
        self.position = None;
        self.values.clear();
        self.rejected.clear();
        self.status = None;
    }

    /// The values of the legal moves of `position` (the side to move's view, best first), if
    /// they are for it.
    pub fn values_for(&self, position: &Position) -> &[MoveValue] {
        if self.position == Some(*position) { &self.values } else { &[] }
    }

    pub fn status(&self) -> Status {
        self.status.clone().unwrap_or(Status::Off)
    }

    /// What was left out of the bot's last answer (for the status line).
    pub fn rejected(&self) -> &[String] {
        &self.rejected
    }

    /// A search is under way (the UI redraws when it reports).
    pub fn is_running(&self) -> bool {
        self.worker.as_ref().is_some_and(AnalysisWorker::is_busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::Square;

    #[test]
    fn values_are_shown_from_blacks_view() {
        let square = Square::new(19).unwrap();
        let value = MoveValue { eval: Some(4.4), exact: true, ..MoveValue::new(square) };
        let black = black_view(&value, Color::Black);
        assert_eq!((black.label(), black.exact), ("+4".to_owned(), true));
        assert_eq!(black_view(&value, Color::White).label(), "-4");
        let even = MoveValue { eval: Some(0.0), ..MoveValue::new(square) };
        assert_eq!(black_view(&even, Color::White).label(), "0");
        let rate = MoveValue { win_rate: Some(0.7), ..MoveValue::new(square) };
        assert_eq!(black_view(&rate, Color::White).label(), "30%");
        assert_eq!(black_view(&rate, Color::Black).description(), "Black wins 70%");
        let white = shown_value(&rate, Color::White, EvalView::SideToMove);
        assert_eq!((white.label(), white.description()), ("70%".to_owned(), "White wins 70%".to_owned()));
    }
}
