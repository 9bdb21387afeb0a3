//! The rating ladder: "rate this bot" without designing a tournament.
//!
//! A ladder is one SQLite file ([`store::Ladder`]) holding every rated entry (a bot's name,
//! level and the SHA-256 of its build: [`identity`]), every game with its GGF, and snapshots of
//! the ratings over time. Ratings are a maximum-likelihood Bradley–Terry fit over all games with
//! one anchor held at 0 ([`fit`](mod@fit)). [`session::rate`] places a new bot by playing it against the
//! pool with adaptive pairing; [`seed::seed_pool`] starts a ladder from the sample bots;
//! [`leaderboard`](mod@leaderboard) and [`html`] show the result.
//!
//! Games are played with the arena's seats and referee ([`othello_arena`]); nothing here knows
//! of a terminal or a window.

pub mod calibration;
pub mod fit;
pub mod html;
pub mod identity;
pub mod leaderboard;
pub mod paths;
pub mod play;
pub mod schema;
pub mod seed;
pub mod session;
pub mod store;

pub use fit::{Fit, FitOptions, Rating, Results, fit};
pub use identity::{Identity, Kind};
pub use leaderboard::{Leaderboard, Row, leaderboard};
pub use session::{FailureReason, Placement, Progress, RateOptions, StopReason, rate};
pub use store::{Entry, Ladder, StoredGame};
