//! The ABI end to end: a C bot compiled against the header and Rust bots made
//! with `export_bot!`, loaded with the sdk's loader as the host does.

use std::path::{Path, PathBuf};
use std::process::Command;

use othello_sdk::abi::{OTHELLO_ABI_VERSION, OTHELLO_MOVE_ERROR, OthelloBoard};
use othello_sdk::loader::{BotLibrary, LoadError};
use othello_sdk::{Move, Position, parse_transcript_from};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder `cargo test` builds this package's examples into.
fn examples_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().join("examples")
}

fn cdylib_name(stem: &str) -> String {
    format!("{}{stem}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The library of a Rust example bot, as the running `cargo test` built it: a plain `cargo test`
/// builds every example of the package (no nested cargo build here); a run filtered to one test
/// target does not, and then this says how to build them.
fn rust_example_bot(name: &str) -> PathBuf {
    let library = examples_dir().join(cdylib_name(name));
    assert!(
        library.exists(),
        "{} is missing: run `cargo test -p othello-sdk` (unfiltered, it builds the examples) or \
         `cargo build -p othello-sdk --examples` first",
        library.display()
    );
    library
}

/// Compiles a C source file against the header into a shared library.
fn compile_c_bot(source: &Path, stem: &str) -> PathBuf {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-bots");
    std::fs::create_dir_all(&out_dir).unwrap();
    let output = out_dir.join(cdylib_name(stem));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(source)
        .arg("-o")
        .arg(&output)
        .status()
        .expect("a C compiler (cc) is needed for the ABI tests");
    assert!(status.success(), "compiling {}", source.display());
    output
}

/// A position where the side to move (white) has no legal move but black has.
fn forced_pass_position() -> Position {
    let position = Position::from_board_string(&format!("XXO{} O", "-".repeat(61))).unwrap();
    assert!(position.legal_moves().is_empty() && position.must_pass(), "{position}");
    position
}

fn assert_plays_legally(bot: &BotLibrary) {
    let start = Position::start();
    let reply = Move::from_byte(bot.think(&OthelloBoard::new(&start, 1000))).expect("an on-board reply");
    assert!(start.is_legal(reply), "{reply} is not legal at the start");

    // Also mid-game, with white to move.
    let (_, position) = parse_transcript_from(Position::start(), "f5d6c3").unwrap();
    let reply = Move::from_byte(bot.think(&OthelloBoard::new(&position, 1000))).unwrap();
    assert!(position.is_legal(reply), "{reply} is not legal in\n{position}");

    let pass = forced_pass_position();
    assert_eq!(bot.think(&OthelloBoard::new(&pass, 1000)), Move::PASS_BYTE, "must pass");
}

#[test]
fn c_bot_built_against_the_header_loads_and_plays() {
    let path = compile_c_bot(&manifest_dir().join("examples/c/random_bot.c"), "random_c");
    let bot = BotLibrary::open(&path).unwrap();
    assert_eq!(bot.abi_version(), OTHELLO_ABI_VERSION);
    assert_eq!(bot.init().as_deref(), Some("Random (C)"));
    assert_eq!(bot.features().levels, 0);
    assert!(bot.search_info().is_none());
    for _ in 0..20 {
        assert_plays_legally(&bot);
    }
}

/// The complete C bot a document shows (the README's or the manual's), as a newcomer would copy it.
fn c_bot_shown_in(document: &str) -> String {
    let text = std::fs::read_to_string(manifest_dir().join("..").join(document)).unwrap();
    code_blocks(&text, "c")
        .find(|code| code.contains("uint8_t think(const OthelloBoard *board) {"))
        .unwrap_or_else(|| panic!("{document} shows a complete C bot"))
        .to_owned()
}

/// The fenced code blocks of one language in a Markdown text.
fn code_blocks<'a>(markdown: &'a str, language: &str) -> impl Iterator<Item = &'a str> {
    let fence = format!("```{language}\n");
    let blocks: Vec<&str> =
        markdown.split(fence.as_str()).skip(1).map(|rest| rest.split("```").next().unwrap()).collect();
    blocks.into_iter()
}

#[test]
fn the_readme_c_bot_plays_the_move_that_flips_the_most_discs() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-bot");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("greedy.c");
    std::fs::write(&source, c_bot_shown_in("README.md")).unwrap();
    let bot = BotLibrary::open(&compile_c_bot(&source, "greedy")).unwrap();
    assert_eq!(bot.init().as_deref(), Some("Greedy (C)"));
    assert_plays_legally(&bot);
    // Positions from a real game: each reply flips as many discs as the best legal move.
    let mut position = Position::start();
    for played in othello_sdk::parse_transcript("f5d6c3d3c4f4f6f3e6e7d7c6").unwrap() {
        position.play(played);
        if position.must_pass() || position.is_game_over() {
            continue;
        }
        let reply = Move::from_byte(bot.think(&OthelloBoard::new(&position, 1000))).expect("a move");
        let Move::Play(square) = reply else { panic!("passed in\n{position}") };
        let most = position.legal_moves().into_iter().map(|s| position.flips(s).count()).max().unwrap();
        assert_eq!(position.flips(square).count(), most, "{square} in\n{position}");
    }
}

