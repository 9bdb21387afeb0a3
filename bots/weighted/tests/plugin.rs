//! The built library loads like any dropped-in plugin, plays legally, and
//! replays the same moves when `OTHELLO_SEED` is set.
//!
//! One test in this file on purpose: it changes the process environment,
//! which no other thread of this test binary may read meanwhile.

use othello_sdk::abi::OthelloBoard;
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position};

fn play_moves(bot: &BotLibrary, positions: &[Position]) -> Vec<Move> {
    assert_eq!(bot.init().as_deref(), Some("Weighted"));
    positions
        .iter()
        .map(|position| {
            let mv = Move::from_byte(bot.think(&OthelloBoard::new(position, 50))).expect("an on-board move");
            assert!(position.is_legal(mv), "{mv} is illegal in\n{position}");
            mv
        })
        .collect()
}

#[test]
fn loads_plays_legally_and_obeys_othello_seed() {
    let bot =
        BotLibrary::open(&othello_sdk::testing::plugin_library("bot-weighted", "weighted")).expect("the plugin loads");
    assert_eq!(bot.features().levels, 0);
    let positions = othello_sdk::testing::random_game_positions(30, 6);
    assert!(positions.iter().any(Position::must_pass));
    // SAFETY: this binary's only test runs on this thread, so nothing else touches the environment.
    unsafe { othello_sdk::testing::assert_obeys_othello_seed(&bot, &positions, play_moves, true) };
}
