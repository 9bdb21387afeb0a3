//! The built plugin loads like any dropped-in bot and answers through the C ABI.

use std::path::PathBuf;

use othello_sdk::abi::OthelloBoard;
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position};

/// The cdylib `cargo test` builds with this test: `libalphabeta.so` (or the
/// platform's name) in `target/<profile>/deps`, next to this test's executable;
/// `cargo build` also copies it up to `target/<profile>`. The fresher one wins.
fn plugin_path() -> Option<PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!("{}alphabeta{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    let candidates = [deps.join(&name), deps.parent().unwrap().join(&name)];
    candidates
        .into_iter()
        .filter_map(|path| Some((std::fs::metadata(&path).ok()?.modified().ok()?, path)))
        .max_by_key(|(modified, _)| *modified)
        .map(|(_, path)| path)
}

#[test]
fn the_plugin_loads_and_plays() {
    let Some(path) = plugin_path() else {
        eprintln!("note: the alphabeta cdylib was not built next to this test; skipping the load test");
        return;
    };
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
