//! The random bot plays every legal move with the same chance, passes when it
//! must, answers at once, and replays the same moves from the same seed.

use std::time::Duration;

use othello_sdk::testing::{legal_reply, random_game_positions, think_time};
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
fn answers_within_a_small_time_limit() {
    let mut bot = RandomBot::default();
    for position in random_game_positions(3, 5) {
        let took = think_time(&mut bot, position, Duration::from_millis(30));
        assert!(took < Duration::from_millis(300), "took {took:?}");
    }
}
