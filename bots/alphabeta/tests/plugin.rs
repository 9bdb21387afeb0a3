//! The built plugin loads like any dropped-in bot and answers through the C ABI.

use std::path::PathBuf;

use othello_sdk::abi::OthelloBoard;
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position};

/// `target/<profile>/libalphabeta.so` (or the platform's name), built by
/// `cargo test` next to the `deps` folder holding this test.
fn plugin_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    profile_dir.join(format!("{}alphabeta{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX))
}

#[test]
fn the_plugin_loads_and_plays() {
    let path = plugin_path();
    if !path.exists() {
        eprintln!("note: {} is absent (cdylib not built), skipping the load test", path.display());
        return;
    }
    let bot = BotLibrary::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let features = bot.features();
    assert_eq!(features.levels, alphabeta::LEVEL_COUNT);
    assert!(features.search_info);
    assert_eq!(bot.init().as_deref(), Some("alphabeta"));
    bot.set_level(3);

    let start = Position::start();
    let byte = bot.think(&OthelloBoard::new(&start, 50));
    let mv = Move::from_byte(byte).expect("a move byte");
    assert!(start.is_legal(mv), "{mv:?}");
    let info = bot.search_info().expect("a search report");
    assert!(info.nodes.is_some_and(|n| n > 0));
}
