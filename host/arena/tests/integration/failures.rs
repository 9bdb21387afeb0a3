//! Every way a bot can fail ends as a named loss; the host survives, and the
//! next game of the match (with the same seats) is played normally.
// Linux: signals, /proc and the Linux sandbox (Windows: tests/windows.rs).
#![cfg(target_os = "linux")]

use othello_arena::record::GameRecord;
use othello_arena::referee::{Opening, play_game};
use othello_testkit::*;
use std::time::Duration;

use othello_arena::seat::{IsolatedSeat, SeatOptions, StopHandle};
use othello_arena::seat::{Seat, Termination, open_seat};
use othello_sdk::{Color, Move, Position, parse_transcript_from};

/// Plays the fixture as black against a good bot, then with colours swapped.
fn two_games(fixture_name: &str, opening: &Opening) -> [GameRecord; 2] {
    two_games_timed(fixture_name, opening, Some(TEST_TIME_LIMIT))
}

/// [`two_games`] with another time limit (`None`: only the bot's failure can end its move).
fn two_games_timed(fixture_name: &str, opening: &Opening, time_limit: Option<Duration>) -> [GameRecord; 2] {
    let mut bad = open_seat(&isolated(&fixture(fixture_name))).expect("the fixture loads");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).expect("the good bot loads");
    let first = play_game(bad.as_mut(), good.as_mut(), opening, time_limit);
    let second = play_game(good.as_mut(), bad.as_mut(), opening, time_limit);
    [first, second]
}

fn assert_black_lost(record: &GameRecord, termination: Termination, detail: &str) {
    let result = &record.result;
    assert_eq!(result.termination(), termination, "{result:?}");
    assert_eq!(result.loser(), Some(Color::Black), "{result:?}");
    assert_eq!(result.winner, Some(Color::White));
    assert_eq!(result.discs, [0, 64]);
    assert!(result.detail().contains(detail), "detail {:?} lacks {detail:?}", result.detail());
}

fn assert_played_out(record: &GameRecord) {
    let result = &record.result;
    assert_eq!(result.termination(), Termination::Normal, "{result:?}");
    assert!(record.final_position().is_game_over());
    assert_eq!(result.discs[0] + result.discs[1], 64);
}

fn check(fixture_name: &str, termination: Termination, detail: &str) -> [GameRecord; 2] {
    let games = two_games(fixture_name, &Opening::none());
    assert_black_lost(&games[0], termination, detail);
    assert_played_out(&games[1]);
    games
}

#[test]
fn move_on_an_occupied_square() {
    check("illegal_occupied", Termination::IllegalMove, "move byte 0x33 (d4): d4 is occupied");
}

#[test]
fn off_board_byte() {
    check("illegal_off_board", Termination::IllegalMove, "move byte 0x38 is off the board");
}

#[test]
fn pass_while_having_moves() {
    check(
        "illegal_pass",
        Termination::IllegalMove,
        "move byte 0xff (a pass): cannot pass with legal moves (d3, c4, f5, e6)",
    );
}

/// A legal opening after which black must pass (found by seeded random playouts).
fn opening_where_black_must_pass() -> Opening {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    loop {
        let mut position = Position::start();
        let mut moves = Vec::new();
        while !position.is_game_over() {
            if position.side_to_move() == Color::Black && position.must_pass() {
                return Opening::new(moves).unwrap();
            }
            let legal: Vec<_> = position.legal_moves().into_iter().collect();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[state as usize % legal.len()]) };
            position.play(mv);
            moves.push(mv);
        }
    }
}

#[test]
fn move_while_it_must_pass() {
    let opening = opening_where_black_must_pass();
    let games = two_games("illegal_must_pass", &opening);
    assert_black_lost(&games[0], Termination::IllegalMove, "the side to move has no legal move and must pass");
    assert!(games[0].result.detail().starts_with("move byte 0x"), "{}", games[0].result.detail());
    assert_played_out(&games[1]);
}

#[test]
fn hang_in_think_is_a_timeout() {
    let games = check("hang", Termination::Timeout, "no move within 1000 ms (limit 200 ms + grace 800 ms)");
    assert!(games[0].moves.is_empty());
    assert!(games[1].moves.len() >= 9, "a real game was played after the timeout");
}

#[test]
fn segfault_is_a_crash_with_the_signal_and_stderr() {
    let games = check("segfault", Termination::Crash, "killed by signal SIGSEGV (segmentation fault) in think");
    assert!(
        games[0].result.failure().expect("a forfeit").stderr_tail.iter().any(|l| l == "about to dereference NULL"),
        "{:?}",
        games[0].result
    );
}

#[test]
fn exit_is_a_crash_with_the_exit_code() {
    check("exits", Termination::Crash, "exited with code 3 in think");
}

#[test]
fn reported_panic_is_a_crash_with_its_message() {
    check("panics", Termination::Crash, "think failed: panicked: index out of bounds");
}

