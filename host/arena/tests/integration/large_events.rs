//! Events streamed through `play` into a state folder: the checkpoint spares a resume the log,
//! and shards of an event add up to the event.

use std::sync::atomic::AtomicBool;

use othello_arena::event::merge::merge;
use othello_arena::event::state::{CHECKPOINT_FILE, GAMES_FILE, SavedEvent, StateDir, StateError};
use othello_arena::event::{
    ArenaEvent, EventSink, EventSpec, Format, OpeningSource, Participant, Plan, RunOptions, Shard, play,
};
use othello_testkit::{fixture, in_process_seating};

fn spec() -> EventSpec {
    let participant = |name: &str, fixture_name: &str| Participant {
        name: name.to_owned(),
        library: fixture(fixture_name),
        level: None,
    };
    EventSpec {
        participants: vec![
            participant("A", "first_legal"),
            participant("B", "first_legal"),
            participant("P", "illegal_pass"),
        ],
        format: Format::Tournament { rounds: 3, games_per_pair: 7 },
        openings: OpeningSource::Random { plies: 5 },
        seed: 11,
        time_limit_ms: None,
        sprt: None,
    }
}

/// Saves every finished game, as the command line does.
struct Saver {
    state: StateDir,
    plan: Plan,
    finished: usize,
}

impl EventSink for Saver {
    fn event(&mut self, event: ArenaEvent) {
        if let ArenaEvent::GameFinished(game) = event {
            self.state.append(&game).unwrap();
            self.plan.record(&game);
            self.finished += 1;
        }
    }
}

fn run(dir: &std::path::Path, spec: &EventSpec, shard: Option<Shard>) -> Plan {
    let event = SavedEvent { spec: spec.clone(), shard };
    let state = StateDir::create_event(dir, &event).unwrap();
    let mut saver = Saver { state, plan: event.plan(), finished: 0 };
    let options = RunOptions { seating: in_process_seating(), concurrency: 2, live_moves: false, affinity: false };
    let outcome = play(spec, &options, event.plan(), &AtomicBool::new(false), &mut saver);
    assert_eq!(outcome.unplayed, 0);
    assert_eq!(saver.finished, outcome.done.len());
    assert_eq!(saver.plan.tally, outcome.tally);
    saver.state.checkpoint(&saver.plan).unwrap();
    outcome_plan(outcome)
}

fn outcome_plan(outcome: othello_arena::event::PlayOutcome) -> Plan {
    Plan { done: outcome.done, tally: outcome.tally, sprt_stops: false }
}

#[test]
fn a_resume_reads_the_checkpoint_not_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec();
    let played = run(dir.path(), &spec, None);
    assert_eq!(played.done.len(), spec.game_count());

    let resumed = StateDir::inspect(dir.path()).unwrap();
    assert_eq!(resumed.read_from_log, 0, "the checkpoint covers every game");
    assert!(resumed.plan.done.is_complete());
    assert_eq!(resumed.plan.tally, played.tally);

    // Without the checkpoint the log alone gives the same standings.
    std::fs::remove_file(dir.path().join(CHECKPOINT_FILE)).unwrap();
    let resumed = StateDir::inspect(dir.path()).unwrap();
    assert_eq!(resumed.read_from_log, spec.game_count());
    assert_eq!(resumed.plan.tally, played.tally);
}

#[test]
fn shards_add_up_to_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec();
    let whole = run(&dir.path().join("whole"), &spec, None);
    let count = 3;
    let shards: Vec<_> = (0..count).map(|index| dir.path().join(format!("shard{index}"))).collect();
    for (index, shard_dir) in shards.iter().enumerate() {
        let part = run(shard_dir, &spec, Some(Shard { index, count }));
        assert_eq!(part.done.range(), spec.shard_games(Shard { index, count }));
    }
    let merged = merge(&dir.path().join("merged"), &shards).unwrap();
    assert_eq!(merged.plan.tally, whole.tally);
    assert_eq!(merged.plan.tally.standings(), whole.tally.standings());

    // Another seed is another event.
    let mut other = spec.clone();
    other.seed += 1;
    run(&dir.path().join("other"), &other, Some(Shard { index: 0, count }));
    let mixed = [dir.path().join("other"), shards[1].clone(), shards[2].clone()];
    let error = merge(&dir.path().join("mixed"), &mixed).unwrap_err();
    assert!(error.contains("the seeds differ: 12 against 11"), "{error}");
}

/// A caller tells a folder without an event, one that holds an event already and a damaged log
/// apart by the error's kind, and each says what to do.
#[test]
fn state_folder_errors_say_which_case_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let error = StateDir::inspect(dir.path()).expect_err("no event there");
    assert!(matches!(error, StateError::NoEvent { .. }), "{error:?}");
    assert!(error.to_string().contains("was the event started with --state?"), "{error}");

    let event = SavedEvent { spec: spec(), shard: None };
    drop(StateDir::create_event(dir.path(), &event).unwrap());
    let error = StateDir::create_event(dir.path(), &event).err().expect("an event is there already");
    assert!(matches!(error, StateError::AlreadyHoldsAnEvent { .. }), "{error:?}");
    assert!(error.to_string().contains("add --resume"), "{error}");

    std::fs::write(dir.path().join(GAMES_FILE), "not a game\n{}\n").unwrap();
    let error = StateDir::inspect(dir.path()).expect_err("a damaged log");
    assert!(matches!(error, StateError::Damaged { at_byte: Some(0), .. }), "{error:?}");
}