/// The README's build line, run from another folder as a newcomer would: it finds the header and
/// writes the library into the arena's plugins folder, wherever the arena was cloned.
#[test]
fn the_readme_build_line_works_from_any_folder() {
    let readme = std::fs::read_to_string(manifest_dir().join("../README.md")).unwrap();
    let recipe = code_blocks(&readme, "sh")
        .find(|block| block.contains("-I \"$OTHELLO/sdk/include\""))
        .expect("the README shows how to build the C bot");
    let commands: Vec<&str> =
        recipe.lines().filter(|line| line.starts_with("mkdir ") || line.starts_with("gcc ")).collect();
    assert_eq!(commands.len(), 2, "mkdir and gcc lines in\n{recipe}");

    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-build-line");
    let _ = std::fs::remove_dir_all(&work);
    let clone = work.join("othello-arena");
    let elsewhere = work.join("my-bots");
    std::fs::create_dir_all(&clone).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(manifest_dir(), clone.join("sdk")).unwrap();
    std::fs::write(elsewhere.join("greedy.c"), c_bot_shown_in("README.md")).unwrap();
    for command in commands {
        let status =
            Command::new("sh").arg("-c").arg(command).current_dir(&elsewhere).env("OTHELLO", &clone).status().unwrap();
        assert!(status.success(), "`{command}` failed");
    }
    let bot = BotLibrary::open(&clone.join("plugins/libgreedy.so")).unwrap();
    assert_plays_legally(&bot);
}

#[test]
fn the_manual_c_bot_compiles_loads_and_plays() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("manual-bot");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("my_bot.c");
    std::fs::write(&source, c_bot_shown_in("book/src/c-bots.md")).unwrap();
    let bot = BotLibrary::open(&compile_c_bot(&source, "my_bot")).unwrap();
    assert!(bot.init().is_some());
    assert_plays_legally(&bot);
}

#[test]
fn rust_bot_made_with_export_bot_loads_and_plays() {
    let bot = BotLibrary::open(&rust_example_bot("example_bot")).unwrap();
    assert_eq!(bot.abi_version(), OTHELLO_ABI_VERSION);
    assert_eq!(bot.init().as_deref(), Some("Greedy"));
    let features = bot.features();
    assert!(features.search_info && features.last_error);
    assert_plays_legally(&bot);
    let info = bot.search_info().expect("the example reports its search");
    assert_eq!(info.depth, Some(1));
    assert_eq!(bot.last_error(), None);
}

#[test]
fn a_panicking_rust_bot_replies_with_an_error_and_its_message() {
    let bot = BotLibrary::open(&rust_example_bot("panicking_bot")).unwrap();
    assert_eq!(bot.init().as_deref(), Some("Panicky"));
    let reply = bot.think(&OthelloBoard::new(&Position::start(), 0));
    assert_eq!(reply, OTHELLO_MOVE_ERROR);
    assert!(Move::from_byte(reply).is_err(), "the error byte is not a move");
    assert_eq!(bot.last_error().as_deref(), Some("panicked: no idea what to do with 4 legal moves"));
    // The bot survives for the next game.
    assert_eq!(bot.init().as_deref(), Some("Panicky"));
    assert_eq!(bot.last_error(), None);
}

#[test]
fn libraries_that_are_not_bots_are_rejected_with_the_reason() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("not-bots");
    std::fs::create_dir_all(&dir).unwrap();

    let text = dir.join(cdylib_name("text"));
    std::fs::write(&text, "not a library").unwrap();
    let err = BotLibrary::open(&text).unwrap_err();
    assert!(matches!(err, LoadError::NotALibrary(_)));
    // dlerror()'s own words say why, e.g. "… file too short".
    assert!(err.to_string().contains("text."), "{err}");

    let source = dir.join("no_think.c");
    std::fs::write(
        &source,
        "#include \"othello_bot.h\"\nuint32_t othello_abi_version(void) { return 1; }\nconst char *init(void) { return 0; }\n",
    )
    .unwrap();
    let no_think = compile_c_bot(&source, "no_think");
    let err = BotLibrary::open(&no_think).unwrap_err();
    assert_eq!(err, LoadError::MissingSymbol("think"));
    assert_eq!(err.to_string(), "missing symbol `think`");

    let source = dir.join("future.c");
    std::fs::write(
        &source,
        "#include \"othello_bot.h\"\nuint32_t othello_abi_version(void) { return 999; }\n\
         const char *init(void) { return 0; }\nuint8_t think(const OthelloBoard *b) { (void)b; return 0xFF; }\n",
    )
    .unwrap();
    let err = BotLibrary::open(&compile_c_bot(&source, "future")).unwrap_err();
    assert_eq!(err, LoadError::UnsupportedAbi(999));
    assert!(err.to_string().starts_with("ABI version 999 not supported"));
}
