//! Time management: how long to think about one move.
//!
//! The host gives a limit per move (or none). The search works to two marks:
//! past the *soft* one no new iteration of iterative deepening starts (the next
//! one would likely not finish), at the *hard* one every search stops at once
//! and the best result so far is played. The hard mark keeps a margin below
//! the limit for the answer to travel back to the host.

use std::time::{Duration, Instant};

/// Thinking time when the host sets no limit.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);
/// Share of the limit the search may use before it must stop.
pub const HARD_FRACTION: f64 = 0.7;
/// Time always left unused, for overheads outside the search.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(3);
/// Share of the hard budget after which no new iteration starts: each
/// iteration costs a few times the previous one.
pub const SOFT_FRACTION: f64 = 0.3;
/// Before an exact solve, the midgame search (the fallback should the solve
/// not finish) gets at most this share of the hard budget.
pub const FALLBACK_FRACTION: f64 = 0.15;

/// The clock of one move.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
    hard: Duration,
    soft: Duration,
}

impl Clock {
    /// Starts the clock for a move with the host's `limit`.
    pub fn start(limit: Option<Duration>) -> Clock {
        let limit = limit.unwrap_or(DEFAULT_MOVE_TIME);
        let hard = limit.mul_f64(HARD_FRACTION).saturating_sub(SAFETY_MARGIN).max(Duration::from_millis(1));
        Clock { start: Instant::now(), hard, soft: hard.mul_f64(SOFT_FRACTION) }
    }

    /// When every search must stop.
    pub fn hard_deadline(&self) -> Instant {
        self.start + self.hard
    }

    /// The hard budget in total.
    pub fn hard_budget(&self) -> Duration {
        self.hard
    }

    /// When the midgame search before a solve stops starting iterations.
    pub fn fallback_deadline(&self) -> Instant {
        self.start + self.hard.mul_f64(FALLBACK_FRACTION)
    }

    /// No new iteration should start after this.
    pub fn soft_deadline(&self) -> Instant {
        self.start + self.soft
    }
}

/// The most empties an exact solve is worth trying with `budget`: beyond them
/// a solve rarely finishes and the time is better spent on the midgame search.
/// (Measured roughly on the FFO set: each extra two empties cost about 3–5×.)
pub fn solvable_empties(budget: Duration) -> u32 {
    const TABLE: [(Duration, u32); 6] = [
        (Duration::from_secs(10), 24),
        (Duration::from_secs(3), 22),
        (Duration::from_millis(700), 20),
        (Duration::from_millis(150), 18),
        (Duration::from_millis(30), 16),
        (Duration::from_millis(5), 14),
    ];
    TABLE.iter().find(|(time, _)| budget >= *time).map_or(10, |&(_, empties)| empties)
}
