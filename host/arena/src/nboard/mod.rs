//! The NBoard protocol (Chris Welty's, version 2), both ways: external engines as players in the
//! arena ([`NboardSeat`](crate::seat::NboardSeat), named `nboard:COMMAND` or
//! from an engines file, see [`EngineSpec`]), and our bots as engines
//! for NBoard-protocol GUIs ([`engine::serve`], the `othello nboard BOT` command).

pub mod engine;
mod engine_spec;
pub mod protocol;

pub use engine_spec::{ENGINES_FILE_NAME, EngineSpec, EnginesFile, MAX_INIT_STRINGS, NBOARD_PROTOCOL};