#[test]
fn unbounded_allocation_is_out_of_memory() {
    // No time limit: filling the memory limit takes long on a busy machine, and only the limit
    // may end this move (waiting on the event, not racing a clock).
    let games = two_games_timed("allocates", &Opening::none(), None);
    let limit = format!("went over the memory limit of {TEST_MEMORY_LIMIT_MB} MB");
    assert_black_lost(&games[0], Termination::OutOfMemory, &limit);
    assert_played_out(&games[1]);
}

#[test]
fn threads_fit_in_the_memory_limit() {
    let games = two_games("threads", &Opening::none());
    assert_played_out(&games[0]);
    assert_played_out(&games[1]);
}

#[test]
fn junk_on_stdout_and_stdin_reads_do_not_disturb_the_channel() {
    let games = two_games("junk", &Opening::none());
    assert_played_out(&games[0]);
    assert_played_out(&games[1]);
    assert_eq!(games[0].black, "Junk");
}

/// The load error of `library`: opening its seat, or starting its first game (`init`).
fn load_error(library: &std::path::Path) -> String {
    match open_seat(&isolated(library)).and_then(|mut seat| seat.new_game()) {
        Ok(_) => panic!("{} should not load", library.display()),
        Err(failure) => {
            assert_eq!(failure.termination, Termination::LoadError, "{failure}");
            failure.detail
        }
    }
}

#[test]
fn libraries_that_cannot_play_are_load_errors() {
    assert!(load_error(&not_a_library()).starts_with("not a loadable library"));
    assert_eq!(load_error(&fixture("missing_think")), "missing symbol `think`");
    assert!(load_error(&fixture("abi_999")).starts_with("ABI version 999 not supported"));
    assert_eq!(load_error(&fixture("abort_in_init")), "killed by signal SIGABRT (abort) in init");
    assert_eq!(load_error(&fixture("crash_on_load")), "killed by signal SIGSEGV (segmentation fault) while loading");
    assert_eq!(load_error(&fixture("hang_on_load")), "did not finish loading within 1500 ms");
    assert_eq!(load_error(&fixture("hang_in_init")), "init did not return within 1500 ms");
    // The host is fine: a normal bot still plays.
    let mut a = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let mut b = open_seat(&isolated(&random_bot())).unwrap();
    assert_played_out(&play_game(a.as_mut(), b.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
}

/// A Windows DLL given to Linux, as a bot author copying a MinGW build would: the load error says
/// what the file is, isolated and in process, after the loader's own words.
#[cfg(target_os = "linux")]
#[test]
fn a_windows_dll_given_to_linux_says_what_it_is() {
    let dll = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dlls/popcount-x64.dll");
    for spec in [isolated(&dll), in_process(&dll)] {
        let failure = open_seat(&spec).err().expect("a DLL does not load on Linux");
        assert_eq!(failure.termination, Termination::LoadError, "{failure}");
        assert!(
            failure.detail.starts_with(
                "not a loadable library: is a Windows DLL (PE, x86-64); Linux loads ELF shared libraries (.so): \
                 build the bot on Linux (gcc -shared -fPIC); the loader said: "
            ),
            "{}",
            failure.detail
        );
    }
}

#[test]
fn a_stateful_bot_playing_itself_keeps_separate_state() {
    for spec in [isolated(&fixture("stateful")), in_process(&fixture("stateful"))] {
        let mut black = open_seat(&spec).unwrap();
        let mut white = open_seat(&spec).unwrap();
        for _ in 0..2 {
            let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
            assert_played_out(&record);
        }
    }
}

/// The control: two seats sharing one loaded copy do clash, so the test above means something.
#[test]
fn the_stateful_fixture_detects_shared_state() {
    struct Shared<'a>(&'a othello_sdk::loader::BotLibrary);
    impl Seat for Shared<'_> {
        fn name(&self) -> &str {
            "shared"
        }
        fn levels(&self) -> u32 {
            0
        }
        fn new_game(&mut self) -> Result<(), othello_arena::seat::Failure> {
            self.0.init();
            Ok(())
        }
        fn think(
            &mut self,
            position: &Position,
            _: Option<std::time::Duration>,
        ) -> Result<othello_arena::seat::Reply, othello_arena::seat::Failure> {
            let byte = self.0.think(&othello_sdk::abi::OthelloBoard::new(position, 0));
            Ok(othello_arena::seat::Reply { byte, elapsed: Default::default(), info: None, cpu: None, throttled: None })
        }
    }
    let library = othello_sdk::loader::BotLibrary::open(&fixture("stateful")).unwrap();
    let record = play_game(&mut Shared(&library), &mut Shared(&library), &Opening::none(), None);
    assert_eq!(record.result.termination(), Termination::IllegalMove);
    assert_eq!(record.result.loser(), Some(Color::White));
}

