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
//! Convention: one point of view, the player's choice ([`EvalView`]: Black's by default, White's,
//! or the side to move's as Egaroucid and NBoard show them), for the board, the move list, the
//! graph, the read-outs, the tooltips and the help alike. Bots report the side to move's view;
//! [`shown_value`], [`discs_for`] and [`rate_for`] turn it. Values are in discs to one decimal
//! (a win rate as a chance in %); an exact (solved) value is a whole number.

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

/// Whose point of view evaluations are shown from, everywhere in the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EvalView {
    /// Black ahead is positive, whoever is to move.
    #[default]
    Black,
    /// White ahead is positive, whoever is to move.
    White,
    /// The side to move ahead, as Egaroucid and NBoard show them (a played move's value: its
    /// mover's view).
    SideToMove,
}

impl EvalView {
    pub const ALL: [EvalView; 3] = [EvalView::Black, EvalView::White, EvalView::SideToMove];

    /// The value of a position where `to_move` is to move is shown for this side.
    pub fn side(self, to_move: Color) -> Color {
        match self {
            EvalView::Black => Color::Black,
            EvalView::White => Color::White,
            EvalView::SideToMove => to_move,
        }
    }

    /// The side a line over the whole game (the graph) is drawn for: one line cannot follow the
    /// side to move, so with that view it is the human's colour (Black without exactly one human).
    pub fn line_side(self, human: Option<Color>) -> Color {
        match self {
            EvalView::SideToMove => human.unwrap_or(Color::Black),
            fixed => fixed.side(Color::Black),
        }
    }

    /// The choice's name in the setting.
    pub fn name(self) -> &'static str {
        match self {
            EvalView::Black => "Black",
            EvalView::White => "White",
            EvalView::SideToMove => "Side to move",
        }
    }

    /// How to read the values, for the legend and the help.
    pub fn legend(self) -> &'static str {
        match self {
            EvalView::Black => "+ = Black ahead, in discs (a chance: Black's)",
            EvalView::White => "+ = White ahead, in discs (a chance: White's)",
            EvalView::SideToMove => "+ = the side to move ahead, in discs (a played move: its mover)",
        }
    }
}

/// A disc value given for `from`, for `to`.
pub fn discs_for(value: f64, from: Color, to: Color) -> f64 {
    // `+ 0.0` turns a negated zero into a plain one, so it is not shown as "-0.0".
    if from == to { value } else { -value + 0.0 }
}

/// A chance of winning (0..1) given for `from`, for `to`.
pub fn rate_for(rate: f64, from: Color, to: Color) -> f64 {
    if from == to { rate } else { 1.0 - rate }
}

/// A value in discs to one decimal, signed: `+3.5`, `-12.0`, `0.0`; an exact one whole: `+4`.
pub fn format_discs(discs: f64, exact: bool) -> String {
    let text = if exact { format!("{:+.0}", discs.round()) } else { format!("{discs:+.1}") };
    match text.as_str() {
        "+0" | "-0" => "0".to_owned(),
        "+0.0" | "-0.0" => "0.0".to_owned(),
        _ => text,
    }
}

/// `value` from the point of view `view` asks for.
pub fn shown_value(value: &MoveValue, side_to_move: Color, view: EvalView) -> ShownValue {
    let side = view.side(side_to_move);
    ShownValue {
        side,
        discs: value.eval.map(|e| discs_for(e, side_to_move, side)),
        wins: value.win_rate.map(|r| rate_for(r, side_to_move, side)),
        exact: value.exact,
    }
}

impl ShownValue {
    /// The short text drawn on a square: `+4.5`, `-2.0` (discs; exact: `+4`) or `57%` (the side's
    /// chance).
    pub fn label(&self) -> String {
        match (self.discs, self.wins) {
            (Some(discs), _) => format_discs(discs, self.exact),
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

/// How far the analysis of a position goes: the player's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The longest search of a position, in milliseconds (the budgets grow up to it).
    pub max_ms: u64,
    /// From this many empty squares on, the search goes on past `max_ms` (doubling, up to
    /// [`SOLVE_CAP_MS`]) until every value is exact; 0 = never.
    pub solve_from_empties: u32,
    /// Plies of the best line (principal variation) shown with their values; 0 = none.
    pub line_plies: usize,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan { max_ms: 8000, solve_from_empties: 0, line_plies: 8 }
    }
}

/// The longest search of an exact solve ("exact from N empties"): ten minutes.
pub const SOLVE_CAP_MS: u64 = 600_000;

impl Plan {
    /// The time budgets of the successive searches of `position`, in milliseconds.
    pub fn budgets(&self, position: &Position) -> Vec<u64> {
        let max = self.max_ms.max(BUDGETS_MS[0]);
        let mut budgets: Vec<u64> = BUDGETS_MS.iter().copied().filter(|b| *b < max).collect();
        budgets.push(max);
        if position.empty().count() <= self.solve_from_empties {
            let mut next = max * 2;
            while next < SOLVE_CAP_MS {
                budgets.push(next);
                next *= 2;
            }
            budgets.push(SOLVE_CAP_MS);
        }
        budgets
    }

