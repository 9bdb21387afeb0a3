//! Windows: every way a bot DLL can fail ends as its named loss, with the exception code of a
//! crash; the host survives and the next game is normal; the Job Object's limits hold; the
//! sandbox report names what Windows lacks and `--sandbox strict` refuses to run without it.
//! CI runs these under Wine with fixtures built by MinGW (see `.ci/run`).
#![cfg(windows)]

use std::time::Duration;

use othello_arena::record::GameRecord;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{
    IsolatedSeat, SandboxMode, Seat, SeatOptions, StopHandle, Termination, open_seat, sandbox_report,
};
use othello_sdk::{Color, Position};
use othello_testkit::*;

/// Plays the fixture as black against a good bot, then with colours swapped.
fn two_games(fixture_name: &str, time_limit: Option<Duration>) -> [GameRecord; 2] {
    let mut bad = open_seat(&isolated(&fixture(fixture_name))).expect("the fixture loads");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).expect("the good bot loads");
    let first = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), time_limit);
    let second = play_game(good.as_mut(), bad.as_mut(), &Opening::none(), time_limit);
    [first, second]
}

/// Black lost as `termination` with `detail`, and the game after it was played to the end.
fn check(fixture_name: &str, time_limit: Option<Duration>, termination: Termination, detail: &str) -> GameRecord {
    let [lost, next] = two_games(fixture_name, time_limit);
    let result = &lost.result;
    assert_eq!(result.termination(), termination, "{result:?}");
    assert_eq!(result.loser(), Some(Color::Black), "{result:?}");
    assert!(result.detail().contains(detail), "detail {:?} lacks {detail:?}", result.detail());
    assert_eq!(next.result.termination(), Termination::Normal, "{:?}", next.result);
    assert!(next.final_position().is_game_over());
    lost
}

#[test]
fn illegal_moves_are_illegal_move_losses() {
    check("illegal_occupied", Some(TEST_TIME_LIMIT), Termination::IllegalMove, "d4 is occupied");
    check("illegal_off_board", Some(TEST_TIME_LIMIT), Termination::IllegalMove, "is off the board");
    check("illegal_pass", Some(TEST_TIME_LIMIT), Termination::IllegalMove, "cannot pass with legal moves");
}

#[test]
fn an_access_violation_is_a_crash_with_its_exception_code_and_stderr() {
    let lost = check(
        "segfault",
        Some(TEST_TIME_LIMIT),
        Termination::Crash,
        "crashed with exception 0xC0000005 (access violation) in think",
    );
    let tail = &lost.result.failure().expect("a forfeit").stderr_tail;
    assert!(tail.iter().any(|line| line == "about to dereference NULL"), "{tail:?}");
}

#[test]
fn a_hang_is_a_timeout() {
    check("hang", Some(TEST_TIME_LIMIT), Termination::Timeout, "no move within 1000 ms");
}

#[test]
fn exit_and_reported_failures_are_crashes() {
    check("exits", Some(TEST_TIME_LIMIT), Termination::Crash, "exited with code 3 in think");
    check("panics", Some(TEST_TIME_LIMIT), Termination::Crash, "think failed: panicked: index out of bounds");
}

#[test]
fn unbounded_allocation_is_out_of_memory() {
    // No time limit: only the memory limit may end this move.
    let limit = format!("went over the memory limit of {TEST_MEMORY_LIMIT_MB} MB");
    check("allocates", None, Termination::OutOfMemory, &limit);
}

#[test]
fn junk_printed_and_stdin_read_do_not_disturb_the_channel() {
    let [first, second] = two_games("junk", Some(TEST_TIME_LIMIT));
    for game in [&first, &second] {
        assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
    }
    assert_eq!(first.black, "Junk");
}

#[test]
fn threads_fit_in_the_memory_limit() {
    for game in two_games("threads", Some(TEST_TIME_LIMIT)) {
        assert_eq!(game.result.termination(), Termination::Normal, "{:?}", game.result);
    }
}

