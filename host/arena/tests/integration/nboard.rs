//! NBoard seats against the scripted test engine (`host/testkit/nboard/fake_engine.sh`): replies
//! in the forms real engines send, and every failure as a named loss with the engine ended.
// Linux: the scripted engine is a shell script, and process checks read /proc.
#![cfg(target_os = "linux")]

use othello_arena::nboard::EngineSpec;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{Failure, NboardSeat, Seat, StopHandle, Termination, open_seat, open_seat_stoppable};
use othello_sdk::{Color, Move, Position};
use othello_testkit::{TEST_TIME_LIMIT, fake_nboard_engine, fixture, isolated, seat_options, wait_until_gone};

fn open_fake(mode: &str) -> Result<NboardSeat, Failure> {
    let name = fake_nboard_engine(mode);
    let spec = EngineSpec::from_bot_name(&name).expect("an nboard: name").expect("a command");
    NboardSeat::open(&spec, None, seat_options(), None)
}

fn f5() -> u8 {
    "f5".parse::<Move>().unwrap().to_byte()
}

#[test]
fn replies_with_spaces_lower_case_and_stray_lines_are_read_with_the_search_report() {
    for mode in ["spaced", "v1"] {
        let mut seat = open_fake(mode).unwrap();
        assert_eq!(seat.name(), format!("Fake {mode}"), "the engine's `set myname`");
        let reply = seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).unwrap();
        assert_eq!(reply.byte, f5(), "{mode}");
        let info = reply.info.expect("a search report");
        assert_eq!((info.eval, info.depth, info.nodes), (Some(1.5), Some(7), Some(1234)), "{mode}");
        // The engine stays in sync for the next game.
        seat.new_game().unwrap();
        assert_eq!(seat.think(&Position::start(), None).unwrap().byte, f5());
    }
}

#[test]
fn a_flood_of_stray_lines_is_read_through_to_the_answer() {
    let mut seat = open_fake("flood").unwrap();
    // No time limit: the answer is found however long the flood takes to read.
    assert_eq!(seat.think(&Position::start(), None).unwrap().byte, f5());
}

#[test]
fn the_host_answers_forced_passes_without_asking_the_engine() {
    // The hanging engine would time out if it were asked.
    let mut seat = open_fake("hang").unwrap();
    let must_pass = Position::from_board_string(&format!("OX{} X", "-".repeat(62))).unwrap();
    let reply = seat.think(&must_pass, Some(TEST_TIME_LIMIT)).unwrap();
    assert_eq!(reply.byte, Move::PASS_BYTE);
}

/// Plays the fake engine as black against a well-behaved fixture, and returns the record and
/// the engine's process id while it played.
fn game_against_fake(mode: &str) -> (othello_arena::record::GameRecord, u32) {
    let mut black = open_fake(mode).unwrap();
    let pid = black.engine_id().expect("a running engine");
    let mut white = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let record = play_game(&mut black, white.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
    (record, pid)
}

fn assert_lost_by_black(mode: &str, termination: Termination, detail: &str, stderr: Option<&str>) {
    let (record, pid) = game_against_fake(mode);
    let result = &record.result;
    assert_eq!(result.termination(), termination, "{mode}: {result:?}");
    assert_eq!(result.loser(), Some(Color::Black), "{mode}");
    assert!(result.detail().contains(detail), "{mode}: {}", result.detail());
    if let Some(line) = stderr {
        assert!(
            result.failure().map_or(&[][..], |f| &f.stderr_tail[..]).iter().any(|l| l.contains(line)),
            "{mode}: {:?}",
            result.failure().map_or(&[][..], |f| &f.stderr_tail[..])
        );
    }
    assert!(wait_until_gone(pid), "{mode}: the engine {pid} was ended and reaped");
}

#[test]
fn an_illegal_answer_loses_by_the_referee() {
    assert_lost_by_black("illegal", Termination::IllegalMove, "a1", None);
}

#[test]
fn a_garbage_answer_is_a_crash_naming_the_line() {
    assert_lost_by_black("garbage", Termination::Crash, "unparseable reply to `go`: `=== zz/1/1`", None);
}

#[test]
fn an_engine_that_exits_mid_game_is_a_crash_with_its_stderr() {
    assert_lost_by_black("crash", Termination::Crash, "exited with code 3", Some("giving up"));
}

#[test]
fn an_engine_that_never_answers_loses_on_time() {
    assert_lost_by_black("hang", Termination::Timeout, "no move within", None);
}

#[test]
fn an_engine_that_only_answers_f5_loses_its_second_move_by_the_referee() {
    // f5 is taken once it has been played: the engine's game is followed move by move.
    let (record, _) = game_against_fake("spaced");
    assert_eq!(record.moves.len(), 2);
    assert_eq!(record.result.termination(), Termination::IllegalMove);
    assert!(record.result.detail().contains("f5 is occupied"), "{}", record.result.detail());
}

#[test]
fn an_engine_that_exits_before_answering_is_a_load_error_with_its_stderr() {
    let failure = open_fake("exit-early").err().expect("no seat");
    assert_eq!(failure.termination, Termination::LoadError, "{failure}");
    assert!(failure.stderr_tail.iter().any(|l| l.contains("opening book")), "{failure}");
    let missing = EngineSpec::from_command("/no/such/engine --nboard").unwrap();
    let failure = NboardSeat::open(&missing, None, seat_options(), None).err().expect("no seat");
    assert_eq!(failure.termination, Termination::LoadError);
    assert!(failure.detail.contains("cannot start the engine"), "{failure}");
}

#[test]
fn whatever_the_engine_started_ends_with_it_and_the_next_game_gets_a_fresh_engine() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("sleep.pid");
    let mut seat = open_fake(&format!("spawner '{}'", pid_file.display())).unwrap();
    let engine = seat.engine_id().unwrap();
    // The engine wrote the file before it answered the ping that opening waited for.
    let sleeper: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let failure = seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).unwrap_err();
    assert_eq!(failure.termination, Termination::Timeout);
    assert!(wait_until_gone(engine), "the engine was ended");
    assert!(wait_until_gone(sleeper), "its background process was ended with it");
    assert_eq!(seat.engine_id(), None);
    seat.new_game().unwrap();
    let fresh = seat.engine_id().unwrap();
    assert_ne!(fresh, engine);
    let sleeper: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    drop(seat);
    assert!(wait_until_gone(fresh) && wait_until_gone(sleeper), "dropping the seat ends everything");
}