    /// The search time of each ply of the best line after a search of `budget_ms`.
    fn line_budget(budget_ms: u64) -> Duration {
        Duration::from_millis((budget_ms / 16).clamp(10, 250))
    }
}

/// One move of the best line, with its value as the analysis bot gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineMove {
    /// Who plays it.
    pub mover: Color,
    pub mv: othello_sdk::Move,
    /// Its value, the mover's view (none for a pass).
    pub value: Option<MoveValue>,
}

impl LineMove {
    /// "f5 +0.5" (the value from `view`'s point of view), "pass".
    pub fn text(&self, view: EvalView) -> String {
        match &self.value {
            Some(value) => {
                let shown = shown_value(value, self.mover, view);
                // A no-break space: a wrapped line never parts a move from its value.
                format!("{}\u{a0}{}", self.mv, shown.label())
            }
            None => self.mv.to_string(),
        }
    }
}

enum Request {
    Analyze(Position, Plan),
}

enum Event {
    /// One analysis of `position` within `budget_ms`.
    Values {
        position: Position,
        budget_ms: u64,
        analysis: Analysis,
    },
    /// The best line from `position` after its search of `budget_ms`.
    Line {
        position: Position,
        line: Vec<LineMove>,
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
    /// Stopped while a bot of the game thinks (its cores are the bot's); the values found stay
    /// shown and the search starts again when the bot has moved.
    Paused,
    /// The bot cannot analyse, or failed (with why).
    Failed(String),
}

/// The analysis worker of the position on screen.
pub struct AnalysisWorker {
    spec: SeatSpec,
    requests: Sender<Request>,
    events: Receiver<Event>,
    /// The position asked for last, and how far.
    position: Position,
    plan: Plan,
    busy: bool,
    stop: StopHandle,
}

/// What the worker has told since the last look.
#[derive(Default)]
pub struct News {
    /// The newest values and the budget they took.
    pub newest: Option<(u64, Analysis)>,
    /// The newest best line.
    pub line: Option<Vec<LineMove>>,
    pub status: Option<Status>,
}

impl AnalysisWorker {
    /// Starts a worker that opens the bot of `spec` and analyses `position`.
    pub fn spawn(spec: SeatSpec, position: Position, plan: Plan, wake: Waker) -> Result<AnalysisWorker, String> {
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
        let worker = AnalysisWorker { spec, requests, events, position, plan, busy: true, stop };
        let _ = worker.requests.send(Request::Analyze(position, plan));
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

    /// How far the worker goes.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// Asks an idle worker to analyse `position` (its bot stays loaded).
    pub fn analyze(&mut self, position: Position, plan: Plan) -> bool {
        if self.busy || self.requests.send(Request::Analyze(position, plan)).is_err() {
            return false;
        }
        self.position = position;
        self.plan = plan;
        self.busy = true;
        true
    }

    /// The worker's news for its current position: the newest analysis, and the status.
    pub fn poll(&mut self) -> News {
        let mut news = News::default();
        let News { newest, line, status } = &mut news;
        loop {
            match self.events.try_recv() {
                Ok(Event::Values { position, budget_ms, analysis }) if position == self.position => {
                    *newest = Some((budget_ms, analysis));
                    *status = Some(Status::Deepening { budget_ms });
                }
                Ok(Event::Line { position, line: best }) if position == self.position => *line = Some(best),
                Ok(Event::Finished { position }) if position == self.position => {
                    self.busy = false;
                    *status = Some(Status::Done);
                }
                Ok(Event::Failed { position, why }) if position.is_none_or(|p| p == self.position) => {
                    self.busy = false;
                    *status = Some(Status::Failed(why));
                }
                Ok(_) => {} // about a position no longer shown
                Err(TryRecvError::Empty) => return news,
                Err(TryRecvError::Disconnected) => {
                    if self.busy {
                        self.busy = false;
                        *status = Some(Status::Failed("the analysis stopped".to_owned()));
                    }
                    return news;
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
    for Request::Analyze(position, plan) in requests {
        for budget_ms in plan.budgets(&position) {
            match seat.analyze(&position, Some(Duration::from_millis(budget_ms))) {
                Ok(analysis) => {
                    let all_exact = !analysis.values.is_empty() && analysis.values.iter().all(|v| v.exact);
                    let first = analysis.values.first().copied();
                    if !send(Event::Values { position, budget_ms, analysis }) {
                        return;
                    }
                    if plan.line_plies > 0
                        && let Some(first) = first
                    {
                        match best_line(&mut *seat, position, first, plan.line_plies, Plan::line_budget(budget_ms)) {
                            Ok(line) => {
                                if !send(Event::Line { position, line }) {
                                    return;
                                }
                            }
                            Err(error) => {
                                send(Event::Failed { position: Some(position), why: error.to_string() });
                                return;
                            }
                        }
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

/// The best line from `position`, whose best move is `first`: each next position is searched for
/// `per_ply` and its best move taken, up to `plies` moves (passes count) or the end of the game.
fn best_line(
    seat: &mut dyn othello_arena::seat::Seat,
    position: Position,
    first: MoveValue,
    plies: usize,
    per_ply: Duration,
) -> Result<Vec<LineMove>, AnalysisError> {
    let mut line = vec![LineMove {
        mover: position.side_to_move(),
        mv: othello_sdk::Move::Play(first.square),
        value: Some(first),
    }];
    let mut at = position;
    at.play(othello_sdk::Move::Play(first.square));
    while line.len() < plies && !at.is_game_over() {
        let mover = at.side_to_move();
        if at.legal_moves().is_empty() {
            line.push(LineMove { mover, mv: othello_sdk::Move::Pass, value: None });
            at.play(othello_sdk::Move::Pass);
            continue;
        }
        let analysis = seat.analyze(&at, Some(per_ply))?;
        let Some(best) = analysis.values.first().copied() else { break };
        line.push(LineMove { mover, mv: othello_sdk::Move::Play(best.square), value: Some(best) });
        at.play(othello_sdk::Move::Play(best.square));
    }
    Ok(line)
}

/// In a symmetric position (the start, and a few others) moves that are the same move turned have
/// the same true value; the search gives them slightly different ones (each searched for its share
/// of the time). Each such set takes the value of its best-searched move (exact first, then the
/// deepest, then the first reported), and the list is sorted best first again.
pub fn symmetric_values(position: &Position, values: &mut [MoveValue]) {
    let symmetries = crate::openings::symmetries_of(position);
    if symmetries.is_empty() {
        return;
    }
    let rank = |v: &MoveValue| (v.exact, v.depth.unwrap_or(0));
    for index in 0..values.len() {
        let square = values[index].square.index() as u8;
        let twins: Vec<usize> = symmetries
            .iter()
            .filter_map(|&symmetry| {
                let turned = crate::openings::turn_index(square, symmetry);
                values.iter().position(|v| v.square.index() as u8 == turned)
            })
            .collect();
        let best = twins
            .iter()
            .copied()
            .fold(index, |best, twin| if rank(&values[twin]) > rank(&values[best]) { twin } else { best });
        let chosen = values[best];
        for twin in twins.into_iter().chain([index]) {
            let square = values[twin].square;
            values[twin] = MoveValue { square, ..chosen };
        }
    }
    // Best first, as the bot reported them (a stable sort keeps its order among equals).
    values.sort_by(|a, b| {
        let value = |v: &MoveValue| v.eval.or(v.win_rate).unwrap_or(f64::NEG_INFINITY);
        value(b).partial_cmp(&value(a)).unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// The app's analysis: which worker runs, and what the board shows.
#[derive(Default)]
pub struct AnalysisView {
    worker: Option<AnalysisWorker>,
    /// The position the values belong to.
    position: Option<Position>,
    values: Vec<MoveValue>,
    /// The best line from the position, with its values.
    line: Vec<LineMove>,
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
    pub fn follow(&mut self, wanted: Option<(SeatSpec, Position, Plan)>, make_waker: &dyn Fn() -> Waker) {
        let Some((spec, position, plan)) = wanted else {
            self.clear();
            return;
        };
        if self.position != Some(position) {
            self.position = Some(position);
            self.values.clear();
            self.line.clear();
            self.rejected.clear();
            self.status = Some(Status::Searching);
            self.failed = None;
        }
        if self.failed.as_ref() == Some(&spec) {
            return; // it failed here: the failure stays shown
        }
        self.failed = None;
        let kept = match &mut self.worker {
            Some(worker) if worker.spec() == &spec => {
                (worker.position() == position && worker.plan() == plan) || worker.analyze(position, plan)
            }
            _ => false,
        };
        if !kept {
            self.worker = None; // stops a busy one: its runner is killed
            match AnalysisWorker::spawn(spec, position, plan, make_waker()) {
                Ok(worker) => self.worker = Some(worker),
                Err(why) => self.status = Some(Status::Failed(why)),
            }
        }
    }

    /// Takes the worker's news.
    pub fn update(&mut self) {
        let Some(worker) = &mut self.worker else { return };
        let News { newest, line, status } = worker.poll();
        if let Some((_, analysis)) = newest {
            self.values = analysis.values;
            if let Some(position) = self.position {
                symmetric_values(&position, &mut self.values);
            }
            self.rejected = analysis.rejected;
        }
        if let Some(line) = line {
            self.line = line;
        }
        if let Some(status) = status {
            if matches!(status, Status::Failed(_)) {
                // A failed seat is not asked again; another position or bot starts afresh.
                self.failed = self.worker.take().map(|worker| worker.spec().clone());
            }
            self.status = Some(status);
        }
    }

    /// Stops the search (its runner is killed) but keeps the values found, until the next
    /// [`AnalysisView::follow`].
    pub fn pause(&mut self) {
        if self.position.is_some() {
            self.worker = None;
            self.status = Some(Status::Paused);
        }
    }

    /// Stops the analysis and forgets its values.
    pub fn clear(&mut self) {
        self.worker = None;
        self.failed = None;
        self.position = None;
        self.values.clear();
        self.line.clear();
        self.rejected.clear();
        self.status = None;
    }

    /// The values of the legal moves of `position` (the side to move's view, best first), if
    /// they are for it.
    pub fn values_for(&self, position: &Position) -> &[MoveValue] {
        if self.position == Some(*position) { &self.values } else { &[] }
    }

    /// The best line from `position` with its values, if it is for it.
    pub fn line_for(&self, position: &Position) -> &[LineMove] {
        if self.position == Some(*position) { &self.line } else { &[] }
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
        assert_eq!(black_view(&even, Color::White).label(), "0.0", "one decimal, never -0.0");
        // Symmetric first moves valued 0.5 and -0.4 once read 0 and +1 (whole numbers only).
        let half = MoveValue { eval: Some(0.46), ..MoveValue::new(square) };
        assert_eq!(black_view(&half, Color::Black).label(), "+0.5");
        assert_eq!(shown_value(&half, Color::Black, EvalView::White).label(), "-0.5");
        assert_eq!(shown_value(&half, Color::Black, EvalView::White).side, Color::White);
        let rate = MoveValue { win_rate: Some(0.7), ..MoveValue::new(square) };
        assert_eq!(black_view(&rate, Color::White).label(), "30%");
        assert_eq!(black_view(&rate, Color::Black).description(), "Black wins 70%");
        let white = shown_value(&rate, Color::White, EvalView::SideToMove);
        assert_eq!((white.label(), white.description()), ("70%".to_owned(), "White wins 70%".to_owned()));
    }

    #[test]
    fn symmetric_moves_show_one_value_the_best_searched() {
        let value = |square: &str, eval: f64, depth: u32| MoveValue {
            eval: Some(eval),
            depth: Some(depth),
            ..MoveValue::new(square.parse().unwrap())
        };
        // The start's four moves are one move turned; the deepest search's value stands for all.
        let mut values = [value("d3", -0.6, 17), value("c4", -0.1, 18), value("f5", -0.4, 17), value("e6", -0.4, 17)];
        symmetric_values(&Position::start(), &mut values);
        assert!(values.iter().all(|v| v.eval == Some(-0.1) && v.depth == Some(18)), "{values:?}");
        let squares: Vec<String> = values.iter().map(|v| v.square.to_string()).collect();
        assert_eq!(squares, ["d3", "c4", "f5", "e6"], "each keeps its square");
        // A position without symmetry keeps its values.
        let mut after = Position::start();
        after.play("f5".parse().unwrap());
        after.play("d6".parse().unwrap());
        let mut values = [value("c3", 1.0, 10), value("c5", -2.0, 12)];
        symmetric_values(&after, &mut values);
        assert_eq!((values[0].eval, values[1].eval), (Some(1.0), Some(-2.0)));
    }
}
