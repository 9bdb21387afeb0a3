//! The weighted bot plays the legal move of highest weight (corners first,
//! X-squares last), breaks ties at random among the best moves only, passes
//! when it must, replays the same moves from the same seed and beats random
//! play.

use std::collections::HashSet;
use std::time::Duration;

use othello_sdk::testing::{legal_reply, play_game, random_game_positions};
use othello_sdk::{Bitboard, Bot, Color, Move, Position, Square, ThinkRequest};
use weighted::{WeightedBot, X_SQUARE, weight};

const X_SQUARES: Bitboard = Bitboard(0x0042_0000_0000_4200);

#[test]
fn always_plays_a_legal_move_of_the_highest_weight() {
    let positions = random_game_positions(200, 11);
    assert!(positions.iter().any(Position::must_pass), "the sample must include forced passes");
    let (mut corners_taken, mut x_squares_avoided) = (0, 0);
    let mut bot = WeightedBot::default();
    for position in positions {
        let moves = position.legal_moves();
        let mv = legal_reply(&mut bot, position, Some(Duration::from_millis(10)));
        let Move::Play(square) = mv else {
            assert!(position.must_pass(), "passed with moves in\n{position}");
            continue;
        };
        let best = moves.into_iter().map(weight).max().unwrap();
        assert_eq!(weight(square), best, "{square} is not a best square in\n{position}");
        if !(moves & Bitboard::CORNERS).is_empty() {
            assert!(Bitboard::CORNERS.contains(square), "{square} instead of a corner in\n{position}");
            corners_taken += 1;
        }
        if !(moves & X_SQUARES).is_empty() && moves != moves & X_SQUARES && (moves & Bitboard::CORNERS).is_empty() {
            assert!(!X_SQUARES.contains(square), "{square} is an X-square, and there were others in\n{position}");
            x_squares_avoided += 1;
        }
    }
    assert!(corners_taken > 0 && x_squares_avoided > 0, "the sample must test both");
}

#[test]
fn plays_an_x_square_only_when_it_has_nothing_else() {
    // White's only move is b2, flipping c3 towards its disc on d4.
    let square = |name: &str| name.parse::<Square>().unwrap();
    let position = Position::from_discs(square("c3").bitboard(), square("d4").bitboard(), Color::White).unwrap();
    assert_eq!(position.legal_moves(), square("b2").bitboard());
    let mv = legal_reply(&mut WeightedBot::with_seed(1), position, None);
    assert_eq!(mv, Move::Play(square("b2")));
    assert_eq!(weight(square("b2")), X_SQUARE);
}

#[test]
fn breaks_ties_at_random() {
    // The four opening moves all weigh 0: each should come up.
    let start = Position::start();
    let mut bot = WeightedBot::with_seed(5);
    let chosen: HashSet<Move> = (0..400).map(|_| legal_reply(&mut bot, start, None)).collect();
    assert_eq!(chosen.len(), 4, "{chosen:?}");
}

#[test]
fn the_same_seed_replays_the_same_moves() {
    let positions = random_game_positions(20, 12);
    let moves = |bot: &mut WeightedBot| -> Vec<Move> {
        positions.iter().map(|&position| bot.think(&ThinkRequest { position, time_limit: None })).collect()
    };
    let mut first = WeightedBot::with_seed(42);
    let first_moves = moves(&mut first);
    assert_eq!(moves(&mut WeightedBot::with_seed(42)), first_moves);
    first.new_game();
    assert_eq!(moves(&mut first), first_moves);
    assert_ne!(moves(&mut WeightedBot::with_seed(43)), first_moves);
}

/// The squares named, as a bitboard.
fn squares(names: &[&str]) -> Bitboard {
    names.iter().map(|name| name.parse::<Square>().unwrap()).collect()
}

/// Black to move with discs on the squares named.
fn black_to_move(black: &[&str], white: &[&str]) -> Position {
    Position::from_discs(squares(black), squares(white), Color::Black).unwrap()
}

