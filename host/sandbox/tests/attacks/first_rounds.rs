//! Hostile bots against the sandbox (on by default): each attack has no effect — the host and
//! the opponent are unaffected, nothing is left running, nothing is written or read outside the
//! bot's reach, no connection is made — and the hostile bot plays on normally (or loses its own
//! game), and the next game is normal.
//!
//! A test whose attack needs a layer this machine lacks says so and passes without attacking
//! (the kill tests must never run unsandboxed: they would hit the test process itself).

use std::path::{Path, PathBuf};
use std::time::Duration;

use othello_arena::record::GameRecord;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{IsolatedSeat, SandboxMode, Termination, open_seat, sandbox_report};
use othello_testkit::*;

fn host_pid() -> (&'static str, String) {
    ("HOST_PID", std::process::id().to_string())
}

/// The hostile bot as black, then as white, against a good bot; returns both games.
pub(crate) fn two_games(hostile: &Path) -> [GameRecord; 2] {
    let mut bad = open_seat(&isolated(hostile)).expect("the hostile bot loads");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).expect("the good bot loads");
    [
        play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)),
        play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)),
    ]
}

fn assert_played_out(record: &GameRecord) {
    let result = &record.result;
    assert_eq!(result.termination(), Termination::Normal, "{result:?}");
    assert!(record.final_position().is_game_over());
    assert_eq!(result.discs[0] + result.discs[1], 64);
}

/// Both games played out: the attack failed (the fixtures lose on purpose when it succeeds).
pub(crate) fn assert_attack_failed(hostile: &Path) {
    for game in two_games(hostile) {
        assert_played_out(&game);
    }
}

#[test]
fn killing_or_stopping_the_parent_and_the_host_has_no_effect() {
    if !sandbox_has_layers("kill_host", &["pid-namespace", "landlock"]) {
        return;
    }
    assert_attack_failed(&fixture_with("kill_host", "host", &[host_pid()]));
    // Still here, and not stopped: the games above were refereed by this process after the attack.
    let state = std::fs::read_to_string("/proc/self/stat").unwrap();
    let state = state.rsplit_once(')').unwrap().1.split_whitespace().next().unwrap().to_owned();
    assert_ne!(state, "T", "the host is stopped");
}

#[test]
fn killing_stopping_and_prlimiting_every_visible_process_spares_the_opponent() {
    if !sandbox_has_layers("kill_others", &["pid-namespace", "private-proc", "landlock", "seccomp"]) {
        return;
    }
    let hostile = fixture_with("kill_others", "host", &[host_pid()]);
    let mut bad = IsolatedSeat::open(&isolated(&hostile), &runner_command()).expect("the hostile bot loads");
    let mut good = IsolatedSeat::open(&isolated(&fixture("first_legal")), &runner_command()).unwrap();
    let opponent = good.runner_id().expect("the opponent's runner");
    let first = play_game(&mut bad, &mut good, &Opening::none(), Some(TEST_TIME_LIMIT));
    assert_played_out(&first);
    assert_eq!(good.runner_id(), Some(opponent), "the opponent kept its runner");
    assert!(!process_is_gone(opponent));
    let limits = std::fs::read_to_string(format!("/proc/{opponent}/limits")).unwrap();
    let cpu = limits.lines().find(|l| l.starts_with("Max cpu time")).unwrap();
    assert!(cpu.contains("unlimited"), "the opponent's CPU limit was changed: {cpu}");
    let second = play_game(&mut good, &mut bad, &Opening::none(), Some(TEST_TIME_LIMIT));
    assert_played_out(&second);
    assert_eq!(good.runner_id(), Some(opponent));
}

#[test]
fn reading_etc_shadow_fails() {
    if !sandbox_has_layers("read_shadow", &["landlock"]) {
        return;
    }
    assert!(Path::new("/etc/shadow").exists(), "the attack needs a file to aim at");
    assert_attack_failed(&fixture("read_shadow"));
}

