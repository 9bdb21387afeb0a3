//! The Othello arena host: finds bot plugins, runs each seat in an isolated
//! runner process (or in process), referees games, and runs matches and
//! tournaments. The `othello` binary is a thin CLI over this library, and the
//! desktop app builds on the same API:
//!
//! - [`plugins`]: plugin folders, scanning, safe probing ([`plugins::probe_all`]), resolving bot names.
//! - [`seat`]: the [`Seat`](seat::Seat) trait, [`open_seat`](seat::open_seat), [`Failure`](seat::Failure)
//!   and [`Termination`](seat::Termination). Implement `Seat` for a human at the board.
//! - [`runner`]: isolated seats ([`RunnerConfig`](runner::RunnerConfig) says which `othello` binary runs them;
//!   a [`StopHandle`](runner::StopHandle) ends a seat's runner from another thread, even mid-think).
//! - [`referee`]: [`play_game`](referee::play_game), or
//!   [`play_game_observed`](referee::play_game_observed) to watch (and stop) a game move by move.
//! - [`record`]: [`GameRecord`](record::GameRecord) and friends; [`ggf`] writes and reads them as GGF.
//! - [`arena`]: matches and tournaments ([`arena::run`]) with progress events, standings, Elo and SPRT,
//!   and a state folder that survives `kill -9`.
//! - [`report`]: what the CLI prints (JSON lines, tables).
//!
//! Playing one watched game between two bots on a background thread:
//!
//! ```no_run
//! use std::ops::ControlFlow;
//! use std::time::Duration;
//! use othello_host::referee::{GameEvent, Opening, play_game_observed};
//! use othello_host::seat::{SeatSpec, open_seat};
//!
//! let mut black = open_seat(&SeatSpec::isolated("plugins/libalphabeta.so")).expect("loads");
//! let mut white = open_seat(&SeatSpec::isolated("plugins/librandom.so")).expect("loads");
//! let record = play_game_observed(
//!     black.as_mut(),
//!     white.as_mut(),
//!     &Opening::none(),
//!     Some(Duration::from_millis(500)),
//!     &mut |event| {
//!         if let GameEvent::Moved { record, position } = event {
//!             println!("{:?} played {}\n{position}", record.color, record.mv);
//!         }
//!         ControlFlow::Continue(())
//!     },
//! );
//! println!("{}", othello_host::ggf::write_game(&record.expect("not stopped")));
//! ```

pub mod app;
pub mod arena;
pub mod cli;
pub mod ggf;
mod in_process;
pub mod plugins;
pub mod record;
pub mod referee;
pub mod report;
pub mod runner;
pub mod seat;

pub use in_process::InProcessSeat;
