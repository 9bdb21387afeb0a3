//! The bot as the host sees it: always a legal move (a pass when forced),
//! within the time limit, with a sane search report, and levels that matter.

use std::time::{Duration, Instant};

use alphabeta::{AlphaBetaBot, LEVEL_COUNT, Level, Limits, Searcher};
use othello_sdk::{Bot, Move, Position, ThinkRequest, parse_transcript};

/// xorshift64: reproducible random numbers without dependencies.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Positions from random games (every ply of `games` games), including the
/// positions where the side to move must pass.
fn random_positions(games: usize, seed: u64) -> Vec<Position> {
    let mut state = seed;
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start();
        while !pos.is_game_over() {
            positions.push(pos);
            let moves: Vec<_> = pos.legal_moves().into_iter().collect();
            let mv = if moves.is_empty() {
                Move::Pass
            } else {
                Move::Play(moves[(next(&mut state) % moves.len() as u64) as usize])
            };
            pos.play(mv);
        }
    }
    positions
}

fn request(position: Position, millis: u64) -> ThinkRequest {
    ThinkRequest { position, time_limit: Some(Duration::from_millis(millis)) }
}

#[test]
fn always_plays_a_legal_move_and_passes_when_forced() {
    let positions = random_positions(12, 0xA11CE);
    let passes = positions.iter().filter(|p| p.legal_moves().is_empty()).count();
    assert!(passes > 0, "the sample should include forced passes");
    let mut bot = AlphaBetaBot::with_seed(7);
    for (i, position) in positions.iter().enumerate() {
        bot.new_game();
        // Vary the level so that weak (noisy) and strong code paths are both used.
        bot.set_level(1 + (i as u32 % LEVEL_COUNT));
        let mv = bot.think(&request(*position, 5));
        assert!(position.is_legal(mv), "illegal {mv:?} in\n{position}");
        if position.legal_moves().is_empty() {
            assert_eq!(mv, Move::Pass);
        }
    }
}

#[test]
fn respects_a_small_time_limit() {
    let midgame = {
        let mut pos = Position::start();
        for mv in parse_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6").unwrap() {
            pos.play(mv);
        }
        pos
    };
    // FFO #40, 20 empties: the bot tries an exact solve and has to give up in time.
    let endgame =
        Position::from_board_string("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X").unwrap();
    let mut bot = AlphaBetaBot::with_seed(1);
    for position in [midgame, endgame, Position::start()] {
        let start = Instant::now();
        let mv = bot.think(&request(position, 50));
        let took = start.elapsed();
        assert!(position.is_legal(mv));
        assert!(took < Duration::from_millis(500), "a 50 ms move took {took:?}");
    }
}

#[test]
fn reports_a_sane_search() {
    let mut bot = AlphaBetaBot::with_seed(3);
    // Level 8 searches the start position (levels 9 and 10 play the book's move there).
    bot.set_level(8);
    let start = Position::start();
    bot.think(&request(start, 100));
    let info = bot.search_info().expect("a report after think");
    let eval = info.eval.expect("an evaluation");
    assert!(eval.abs() < 10.0, "the start position is about even, got {eval}");
    assert!(!info.exact);
    // How deep 100 ms reaches depends on the machine and its load: only that a depth is reported.
    assert!(info.depth.unwrap() >= 1, "depth {:?} in 100 ms", info.depth);
    assert!(info.nodes.unwrap() > 0);

    // A late endgame is solved: the report is exact and equals the solver's score.
    let position =
        Position::from_board_string("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X").unwrap();
    // The solve takes milliseconds; the long limit only keeps a loaded machine from cutting it
    // short (the search ends as soon as the score is exact).
    bot.think(&request(position, 30_000));
    let info = bot.search_info().unwrap();
    assert!(info.exact);
    assert_eq!(info.eval, Some(18.0)); // FFO #1
    assert_eq!(info.depth, Some(14));
}

#[test]
fn fixed_depth_search_is_deterministic() {
    let position = random_positions(1, 99)[20];
    let run = || Searcher::new().search(&position, &Limits::depth(6));
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert_eq!(a.depth, 6);
    assert!(position.is_legal(a.best_move));
}

/// Plays one game between two bots; returns black's disc difference.
fn play_game(black: &mut AlphaBetaBot, white: &mut AlphaBetaBot, opening: &str) -> i32 {
    black.new_game();
    white.new_game();
    let mut pos = Position::start();
    for mv in parse_transcript(opening).unwrap() {
        pos.play(mv);
    }
    while !pos.is_game_over() {
        let bot = if pos.side_to_move() == othello_sdk::Color::Black { &mut *black } else { &mut *white };
        let mv = bot.think(&request(pos, 20));
        pos.try_play(mv).expect("a legal move");
    }
    let (b, w) = pos.final_score();
    b as i32 - w as i32
}

