//! The NBoard protocol (Chris Welty's, version 2), both ways: external engines as players in the
//! arena ([`NboardSeat`](crate::seat::NboardSeat), named `nboard:COMMAND`), and our bots as engines
//! for NBoard-protocol GUIs ([`engine::serve`], the `othello nboard BOT` command).

pub mod engine;
pub mod protocol;
