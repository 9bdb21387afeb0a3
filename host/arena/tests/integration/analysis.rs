//! Seats' analysis (the optional `othello_analyze` export) through isolated runners and in
//! process: every legal move valued, garbage checked out, a hang stopped like a hanging think,
//! and bots without the export reported as such.

use std::time::Duration;

use othello_arena::seat::{AnalysisError, Seat, SeatSpec, Termination, open_seat};
use othello_sdk::{Position, parse_transcript_from};
use othello_testkit::*;

fn opened(spec: &SeatSpec) -> Box<dyn Seat> {
    let mut seat = open_seat(spec).expect("the fixture loads");
    seat.new_game().expect("the game starts");
    seat
}

fn after(transcript: &str) -> Position {
    parse_transcript_from(Position::start(), transcript).unwrap().1
}

const ANALYSIS_TIME: Option<Duration> = Some(TEST_TIME_LIMIT);

#[test]
fn every_legal_move_is_valued_best_first_in_both_seat_kinds() {
    for spec in [isolated(&fixture("analyzes")), in_process(&fixture("analyzes"))] {
        let mut seat = opened(&spec);
        assert!(seat.analyzes());
        for position in [Position::start(), after("f5d6c3d3c4"), after("f5f6e6f4e3c5c4e7")] {
            let analysis = seat.analyze(&position, ANALYSIS_TIME).unwrap();
            assert!(analysis.rejected.is_empty(), "{:?}", analysis.rejected);
            let mut valued: Vec<_> = analysis.values.iter().map(|v| v.square).collect();
            valued.sort_by_key(|s| s.index());
            assert_eq!(valued, position.legal_moves().into_iter().collect::<Vec<_>>(), "every legal move once");
            for value in &analysis.values {
                assert_eq!(value.eval, Some(f64::from(position.flips(value.square).count())));
                assert_eq!(value.depth, Some(1));
            }
            let evals: Vec<f64> = analysis.values.iter().map(|v| v.eval.unwrap()).collect();
            assert!(evals.windows(2).all(|w| w[0] >= w[1]), "best first: {evals:?}");
        }
        // The seat still plays after analysing.
        let reply = seat.think(&Position::start(), ANALYSIS_TIME).unwrap();
        assert_eq!(reply.byte, 0x23, "d3, the first legal move");
    }
}

#[test]
fn a_garbage_analysis_is_checked_and_only_its_sound_part_kept() {
    for spec in [isolated(&fixture("analysis_garbage")), in_process(&fixture("analysis_garbage"))] {
        let mut seat = opened(&spec);
        let position = after("f5d6");
        let analysis = seat.analyze(&position, ANALYSIS_TIME).unwrap();
        let first = position.legal_moves().first().unwrap();
        assert_eq!(analysis.values.len(), 1, "{analysis:?}");
        assert_eq!((analysis.values[0].square, analysis.values[0].eval), (first, Some(2.0)));
        let reasons = analysis.rejected.join("\n");
        for expected in [
            "claimed 1000 values with room for 64",
            "byte 0x88 is not a square",
            "a1 is not a legal move",
            "was already valued",
            "a pass is not a move to value",
        ] {
            assert!(reasons.contains(expected), "{expected:?} missing from\n{reasons}");
        }
        // The host survives and the bot plays on.
        assert!(seat.think(&position, ANALYSIS_TIME).is_ok());
    }
}

#[test]
fn a_bot_hanging_in_its_analysis_is_stopped_and_a_new_game_gets_a_fresh_runner() {
    let mut seat = opened(&isolated(&fixture("analysis_hang")));
    let error = seat.analyze(&Position::start(), Some(Duration::from_millis(50))).unwrap_err();
    let AnalysisError::Failed(failure) = error else { panic!("{error:?}") };
    assert_eq!(failure.termination, Termination::Timeout, "{failure}");
    assert!(failure.detail.contains("no analysis within"), "{failure}");
    seat.new_game().expect("a fresh runner");
    assert_eq!(seat.think(&Position::start(), ANALYSIS_TIME).unwrap().byte, 0x23);
}

#[test]
fn a_bot_crashing_in_its_analysis_is_reported_and_the_host_lives_on() {
    let mut seat = opened(&isolated(&fixture("analysis_crash")));
    let error = seat.analyze(&Position::start(), ANALYSIS_TIME).unwrap_err();
    let AnalysisError::Failed(failure) = error else { panic!("{error:?}") };
    assert_eq!(failure.termination, Termination::Crash, "{failure}");
    assert!(failure.detail.contains("SIGSEGV") && failure.detail.contains("othello_analyze"), "{failure}");
    seat.new_game().expect("a fresh runner");
    assert_eq!(seat.think(&Position::start(), ANALYSIS_TIME).unwrap().byte, 0x23);
}

#[test]
fn bots_without_the_export_say_so_and_keep_playing() {
    for spec in [isolated(&fixture("first_legal")), in_process(&fixture("first_legal"))] {
        let mut seat = opened(&spec);
        assert!(!seat.analyzes());
        assert_eq!(seat.analyze(&Position::start(), ANALYSIS_TIME), Err(AnalysisError::Unsupported));
        assert!(seat.think(&Position::start(), ANALYSIS_TIME).is_ok());
    }
}
