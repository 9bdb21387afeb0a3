//! The transcript reader on arbitrary bytes: an error or moves, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(moves) = othello_sdk::parse_transcript(&String::from_utf8_lossy(data)) {
        let text = othello_sdk::format_transcript(&moves);
        othello_sdk::parse_transcript(&text).expect("a written transcript reads back");
    }
});
