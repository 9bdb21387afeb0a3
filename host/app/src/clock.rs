//! The game clock for human play: a total time per side with an optional increment per move,
//! counted down for the side to move; who runs out loses on time, as a bot does.
//!
//! The clock is a ledger, not a pair of counters: each side's *used* time (every moment it was to
//! move while the clock ran, taken-back moves included: time spent stays spent) and the moves of
//! the game's current line (each earns the increment). What is left is `total + increment × moves
//! − used`, so undo takes back the increments of the moves it takes back and never gives back
//! thinking time, redo gives the increments again, and a saved clock (the two used times) opens
//! exactly as it was. It starts only with the game's first move (as on lichess), and a reopened
//! game's clock waits paused until the player resumes it.
//!
//! The clock reads the time from a [`TimeSource`], so tests drive it by hand ([`ManualTime`])
//! instead of waiting on the real clock.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use othello_sdk::{Color, Move};

use crate::game::Game;

/// Where the clock reads the time.
pub type TimeSource = Arc<dyn Fn() -> Instant + Send + Sync>;

/// The real time.
pub fn system_time() -> TimeSource {
    Arc::new(Instant::now)
}

/// A time that stands still until advanced (for tests).
#[derive(Clone)]
pub struct ManualTime {
    now: Arc<Mutex<Instant>>,
}

impl Default for ManualTime {
    fn default() -> ManualTime {
        ManualTime { now: Arc::new(Mutex::new(Instant::now())) }
    }
}

impl ManualTime {
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *now += by;
    }

    /// The time source that reads this time.
    pub fn source(&self) -> TimeSource {
        let now = self.now.clone();
        Arc::new(move || *now.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// Whether the clock runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockState {
    /// Set, waiting for the game's first move.
    Waiting,
    /// The side to move's time runs, since `since`.
    Running { color: Color, since: Instant },
    /// Stopped by the player (or a game reopened from a file) until resumed.
    Paused,
    /// The game is over; `flag` is the side that ran out of time, if that is how it ended.
    Stopped { flag: Option<Color> },
}

/// Both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameClock {
    total: Duration,
    increment: Duration,
    /// Time each side has used (taken-back moves included).
    used: [Duration; 2],
    /// Moves the game had when the clock was set: only later moves earn the increment.
    base_ply: usize,
    state: ClockState,
    /// Each side's used time when its current turn began (what "take back the time loss"
    /// restores).
    used_at_turn: [Duration; 2],
}

impl GameClock {
    /// `total` for each side, `increment` added for each of its moves from now on; the clock waits
    /// for the next move of `game` to start.
    pub fn new(total: Duration, increment: Duration, game: &Game) -> GameClock {
        GameClock {
            total,
            increment,
            used: [Duration::ZERO; 2],
            base_ply: game.moves().len(),
            state: ClockState::Waiting,
            used_at_turn: [Duration::ZERO; 2],
        }
    }

    /// A clock saved with [`GameClock::saved`], paused until the player resumes it.
    pub fn restored(saved: SavedClock) -> GameClock {
        GameClock {
            total: saved.total,
            increment: saved.increment,
            used: saved.used,
            base_ply: saved.base_ply,
            state: ClockState::Paused,
            used_at_turn: saved.used,
        }
    }

    /// What a saved game keeps of the clock at `now`.
    pub fn saved(&self, now: Instant) -> SavedClock {
        let mut clock = self.clone();
        clock.charge(now);
        SavedClock { total: self.total, increment: self.increment, used: clock.used, base_ply: self.base_ply }
    }

    /// The total per side and the increment the clock was made with.
    pub fn setting(&self) -> (Duration, Duration) {
        (self.total, self.increment)
    }

    pub fn state(&self) -> ClockState {
        self.state
    }

    /// Charges the running side's time up to `now`.
    fn charge(&mut self, now: Instant) {
        if let ClockState::Running { color, since } = &mut self.state {
            self.used[index(*color)] += now.saturating_duration_since(*since);
            *since = now.max(*since);
        }
    }

