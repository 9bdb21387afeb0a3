//! Placeholder: plays the first legal move.
use othello_sdk::{Bot, Move, ThinkRequest};

#[derive(Default)]
pub struct Placeholder;

impl Bot for Placeholder {
    const NAME: &'static str = "random (placeholder)";
    fn think(&mut self, request: &ThinkRequest) -> Move {
        request.position.legal_moves().first().map_or(Move::Pass, Move::Play)
    }
}

othello_sdk::export_bot!(Placeholder);
