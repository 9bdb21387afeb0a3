//! The Othello arena host: finds bot plugins, runs each seat in an isolated
//! runner process (or in process), referees games, and runs matches and
//! tournaments. The `othello` binary is a thin CLI over this library, and the
//! desktop app builds on the same API:
//!
//! - [`plugins`]: plugin folders, scanning, probing, resolving bot names.
//! - [`seat`]: the [`Seat`](seat::Seat) trait, [`open_seat`](seat::open_seat), failures and terminations.
//! - [`referee`]: [`play_game`](referee::play_game) / [`play_game_observed`](referee::play_game_observed).
//! - [`record`]: [`GameRecord`](record::GameRecord) and friends; [`ggf`] reads and writes them as GGF.
//! - [`arena`]: matches and tournaments with progress events, standings, Elo and SPRT.

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