#[test]
fn no_tcp_connection_can_be_made() {
    if !sandbox_has_layers("connect_tcp", &["network-namespace"]) {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    assert_attack_failed(&fixture_with("connect_tcp", &port.to_string(), &[("PORT", port.to_string())]));
    // `connect` returns only once the connection is made or refused, before the bot answers.
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a connection was made: {accepted:?}"
    );
}

/// Scratch folders of this test process holding the file the hostile bot writes in its own.
fn scratch_marks() -> Vec<PathBuf> {
    let prefix = format!("othello-scratch-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path().join("written-by-write-outside"))
        .filter(|mark| mark.exists())
        .collect()
}

#[test]
fn writes_land_only_in_the_scratch_folder_which_is_removed_afterwards() {
    if !sandbox_has_layers("write_outside", &["landlock"]) {
        return;
    }
    let outside = std::env::temp_dir().join(format!("othello-escaped-{}", std::process::id()));
    let library_dir = fixture("first_legal").parent().unwrap().to_path_buf();
    let hostile = fixture_with(
        "write_outside",
        "host",
        &[("OUTSIDE", format!("\"{}\"", outside.display())), ("LIBRARY_DIR", format!("\"{}\"", library_dir.display()))],
    );
    let library_bytes = std::fs::read(&hostile).unwrap();
    {
        let mut bad = open_seat(&isolated(&hostile)).unwrap();
        let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        let first = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
        // 0x39 would mean its own scratch folder was not writable; 0x38 that it wrote outside.
        assert_played_out(&first);
        // Where the scratch folder is a private tmpfs, the host does not see the bot's file.
        let private = sandbox_has_layers("write_outside", &["bounded-scratch"]);
        assert_eq!(scratch_marks().len(), usize::from(!private), "the bot wrote in its scratch folder");
        assert_played_out(&play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
    }
    assert!(!outside.exists(), "{} was created", outside.display());
    assert!(!library_dir.join("escaped-from-write-outside").exists());
    assert_eq!(std::fs::read(&hostile).unwrap(), library_bytes, "the library was changed");
    assert!(scratch_marks().is_empty(), "the scratch folder outlived its runner");
    // Its relative write never lands in the test's working folder (the package's folder).
    assert!(!Path::new("written-by-write-outside").exists(), "the bot wrote into the host's working folder");
}

/// Processes named `name` (their `comm`), seen from the host.
fn processes_named(name: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim_end() == name))
        .collect()
}