#[test]
fn in_process_overruns_are_timeouts_after_the_fact() {
    let mut slow =
        open_seat(&in_process(&fixture("slow")).with_options(SeatOptions { grace: Duration::ZERO, ..seat_options() }))
            .unwrap();
    let mut good = open_seat(&in_process(&fixture("first_legal"))).unwrap();
    let record = play_game(slow.as_mut(), good.as_mut(), &Opening::none(), Some(std::time::Duration::from_millis(1)));
    assert_black_lost(&record, Termination::Timeout, "(limit 1 ms + grace 0 ms)");
    assert!(record.result.detail().starts_with("answered after "), "{}", record.result.detail());
}

/// A think with no time limit on a bot that never answers, stopped from another thread: the
/// runner is killed and reaped at once, not after the 24-hour deadline.
#[test]
fn a_stopped_think_ends_its_runner_at_once() {
    let stop = StopHandle::new().unwrap();
    let mut seat = IsolatedSeat::open_stoppable(&isolated(&fixture("hang")), &runner_command(), Some(stop.clone()))
        .expect("the hanging bot loads");
    let runner = seat.runner_id().expect("a runner is running");
    let thinking = std::thread::spawn(move || {
        // Black to move: the fixture spins forever; no time limit is given.
        let result = seat.think(&Position::start(), None);
        (result, seat)
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!thinking.is_finished(), "the bot hangs until stopped");
    assert!(!process_is_gone(runner));

    stop.stop();
    let started = std::time::Instant::now();
    while !thinking.is_finished() {
        assert!(started.elapsed() < STOP_DEADLINE, "the think did not end when stopped");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (result, mut seat) = thinking.join().unwrap();
    let failure = result.expect_err("a stopped think gives no move");
    assert!(failure.detail.starts_with("stopped by the host in think"), "{failure}");
    assert!(process_is_gone(runner), "the runner was killed and reaped by the time think returned");
    assert_eq!(seat.runner_id(), None);
    // A stopped seat starts no new runner.
    let refused = seat.new_game().expect_err("stopped for good");
    assert!(refused.detail.contains("stopped by the host"), "{refused}");
    assert!(runners_of(&fixture("hang")).iter().all(|&pid| pid != runner));

    // The host is fine: a fresh seat of the same bot gets a fresh runner and plays.
    let mut fresh = IsolatedSeat::open(&isolated(&fixture("hang")), &runner_command()).unwrap();
    assert_ne!(fresh.runner_id(), Some(runner));
    let white_to_move = parse_transcript_from(Position::start(), "f5").unwrap().1;
    let reply = fresh.think(&white_to_move, Some(TEST_TIME_LIMIT)).expect("plays as white");
    assert!(white_to_move.legal_moves().contains(Move::from_byte(reply.byte).unwrap().square().unwrap()));
}

/// Stopping also ends a runner stuck while loading the library, without waiting for the load timeout.
#[test]
fn a_seat_stopped_while_loading_ends_its_runner_at_once() {
    let stop = StopHandle::new().unwrap();
    let options = SeatOptions { load_timeout: Duration::from_secs(600), ..seat_options() };
    // A copy of its own: another test loads the same fixture, and its runner must not be taken for ours.
    let library = fixture("hang_on_load").with_file_name("libhang_on_load_stopped.so");
    std::fs::copy(fixture("hang_on_load"), &library).unwrap();
    let opening = {
        let stop = stop.clone();
        let spec = isolated(&library).with_options(options);
        std::thread::spawn(move || IsolatedSeat::open_stoppable(&spec, &runner_command(), Some(stop)).map(|_| ()))
    };
    let started = std::time::Instant::now();
    let runner = loop {
        if let Some(&pid) = runners_of(&library).first() {
            break pid;
        }
        assert!(started.elapsed() < STOP_DEADLINE, "the runner did not start");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    stop.stop();
    let failure = opening.join().unwrap().expect_err("stopped before it loaded");
    assert_eq!(failure.termination, Termination::LoadError);
    assert!(failure.detail.contains("stopped by the host while loading"), "{failure}");
    assert!(process_is_gone(runner), "killed and reaped");
    assert!(started.elapsed() < STOP_DEADLINE);
}

/// `init` runs once per game, whatever kind of seat: opening a seat loads the library and the
/// referee's game start calls `init` (a bot that counts its games sees each one once).
#[test]
fn init_is_called_once_per_game() {
    for spec in [isolated(&fixture("counts_inits")), in_process(&fixture("counts_inits"))] {
        let mut black = open_seat(&spec).unwrap();
        let mut white = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        let first = play_game(black.as_mut(), white.as_mut(), &Opening::none(), None);
        let second = play_game(black.as_mut(), white.as_mut(), &Opening::none(), None);
        assert_eq!((first.black.as_str(), second.black.as_str()), ("init #1", "init #2"), "{:?}", spec.isolation);
    }
}
