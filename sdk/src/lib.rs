//! # othello-sdk
//!
//! Othello rules on bitboards, and everything needed to write a bot plugin:
//! the C ABI ([`abi`], `include/othello_bot.h`), the [`Bot`] trait and
//! [`export_bot!`].
//!
//! Squares are `a1`..`h8`: column `a`–`h` left to right, row `1`–`8` top to
//! bottom, bit `8 * row + col`. The start position has white on d4 and e5,
//! black on d5 and e4; black moves first.
//!
//! ```
//! use othello_sdk::{Position, parse_transcript};
//! let mut pos = Position::start();
//! for mv in parse_transcript("f5d6c3d3c4").unwrap() {
//!     pos.play(mv);
//! }
//! assert_eq!(pos.disc_counts(), (6, 3));
//! ```

#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
mod bitboard;
mod bot;
mod color;
#[doc(hidden)]
pub mod export;
#[cfg(feature = "loader")]
pub mod loader;
pub mod movegen;
mod movegen_avx512;
mod notation;
mod perft;
mod position;
mod rng;
mod seed;
mod square;
#[cfg(feature = "testing")]
pub mod testing;

pub use abi::{MoveValue, SearchInfo};
pub use bitboard::{Bitboard, Squares};
pub use bot::{Bot, ThinkRequest};
pub use color::Color;
#[doc(hidden)]
pub use export::__private;
pub use movegen::{flips, legal_moves};
pub use notation::{
    BoardStringError, TranscriptError, TranscriptErrorKind, format_transcript, parse_transcript, parse_transcript_from,
};
pub use perft::{perft, perft_uses_avx512};
pub use position::{IllegalMove, InvalidMoveByte, Move, Outcome, OverlappingDiscs, Position};
pub use rng::SplitMix64;
pub use seed::{SEED_ENV_VAR, clock_seed, game_seed};
pub use square::{ParseSquareError, Square};

/// ABI versions a host built with this crate can load.
pub const SUPPORTED_ABI_VERSIONS: &[u32] = &[abi::OTHELLO_ABI_VERSION];

/// The manual's Rust examples compile and run as doctests.
#[doc = include_str!("../../book/src/rust-bots.md")]
#[cfg(doctest)]
pub struct ManualRustBotDoctests;