#[test]
fn a_forked_setsid_spinner_dies_with_its_runner() {
    if !sandbox_has_layers("spinner", &["pid-namespace", "parent-death-signal"]) {
        return;
    }
    // `comm` holds 15 bytes: unique per test process.
    let name = format!("spin{}", std::process::id() % 100_000_000);
    let hostile = fixture_with("spinner", "host", &[("SPINNER_NAME", format!("\"{name}\""))]);
    {
        let mut bad = open_seat(&isolated(&hostile)).unwrap();
        let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        let first = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
        assert_played_out(&first);
        let spinners = processes_named(&name);
        assert_eq!(spinners.len(), 1, "the spinner runs");
        if sandbox_has_layers("spinner (frozen)", &["freezer"]) {
            // The hostile seat is not on move: its whole tree, the spinner too, is frozen.
            assert!(process_is_frozen(spinners[0]).is_some(), "the spinner is in a freezer cgroup, or can be stopped");
            wait_for("the idle seat's spinner being frozen", || process_is_frozen(spinners[0]) == Some(true));
        }
        assert_played_out(&play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
    }
    // The seats are dropped: their runners were killed and reaped, and with them their PID
    // namespaces, whose every process the kernel kills.
    wait_for("the spinner dying with its runner", || processes_named(&name).is_empty());
}

/// A spinner holds the channel: the bot's crash is still a crash (not a timeout), and the
/// spinner dies with the runner.
#[test]
fn a_crash_is_still_a_crash_when_a_child_holds_the_channel() {
    if !sandbox_has_layers("spinner", &["pid-namespace", "parent-death-signal"]) {
        return;
    }
    let name = format!("crsh{}", std::process::id() % 100_000_000);
    let hostile = fixture_with(
        "spinner",
        "crash",
        &[("SPINNER_NAME", format!("\"{name}\"")), ("CRASH_AFTER_FORK", "1".to_owned())],
    );
    let mut bad = open_seat(&isolated(&hostile)).unwrap();
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let record = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
    assert_eq!(record.result.termination(), Termination::Crash, "{:?}", record.result);
    assert!(record.result.detail().contains("SIGSEGV"), "{:?}", record.result);
    wait_for("the spinner dying with the crashed runner", || processes_named(&name).is_empty());
    assert_played_out(&play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
}

#[test]
fn the_hosts_proc_fd_mem_and_environ_cannot_be_opened() {
    if !sandbox_has_layers("proc_fd", &["landlock"]) {
        return;
    }
    assert_attack_failed(&fixture_with("proc_fd", "host", &[host_pid()]));
}

#[test]
fn the_sandbox_off_still_plays_and_strict_reports_what_is_missing() {
    let off = isolated(&random_bot())
        .with_options(othello_arena::seat::SeatOptions { sandbox: SandboxMode::Off, ..seat_options() });
    let mut a = open_seat(&off).unwrap();
    let mut b = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    assert_played_out(&play_game(a.as_mut(), b.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));

    let layers = sandbox_report(&runner_command()).unwrap();
    let strict = isolated(&random_bot())
        .with_options(othello_arena::seat::SeatOptions { sandbox: SandboxMode::Strict, ..seat_options() });
    match (layers.iter().find(|l| !l.is_active()), open_seat(&strict)) {
        (Some(_), Err(failure)) => {
            assert_eq!(failure.termination, Termination::LoadError);
            // Named by the host (the cgroup is its to make) or by the runner (on its stderr).
            let text = format!("{}\n{}", failure.detail, failure.stderr_tail.join("\n"));
            let missing = layers.iter().filter(|l| !l.is_active());
            assert!(missing.clone().any(|m| text.contains(&format!("`{}` is missing", m.name))), "{failure:?}");
        }
        (None, Ok(mut seat)) => assert!(seat.new_game().is_ok()),
        (missing, opened) => panic!("strict mode disagrees with the report: {missing:?} / {:?}", opened.err()),
    }
}

#[test]
fn a_bot_name_with_escapes_and_newlines_is_sanitised() {
    let library = fixture("escape_name");
    for spec in [isolated(&library), in_process(&library)] {
        let mut seat = open_seat(&spec).unwrap();
        seat.new_game().unwrap(); // the bot names itself in `init`
        let name = seat.name();
        assert!(!name.chars().any(char::is_control), "{name:?}");
        assert!(!name.contains(['[', ']']), "{name:?}");
        assert!(name.starts_with("_2J_31mEvil _GN_x"), "{name:?}");
        assert!(name.chars().count() <= othello_arena::seat::MAX_BOT_NAME_CHARS);
    }
    let info = othello_arena::plugins::probe(&library, &runner_command(), &seat_options());
    assert!(!info.name.chars().any(char::is_control), "{info:?}");
}

/// 1 GiB of shared memory under a 256 MiB limit: the runner's cgroup counts it, so the bot loses
/// on memory instead of taking the machine's.
#[test]
fn shared_memory_counts_against_the_memory_limit() {
    if !sandbox_has_layers("shared_memory", &["cgroup"]) {
        return;
    }
    let mut bad = open_seat(&isolated(&fixture("shared_memory"))).unwrap();
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let first = play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(Duration::from_secs(30)));
    assert_eq!(first.result.termination(), Termination::OutOfMemory, "{:?}", first.result);
    assert_played_out(&play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
}

/// The children of `pid` (from /proc; threads of a process share them).
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// A descriptor the host inherited (not close-on-exec) does not reach the bot's process.
#[test]
fn the_bot_process_has_only_its_channel_open() {
    if !sandbox_has_layers("closed_descriptors", &["closed-descriptors"]) {
        return;
    }
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into a valid array; plain pipe(2) leaves them
    // inheritable, as a parent shell's pipe would be.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let leaked = std::fs::read_link(format!("/proc/self/fd/{}", fds[0])).unwrap();
    let seat = IsolatedSeat::open(&isolated(&fixture("first_legal")), &runner_command()).unwrap();
    // The keeper (the runner the host started) → its init → the process that loaded the bot.
    let keeper = seat.runner_id().unwrap();
    let bot = children_of(keeper).into_iter().flat_map(children_of).next().expect("the bot's process");
    let open: Vec<(String, PathBuf)> = std::fs::read_dir(format!("/proc/{bot}/fd"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_link(e.path()).unwrap_or_default()))
        .collect();
    // SAFETY: closing the two descriptors this test opened.
    unsafe {
        libc::close(fds[0]);
        libc::close(fds[1]);
    }
    assert!(open.iter().all(|(_, target)| *target != leaked), "the host's pipe reached the bot: {open:?}");
    // stdin (/dev/null), stdout (= stderr), stderr, requests, responses, /proc/self/statm.
    assert!(open.len() <= 6, "{open:?}");
}

/// The CPU time of each move is recorded, counted over the bot's whole tree by its cgroup: a bot
/// that burns 20 ms of CPU per move is charged at least that, every move.
#[test]
fn each_move_records_the_cpu_time_of_the_bot() {
    if !sandbox_has_layers("burns_cpu", &["cgroup"]) {
        return;
    }
    let mut busy = open_seat(&isolated(&fixture("burns_cpu"))).unwrap();
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    assert_every_move_charged_its_cpu(&play_game(busy.as_mut(), good.as_mut(), &Opening::none(), None));
}

/// Every move has a CPU time, and each of Black's (`burns_cpu`, 20 ms a move) at least 20 ms.
fn assert_every_move_charged_its_cpu(record: &GameRecord) {
    assert_played_out(record);
    for mv in &record.moves {
        let cpu = mv.cpu.unwrap_or_else(|| panic!("no CPU time for {mv:?}"));
        if mv.color == othello_sdk::Color::Black {
            assert!(cpu >= Duration::from_millis(20), "{mv:?}");
        }
    }
}

/// With the sandbox off there is no cgroup: each move's CPU time is the runner process's own
/// (its CPU clock), still at least what the bot burnt.
#[test]
fn with_the_sandbox_off_each_move_still_records_the_cpu_time_of_the_bot() {
    let off = othello_arena::seat::SeatOptions { sandbox: SandboxMode::Off, ..seat_options() };
    let mut busy = open_seat(&isolated(&fixture("burns_cpu")).with_options(off)).unwrap();
    let mut good = open_seat(&isolated(&fixture("first_legal")).with_options(off)).unwrap();
    assert_every_move_charged_its_cpu(&play_game(busy.as_mut(), good.as_mut(), &Opening::none(), None));
}

/// With pondering allowed, an idle seat is not frozen: its spinner keeps running while the
/// opponent is on move (by default it is frozen: `a_forked_setsid_spinner_dies_with_its_runner`).
#[test]
fn with_ponder_an_idle_seat_keeps_running() {
    if !sandbox_has_layers("spinner (ponder)", &["pid-namespace", "freezer"]) {
        return;
    }
    let name = format!("pond{}", std::process::id() % 100_000_000);
    let hostile = fixture_with("spinner", "ponder", &[("SPINNER_NAME", format!("\"{name}\""))]);
    let ponder = othello_arena::seat::SeatOptions { ponder: true, ..seat_options() };
    {
        let mut bad = open_seat(&isolated(&hostile).with_options(ponder)).unwrap();
        let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        assert_played_out(&play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
        let spinners = processes_named(&name);
        assert_eq!(spinners.len(), 1, "the spinner runs");
        assert_ne!(process_is_frozen(spinners[0]), Some(true));
        let ticks = || {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", spinners[0])).unwrap_or_default();
            // After the command: state, ppid, … utime (12th), stime (13th), in clock ticks.
            let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |s| s.1).split_whitespace().collect();
            let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
            field(11) + field(12)
        };
        let idle = ticks();
        wait_for("the idle seat's spinner running on", || ticks() > idle);
    }
    wait_for("the spinner dying with its runner", || processes_named(&name).is_empty());
}

/// Two libraries whose bots give the same name (a fake "Alpha-beta") are told apart by their file.
#[test]
fn two_libraries_with_one_name_are_told_apart() {
    let fake = |tag: &str| fixture_with("named", tag, &[("NAME", "\"Alpha-beta\"".to_owned())]);
    let libraries = [fake("real"), fake("fake")];
    let infos = othello_arena::plugins::probe_all(&libraries, &runner_command(), &seat_options());
    let names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["Alpha-beta (libnamed-real.so)", "Alpha-beta (libnamed-fake.so)"]);
}

/// A bot reading its environment (issue 25, 2) sees none of the host's variables — an API token
/// or a database password would end up in its name, its stderr or its evaluations — only PATH,
/// LANG, HOME and TMPDIR (its scratch folder) and OTHELLO_*; a variable the user names
/// (`--env NAME`) is passed on.
#[test]
fn a_bot_sees_none_of_the_hosts_variables_but_those_named() {
    let minimal = ["PATH", "LANG", "HOME", "TMPDIR"];
    let host_variable = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).find(|name| {
        !minimal.contains(&name.as_str())
            && !name.starts_with("OTHELLO_")
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    // A test process always has one (cargo's CARGO_*, the shell's), standing for the secret.
    let secret = host_variable.expect("the test process has a variable beyond the minimal set");
    let reader = fixture_with("env_reader", &secret.to_lowercase(), &[("VARIABLE", format!("\"{secret}\""))]);
    let name_with = |options: othello_arena::seat::SeatOptions| {
        let mut seat = open_seat(&isolated(&reader).with_options(options)).expect("the reader loads");
        seat.new_game().expect("init returns");
        seat.name().to_owned()
    };
    assert_eq!(name_with(seat_options()), "unset scratch extra:0", "the bot saw {secret} or more");
    let named: &'static [String] = Box::leak(vec![secret.clone()].into_boxed_slice());
    let options = othello_arena::seat::SeatOptions { env: named, ..seat_options() };
    assert_eq!(name_with(options), "seen scratch extra:0", "{secret} was named, and passed on");
    // The report says so.
    let layers = sandbox_report(&runner_command()).unwrap();
    assert!(layers.iter().any(|layer| layer.name == "clean-environment" && layer.is_active()), "{layers:?}");
}

/// A bot filling its scratch folder (issue 25, 1) fills a private tmpfs of `--scratch-mb` MiB:
/// its writes fail at the bound, it plays on (a full folder is its own problem), and the host's
/// disk never sees a byte of it (the tmpfs ends with the runner's mount namespace; the folder's
/// removal is `writes_land_only_in_the_scratch_folder_which_is_removed_afterwards`).
#[test]
fn a_bot_filling_its_scratch_folder_stops_at_the_bound() {
    if !sandbox_has_layers("disk_filler", &["bounded-scratch"]) {
        return;
    }
    let bound_mb = 8;
    let filler = fixture_with("disk_filler", "8", &[("CAP", "64".to_owned()), ("LIMIT", bound_mb.to_string())]);
    let options = othello_arena::seat::SeatOptions { scratch_mb: bound_mb, ..seat_options() };
    {
        let mut bad = open_seat(&isolated(&filler).with_options(options)).expect("the filler loads");
        let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
        // 0x38 would mean it wrote past the bound, 0x39 that it could not write at all.
        assert_played_out(&play_game(bad.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
        // The host's side of its scratch folder stays empty: the tmpfs is the runner's alone.
        let prefix = format!("othello-scratch-{}-", std::process::id());
        for entry in std::fs::read_dir(std::env::temp_dir()).unwrap().filter_map(Result::ok) {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                assert!(!entry.path().join("filling").exists(), "the filler wrote on the host's disk");
            }
        }
        assert_played_out(&play_game(good.as_mut(), bad.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT)));
    }
}

/// A bot thinking with 4 threads (issue 25, 3) gets its CPU share of `--threads` CPUs, 1 by
/// default, so a bot in another match keeps its cores: on each move its whole tree used no more
/// CPU time than the move's wall time (plus one quota period), and its runner's cgroup holds a
/// quota of one CPU per period (where the share is joined on demand, unless its threads never
/// got more than one CPU between them). The CPU time is the cgroup's count, an upper bound that no load on the machine can
/// push up; that the kernel holds the tree to the quota is
/// `the_cpu_share_throttles_the_tree_and_counts_it` (othello-sandbox), that a running tree is
/// moved in whole `an_on_demand_cpu_share_takes_in_the_whole_running_tree`.
#[test]
fn a_bot_with_many_threads_gets_its_cpu_share_only() {
    if !sandbox_has_layers("thread_burner", &["cpu-share", "cgroup"]) {
        return;
    }
    let burner = fixture_with("thread_burner", "4", &[("THREADS", "4".to_owned()), ("BURN_MS", "200".to_owned())]);
    let mut bad = IsolatedSeat::open(&isolated(&burner), &runner_command()).expect("the burner loads");
    // `--threads 0`: no CPU share (and none of its cost).
    let unlimited = othello_arena::seat::SeatOptions { threads: 0, ..seat_options() };
    let mut free = IsolatedSeat::open(&isolated(&burner).with_options(unlimited), &runner_command()).unwrap();
    use othello_arena::seat::Seat as _;
    free.new_game().unwrap();
    free.think(&othello_sdk::Position::start(), None).unwrap();
    assert_eq!(cpu_quota(free.runner_id().expect("a runner")), None, "--threads 0 still limited it");
    drop(free);
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    let started = std::time::Instant::now();
    let record = play_game(&mut bad, good.as_mut(), &Opening::none(), None);
    assert_played_out(&record);
    let runner = bad.runner_id().expect("a runner");
    if cpu_quota(runner) != Some(1.0) {
        let black = record.moves.iter().filter(|mv| mv.color == othello_sdk::Color::Black);
        let used: Duration = black.map(|mv| mv.cpu.expect("CPU time")).sum();
        let wall = started.elapsed();
        assert!(used <= wall + Duration::from_millis(40), "{used:?} of CPU in {wall:?} outside its share of 1 CPU");
    }
    // A move may span parts of three quota periods: up to one period more than its wall time.
    // Where the share is joined on demand, the threads ran free until the tree was moved in, once
    // per runner: the overuse allowed, the longest step between looks on each extra processor,
    // and the clock's lag (counted at ticks up to 10 ms apart, on each processor).
    let period = Duration::from_millis(100);
    // (Its 4 threads run on 4 processors at most.)
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4) as u32;
    let free_run = othello_sandbox::jail::OVERUSE_SLACK
        + othello_sandbox::jail::CPU_SHARE_WATCH.1 * processors.saturating_sub(1)
        + Duration::from_millis(10) * processors;
    for mv in record.moves.iter().filter(|mv| mv.color == othello_sdk::Color::Black).take(4) {
        let cpu = mv.cpu.unwrap_or_else(|| panic!("no CPU time for {mv:?}"));
        assert!(
            cpu <= mv.elapsed + period + free_run,
            "{cpu:?} of CPU in {:?}: more than its share of 1 CPU",
            mv.elapsed
        );
    }
}

/// A bot that answers every move at once while 4 threads it started in `init` compute in the
/// background (issue 25, 3) gets its CPU share all the same: where the share is joined on
/// demand, its runner is moved in once the tree used more than one CPU by a moment summed over
/// its moves. Either its runner holds the quota by the end, or its tree never used more than one
/// CPU (its cgroup's CPU time within the wall time since it started, plus the slack the watch
/// allows and its clock's lag):
/// whatever the load on the machine, its games never took more than its share.
#[test]
fn a_bot_computing_in_the_background_gets_its_cpu_share_only() {
    if !sandbox_has_layers("thread_burner", &["cpu-share", "cgroup"]) {
        return;
    }
    let burner =
        fixture_with("thread_burner", "background", &[("THREADS", "4".to_owned()), ("BACKGROUND", "1".to_owned())]);
    let started = std::time::Instant::now();
    let mut bad = IsolatedSeat::open(&isolated(&burner), &runner_command()).expect("the burner loads");
    let runner = bad.runner_id().expect("a runner");
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    // Games until it is held to its share, or long enough that one more CPU would show.
    while cpu_quota(runner) != Some(1.0) && started.elapsed() < Duration::from_millis(300) {
        assert_played_out(&play_game(&mut bad, good.as_mut(), &Opening::none(), None));
    }
    if cpu_quota(runner) != Some(1.0) {
        let (used, wall) = (tree_cpu_time(runner).expect("the tree's CPU time"), started.elapsed());
        assert!(used <= wall + Duration::from_millis(40), "{used:?} of CPU in {wall:?} outside its share of 1 CPU");
    }
    assert_eq!(bad.runner_id(), Some(runner), "the runner was replaced");
}

/// The CPU time of the whole tree of process `pid`, from its cgroup's clock (v1 `cpuacct` or v2
/// `cpu.stat`).
fn tree_cpu_time(pid: u32) -> Option<Duration> {
    let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?.trim_start_matches('/'));
        if controllers.split(',').any(|c| c == "cpuacct") {
            let usage = ["cpuacct", "cpu,cpuacct"].iter().find_map(|c| {
                std::fs::read_to_string(Path::new("/sys/fs/cgroup").join(c).join(path).join("cpuacct.usage")).ok()
            });
            if let Some(ns) = usage.and_then(|u| u.trim().parse().ok()) {
                return Some(Duration::from_nanos(ns));
            }
        } else if controllers.is_empty() {
            let stat = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                .iter()
                .find_map(|root| std::fs::read_to_string(Path::new(root).join(path).join("cpu.stat")).ok());
            let usec = stat.and_then(|s| s.lines().find_map(|l| l.strip_prefix("usage_usec ")?.trim().parse().ok()));
            if let Some(us) = usec {
                return Some(Duration::from_micros(us));
            }
        }
    }
    None
}

