//! A complete bot plugin in Rust: greedy, it plays the move that flips the most
//! discs. Build it with `cargo build --release -p othello-sdk --example example_bot`
//! and drop `target/release/examples/libexample_bot.so` into a plugin folder.
//!
//! In a crate of your own, put this in `src/lib.rs` and set
//! `crate-type = ["cdylib"]` in `Cargo.toml`.

use othello_sdk::{Bot, Move, SearchInfo, ThinkRequest, export_bot};

#[derive(Default)]
pub struct Greedy {
    last_flips: u32,
}

impl Bot for Greedy {
    const NAME: &'static str = "Greedy";

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let position = &request.position;
        let best = position.legal_moves().into_iter().max_by_key(|&square| position.flips(square).count());
        self.last_flips = best.map_or(0, |square| position.flips(square).count());
        best.map_or(Move::Pass, Move::Play)
    }

    fn search_info(&self) -> Option<SearchInfo> {
        Some(SearchInfo { depth: Some(1), nodes: Some(1), ..SearchInfo::default() })
    }
}

export_bot!(Greedy);
