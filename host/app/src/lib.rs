//! The desktop app: play and watch games between humans and bot plugins, replay them, manage the
//! plugins and run matches.
//!
//! [`run`] opens the window; [`OthelloApp`] (in `app.rs`) is the eframe app. Background work
//! lives beside it, each worker apart from its view: [`analysis`] (move evaluations),
//! [`mod@matches`] (matches and round robins), [`ladder`] (rating sessions); the [`panels`] draw.

pub mod actions;
pub mod analysis;
mod app;
mod board;
pub mod catalog;
pub mod clock;
pub mod files;
pub mod game;
pub mod game_file;
pub mod ladder;
pub mod levels;
pub mod matches;
pub mod openings;
pub mod panels;
mod players;
pub mod review;
pub mod session;
pub mod settings;
pub mod shortcuts;
pub mod sound;
pub mod wthor;

pub use self::actions::{Action, Confirm};
pub use self::app::{Launch, Message, OthelloApp, Tab, color_name, run};
pub(crate) use self::app::{board_view, standard_extra, waker_factory};
pub use self::board::Orientation;
pub use self::game::{Ending, Game, GameResult};
pub use self::session::Session;
pub use self::settings::{SeatChoice, Settings};
