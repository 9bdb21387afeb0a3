//! The game clock for human play: a total time per side with an optional increment per move,
//! counted down for the side to move; who runs out loses on time, as a bot does.
//!
//! The clock reads the time from a [`TimeSource`], so tests drive it by hand ([`ManualTime`])
//! instead of waiting on the real clock.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use othello_sdk::Color;

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

/// Both sides' clocks.
#[derive(Debug, Clone)]
pub struct GameClock {
    /// The setting the clock was made with: the total per side and the increment.
    setting: (Duration, Duration),
    remaining: [Duration; 2],
    increment: Duration,
    /// The side whose time runs, and since when.
    running: Option<(Color, Instant)>,
    /// Moves in the game when the clock last looked.
    moves_seen: usize,
}

impl GameClock {
    /// `total` for each side, `increment` added after each of its moves; the clock starts with the
    /// game as it is now.
    pub fn new(total: Duration, increment: Duration, game: &Game) -> GameClock {
        GameClock {
            setting: (total, increment),
            remaining: [total; 2],
            increment,
            running: None,
            moves_seen: game.moves().len(),
        }
    }

    /// The total per side and the increment the clock was made with.
    pub fn setting(&self) -> (Duration, Duration) {
        self.setting
    }

    /// Follows `game` at `now`: a move made charges its thinking time to the side that made it
    /// (and adds the increment), and the side to move's clock runs. Returns the side to move if
    /// its time has run out.
    pub fn follow(&mut self, game: &Game, now: Instant) -> Option<Color> {
        let moves = game.moves().len();
        if moves != self.moves_seen {
            if let Some((color, since)) = self.running.take()
                && moves > self.moves_seen
            {
                let slot = &mut self.remaining[index(color)];
                *slot = slot.saturating_sub(now.saturating_duration_since(since)) + self.increment;
            }
            self.moves_seen = moves;
        }
        let Some(to_move) = game.to_move() else {
            // Over (resigned, aborted, forfeited): the time used until now counts, and stops.
            if let Some((color, since)) = self.running.take() {
                let slot = &mut self.remaining[index(color)];
                *slot = slot.saturating_sub(now.saturating_duration_since(since));
            }
            return None;
        };
        match self.running {
            Some((color, _)) if color == to_move => {}
            _ => self.running = Some((to_move, now)),
        }
        self.left(to_move, now).is_zero().then_some(to_move)
    }

    /// The time `color` has left at `now`.
    pub fn left(&self, color: Color, now: Instant) -> Duration {
        let remaining = self.remaining[index(color)];
        match self.running {
            Some((running, since)) if running == color => {
                remaining.saturating_sub(now.saturating_duration_since(since))
            }
            _ => remaining,
        }
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(color, _)| color)
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
    fn each_side_is_charged_its_own_thinking_plus_the_increment() {
        let time = ManualTime::default();
        let now = time.source();
        let mut game = Game::default();
        let mut clock = GameClock::new(Duration::from_secs(60), Duration::from_secs(2), &game);
        assert_eq!(clock.follow(&game, now()), None);
        assert_eq!(clock.running(), Some(Color::Black));
        time.advance(Duration::from_secs(10));
        assert_eq!(clock.left(Color::Black, now()), Duration::from_secs(50));
        game.play("f5".parse().unwrap(), None, None).unwrap();
        clock.follow(&game, now());
        assert_eq!(clock.left(Color::Black, now()), Duration::from_secs(52), "50 left and 2 added");
        assert_eq!(clock.running(), Some(Color::White));
        time.advance(Duration::from_secs(60));
        assert_eq!(clock.follow(&game, now()), Some(Color::White), "White's time is up");
        assert_eq!(format_clock(Duration::from_millis(7_340)), "0:07.3");
        assert_eq!(format_clock(Duration::from_secs(245)), "4:05");
    }
}
