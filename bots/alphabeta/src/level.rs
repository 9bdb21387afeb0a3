//! Strength levels: from "a beginner can win" (1) to full strength ([`LEVEL_COUNT`]).
//!
//! Weak levels search shallow, solve only the last few empties, and add
//! random noise to the root moves' scores so they blunder now and then like
//! a human would.

/// The number of levels; the last is full strength and the default.
pub const LEVEL_COUNT: u32 = 10;

/// What a level may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// Deepest midgame iteration.
    pub max_depth: u32,
    /// Solve exactly from this many empties (if time allows).
    pub solve_empties: u32,
    /// Each root move's score gets uniform noise in ±this many centi-discs.
    pub noise: i32,
    /// Plays the opening book's move when the position is in it ([`crate::book`]).
    pub book: bool,
}

const LEVELS: [Level; LEVEL_COUNT as usize] = [
    Level { max_depth: 1, solve_empties: 0, noise: 1200, book: false },
    Level { max_depth: 1, solve_empties: 4, noise: 600, book: false },
    Level { max_depth: 2, solve_empties: 6, noise: 300, book: false },
    Level { max_depth: 3, solve_empties: 8, noise: 150, book: false },
    Level { max_depth: 4, solve_empties: 10, noise: 80, book: false },
    Level { max_depth: 5, solve_empties: 12, noise: 40, book: false },
    Level { max_depth: 6, solve_empties: 14, noise: 0, book: false },
    Level { max_depth: 8, solve_empties: 16, noise: 0, book: false },
    Level { max_depth: 11, solve_empties: 18, noise: 0, book: true },
    Level { max_depth: 64, solve_empties: 64, noise: 0, book: true },
];

impl Level {
    /// Level `n` (clamped to 1..=[`LEVEL_COUNT`]).
    pub fn get(n: u32) -> Level {
        LEVELS[(n.clamp(1, LEVEL_COUNT) - 1) as usize]
    }

    /// Full strength.
    pub fn strongest() -> Level {
        Level::get(LEVEL_COUNT)
    }
}
