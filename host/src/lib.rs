//! The Othello arena host: the desktop app and the headless referee.

pub mod app;
