//! The one game model through its readers and writers: every game the referee can produce —
//! passes, resignations and forfeits included — survives GGF and JSON unchanged, and the GGF and
//! transcript readers never panic on arbitrary input.

use std::time::Duration;

use othello_arena::ggf;
use othello_arena::record::{End, GameRecord, Outcome};
use othello_arena::referee::{Opening, Referee};
use othello_arena::seat::{Failure, Reply, Termination};
use othello_sdk::{Color, Move, Position, SearchInfo, SplitMix64};
use proptest::prelude::*;

/// How a generated game ends.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// Played out.
    Normal,
    /// The side to move resigns at this ply (or the game ends first).
    ResignAt(usize),
    /// The side to move loses on time at this ply.
    TimeoutAt(usize),
}

fn ending() -> impl Strategy<Value = Ending> {
    prop_oneof![Just(Ending::Normal), (0usize..70).prop_map(Ending::ResignAt), (0usize..70).prop_map(Ending::TimeoutAt),]
}

/// A game from the standard start through the referee: random legal moves (forced passes too),
/// each with a time and an evaluation GGF keeps exactly (hundredths).
fn random_game(seed: u64, ending: Ending, names: [String; 2], time_limit_s: Option<u64>) -> GameRecord {
    let mut rng = SplitMix64::new(seed);
    let mut referee = Referee::new(&Opening::none());
    let mut ply = 0;
    while let Some(color) = referee.to_move() {
        match ending {
            Ending::ResignAt(at) if at == ply => referee.resign(color),
            Ending::TimeoutAt(at) if at == ply => {
                referee.submit(Err(Failure::new(Termination::Timeout, "no move within 1100 ms")));
            }
            _ => {
                let position = *referee.position();
                let legal: Vec<_> = position.legal_moves().into_iter().collect();
                let mv = if legal.is_empty() {
                    Move::Pass
                } else {
                    Move::Play(legal[rng.below(legal.len() as u32) as usize])
                };
                let eval = f64::from(rng.below(12_801) as i32 - 6_400) / 100.0;
                let info = (rng.below(2) == 0).then_some(SearchInfo { eval: Some(eval), ..SearchInfo::default() });
                let elapsed = Duration::from_millis(10 * u64::from(rng.below(500)));
                referee.submit(Ok(Reply { byte: mv.to_byte(), elapsed, info, cpu: None }));
            }
        }
        ply += 1;
    }
    referee.into_record(names, time_limit_s.map(Duration::from_secs), 1_700_000_000 + seed % 100_000_000).expect("over")
}

fn name() -> impl Strategy<Value = String> {
    // Brackets and backslashes are what GGF must escape.
    "[A-Za-z0-9 _\\-\\]\\[\\\\@.]{1,20}"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_game_survives_ggf_unchanged(
        seed in any::<u64>(),
        ending in ending(),
        black in name(),
        white in name(),
        time_limit_s in proptest::option::of(1u64..600),
    ) {
        let game = random_game(seed, ending, [black, white], time_limit_s);
        let line = ggf::write_game(&game);
        let read = ggf::read_games(&line).map_err(|e| TestCaseError::fail(format!("{e}\n{line}")))?;
        prop_assert_eq!(read.len(), 1);
        let mut back = read.into_iter().next().unwrap();
        // GGF names no failure beyond "on time": the detail is the reader's own words.
        if let (End::Forfeit { failure: original, .. }, End::Forfeit { failure: read, .. }) =
            (&game.result.end, &mut back.result.end)
        {
            prop_assert_eq!(read.termination, original.termination);
            read.detail.clone_from(&original.detail);
        }
        prop_assert_eq!(back, game);
    }

    #[test]
    fn every_game_survives_json_unchanged(seed in any::<u64>(), ending in ending()) {
        let game = random_game(seed, ending, ["Black bot".into(), "White bot".into()], Some(5));
        let json = serde_json::to_string(&game).unwrap();
        let back: GameRecord = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, game);
    }

    /// Fuzzing in miniature (the `fuzz/` targets run the same readers under libFuzzer): arbitrary
    /// bytes are an error or a game, never a panic or a hang.
    #[test]
    fn the_ggf_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = ggf::parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn the_ggf_reader_never_panics_on_near_misses(seed in any::<u64>(), cut in any::<usize>(), junk in ".{0,8}") {
        let line = ggf::write_game(&random_game(seed, Ending::Normal, ["a".into(), "b".into()], None));
        let at = line.char_indices().map(|(i, _)| i).nth(cut % line.chars().count()).unwrap_or(0);
        let _ = ggf::parse(&format!("{}{junk}{}", &line[..at], &line[at..]));
        let _ = ggf::parse(&line[..at]);
    }

    #[test]
    fn the_transcript_reader_never_panics(text in ".{0,200}") {
        let _ = othello_sdk::parse_transcript(&text);
    }
}

#[test]
fn a_resignation_is_its_own_end_in_ggf_and_json() {
    let mut referee = Referee::new(&Opening::parse("f5d6").unwrap());
    referee.resign(Color::Black);
    let game = referee.into_record(["Alice".into(), "Bob".into()], None, 0).unwrap();
    assert_eq!(game.result, Outcome::resigned(Color::Black));
    assert_eq!(game.result.termination(), Termination::Resigned);
    assert_eq!(game.result.winner, Some(Color::White));
    assert_eq!(game.result.discs, [0, 64]);

    let line = ggf::write_game(&game);
    assert!(line.contains("RE[-64.00:r]"), "{line}");
    let back = &ggf::read_games(&line).unwrap()[0];
    assert_eq!(back.result, game.result);
    assert_eq!(back.transcript(), "f5d6");

    let json = serde_json::to_value(&game).unwrap();
    assert_eq!(json["result"]["termination"], "resigned");
    assert_eq!(json["result"]["loser"], "black");
    let back: GameRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back.result, game.result);
}

#[test]
fn a_result_that_contradicts_itself_is_refused_in_json() {
    let game = random_game(7, Ending::ResignAt(10), ["a".into(), "b".into()], None);
    let mut json = serde_json::to_value(&game).unwrap();
    json["result"]["winner"] = json["result"]["loser"].clone();
    let error = serde_json::from_value::<GameRecord>(json).unwrap_err().to_string();
    assert!(error.contains("must be the other side"), "{error}");

    let mut json = serde_json::to_value(&game).unwrap();
    json["result"]["termination"] = "normal".into();
    assert!(serde_json::from_value::<GameRecord>(json).is_err(), "a normal end has no loser");
}

#[test]
fn the_referee_scores_a_seat_that_failed_before_its_first_move() {
    let mut referee = Referee::new(&Opening::none());
    referee.forfeit(Color::White, Failure::new(Termination::LoadError, "file too short"));
    assert_eq!(referee.to_move(), None);
    let outcome = referee.outcome().unwrap();
    assert_eq!((outcome.winner, outcome.discs, outcome.loser()), (Some(Color::Black), [64, 0], Some(Color::White)));
    assert_eq!(outcome.detail(), "file too short");
    // Answers after the end change nothing.
    assert!(referee.submit(Ok(Reply { byte: 0x23, elapsed: Duration::ZERO, info: None, cpu: None })).is_none());
    assert!(referee.moves().is_empty());
    assert_eq!(*referee.position(), Position::start());
}