/// The CPUs the cgroup of process `pid` may use at once (its quota over its period), from
/// cgroup v2's `cpu.max` or v1's `cpu` hierarchy; `None` without a quota.
fn cpu_quota(pid: u32) -> Option<f64> {
    let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?.trim_start_matches('/'));
        let (quota, period) = if controllers.split(',').any(|c| c == "cpu") {
            let folder = ["cpu", "cpu,cpuacct"]
                .iter()
                .map(|c| Path::new("/sys/fs/cgroup").join(c).join(path))
                .find(|f| f.join("cpu.cfs_quota_us").exists())?;
            let read = |file: &str| std::fs::read_to_string(folder.join(file)).ok()?.trim().parse::<f64>().ok();
            (read("cpu.cfs_quota_us")?, read("cpu.cfs_period_us")?)
        } else if controllers.is_empty() {
            let max = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                .iter()
                .find_map(|root| std::fs::read_to_string(Path::new(root).join(path).join("cpu.max")).ok());
            let Some(max) = max else { continue };
            let mut parts = max.split_whitespace();
            (parts.next()?.parse::<f64>().ok()?, parts.next()?.parse::<f64>().ok()?)
        } else {
            continue;
        };
        if quota > 0.0 {
            return Some(quota / period);
        }
    }
    None
}