#[test]
fn level_one_loses_to_full_strength() {
    let mut weak = AlphaBetaBot::with_seed(11);
    weak.set_level(1);
    let mut strong = AlphaBetaBot::with_seed(12);
    strong.set_level(LEVEL_COUNT);
    let mut strong_wins = 0;
    let openings = ["f5d6", "f5f6"];
    for opening in openings {
        if play_game(&mut strong, &mut weak, opening) > 0 {
            strong_wins += 1;
        }
        if play_game(&mut weak, &mut strong, opening) < 0 {
            strong_wins += 1;
        }
    }
    assert!(strong_wins >= 3, "full strength won only {strong_wins} of 4 games against level 1");
}

#[test]
fn levels_change_the_search() {
    let position = random_positions(1, 5)[16];
    let mut depths = Vec::new();
    for level in [1, LEVEL_COUNT] {
        let mut bot = AlphaBetaBot::with_seed(2);
        bot.set_level(level);
        bot.think(&request(position, 100));
        depths.push(bot.search_info().unwrap().depth.unwrap());
    }
    assert_eq!(depths[0], 1, "level 1 looks one move ahead");
    // Depth 2 takes microseconds: deeper than level 1 on any machine, however loaded.
    assert!(depths[1] > depths[0], "full strength searched only {} plies", depths[1]);
}

#[test]
fn strong_levels_play_the_opening_book_and_say_so() {
    let book = alphabeta::book::builtin().expect("the shipped book parses");
    // The start and a position a few moves in (the book follows the best lines).
    let mut position = Position::start();
    for mv in parse_transcript("f5d6c3").unwrap() {
        position.play(mv);
    }
    for position in [Position::start(), position] {
        let entry = book.lookup(&position).expect("the usual openings are in the book");
        let mut bot = AlphaBetaBot::with_seed(4);
        bot.set_level(LEVEL_COUNT);
        assert_eq!(bot.think(&request(position, 100)), Move::Play(entry.square));
        let info = bot.search_info().unwrap();
        assert_eq!((info.depth, info.nodes, info.exact), (Some(book.depth), Some(0), false));
        assert_eq!(info.eval, Some(entry.score as f64));
        // Level 8 has no book: it searches.
        bot.set_level(8);
        bot.think(&request(position, 100));
        assert!(bot.search_info().unwrap().nodes.unwrap() > 0);
    }
}

#[test]
fn level_noise_changes_the_choice_never_the_score() {
    // The same noise on every move leaves the choice as it was: the score must be the noiseless
    // one. Noise once went into the reported score, and a score near the cap plus noise read as a
    // final score near 0 (`+63` shown as `0.58`).
    let positions = random_positions(3, 0xE7A1);
    for level in (1..=LEVEL_COUNT).map(Level::get).filter(|level| level.noise > 0) {
        for position in positions.iter().filter(|p| !p.legal_moves().is_empty()).step_by(3) {
            // Zero noise takes the noisy search's path (full windows) without moving any score.
            let mut zero = Searcher::new();
            zero.set_root_noise(Some([0; 64]));
            let plain = zero.search(position, &Limits::depth(level.max_depth));
            for offset in [level.noise, -level.noise] {
                let mut noisy = Searcher::new();
                noisy.set_root_noise(Some([offset; 64]));
                let result = noisy.search(position, &Limits::depth(level.max_depth));
                assert_eq!(
                    (result.best_move, result.score),
                    (plain.best_move, plain.score),
                    "depth {} noise {offset} in\n{position}",
                    level.max_depth
                );
            }
        }
    }
}

#[test]
fn level_noise_never_pushes_a_score_out_of_range() {
    // Black to move wipes White out with any move (a final score above the evaluation's cap).
    let wipe_out = Position::from_board_string(
        "--------\
         --XXXXO-\
         -XXXXXX-\
         -XXXXXX-\
         -XXXXXX-\
         -XXXXXX-\
         --XXXX--\
         -------- X",
    )
    .unwrap();
    let mut positions = random_positions(2, 0xE7A1);
    positions.push(wipe_out);
    for level in 1..=LEVEL_COUNT {
        let mut bot = AlphaBetaBot::with_seed(u64::from(level));
        bot.set_level(level);
        for position in positions.iter().filter(|p| !p.legal_moves().is_empty()) {
            bot.think(&request(*position, 5));
            let eval = bot.search_info().and_then(|info| info.eval).expect("an evaluation");
            assert!((-64.0..=64.0).contains(&eval), "level {level}: {eval} out of range in\n{position}");
        }
    }
}
