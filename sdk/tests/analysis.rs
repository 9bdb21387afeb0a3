//! The optional analysis export (`othello_analyze`) end to end: a C bot compiled against the
//! header, a Rust bot made with `export_bot!(…, analysis)`, bots without the export, and a bot
//! claiming more values than it was given room for, loaded with the sdk's loader as the host does.

use std::path::{Path, PathBuf};
use std::process::Command;

use othello_sdk::abi::{OTHELLO_ANALYZE_CAPACITY, OTHELLO_ANALYZE_ERROR, OthelloBoard, OthelloMoveValue, info_flags};
use othello_sdk::loader::BotLibrary;
use othello_sdk::{Move, Position, Square, parse_transcript_from};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cdylib_name(stem: &str) -> String {
    format!("{}{stem}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The library of a Rust example bot, as the running (unfiltered) `cargo test` built it.
fn rust_example_bot(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let library = exe.parent().and_then(Path::parent).unwrap().join("examples").join(cdylib_name(name));
    assert!(
        library.exists(),
        "{} is missing: run `cargo test -p othello-sdk` (unfiltered, it builds the examples) or \
         `cargo build -p othello-sdk --examples` first",
        library.display()
    );
    library
}

/// Compiles C source text against the header into a shared library.
fn compile_c_bot(code: &str, stem: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analysis-bots");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join(format!("{stem}.c"));
    std::fs::write(&source, code).unwrap();
    let output = dir.join(cdylib_name(stem));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(&source)
        .arg("-o")
        .arg(&output)
        .status()
        .expect("a C compiler (cc) is needed for the ABI tests");
    assert!(status.success(), "compiling {}", source.display());
    output
}

/// A C bot valuing each legal move by the discs it flips, written as an author would from the
/// header (elements `size` bytes apart).
const C_ANALYZER: &str = r#"
#include "othello_bot.h"
OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
OTHELLO_EXPORT const char *init(void) { return "Flip counter (C)"; }
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) {
    if (!board->legal) return OTHELLO_PASS;
    int sq = __builtin_ctzll(board->legal);
    return othello_move(sq / 8, sq % 8);
}
OTHELLO_EXPORT uint32_t othello_analyze(const OthelloBoard *board, OthelloMoveValue *out, uint32_t capacity) {
    uint64_t me = board->to_move == OTHELLO_BLACK ? board->black : board->white;
    uint64_t other = board->to_move == OTHELLO_BLACK ? board->white : board->black;
    uint32_t count = 0;
    for (int sq = 0; sq < 64 && count < capacity; sq++) {
        if (!(board->legal >> sq & 1)) continue;
        OthelloMoveValue *value = (OthelloMoveValue *)((char *)out + count * out->size);
        value->move = othello_move(sq / 8, sq % 8);
        value->eval = othello_popcount(othello_flips(me, other, sq));
        value->depth = 1;
        value->flags = OTHELLO_INFO_EVAL | OTHELLO_INFO_DEPTH;
        count++;
    }
    return count;
}
"#;

/// Claims a thousand values and fills every element it was given.
const C_OVERCLAIMER: &str = r#"
#include "othello_bot.h"
OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
OTHELLO_EXPORT const char *init(void) { return "Overclaimer"; }
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) { (void)board; return OTHELLO_PASS; }
OTHELLO_EXPORT uint32_t othello_analyze(const OthelloBoard *board, OthelloMoveValue *out, uint32_t capacity) {
    (void)board;
    for (uint32_t i = 0; i < capacity; i++) {
        out[i].move = 0x77;
        out[i].flags = OTHELLO_INFO_EVAL;
        out[i].eval = (double)i;
    }
    return 1000;
}
"#;

fn after(transcript: &str) -> Position {
    parse_transcript_from(Position::start(), transcript).unwrap().1
}

/// The flip count of every legal move, as (square, discs) pairs in square order.
fn flip_counts(position: &Position) -> Vec<(Square, f64)> {
    position.legal_moves().into_iter().map(|s| (s, f64::from(position.flips(s).count()))).collect()
}

/// The (square, eval) pairs of raw values, with depth 1 and the eval flag checked.
fn evals(values: &[OthelloMoveValue]) -> Vec<(Square, f64)> {
    values
        .iter()
        .map(|v| {
            assert_eq!(v.flags & (info_flags::EVAL | info_flags::DEPTH), info_flags::EVAL | info_flags::DEPTH);
            assert_eq!(v.depth, 1);
            (Move::from_byte(v.mv).unwrap().square().unwrap(), v.eval)
        })
        .collect()
}

#[test]
fn a_c_bot_with_the_export_values_every_legal_move() {
    let bot = BotLibrary::open(&compile_c_bot(C_ANALYZER, "flip_counter")).unwrap();
    assert!(bot.features().analysis);
    bot.init();
    for position in [Position::start(), after("f5d6c3"), after("f5f6e6f4e3c5c4")] {
        let raw = bot.analyze(&OthelloBoard::new(&position, 100)).expect("it has the export");
        assert_eq!(raw.returned, position.legal_moves().count());
        assert_eq!(evals(&raw.values), flip_counts(&position), "\n{position}");
    }
}

