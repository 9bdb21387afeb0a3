//! The GGF reader on arbitrary bytes: an error or games, never a panic or a hang.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(games) = othello_arena::ggf::parse(&text) {
        // Whatever it accepts, it writes back and reads again.
        for game in &games {
            let line = othello_arena::ggf::format(game);
            othello_arena::ggf::parse(&line).expect("a written game reads back");
        }
    }
});
