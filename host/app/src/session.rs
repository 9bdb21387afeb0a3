//! The game being played on screen together with its two seats: whose turn it is, asking bots
//! for moves, applying their replies, and what happens on undo, new game, resign or abort.

use std::time::{Duration, Instant};

use othello_sdk::{Color, Move, Square};

use super::clock::{GameClock, TimeSource};
use super::game::{Ending, Game};
use super::players::{BotWorker, Waker, WorkerState};
use super::settings::{SeatChoice, Settings};
use othello_arena::referee::{self, Judgement};
use othello_arena::seat::{Failure, Seating};

/// Who sits in a colour's seat during this game.
pub enum Seat {
    Human,
    Bot(Box<BotWorker>),
}

impl Seat {
    pub fn is_human(&self) -> bool {
        matches!(self, Seat::Human)
    }

    pub fn worker(&self) -> Option<&BotWorker> {
        match self {
            Seat::Human => None,
            Seat::Bot(worker) => Some(worker),
        }
    }
}

/// A bot's think in progress.
#[derive(Debug, Clone, Copy)]
pub struct Thinking {
    pub color: Color,
    pub since: Instant,
}

/// A pass the user has not seen go by yet: shown until acknowledged or until a later move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassNotice {
    /// Who passed.
    pub color: Color,
    /// The ply of the pass (1-based: the pass is `moves()[ply - 1]`).
    pub ply: usize,
}

/// The on-screen game with its seats.
pub struct Session {
    pub game: Game,
    seats: [Seat; 2],
    seating: Seating,
    make_waker: Box<dyn Fn() -> Waker>,
    next_token: u64,
    pending: Option<(Color, u64)>,
    /// Bots make no move while paused (Step lets one through).
    pub paused: bool,
    step_once: bool,
    last_move_at: Instant,
    /// Ply of the last move applied, for the flip animation.
    last_applied: Option<(usize, Instant)>,
    /// The last pass, until the user acknowledges it or a later move makes it old news.
    pass_notice: Option<PassNotice>,
    /// The game clock, when a human plays with one. It follows every change of the game at the
    /// moment it happens (not at the next frame), so no time is lost or given between them.
    clock: Option<GameClock>,
    /// Where the clock reads the time.
    time: TimeSource,
    /// The seats' settings last seated, to seat fresh players when a clock's flag stops a think.
    seated: Settings,
}

/// Told to a bot's think besides its move limit: the time it keeps in hand on the game clock (the
/// runner's reply and the seat's grace margin come out of it).
pub const CLOCK_SAFETY: Duration = Duration::from_millis(150);
/// The shortest think a bot is given on the game clock.
pub const MIN_THINK: Duration = Duration::from_millis(10);

