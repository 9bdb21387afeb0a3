//! Makes a set of endgame test positions from self-play, solved, in the FFO
//! file's format, to check that a change to the solver helps positions in
//! general and not only the dozen FFO problems it was measured on.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example endgame_set -- GAMES EMPTIES SEED > set.txt
//! cargo run --release -p bot-alphabeta --example ffo -- set.txt 1000-1099
//! ```
//!
//! Each game opens with 8 random moves, then the bot plays depth-4 searches
//! with up to ±2 discs of noise on its root moves, until the position has
//! EMPTIES empty squares. That position is kept if its side to move has a
//! move and its exact score is within ±12 discs (close positions, like the
//! FFO set's, are the costly ones to solve). Ids start at 1000; the best-moves
//! field is `*` (any move reaching the score is right: only one best move is
//! known). The games depend on the build's search and weights, so a set is
//! kept as a file rather than made anew for each comparison:
//! `tests/data/selfplay-24.txt` and `selfplay-26.txt`, whose headers give the
//! command that made them.

use std::io::Write;
use std::process::ExitCode;

use alphabeta::Searcher;
use othello_sdk::Position;

#[path = "shared/fitting.rs"]
mod fitting;
use fitting::self_play_move;

/// Random moves that open each game.
const OPENING_RANDOM_MOVES: u32 = 8;
/// Depth of the self-play searches after the opening.
const SELF_PLAY_DEPTH: u32 = 4;
/// Noise on the self-play root moves, ± centi-discs.
const SELF_PLAY_NOISE: i32 = 200;
/// Positions whose exact score is further from a draw are left out.
const MAX_ABS_SCORE: i32 = 12;
/// The first position's id.
const FIRST_ID: u32 = 1000;

/// One self-play game from `seed`, up to the first position with `empties`
/// empties (`None` if a pass jumps over it or the game ends first).
fn self_play_until(searcher: &mut Searcher, seed: u64, empties: u32) -> Option<Position> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut position = Position::start();
    let mut ply = 0;
    while !position.is_game_over() && position.empty().count() > empties {
        let chosen =
            self_play_move(searcher, &position, ply, &mut rng, OPENING_RANDOM_MOVES, SELF_PLAY_DEPTH, SELF_PLAY_NOISE);
        position.play(chosen);
        ply += 1;
    }
    (position.empty().count() == empties && !position.legal_moves().is_empty()).then_some(position)
}

fn main() -> ExitCode {
    // Every argument must be a number: a mistyped one is an error, not skipped.
    let args: Result<Vec<u64>, _> = std::env::args().skip(1).map(|a| a.parse::<u64>()).collect();
    let Ok(&[games, empties, seed]) = args.as_deref() else {
        eprintln!("usage: endgame_set GAMES EMPTIES SEED   (positions on standard output)");
        return ExitCode::FAILURE;
    };
    let empties = empties.min(60) as u32;
    let mut out = std::io::stdout().lock();
    let header = format!(
        "# {games} self-play games, positions with {empties} empties, seed {seed}, |score| <= {MAX_ABS_SCORE}\n\
         # made by: cargo run --release -p bot-alphabeta --example endgame_set -- {games} {empties} {seed}"
    );
    if writeln!(out, "{header}").is_err() {
        return ExitCode::FAILURE;
    }
    let mut searcher = Searcher::new();
    let mut id = FIRST_ID;
    for game in 0..games {
        let Some(position) = self_play_until(&mut searcher, seed.wrapping_mul(1_000_003).wrapping_add(game), empties)
        else {
            continue;
        };
        searcher.clear();
        let score = searcher.solve(&position).score;
        if score.abs() > MAX_ABS_SCORE {
            continue;
        }
        // A closed output (`| head`, say) ends the run.
        if writeln!(out, "{id} {} * {score:+}", position.to_board_string()).and_then(|()| out.flush()).is_err() {
            return ExitCode::FAILURE;
        }
        id += 1;
    }
    ExitCode::SUCCESS
}