/// Every move a seeded bot chooses in `position` over many calls.
fn chosen_moves(position: Position) -> Bitboard {
    let mut bot = WeightedBot::with_seed(17);
    (0..200)
        .map(|_| match legal_reply(&mut bot, position, None) {
            Move::Play(square) => square,
            Move::Pass => panic!("passed with moves in\n{position}"),
        })
        .collect()
}

#[test]
fn takes_a_corner_over_every_other_kind_of_move() {
    let position = black_to_move(&["c1", "f8", "c4", "e4", "f4"], &["b1", "g8", "b4", "f3", "f5"]);
    let corners = squares(&["a1", "h8"]);
    let x_square_edge_and_inner = squares(&["g2", "a4", "f2", "f6", "g6"]);
    assert_eq!(position.legal_moves(), corners | x_square_edge_and_inner, "in\n{position}");
    assert_eq!(chosen_moves(position), corners, "both corners and nothing else, in\n{position}");
}

#[test]
fn without_a_corner_takes_an_edge_and_never_an_x_square() {
    let position = black_to_move(&["c4", "e4", "f4", "e6"], &["b4", "f3", "f5", "e7"]);
    let edges = squares(&["a4", "e8"]);
    let x_square_and_inner = squares(&["g2", "f2", "f6", "g4", "g6"]);
    assert_eq!(position.legal_moves(), edges | x_square_and_inner, "in\n{position}");
    assert_eq!(chosen_moves(position), edges, "both edges and nothing else, in\n{position}");
}

#[test]
fn prefers_any_inner_move_to_an_x_square() {
    let position = black_to_move(&["e4", "f4"], &["f3", "f5"]);
    let inner = squares(&["f2", "f6", "g6"]);
    assert_eq!(position.legal_moves(), inner | squares(&["g2"]), "in\n{position}");
    assert_eq!(chosen_moves(position), inner, "every inner move and not the X-square g2, in\n{position}");
}

#[test]
fn beats_random_play_clearly() {
    // The classic table scores about 71 % against uniform random play; a
    // much lower score means a bug. 200 games, 100 with each colour.
    const GAMES: u64 = 200;
    const MIN_SCORE: f64 = 0.6;
    let mut points = 0.0;
    for game in 0..GAMES {
        let mut weighted = WeightedBot::with_seed(game);
        let mut random = UniformRandom::with_seed(1000 + game);
        points += if game % 2 == 0 {
            play_game(&mut weighted, &mut random, Position::start())
        } else {
            1.0 - play_game(&mut random, &mut weighted, Position::start())
        };
    }
    let score = points / GAMES as f64;
    eprintln!("weighted vs random: {:.1} % over {GAMES} games", 100.0 * score);
    assert!(score >= MIN_SCORE, "weighted scored only {:.1} % against random", 100.0 * score);
}

/// Uniform random play, seeded: the opponent the classic table is measured
/// against. (Not the `random` crate: two bot crates linked into one test
/// binary would both export the plugin symbols.)
struct UniformRandom(rand::rngs::SmallRng);

impl UniformRandom {
    fn with_seed(seed: u64) -> UniformRandom {
        UniformRandom(rand::SeedableRng::seed_from_u64(seed))
    }
}

impl Default for UniformRandom {
    fn default() -> UniformRandom {
        UniformRandom::with_seed(0)
    }
}

impl othello_sdk::Bot for UniformRandom {
    const NAME: &'static str = "Uniform random";

    fn new_game(&mut self) {}

    fn think(&mut self, request: &othello_sdk::ThinkRequest) -> Move {
        use rand::RngExt;
        let moves = request.position.legal_moves();
        match moves.count() {
            0 => Move::Pass,
            n => Move::Play(moves.into_iter().nth(self.0.random_range(0..n as usize)).unwrap()),
        }
    }
}
