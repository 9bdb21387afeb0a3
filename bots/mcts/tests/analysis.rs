//! The analysis (every legal move's win rate): every legal move valued, a winning move found.

use std::time::Duration;

use mcts::MctsBot;
use othello_sdk::{Bot, Position, ThinkRequest, parse_transcript_from};

fn after(transcript: &str) -> Position {
    parse_transcript_from(Position::start(), transcript).unwrap().1
}

#[test]
fn every_legal_move_gets_a_win_rate() {
    let mut bot = MctsBot::with_seed(3);
    bot.new_game();
    for position in [Position::start(), after("f5d6c3d3c4"), after("f5f6e6f4e3c5c4")] {
        let request = ThinkRequest { position, time_limit: Some(Duration::from_millis(50)) };
        let values = bot.analyze(&request).expect("mcts analyses");
        let mut squares: Vec<_> = values.iter().map(|v| v.square).collect();
        squares.sort_by_key(|s| s.index());
        assert_eq!(squares, position.legal_moves().into_iter().collect::<Vec<_>>());
        for value in &values {
            let rate = value.win_rate.expect("a win rate");
            assert!((0.0..=1.0).contains(&rate), "{value:?}");
            assert!(value.depth.is_some_and(|visits| visits > 0));
            assert_eq!(value.eval, None, "MCTS knows no disc values");
        }
        let rates: Vec<f64> = values.iter().map(|v| v.win_rate.unwrap()).collect();
        assert!(rates.windows(2).all(|w| w[0] >= w[1]), "best first: {rates:?}");
    }
}

#[test]
fn a_move_that_wins_at_once_has_a_certain_win() {
    // One move before the shortest game ends: black's f4 wipes white out.
    let position = after("d3c3b3d2e1d6d7e3");
    let mut bot = MctsBot::with_seed(3);
    bot.new_game();
    let values = bot.analyze(&ThinkRequest { position, time_limit: Some(Duration::from_millis(50)) }).unwrap();
    assert_eq!(values[0].square.to_string(), "f4", "{values:?}");
    assert_eq!(values[0].win_rate, Some(1.0));
}
