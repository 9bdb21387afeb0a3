//! One game between two bot libraries, each in its own runner process, printed as GGF — the arena
//! embedded in a program of its own, no terminal or GUI crate involved.
//!
//! `cargo run -p othello-arena --example one_game -- BLACK.so WHITE.so [MS_PER_MOVE]`
//! (after `cargo build`, e.g. `target/debug/libalphabeta.so target/debug/librandom.so`).

use std::time::Duration;

use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{RunnerCommand, Seating, open_seat};

/// Time per move unless given.
const DEFAULT_MS_PER_MOVE: u64 = 100;

fn main() {
    // This program also serves its bots' runners (`one_game runner …`): first thing in `main`.
    othello_runner::main_if_runner();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [black, white, rest @ ..] = args.as_slice() else {
        eprintln!("usage: one_game BLACK_LIBRARY WHITE_LIBRARY [MS_PER_MOVE]");
        std::process::exit(2);
    };
    let ms: u64 = rest.first().and_then(|ms| ms.parse().ok()).unwrap_or(DEFAULT_MS_PER_MOVE);

    let this_program = std::env::current_exe().expect("own path");
    let seating = Seating::isolated(RunnerCommand::new(this_program).with_arg(othello_runner::RUNNER_SUBCOMMAND));
    let open = |library: &str| {
        open_seat(&seating.spec(library, None)).unwrap_or_else(|failure| {
            eprintln!("{library}: {failure}");
            std::process::exit(1);
        })
    };
    let (mut black, mut white) = (open(black), open(white));
    let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(Duration::from_millis(ms)));
    println!("{}", othello_arena::ggf::write_game(&record));
    let result = &record.result;
    eprintln!("{} – {}: {} ({})", record.black, record.white, result.winner_str(), result.termination());
}
