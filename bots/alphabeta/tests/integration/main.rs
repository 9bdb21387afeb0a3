//! The alpha-beta bot's integration tests, one binary (each module a former test file).
//! `analysis` stays a binary of its own (not run under Wine).

mod bot;
mod ffo;
mod plugin;