    /// Follows `game` at `now`, after any change to it: the side that was running is charged up
    /// to now, and the side to move's time runs (once the game's first move is made, unless
    /// paused). Returns the side to move if its time has run out.
    pub fn follow(&mut self, game: &Game, now: Instant) -> Option<Color> {
        self.charge(now);
        let Some(to_move) = game.to_move() else {
            // A paused clock stays paused (an undo reopening the game does not restart it).
            if !matches!(self.state, ClockState::Stopped { .. } | ClockState::Paused) {
                self.state = ClockState::Stopped { flag: None };
            }
            return None;
        };
        match self.state {
            ClockState::Waiting if game.moves().len() > self.base_ply => self.start_turn(to_move, now),
            ClockState::Waiting | ClockState::Paused => {}
            ClockState::Running { color, .. } if color == to_move => {}
            ClockState::Running { .. } => self.start_turn(to_move, now),
            // Reopened by an undo (a time loss is never reopened so: see `take_back_time_loss`).
            ClockState::Stopped { .. } => self.start_turn(to_move, now),
        }
        let out = self.left(to_move, game, now).is_zero() && matches!(self.state, ClockState::Running { .. });
        out.then(|| {
            self.state = ClockState::Stopped { flag: Some(to_move) };
            to_move
        })
    }

    fn start_turn(&mut self, color: Color, now: Instant) {
        self.used_at_turn[index(color)] = self.used[index(color)];
        self.state = ClockState::Running { color, since: now };
    }

    /// Stops the clock until [`GameClock::resume`] (a waiting or stopped clock stays as it is).
    pub fn pause(&mut self, now: Instant) {
        self.charge(now);
        if matches!(self.state, ClockState::Running { .. }) {
            self.state = ClockState::Paused;
        }
    }

    /// Runs the side to move's time again from `now`.
    pub fn resume(&mut self, game: &Game, now: Instant) {
        if self.state == ClockState::Paused {
            self.state = ClockState::Waiting;
            self.base_ply = self.base_ply.min(game.moves().len());
            if let Some(color) = game.to_move() {
                self.start_turn(color, now);
            }
        }
    }

    /// The side that lost on time, while that is how the game stands.
    pub fn flag(&self) -> Option<Color> {
        match self.state {
            ClockState::Stopped { flag } => flag,
            _ => None,
        }
    }

    /// Takes back a loss on time explicitly: the loser gets back the time of the turn it lost on
    /// (its clock shows what it showed when that turn began) and the clock waits paused.
    pub fn take_back_time_loss(&mut self) -> Option<Color> {
        let loser = self.flag()?;
        self.used[index(loser)] = self.used_at_turn[index(loser)];
        self.state = ClockState::Paused;
        Some(loser)
    }

    /// The time `color` has left in `game` at `now`.
    pub fn left(&self, color: Color, game: &Game, now: Instant) -> Duration {
        let moves = game.moves().get(self.base_ply..).unwrap_or_default();
        let earned = moves.iter().filter(|m| m.color == color && m.mv != Move::Pass).count();
        let running = match self.state {
            ClockState::Running { color: running, since } if running == color => now.saturating_duration_since(since),
            _ => Duration::ZERO,
        };
        (self.total + self.increment * earned as u32).saturating_sub(self.used[index(color)] + running)
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        match self.state {
            ClockState::Running { color, .. } => Some(color),
            _ => None,
        }
    }
}

/// What a saved game keeps of its clock (the app's `CL` property of GGF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedClock {
    pub total: Duration,
    pub increment: Duration,
    /// Black's and White's used time.
    pub used: [Duration; 2],
    /// Moves of the game before the clock was set.
    pub base_ply: usize,
}

impl SavedClock {
    /// `total increment black-used white-used base-ply`, times in milliseconds.
    pub fn to_text(&self) -> String {
        let ms = |d: Duration| d.as_millis();
        format!("{} {} {} {} {}", ms(self.total), ms(self.increment), ms(self.used[0]), ms(self.used[1]), self.base_ply)
    }

