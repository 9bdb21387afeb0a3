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
                referee.submit(Ok(Reply { byte: mv.to_byte(), elapsed, info, cpu: None, throttled: None }));
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
    assert!(
        referee
            .submit(Ok(Reply { byte: 0x23, elapsed: Duration::ZERO, info: None, cpu: None, throttled: None }))
            .is_none()
    );
    assert!(referee.moves().is_empty());
    assert_eq!(*referee.position(), Position::start());
}

/// The records of `tests/data/ggf-real.txt`, exactly as GGS, NBoard and Edax wrote them (a copy
/// of the shared test data; its comments say where each comes from), one text per line.
fn real_records() -> Vec<&'static str> {
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ggf-real.txt"))
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .collect()
}

fn square_moves(game: &ggf::GgfGame) -> String {
    game.moves.iter().filter(|m| m.mv != Move::Pass).map(|m| m.mv.to_string()).collect()
}

#[test]
fn games_as_ggs_writes_them_are_read_with_their_official_results() {
    let records = real_records();
    // A match line of one game: finished, and the result GGS wrote (`RE[+6.000]`) is the one the
    // board gives.
    let games = ggf::parse(records[0]).unwrap();
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!((game.black.as_str(), game.white.as_str()), ("hercule", "scorp+"));
    let result = game.result.as_ref().expect("a finished game");
    assert_eq!(result.end, End::Normal);
    assert_eq!(result.discs[0] as i32 - result.discs[1] as i32, 6, "RE[+6.000]");
    assert_eq!(game.moves.len(), 60);
    assert!(square_moves(game).starts_with("d3c5e6d2c3"), "upper- and lower-case moves: {}", square_moves(game));
    // `d2/-2.42/0.04`: eval and time; `D3//3.95`: time only.
    assert_eq!(game.moves[3].info.and_then(|i| i.eval), Some(-2.42));
    assert_eq!(game.moves[0].info, None);
    assert_eq!(game.moves[0].elapsed, Duration::from_millis(3950));
    assert_eq!(game.started_at, 1_287_292_985, "2010.10.17_05:23:05 (the zone is not converted)");

    // A synchro match line: two games back to back, colours swapped, `pass` written out; both
    // drawn (`RE[+0.000]`), as the board says.
    let games = ggf::parse(records[1]).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!((games[0].black.as_str(), games[1].black.as_str()), ("Saio7000", "Saio3001"));
    for game in &games {
        let result = game.result.as_ref().expect("finished");
        assert_eq!((result.winner, result.end.clone()), (None, End::Normal), "RE[+0.000]");
    }
    assert!(games[0].moves.iter().any(|m| m.mv == Move::Pass), "B[pass] is a pass");
    // The arena's reader takes them as finished games.
    assert_eq!(ggf::read_games(records[1]).unwrap().len(), 2);
}

#[test]
fn a_game_in_progress_as_nboard_and_edax_write_it_is_read_without_a_result() {
    let records = real_records();
    // NBoard's `set game`: RE[?], a dashed date, a clock without increment, `C4//5.558` (no eval).
    let game = &ggf::parse(records[2]).unwrap()[0];
    assert_eq!(game.result, None, "RE[?] is a game in progress");
    assert_eq!((game.black.as_str(), game.white.as_str()), ("Andy", "rustrs"));
    assert_eq!(square_moves(game), "c4c3f5");
    assert_eq!(game.moves[0].elapsed, Duration::from_millis(5558));
    assert_eq!(game.moves[0].info, None);
    assert_eq!(game.started_at, 1_569_727_334, "2019-09-29 03:22:14 GMT");
    // Edax's saved game in progress: RE[-127.000], lower-case GM, rows split by spaces.
    let game = &ggf::parse(records[3]).unwrap()[0];
    assert_eq!(game.result, None, "Edax's -127 is its mark of a game in progress");
    assert_eq!(square_moves(game), "f5d6c3d3c4");
    // The arena's reader, which takes finished games only, says why it refuses them.
    for record in &records[2..] {
        let error = ggf::read_games(record).unwrap_err();
        assert!(error.message.contains("unfinished"), "{error}");
    }
    // Leaving `RE` out, or leaving it empty, is the same.
    let without = records[2].replace("RE[?]", "");
    assert_eq!(ggf::parse(&without).unwrap()[0].result, None);
    assert_eq!(ggf::parse(&records[2].replace("RE[?]", "RE[]")).unwrap()[0].result, None);
}

#[test]
fn results_that_are_not_results_are_refused_with_the_reason() {
    let nboard = real_records()[2];
    for garbage in ["RE[??]", "RE[abc]", "RE[+70.00]", "RE[nan]", "RE[-127.5]"] {
        let error = ggf::parse(&nboard.replace("RE[?]", garbage)).unwrap_err();
        assert_eq!(error.game, 1);
        assert!(
            error.message.contains("is not a result") && error.message.contains("? for a game in progress"),
            "{garbage}: {error}"
        );
    }
    // A game cut short with a result is an early end, as before.
    let resigned = ggf::parse(&nboard.replace("RE[?]", "RE[+64.00:r]")).unwrap();
    assert_eq!(resigned[0].result, Some(Outcome::resigned(Color::White)));
}

/// A move's CPU time and the time its CPU share held it back are kept in the JSON record (and
/// absent when not measured), so a state folder says which moves a bot's threads were slowed in.
#[test]
fn a_moves_cpu_time_and_throttling_survive_the_json_record() {
    use othello_arena::record::MoveRecord;
    let held_back = MoveRecord {
        color: Color::Black,
        mv: "f5".parse::<Move>().unwrap(),
        elapsed: Duration::from_millis(250),
        info: None,
        cpu: Some(Duration::from_millis(240)),
        throttled: Some(Duration::from_millis(130)),
    };
    let json = serde_json::to_value(&held_back).unwrap();
    assert_eq!((json["cpu_ns"].as_u64(), json["throttled_ns"].as_u64()), (Some(240_000_000), Some(130_000_000)));
    assert_eq!(serde_json::from_value::<MoveRecord>(json).unwrap(), held_back);

    let unmeasured = MoveRecord { cpu: None, throttled: None, ..held_back };
    let json = serde_json::to_value(&unmeasured).unwrap();
    assert!(json.get("throttled_ns").is_none() && json.get("cpu_ns").is_none(), "{json}");
    assert_eq!(serde_json::from_value::<MoveRecord>(json).unwrap(), unmeasured);
}