#[test]
fn a_new_game_pings_and_drops_what_the_engine_still_had_to_say() {
    let mut seat = open_fake("double").unwrap();
    assert_eq!(seat.think(&Position::start(), None).unwrap().byte, f5());
    // Its second answer (d3) is still in the pipe: `ping`/`pong` reads past it.
    seat.new_game().unwrap();
    assert_eq!(seat.think(&Position::start(), None).unwrap().byte, f5(), "not the stale d3");
}

#[test]
fn a_stopped_seat_ends_its_engine_and_starts_no_other() {
    let stop = StopHandle::new().unwrap();
    let spec = isolated(&fixture("first_legal"));
    let spec = othello_arena::seat::SeatSpec { library: fake_nboard_engine("hang").into(), ..spec };
    let mut seat = open_seat_stoppable(&spec, &stop).unwrap();
    stop.stop();
    // No time limit: only the stop ends the wait for the hanging engine.
    let failure = seat.think(&Position::start(), None).unwrap_err();
    assert_eq!(failure.termination, Termination::Crash);
    assert!(failure.detail.contains("stopped by the host"), "{failure}");
    let failure = seat.new_game().unwrap_err();
    assert!(failure.detail.contains("stopped by the host"), "{failure}");
}

/// The scripted engine copied into `folder` as `engine.sh`, described as an engines file does:
/// a relative program, run in `folder`, with init lines.
fn engine_in_folder(folder: &std::path::Path, mode: &str, name: &str) -> EngineSpec {
    let script = fake_nboard_engine(mode);
    let source = script.split('\'').nth(1).expect("the script's quoted path");
    std::fs::copy(source, folder.join("engine.sh")).unwrap();
    let file = format!(
        r#"[{{"name": "{name}", "command": "sh ./engine.sh", "arguments": ["{mode}"], "workingDirectory": "{}",
             "protocol": "nboard", "initStrings": ["set contempt 0", "set book off"]}}]"#,
        folder.display()
    );
    let engines = othello_arena::nboard::EnginesFile::parse(&file, None).unwrap();
    engines.engines[0].clone()
}

#[test]
fn an_engines_file_entry_runs_in_its_folder_and_gets_its_init_lines_after_the_handshake() {
    let folder = tempfile::tempdir().unwrap();
    let spec = EngineSpec { name: String::new(), ..engine_in_folder(folder.path(), "log", "Unnamed") };
    let mut seat = NboardSeat::open(&spec, Some(12), seat_options(), None).expect("the engine starts");
    assert_eq!(seat.name(), "Fake log", "an unnamed engine plays under its own `set myname`");
    let reply = seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).expect("an answer");
    assert_eq!(reply.byte, f5());
    drop(seat);
    let received = std::fs::read_to_string(folder.path().join("received.log")).expect("written in its folder");
    let lines: Vec<&str> = received.lines().collect();
    assert_eq!(lines[..5], ["nboard 2", "set depth 12", "set contempt 0", "set book off", "ping 1"], "{received}");
    assert!(lines[5].starts_with("set game (;GM[Othello]"), "{received}");
    assert_eq!(lines[6], "go");
}

#[test]
fn an_engines_file_name_is_the_seats_name_and_its_bot_name_reopens_it() {
    let folder = tempfile::tempdir().unwrap();
    let spec = engine_in_folder(folder.path(), "spaced", "My Engine");
    assert_eq!(othello_arena::seat::engine_name(&spec, &othello_testkit::isolated_seating()).unwrap(), "My Engine");
    let reopened = othello_testkit::isolated(std::path::Path::new(&spec.bot_name()));
    let mut seat = open_seat(&reopened).expect("the bot name starts the engine");
    assert_eq!(seat.name(), "My Engine", "the file's name wins over the engine's own");
    assert_eq!(seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).unwrap().byte, f5());
}

#[test]
fn an_unnamed_engine_is_named_by_itself_and_a_missing_folder_is_a_load_error() {
    let spec = EngineSpec::from_bot_name(&fake_nboard_engine("spaced")).unwrap().unwrap();
    assert_eq!(othello_arena::seat::engine_name(&spec, &othello_testkit::isolated_seating()).unwrap(), "Fake spaced");
    let missing_folder = EngineSpec { working_directory: Some("/no/such/folder".into()), ..spec };
    let failure = NboardSeat::open(&missing_folder, None, seat_options(), None).err().expect("no seat");
    assert_eq!(failure.termination, Termination::LoadError);
    assert!(failure.detail.contains("/no/such/folder is not a folder"), "{failure}");
}