    /// Reads [`SavedClock::to_text`]'s text; anything else is `None`.
    pub fn from_text(text: &str) -> Option<SavedClock> {
        let numbers: Vec<u64> = text.split_whitespace().map(str::parse).collect::<Result<_, _>>().ok()?;
        let [total, increment, black, white, base_ply] = numbers[..] else { return None };
        let ms = Duration::from_millis;
        Some(SavedClock {
            total: ms(total),
            increment: ms(increment),
            used: [ms(black), ms(white)],
            base_ply: usize::try_from(base_ply).ok()?,
        })
    }
}

fn index(color: Color) -> usize {
    usize::from(color == Color::White)
}

/// "4:05", and under ten seconds "0:07.3".
pub fn format_clock(left: Duration) -> String {
    let seconds = left.as_secs();
    if seconds < 10 {
        format!("0:{:02}.{}", seconds, left.subsec_millis() / 100)
    } else {
        format!("{}:{:02}", seconds / 60, seconds % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_is_charged_its_own_thinking_plus_the_increment_from_the_first_move() {
        let time = ManualTime::default();
        let now = time.source();
        let mut game = Game::default();
        let mut clock = GameClock::new(Duration::from_secs(60), Duration::from_secs(2), &game);
        assert_eq!(clock.follow(&game, now()), None);
        assert_eq!(clock.running(), None, "the clock waits for the first move");
        time.advance(Duration::from_secs(100));
        assert_eq!(clock.left(Color::Black, &game, now()), Duration::from_secs(60));
        game.play("f5".parse().unwrap(), None, None).unwrap();
        clock.follow(&game, now());
        assert_eq!(clock.left(Color::Black, &game, now()), Duration::from_secs(62), "the increment");
        assert_eq!(clock.running(), Some(Color::White));
        time.advance(Duration::from_secs(10));
        assert_eq!(clock.left(Color::White, &game, now()), Duration::from_secs(50));
        time.advance(Duration::from_secs(50));
        assert_eq!(clock.follow(&game, now()), Some(Color::White), "White's time is up");
        assert_eq!(clock.flag(), Some(Color::White));
        assert_eq!(clock.take_back_time_loss(), Some(Color::White));
        assert_eq!(clock.left(Color::White, &game, now()), Duration::from_secs(60), "the turn's time restored");
        assert_eq!(format_clock(Duration::from_millis(7_340)), "0:07.3");
        assert_eq!(format_clock(Duration::from_secs(245)), "4:05");
        let saved = clock.saved(now());
        assert_eq!(SavedClock::from_text(&saved.to_text()), Some(saved));
        assert_eq!(SavedClock::from_text("1 2 3"), None);
    }

    /// The reference: a chess clock's two counters, kept the plain way (time taken off the side
    /// to move as it passes, the increment added on each move and taken off when the move is
    /// taken back), in signed milliseconds so nothing saturates.
    struct Reference {
        left: [i64; 2],
        increment: i64,
        started: bool,
        paused: bool,
        flag: Option<Color>,
        /// The running side's counter when its turn began.
        at_turn: [i64; 2],
        running: Option<Color>,
    }

    impl Reference {
        fn start_turn(&mut self, game: &Game) {
            let running = (self.started && !self.paused && self.flag.is_none()).then(|| game.to_move()).flatten();
            if running != self.running
                && let Some(color) = running
            {
                self.at_turn[index(color)] = self.left[index(color)];
            }
            self.running = running;
        }

        fn shown(&self, color: Color) -> Duration {
            Duration::from_millis(self.left[index(color)].max(0) as u64)
        }
    }

    /// xorshift64: reproducible random numbers.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn the_clock_matches_a_reference_clock_under_moves_undos_redos_pauses_and_reopenings() {
        let mut flags = 0;
        for seed in 1..=40u64 {
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let time = ManualTime::default();
            let now = time.source();
            let (total, increment) = (Duration::from_secs(30), Duration::from_millis(1500 * (seed % 3)));
            let mut game = Game::default();
            let mut clock = GameClock::new(total, increment, &game);
            let inc = increment.as_millis() as i64;
            let mut reference = Reference {
                left: [total.as_millis() as i64; 2],
                increment: inc,
                started: false,
                paused: false,
                flag: None,
                at_turn: [0; 2],
                running: None,
            };
            for step in 0..400 {
                let earns = |m: &crate::game::PlayedMove| m.mv != Move::Pass;
                match next(&mut rng) % 10 {
                    // Time passes: the reference takes it off the running side.
                    0..=3 => {
                        let ms = next(&mut rng) % 4000;
                        time.advance(Duration::from_millis(ms));
                        if let Some(color) = reference.running {
                            reference.left[index(color)] -= ms as i64;
                        }
                    }
                    // A move (a pass when forced), unless paused or over.
                    4 | 5 if !reference.paused && !game.is_over() => {
                        let position = game.live();
                        let mv = match position.legal_moves().into_iter().collect::<Vec<_>>() {
                            moves if moves.is_empty() => Move::Pass,
                            moves => Move::Play(moves[(next(&mut rng) % moves.len() as u64) as usize]),
                        };
                        let color = position.side_to_move();
                        game.play(mv, None, None).unwrap();
                        if mv != Move::Pass {
                            reference.left[index(color)] += reference.increment;
                        }
                        reference.started = true;
                    }
                    // Undo one move (never a loss on time), the increment taken back.
                    6 if reference.flag.is_none() => {
                        if game.can_reopen() {
                            game.reopen();
                        } else if let Some(taken) = game.moves().last().cloned()
                            && game.undo().is_some()
                            && earns(&taken)
                        {
                            reference.left[index(taken.color)] -= reference.increment;
                        }
                    }
                    // Redo: the increment given again.
                    7 if reference.flag.is_none() && !reference.paused => {
                        let before = game.moves().len();
                        if game.redo().is_some() {
                            let redone = &game.moves()[before];
                            if earns(redone) {
                                reference.left[index(redone.color)] += reference.increment;
                            }
                        }
                    }
                    // Pause or resume.
                    8 if reference.flag.is_none() => {
                        if reference.paused {
                            clock.resume(&game, now());
                            reference.paused = false;
                            reference.started = true;
                        } else if reference.running.is_some() {
                            clock.pause(now());
                            reference.paused = true;
                        }
                    }
                    // Save and reopen at another time: the reopened clock waits paused.
                    9 => {
                        let text = clock.saved(now()).to_text();
                        let saved_at_turn = clock.used_at_turn;
                        time.advance(Duration::from_secs(3600));
                        clock = GameClock::restored(SavedClock::from_text(&text).unwrap());
                        if let Some(loser) = reference.flag.take() {
                            // A lost game is taken back explicitly, the turn's time restored.
                            clock = GameClock::restored(SavedClock::from_text(&text).unwrap());
                            clock.state = ClockState::Stopped { flag: Some(loser) };
                            clock.used_at_turn = saved_at_turn;
                            assert_eq!(clock.take_back_time_loss(), Some(loser));
                            reference.left[index(loser)] = reference.at_turn[index(loser)];
                            game.reopen();
                        }
                        reference.paused = true;
                    }
                    _ => {}
                }
                let flag = clock.follow(&game, now());
                reference.start_turn(&game);
                if let Some(color) = reference.running
                    && reference.left[index(color)] <= 0
                {
                    reference.flag = Some(color);
                    reference.running = None;
                }
                assert_eq!(flag, reference.flag.filter(|_| !game.is_over()), "seed {seed} step {step}: the flag");
                if let Some(loser) = flag {
                    flags += 1;
                    game.end(crate::game::Ending::Forfeit {
                        loser,
                        failure: othello_arena::seat::Failure::new(othello_arena::seat::Termination::Timeout, "flag"),
                    });
                    clock.follow(&game, now());
                }
                if game.is_over() && reference.flag.is_none() {
                    reference.running = None;
                }
                for color in Color::ALL {
                    assert_eq!(
                        clock.left(color, &game, now()),
                        reference.shown(color),
                        "seed {seed} step {step}: {color:?}'s clock"
                    );
                }
                assert_eq!(clock.running(), reference.running, "seed {seed} step {step}: who runs");
            }
        }
        assert!(flags > 10, "the sequences run clocks out ({flags} times)");
    }
}
