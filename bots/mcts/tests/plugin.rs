//! The built library loads like any dropped-in plugin: levels, search info,
//! legal moves and passes, and the same moves again when `OTHELLO_SEED` is set
//! and a level's playout cap ends each search.
//!
//! One test in this file on purpose: it changes the process environment,
//! which no other thread of this test binary may read meanwhile.

use othello_sdk::abi::OthelloBoard;
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position};

/// Time limit for the level-capped searches: far more than they need.
const GENEROUS_LIMIT_MS: u32 = 5000;

fn play_moves(bot: &BotLibrary, positions: &[Position]) -> Vec<Move> {
    assert_eq!(bot.init().as_deref(), Some("MCTS"));
    bot.set_level(1);
    positions
        .iter()
        .map(|position| {
            let byte = bot.think(&OthelloBoard::new(position, GENEROUS_LIMIT_MS));
            let mv = Move::from_byte(byte).unwrap_or_else(|e| panic!("{e}; last error: {:?}", bot.last_error()));
            assert!(position.is_legal(mv), "{mv} is illegal in\n{position}");
            mv
        })
        .collect()
}

#[test]
fn loads_plays_legally_reports_and_obeys_othello_seed() {
    let bot = BotLibrary::open(&othello_sdk::testing::plugin_library("bot-mcts", "mcts")).expect("the plugin loads");
    let features = bot.features();
    assert_eq!(features.levels, mcts::PLAYOUTS_PER_LEVEL.len() as u32);
    assert!(features.search_info && features.last_error);

    // Full strength with a time limit: a real search, reported.
    assert_eq!(bot.init().as_deref(), Some("MCTS"));
    let start = Position::start();
    let mv = Move::from_byte(bot.think(&OthelloBoard::new(&start, 50))).unwrap();
    assert!(start.is_legal(mv));
    let info = bot.search_info().expect("a search report");
    assert!(info.nodes.is_some_and(|n| n > mcts::PLAYOUTS_PER_LEVEL[0]), "{info:?}");
    assert!(info.win_rate.is_some_and(|w| (0.0..=1.0).contains(&w)), "{info:?}");

    let positions = othello_sdk::testing::random_game_positions(10, 31);
    assert!(positions.iter().any(Position::must_pass));

    // SAFETY: this binary's only test runs on this thread, so nothing else touches the environment.
    unsafe { othello_sdk::testing::assert_obeys_othello_seed(&bot, &positions, play_moves, false) };
}
