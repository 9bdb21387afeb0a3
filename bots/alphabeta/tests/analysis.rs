//! The analysis (every legal move's value) against known facts: near the end, the exact value of
//! every move of FFO problems equals the file's per-move scores; in the midgame every legal move
//! gets a value.

use std::collections::BTreeMap;
use std::time::Duration;

use alphabeta::AlphaBetaBot;
use othello_sdk::{Bot, Position, ThinkRequest, parse_transcript_from};

const FFO_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ffo.txt");

/// A limit no solve here comes near (the solves of 14-empty problems take milliseconds): the
/// values must be exact because the solves finish, not because of the machine's speed.
const GENEROUS: Option<Duration> = Some(Duration::from_secs(120));

/// (id, position, every legal move with its exact score) of the file's problems.
fn problems() -> Vec<(u32, Position, BTreeMap<String, i32>)> {
    let text = std::fs::read_to_string(FFO_FILE).expect("tests/data/ffo.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let position = Position::from_board_string(&format!("{} {}", fields[1], fields[2])).unwrap();
            let scores = fields[5]
                .split(',')
                .map(|pair| {
                    let (mv, score) = pair.split_once(':').unwrap();
                    (mv.to_owned(), score.parse().unwrap())
                })
                .collect();
            (fields[0].parse().unwrap(), position, scores)
        })
        .collect()
}

#[test]
fn near_the_end_every_move_gets_its_exact_ffo_score() {
    let mut bot = AlphaBetaBot::with_seed(1);
    let mut checked = 0;
    for (id, position, scores) in problems().into_iter().filter(|(id, _, _)| (1..=7).contains(id) || *id == 20) {
        bot.new_game();
        let values = bot.analyze(&ThinkRequest { position, time_limit: GENEROUS }).expect("alphabeta analyses");
        let legal: Vec<String> = position.legal_moves().into_iter().map(|s| s.to_string()).collect();
        assert_eq!(values.len(), legal.len(), "FFO #{id}: one value per legal move");
        let got: BTreeMap<String, i32> = values
            .iter()
            .map(|v| {
                assert!(v.exact, "FFO #{id}: {} is not exact: {v:?}", v.square);
                assert!(v.depth.is_some_and(|d| d >= 1 && d <= position.empty().count()), "{v:?}");
                (v.square.to_string(), v.eval.unwrap() as i32)
            })
            .collect();
        assert_eq!(got, scores, "FFO #{id}");
        let best = *scores.values().max().unwrap();
        assert_eq!(values[0].eval, Some(f64::from(best)), "FFO #{id}: best first");
        checked += 1;
    }
    assert_eq!(checked, 8);
}

#[test]
fn in_the_midgame_every_legal_move_gets_a_value() {
    let mut bot = AlphaBetaBot::with_seed(1);
    for transcript in ["", "f5d6c3d3c4", "f5f6e6f4e3c5c4"] {
        let position = parse_transcript_from(Position::start(), transcript).unwrap().1;
        let request = ThinkRequest { position, time_limit: Some(Duration::from_millis(100)) };
        let values = bot.analyze(&request).unwrap();
        let mut squares: Vec<_> = values.iter().map(|v| v.square).collect();
        squares.sort_by_key(|s| s.index());
        assert_eq!(squares, position.legal_moves().into_iter().collect::<Vec<_>>(), "{transcript}");
        for value in &values {
            let eval = value.eval.expect("an eval");
            assert!(eval.is_finite() && eval.abs() <= 64.0, "{value:?}");
            assert!(value.depth.is_some_and(|d| d >= 1), "{value:?}");
            assert!(!value.exact, "60 empties are not solved: {value:?}");
        }
        let evals: Vec<f64> = values.iter().map(|v| v.eval.unwrap()).collect();
        assert!(evals.windows(2).all(|w| w[0] >= w[1]), "best first: {evals:?}");
    }
}

#[test]
fn a_move_that_ends_the_game_is_valued_by_the_final_score() {
    // One move before the shortest game ends: black's f4 wipes white out, exact +64.
    let position = parse_transcript_from(Position::start(), "d3c3b3d2e1d6d7e3").unwrap().1;
    let mut bot = AlphaBetaBot::with_seed(1);
    let values = bot.analyze(&ThinkRequest { position, time_limit: Some(Duration::from_millis(100)) }).unwrap();
    let f4 = values.iter().find(|v| v.square.to_string() == "f4").expect("f4 is legal");
    assert_eq!((f4.eval, f4.exact), (Some(64.0), true));
    assert_eq!(values[0].square.to_string(), "f4");
}
