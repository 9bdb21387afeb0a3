//! The random bot plays every legal move with the same chance, passes when it
//! must, and replays the same moves from the same seed.

use std::time::Duration;

use othello_sdk::testing::{legal_reply, random_game_positions};
use othello_sdk::{Bot, Move, Position, ThinkRequest};
use random::RandomBot;

#[test]
fn always_plays_a_legal_move_and_passes_when_it_must() {
    let positions = random_game_positions(200, 1);
    let forced_passes = positions.iter().filter(|p| p.must_pass()).count();
    assert!(forced_passes > 0, "the sample must include forced passes");
    let mut bot = RandomBot::default();
    for position in positions {
        let mv = legal_reply(&mut bot, position, Some(Duration::from_millis(10)));
        assert_eq!(mv == Move::Pass, position.must_pass());
    }
}

#[test]
fn moves_are_uniformly_distributed() {
    // Four legal moves at the start; each should come up a quarter of the time.
    const DRAWS: usize = 8000;
    let start = Position::start();
    let mut bot = RandomBot::with_seed(3);
    let mut counts = std::collections::HashMap::new();
    for _ in 0..DRAWS {
        *counts.entry(legal_reply(&mut bot, start, None)).or_insert(0usize) += 1;
    }
    assert_eq!(counts.len(), 4, "{counts:?}");
    for (mv, count) in counts {
        // Expected 2000 ± 39 (one standard deviation).
        assert!((1800..=2200).contains(&count), "{mv} drawn {count} times out of {DRAWS}");
    }
}

#[test]
fn the_same_seed_replays_the_same_moves() {
    let positions = random_game_positions(20, 2);
    let moves = |bot: &mut RandomBot| -> Vec<Move> {
        positions.iter().map(|&position| bot.think(&ThinkRequest { position, time_limit: None })).collect()
    };
    let mut first = RandomBot::with_seed(42);
    let first_moves = moves(&mut first);
    assert_eq!(moves(&mut RandomBot::with_seed(42)), first_moves);
    // A new game starts from the seed again.
    first.new_game();
    assert_eq!(moves(&mut first), first_moves);
    // And another seed plays differently somewhere.
    assert_ne!(moves(&mut RandomBot::with_seed(43)), first_moves);
}

#[test]
fn clock_seeded_bots_differ() {
    let positions = random_game_positions(20, 4);
    let moves = |mut bot: RandomBot| -> Vec<Move> {
        bot.new_game();
        positions.iter().map(|&position| bot.think(&ThinkRequest { position, time_limit: None })).collect()
    };
    let first = moves(RandomBot::default());
    std::thread::sleep(Duration::from_millis(2));
    assert_ne!(moves(RandomBot::default()), first, "two games seeded from the clock played alike");
}

#[test]
fn every_legal_move_is_equally_likely_whatever_their_number() {
    // The start's four moves can hide a pick that is only right for some
    // counts (an off-by-one, a biased range): check one position per number
    // of legal moves a game offers.
    const DRAWS_PER_MOVE: usize = 1000;
    let mut by_count = std::collections::BTreeMap::new();
    for position in random_game_positions(50, 8) {
        let count = position.legal_moves().count();
        if count >= 2 {
            by_count.entry(count).or_insert(position);
        }
    }
    assert!(by_count.len() >= 10, "the sample must offer many move counts: {:?}", by_count.keys());
    let mut bot = RandomBot::with_seed(9);
    for (&count, &position) in &by_count {
        let mut draws = std::collections::HashMap::new();
        for _ in 0..DRAWS_PER_MOVE * count as usize {
            *draws.entry(legal_reply(&mut bot, position, None)).or_insert(0usize) += 1;
        }
        assert_eq!(draws.len(), count as usize, "not every move was drawn: {draws:?} in\n{position}");
        let expected = DRAWS_PER_MOVE as f64;
        let chi_square: f64 = draws.values().map(|&drawn| (drawn as f64 - expected).powi(2) / expected).sum();
        let bound = chi_square_bound(count - 1);
        assert!(chi_square < bound, "χ² = {chi_square:.1} ≥ {bound:.1} for {count} moves: {draws:?} in\n{position}");
    }
}

/// The χ² value that uniform draws over `degrees_of_freedom + 1` outcomes
/// exceed with probability 0.001 (Wilson and Hilferty's approximation, within
/// 3 % of the tables for 1 degree of freedom and closer above).
fn chi_square_bound(degrees_of_freedom: u32) -> f64 {
    const Z_ONE_IN_A_THOUSAND: f64 = 3.09;
    let k = f64::from(degrees_of_freedom);
    let spread = 2.0 / (9.0 * k);
    k * (1.0 - spread + Z_ONE_IN_A_THOUSAND * spread.sqrt()).powi(3)
}