#[test]
fn a_rust_bot_exports_its_analysis_and_a_panic_in_it_is_caught() {
    let bot = BotLibrary::open(&rust_example_bot("analyzing_bot")).unwrap();
    assert!(bot.features().analysis);
    assert_eq!(bot.init().as_deref(), Some("Counter"));
    let position = after("f5d6c3d3c4");
    let raw = bot.analyze(&OthelloBoard::new(&position, 100)).unwrap();
    assert_eq!(evals(&raw.values), flip_counts(&position));
    assert!(raw.values.iter().all(|v| v.size == std::mem::size_of::<OthelloMoveValue>() as u32));

    // The example panics at a 13 ms limit: an error, with the message, and the bot lives on.
    let raw = bot.analyze(&OthelloBoard::new(&position, 13)).unwrap();
    assert_eq!(raw.returned, OTHELLO_ANALYZE_ERROR);
    assert!(raw.values.is_empty());
    assert_eq!(bot.last_error().as_deref(), Some("panicked: analysis blew up"));
    assert_eq!(bot.analyze(&OthelloBoard::new(&position, 100)).unwrap().values.len(), raw_count(&position));

    // A position where the side to move must pass has nothing to value.
    let pass = Position::from_board_string(&format!("XXO{} O", "-".repeat(61))).unwrap();
    assert_eq!(bot.analyze(&OthelloBoard::new(&pass, 100)).unwrap().returned, 0);
}

fn raw_count(position: &Position) -> usize {
    position.legal_moves().count() as usize
}

#[test]
fn bots_without_the_export_are_not_analysers_and_keep_working() {
    let rust = BotLibrary::open(&rust_example_bot("example_bot")).unwrap();
    let c = BotLibrary::open(&compile_c_bot(
        &std::fs::read_to_string(manifest_dir().join("examples/c/random_bot.c")).unwrap(),
        "random_for_analysis",
    ))
    .unwrap();
    for bot in [rust, c] {
        assert!(!bot.features().analysis);
        bot.init();
        assert!(bot.analyze(&OthelloBoard::new(&Position::start(), 100)).is_none());
        let reply = Move::from_byte(bot.think(&OthelloBoard::new(&Position::start(), 100))).unwrap();
        assert!(Position::start().is_legal(reply));
    }
}

#[test]
fn the_loader_reads_no_value_past_its_capacity_whatever_the_count() {
    let bot = BotLibrary::open(&compile_c_bot(C_OVERCLAIMER, "overclaimer")).unwrap();
    let raw = bot.analyze(&OthelloBoard::new(&Position::start(), 100)).unwrap();
    assert_eq!(raw.returned, 1000, "the count is reported as the bot gave it, for the host to judge");
    assert_eq!(raw.values.len(), OTHELLO_ANALYZE_CAPACITY as usize);
    assert_eq!(raw.values.last().unwrap().eval, f64::from(OTHELLO_ANALYZE_CAPACITY - 1));
}

/// Byte offsets in `OthelloMoveValue`: size 0, move 4, flags 8, depth 12, eval 16, win rate 24.
#[test]
fn the_export_writes_only_within_the_hosts_element_size() {
    let value = OthelloMoveValue {
        size: 32,
        mv: 0x25,
        flags: info_flags::EVAL | info_flags::DEPTH | info_flags::WIN_RATE | info_flags::EXACT,
        depth: 9,
        eval: 4.0,
        win_rate: 0.75,
        ..Default::default()
    };
    const SENTINEL: u8 = 0xAB;
    for size in [0u32, 4, 5, 12, 16, 24, 32, 40] {
        let capacity = 3;
        let stride = size.max(4) as usize;
        let mut bytes = vec![SENTINEL; stride * capacity + 8];
        for element in 0..capacity {
            bytes[element * stride..element * stride + 4].copy_from_slice(&size.to_ne_bytes());
        }
        let values = [value; 2];
        // SAFETY: `bytes` holds `capacity` elements of `stride` bytes (at least 4), each starting
        // with `size`; the function writes only within `size` bytes of each.
        let written =
            unsafe { othello_sdk::__private::write_move_values(bytes.as_mut_ptr().cast(), capacity as u32, &values) };
        let expected = if size >= 5 { 2 } else { 0 };
        assert_eq!(written, expected, "size {size}");
        for element in 0..capacity {
            let at = &bytes[element * stride..(element + 1) * stride];
            let tail_untouched = at[(size as usize).max(4)..].iter().all(|&b| b == SENTINEL);
            assert!(tail_untouched, "size {size}: element {element} written past its size");
            if element >= written as usize {
                assert!(at[4..].iter().all(|&b| b == SENTINEL), "size {size}: element {element} untouched");
                continue;
            }
            assert_eq!(at[4], 0x25);
            if size >= 12 {
                let flags = u32::from_ne_bytes(at[8..12].try_into().unwrap());
                let mut expected_flags = 0;
                if size >= 16 {
                    expected_flags |= info_flags::DEPTH;
                }
                if size >= 24 {
                    expected_flags |= info_flags::EVAL | info_flags::EXACT;
                }
                if size >= 32 {
                    expected_flags |= info_flags::WIN_RATE;
                }
                assert_eq!(flags, expected_flags, "size {size}");
            }
        }
        // Past the last element: never touched.
        assert!(bytes[stride * capacity..].iter().all(|&b| b == SENTINEL));
    }
}
