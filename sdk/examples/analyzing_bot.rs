//! A bot with the optional analysis export (`export_bot!(…, analysis)`): greedy, it values each
//! legal move by the discs it flips. Asked to analyse with a limit of exactly
//! [`PANIC_LIMIT_MS`] it panics, so the tests can check the shim catches the panic.

use othello_sdk::{Bot, Move, MoveValue, ThinkRequest, export_bot};

/// The time limit at which `analyze` panics (a test hook).
pub const PANIC_LIMIT_MS: u64 = 13;

#[derive(Default)]
pub struct Counter;

impl Bot for Counter {
    const NAME: &'static str = "Counter";

    fn think(&mut self, request: &ThinkRequest) -> Move {
        request.position.legal_moves().first().map_or(Move::Pass, Move::Play)
    }

    fn analyze(&mut self, request: &ThinkRequest) -> Option<Vec<MoveValue>> {
        if request.time_limit.is_some_and(|limit| limit.as_millis() == u128::from(PANIC_LIMIT_MS)) {
            panic!("analysis blew up");
        }
        let position = &request.position;
        let values = position
            .legal_moves()
            .into_iter()
            .map(|square| MoveValue {
                eval: Some(f64::from(position.flips(square).count())),
                depth: Some(1),
                ..MoveValue::new(square)
            })
            .collect();
        Some(values)
    }
}

export_bot!(Counter, analysis);
