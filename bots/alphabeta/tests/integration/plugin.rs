//! The built plugin loads like any dropped-in bot and answers through the C ABI.

use othello_sdk::abi::OthelloBoard;
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position};

#[test]
fn the_plugin_loads_and_plays() {
    let path = othello_sdk::testing::plugin_library("bot-alphabeta", "alphabeta");
    let bot = BotLibrary::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let features = bot.features();
    assert_eq!(features.levels, alphabeta::LEVEL_COUNT);
    assert!(features.search_info);
    assert_eq!(bot.init().as_deref(), Some("Alpha-beta"));
    bot.set_level(3);

    let start = Position::start();
    let byte = bot.think(&OthelloBoard::new(&start, 50));
    let mv = Move::from_byte(byte).expect("a move byte");
    assert!(start.is_legal(mv), "{mv:?}");
    let info = bot.search_info().expect("a search report");
    assert!(info.nodes.is_some_and(|n| n > 0));
}