/// The load error of `library`: opening its seat, or starting its first game (`init`).
fn load_error(library: &std::path::Path) -> String {
    match open_seat(&isolated(library)).and_then(|mut seat| seat.new_game()) {
        Ok(()) => panic!("{} should not load", library.display()),
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
    assert_eq!(load_error(&fixture("abort_in_init")), "exited with code 3 in init");
    // The Windows loader catches an exception in a DLL's initialisation and fails the load
    // (ERROR_NOACCESS); should it not, the runner crashes with the exception's code.
    let crash_on_load = load_error(&fixture("crash_on_load"));
    assert!(
        crash_on_load.contains("(os error 998)") || crash_on_load.contains("0xC0000005 (access violation)"),
        "{crash_on_load}"
    );
    assert_eq!(load_error(&fixture("hang_on_load")), "did not finish loading within 1500 ms");
    assert_eq!(load_error(&fixture("hang_in_init")), "init did not return within 1500 ms");
    let mut a = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let mut b = open_seat(&isolated(&random_bot())).unwrap();
    let record = play_game(a.as_mut(), b.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
    assert_eq!(record.result.termination(), Termination::Normal, "{:?}", record.result);
}

/// What a student's MinGW build without `-static-libgcc` gets: the DLL it lacks named, with the
/// fix, isolated and in process; and the fix works: with libgcc beside the bot, it loads and plays.
#[test]
fn a_dll_needing_libgcc_names_it_and_loads_with_it_beside() {
    let needs_libgcc = fixture("popcount_shared");
    let expected = "not a loadable library: needs libgcc_s_seh-1.dll, which is not on the DLL search path \
                    (rebuild with -static-libgcc or put it beside the bot); the loader said: ";
    let isolated_error = load_error(&needs_libgcc);
    assert!(isolated_error.starts_with(expected), "{isolated_error}");
    let in_process_error = open_seat(&in_process(&needs_libgcc)).err().expect("no libgcc: no load").detail;
    assert!(in_process_error.starts_with(expected), "{in_process_error}");

    // CI put a copy of the bot and libgcc_s_seh-1.dll in a folder of their own.
    let beside = needs_libgcc.with_file_name("libgcc-beside").join("popcount_shared.dll");
    for spec in [isolated(&beside), in_process(&beside)] {
        let mut popcount = open_seat(&spec).expect("loads with libgcc_s_seh-1.dll beside it");
        let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        let record = play_game(popcount.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
        assert_eq!(record.result.termination(), Termination::Normal, "{:?}", record.result);
        assert_eq!(record.black, "Popcount");
    }
}

/// A bot that ships its own helper.dll beside it, which needs libgcc: the DLL missing is named,
/// with the one that needs it.
#[test]
fn what_a_dll_shipped_beside_the_bot_needs_is_named() {
    let bot = fixture("first_legal").with_file_name("helper-beside").join("needs_helper.dll");
    let error = load_error(&bot);
    assert!(
        error.starts_with(
            "not a loadable library: needs libgcc_s_seh-1.dll (for helper.dll), which is not on the DLL search \
             path (rebuild with -static-libgcc or put it beside the bot); the loader said: "
        ),
        "{error}"
    );
}

#[test]
fn a_32_bit_dll_and_a_linux_library_say_what_they_are() {
    let x86 = load_error(&fixture("first_legal_x86"));
    assert!(
        x86.starts_with(
            "not a loadable library: is a 32-bit (x86) DLL; this host is 64-bit: \
             rebuild with x86_64-w64-mingw32-gcc / the x64 MSVC tools; the loader said: "
        ),
        "{x86}"
    );
    // A Linux build given to Windows (a real one: see tests/data/dlls/README.md).
    let folder = tempfile::tempdir().unwrap();
    let linux = folder.path().join("first_legal.dll");
    std::fs::write(
        &linux,
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/dlls/libfirst-legal-x86_64.so")),
    )
    .unwrap();
    let linux_error = load_error(&linux);
    assert!(
        linux_error.starts_with("not a loadable library: is a Linux shared library (ELF, x86-64); Windows loads DLLs"),
        "{linux_error}"
    );
}

/// A think with no time limit on a bot that never answers, stopped from another thread: the
/// runner's job is ended at once, not after the 24-hour deadline.
#[test]
fn a_stopped_think_ends_its_runner_at_once() {
    let stop = StopHandle::new().unwrap();
    let mut seat = IsolatedSeat::open_stoppable(&isolated(&fixture("hang")), &runner_command(), Some(stop.clone()))
        .expect("the hanging bot loads");
    let thinking = std::thread::spawn(move || {
        let result = seat.think(&Position::start(), None);
        (result, seat)
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(!thinking.is_finished(), "the bot hangs until stopped");
    stop.stop();
    let started = std::time::Instant::now();
    while !thinking.is_finished() {
        assert!(started.elapsed() < STOP_DEADLINE, "the think did not end when stopped");
        std::thread::sleep(Duration::from_millis(5));
    }
    let (result, mut seat) = thinking.join().unwrap();
    let failure = result.expect_err("a stopped think gives no move");
    assert!(failure.detail.starts_with("stopped by the host in think"), "{failure}");
    assert_eq!(seat.runner_id(), None);
    assert!(seat.new_game().expect_err("stopped for good").detail.contains("stopped by the host"));
}

/// What a bot starts ends with its runner (the runner's Job Object), and the host plays on.
#[test]
fn processes_a_bot_started_end_with_its_runner() {
    let library = fixture("spawns_child");
    let pid_file = library.with_file_name("spawns_child.dll.pid");
    let _ = std::fs::remove_file(&pid_file);
    check("spawns_child", Some(TEST_TIME_LIMIT), Termination::Timeout, "no move within");
    let pid: u32 = std::fs::read_to_string(&pid_file).expect("the bot started a child").trim().parse().unwrap();
    assert!(wait_until_gone(pid), "the bot's child process {pid} outlived its runner");
    let _ = std::fs::remove_file(&pid_file);
}

#[test]
fn the_sandbox_report_names_what_windows_lacks_and_strict_refuses() {
    let layers = sandbox_report(&runner_command()).expect("the runner reports");
    let state = |name: &str| layers.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("{name} in {layers:?}"));
    assert!(state("job-object").is_active(), "{layers:?}");
    assert!(state("private-handles").is_active(), "{layers:?}");
    for missing in ["landlock", "seccomp", "network-namespace", "unprivileged-user", "freezer"] {
        assert!(!state(missing).is_active(), "{missing} claimed on Windows: {layers:?}");
    }
    let strict = SeatOptions { sandbox: SandboxMode::Strict, ..seat_options() };
    let refused = IsolatedSeat::open(&isolated(&fixture("first_legal")).with_options(strict), &runner_command())
        .err()
        .expect("strict refuses");
    assert!(refused.to_string().contains("--sandbox strict refuses"), "{refused}");
}