/// A bot's limit for one move: its move limit (`None` = none), and never more than what its game
/// clock has left minus a safety margin (the seat's grace of a tenth and [`CLOCK_SAFETY`]).
pub fn move_limit(per_move: Option<Duration>, clock_left: Option<Duration>) -> Option<Duration> {
    let from_clock = clock_left.map(|left| left.saturating_sub(left / 10 + CLOCK_SAFETY).max(MIN_THINK));
    match (per_move, from_clock) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Session {
    /// A new game from the start with the seats of `settings`.
    pub fn new(settings: &Settings, seating: Seating, make_waker: Box<dyn Fn() -> Waker>) -> Session {
        let mut session = Session {
            game: Game::default(),
            seats: [Seat::Human, Seat::Human],
            seating,
            make_waker,
            next_token: 0,
            pending: None,
            paused: false,
            step_once: false,
            last_move_at: Instant::now(),
            last_applied: None,
            pass_notice: None,
            clock: None,
            time: super::clock::system_time(),
            seated: settings.clone(),
        };
        session.seat_players(settings);
        session
    }

    /// How this session runs its bots.
    pub fn seating(&self) -> &Seating {
        &self.seating
    }

    /// Runs bots with the sandbox `mode` from now on: both seats' bots restart with it.
    pub fn set_sandbox(&mut self, mode: othello_arena::seat::SandboxMode, settings: &Settings) {
        self.seating.options.sandbox = mode;
        self.seat_players(settings);
    }

    pub fn seat(&self, color: Color) -> &Seat {
        &self.seats[color_index(color)]
    }

    /// (Re)starts both seats' players for the current game. The old players' bots are stopped:
    /// a runner still thinking is killed at once.
    pub fn seat_players(&mut self, settings: &Settings) {
        self.pending = None;
        self.seated = settings.clone();
        for color in Color::ALL {
            let choice = match color {
                Color::Black => &settings.black,
                Color::White => &settings.white,
            };
            self.seats[color_index(color)] = match choice {
                SeatChoice::Human => Seat::Human,
                SeatChoice::Bot { path, level } => {
                    let time_limit =
                        (settings.time_per_move_ms > 0).then(|| Duration::from_millis(settings.time_per_move_ms));
                    let spec = self.seating.spec(path, *level);
                    Seat::Bot(Box::new(BotWorker::spawn(spec, time_limit, (self.make_waker)())))
                }
            };
        }
    }

    /// Reads the clock's time from `source` from now on (tests drive it by hand).
    pub fn set_time_source(&mut self, source: TimeSource) {
        self.time = source;
    }

    /// The time now, as the clock reads it.
    pub fn now(&self) -> std::time::Instant {
        (self.time)()
    }

    /// The game clock, if one is set.
    pub fn clock(&self) -> Option<&GameClock> {
        self.clock.as_ref()
    }

    /// Sets (or removes) the game clock; it follows the game from now.
    pub fn set_clock(&mut self, clock: Option<GameClock>) {
        self.clock = clock;
        self.follow_clock();
    }

    /// The time `color` has left on the game clock, if one is set.
    pub fn clock_left(&self, color: Color) -> Option<Duration> {
        Some(self.clock.as_ref()?.left(color, &self.game, self.now()))
    }

    /// Charges the clock up to now and lets it follow the game; a side out of time loses. Called
    /// after every change of the game, and every frame.
    pub fn follow_clock(&mut self) -> Option<Color> {
        let now = self.now();
        let loser = self.clock.as_mut()?.follow(&self.game, now)?;
        let failure = Failure::new(othello_arena::seat::Termination::Timeout, "ran out of time on the game clock");
        self.game.end(Ending::Forfeit { loser, failure });
        if self.pending.take().is_some() {
            let settings = self.seated.clone();
            self.seat_players(&settings);
        }
        self.follow_clock();
        Some(loser)
    }

    /// The game was lost on the game clock (and not taken back).
    pub fn lost_on_time(&self) -> Option<Color> {
        self.clock.as_ref()?.flag().filter(|_| self.game.is_over())
    }

    /// Takes back a loss on time, as the player asked: the game goes on with the loser's time
    /// of that turn given back, the clock paused until resumed.
    pub fn take_back_time_loss(&mut self) -> Option<Color> {
        self.lost_on_time()?;
        let loser = self.clock.as_mut()?.take_back_time_loss()?;
        self.game.reopen();
        self.paused = true;
        let settings = self.seated.clone();
        self.seat_players(&settings);
        Some(loser)
    }

    /// Pauses the game (bots make no move, the clock stops, the board takes no move) or goes on.
    pub fn toggle_pause(&mut self) {
        let now = self.now();
        self.paused = !self.paused;
        if let Some(clock) = &mut self.clock {
            if self.paused {
                clock.pause(now);
            } else {
                clock.resume(&self.game, now);
            }
        }
        self.follow_clock();
    }

    /// Starts a new game (from `game`) with the seats of `settings`.
    pub fn restart(&mut self, game: Game, settings: &Settings) {
        self.game = game;
        self.paused = false;
        self.clock = None;
        self.last_applied = None;
        self.pass_notice = None;
        self.seat_players(settings);
    }

    /// Stops both seats' bots at once (their runners are killed), e.g. when the app closes.
    pub fn stop_bots(&mut self) {
        self.pending = None;
        self.seats = [Seat::Human, Seat::Human];
    }

    pub fn both_bots(&self) -> bool {
        self.seats.iter().all(|s| !s.is_human())
    }

    /// The human's colour when exactly one human plays.
    pub fn human_color(&self) -> Option<Color> {
        let humans: Vec<Color> = Color::ALL.into_iter().filter(|c| self.seat(*c).is_human()).collect();
        (humans.len() == 1).then(|| humans[0])
    }

    pub fn has_human(&self) -> bool {
        self.seats.iter().any(Seat::is_human)
    }

    /// The colour a human may move for now: the game goes on, it is a human's turn, and the board
    /// shows the live position.
    pub fn human_to_move(&self) -> Option<Color> {
        let color = self.game.to_move()?;
        (self.seat(color).is_human() && self.game.is_viewing_live() && !self.paused).then_some(color)
    }

    /// A human's click: plays the move if it is legal, otherwise changes nothing.
    pub fn click(&mut self, square: Square) -> bool {
        // A move made after the flag fell is too late.
        self.follow_clock();
        if self.human_to_move().is_none() {
            return false;
        }
        let played = self.apply(Move::Play(square), None, None).is_ok();
        if played {
            // The human has moved on since the pass: it is old news.
            self.pass_notice = None;
        }
        played
    }

    /// The pass still to be shown, if any.
    pub fn pass_notice(&self) -> Option<PassNotice> {
        self.pass_notice
    }

    /// The user has seen the pass.
    pub fn acknowledge_pass(&mut self) {
        self.pass_notice = None;
    }

    fn apply(
        &mut self,
        mv: Move,
        elapsed: Option<Duration>,
        info: Option<othello_sdk::SearchInfo>,
    ) -> Result<(), othello_sdk::IllegalMove> {
        let color = self.game.live().side_to_move();
        self.game.play(mv, elapsed, info)?;
        self.follow_clock();
        self.last_move_at = Instant::now();
        let ply = self.game.moves().len();
        self.last_applied = Some((ply, Instant::now()));
        if mv == Move::Pass {
            self.pass_notice = Some(PassNotice { color, ply });
        } else if !self.has_human() {
            // Nobody to acknowledge it in a bots' game: the next move ends the notice.
            self.pass_notice = None;
        }
        Ok(())
    }

    /// The ply whose flips are being animated and when its move was played.
    pub fn last_applied(&self) -> Option<(usize, Instant)> {
        self.last_applied
    }

    pub fn thinking(&self) -> Option<Thinking> {
        let (color, _) = self.pending?;
        match self.seat(color).worker()?.state() {
            WorkerState::Thinking { since, .. } => Some(Thinking { color, since: *since }),
            _ => None,
        }
    }

    /// Lets one bot move through while paused.
    pub fn step(&mut self) {
        self.step_once = true;
    }

    /// Undo is possible: there is a human, and a move to take back or an ended game to reopen.
    /// A loss on time is not undone: only taken back explicitly ([`Session::take_back_time_loss`]).
    pub fn can_undo(&self) -> bool {
        self.has_human() && (self.game.can_undo() || self.game.can_reopen()) && self.lost_on_time().is_none()
    }

    /// Takes back moves until a human is to move again (one move in a human-vs-human game). A game
    /// that ended by resignation, forfeit or abort is reopened first (that ending is what undo
    /// takes back); a game the rules ended loses its last moves. Either way the result goes and
    /// the game can continue.
    pub fn undo(&mut self, settings: &Settings) {
        if !self.can_undo() {
            return;
        }
        let mut restart_bots = self.pending.take().is_some();
        if self.game.can_reopen() {
            self.game.reopen();
            // A bot that failed, or was stopped by the resignation or abort, starts afresh.
            restart_bots = true;
        } else {
            self.game.undo();
        }
        while !self.game.to_move().is_some_and(|c| self.seat(c).is_human()) && self.game.undo().is_some() {}
        self.game.view_last();
        self.last_applied = None;
        if self.pass_notice.is_some_and(|notice| notice.ply > self.game.moves().len()) {
            self.pass_notice = None;
        }
        if restart_bots {
            // A bot busy with a position that no longer exists: its runner is killed with the old
            // worker, and it starts afresh.
            self.seat_players(settings);
        }
        self.follow_clock();
    }

    /// Replays the moves taken back, up to the end of the line taken back (as NBoard's redo all):
    /// the clock gives back their increments, not their time.
    pub fn redo(&mut self) {
        if !self.has_human() || self.pending.is_some() || self.paused {
            return;
        }
        while self.game.redo().is_some() {}
        self.game.view_last();
        self.follow_clock();
    }

    /// Continuing from a past position is possible (not once the game was lost on time).
    pub fn can_play_on(&self) -> bool {
        self.lost_on_time().is_none()
    }

    /// Makes variation `index` the game's line (a take-back of sorts: not while a clock runs, nor
    /// after a loss on time). A bot thinking about the old line starts afresh.
    pub fn switch_variation(&mut self, index: usize, settings: &Settings) {
        if !self.can_play_on() || self.clock.as_ref().is_some_and(|c| c.running().is_some()) {
            return;
        }
        if !self.game.switch_to_variation(index) {
            return;
        }
        self.last_applied = None;
        self.pass_notice = None;
        self.seat_players(settings);
        self.follow_clock();
    }

    /// Continues the game from the viewed position.
    pub fn play_on_from_viewed(&mut self, settings: &Settings) {
        if !self.can_play_on() {
            return;
        }
        let ended = self.game.ending().cloned();
        if matches!(ended, Some(Ending::Forfeit { .. } | Ending::Aborted)) {
            // A forfeited or aborted game cannot be reopened; play on in a copy of its line.
            let mut game = Game::new(self.game.start());
            for played in &self.game.moves()[..self.game.cursor()] {
                game.play(played.mv, Some(played.elapsed), played.info).expect("moves of a game");
            }
            self.restart(game, settings);
            return;
        }
        self.game.play_on_from_viewed();
        self.last_applied = None;
        self.seat_players(settings);
        self.follow_clock();
    }

    /// The side to move resigns (a human, or stopping a bot).
    pub fn resign(&mut self, settings: &Settings) {
        if let Some(color) = self.game.to_move() {
            self.game.end(Ending::Resigned(color));
            self.drop_abandoned_think(settings);
            self.follow_clock();
        }
    }

    pub fn abort(&mut self, settings: &Settings) {
        self.game.end(Ending::Aborted);
        self.drop_abandoned_think(settings);
        self.follow_clock();
    }

    /// A bot thinking about a position that no longer matters is stopped (its runner killed):
    /// the seats start afresh.
    fn drop_abandoned_think(&mut self, settings: &Settings) {
        if self.pending.take().is_some() {
            self.seat_players(settings);
        }
    }

    /// Advances the game: takes the bots' answers, passes for a human who cannot move, and asks
    /// the bot to move when its turn comes. Returns how soon to call again without new input.
    pub fn drive(&mut self, bot_delay: Duration) -> Option<Duration> {
        // An answer that comes after the flag fell is too late.
        self.follow_clock();
        let mut answers = Vec::new();
        for color in Color::ALL {
            if let Seat::Bot(worker) = &mut self.seats[color_index(color)] {
                while let Some(answer) = worker.poll() {
                    answers.push((color, answer));
                }
            }
        }
        for (color, answer) in answers {
            if self.pending != Some((color, answer.token)) {
                continue; // a reply to a position taken back
            }
            self.pending = None;
            self.step_once = false;
            match referee::judge(&self.game.live(), answer.result) {
                Judgement::Play(record) => {
                    self.apply(record.mv, Some(record.elapsed), record.info).expect("judged legal by the referee");
                }
                Judgement::Forfeit(failure) => self.forfeit(color, failure),
            }
        }

        let color = self.game.to_move()?;
        let both_bots = self.both_bots();
        let per_move = (self.seated.time_per_move_ms > 0).then(|| Duration::from_millis(self.seated.time_per_move_ms));
        let limit = move_limit(per_move, self.clock_left(color));
        match &mut self.seats[color_index(color)] {
            Seat::Human => {
                if self.game.live().must_pass() {
                    self.apply(Move::Pass, None, None).expect("a forced pass is legal");
                    return Some(Duration::ZERO);
                }
                None
            }
            Seat::Bot(worker) => match worker.state().clone() {
                WorkerState::Failed(failure) => {
                    self.forfeit(color, failure);
                    None
                }
                WorkerState::Opening | WorkerState::Thinking { .. } => None,
                WorkerState::Ready => {
                    if self.pending.is_some() || (self.paused && !self.step_once) {
                        return None;
                    }
                    if both_bots && !self.step_once {
                        let due = self.last_move_at + bot_delay;
                        let now = Instant::now();
                        if due > now {
                            return Some(due - now);
                        }
                    }
                    self.next_token += 1;
                    let token = self.next_token;
                    worker.think(token, self.game.live(), limit);
                    self.pending = Some((color, token));
                    None
                }
            },
        }
    }

    fn forfeit(&mut self, loser: Color, failure: Failure) {
        self.pending = None;
        self.game.end(Ending::Forfeit { loser, failure });
        self.follow_clock();
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bots_move_limit_never_exceeds_its_clock_less_the_margin() {
        let s = Duration::from_secs;
        // 20 s a move with a minute left: the move limit holds.
        assert_eq!(move_limit(Some(s(20)), Some(s(60))), Some(s(20)));
        // 20 s a move with 10 s left: 10 s less a tenth and the safety margin.
        let limit = move_limit(Some(s(20)), Some(s(10))).unwrap();
        assert_eq!(limit, s(9) - CLOCK_SAFETY);
        // The seat's grace (a tenth of the limit, at least 20 ms) still ends before the flag.
        assert!(limit + limit / 10 < s(10));
        // No move limit: the clock alone; no clock: the move limit alone.
        assert_eq!(move_limit(None, Some(s(10))), Some(s(9) - CLOCK_SAFETY));
        assert_eq!(move_limit(Some(s(1)), None), Some(s(1)));
        assert_eq!(move_limit(None, None), None);
        // Almost no time left: the shortest think, not zero (zero means no limit to some bots).
        assert_eq!(move_limit(Some(s(20)), Some(Duration::from_millis(50))), Some(MIN_THINK));
    }
}
