//! A bot that panics in `think` (for the ABI tests): the export shims must turn
//! the panic into an error reply instead of unwinding into the host.

use othello_sdk::{Bot, Move, ThinkRequest, export_bot};

#[derive(Default)]
pub struct Panicky;

impl Bot for Panicky {
    const NAME: &'static str = "Panicky";

    fn think(&mut self, request: &ThinkRequest) -> Move {
        panic!("no idea what to do with {} legal moves", request.position.legal_moves().count());
    }
}

export_bot!(Panicky);
