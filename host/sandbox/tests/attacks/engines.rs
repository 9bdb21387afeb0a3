//! NBoard engines in the runner's sandbox (on by default for isolated seats): a hostile engine's
//! attacks fail — it cannot write outside its scratch folder, signal the host or connect — and it
//! plays on; an idle engine is frozen; its moves record CPU time; `strict` refuses to run an
//! engine it cannot sandbox.
//!
//! A test whose attack needs a layer this machine lacks says so and passes without attacking.

use std::net::TcpListener;
use std::path::Path;

use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{NboardSeat, SandboxMode, Seat, SeatOptions, Termination, open_seat};
use othello_sdk::{Color, Move, Position};
use othello_testkit::*;

/// The last process of the chain of first children below `pid` (the engine under its runner's
/// keeper and init).
fn deepest_descendant(pid: u32) -> u32 {
    let mut pid = pid;
    loop {
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        match children.split_whitespace().next().and_then(|c| c.parse().ok()) {
            Some(child) => pid = child,
            None => return pid,
        }
    }
}

#[test]
fn a_hostile_engine_cannot_write_outside_signal_the_host_or_connect_and_plays_on() {
    if !sandbox_has_layers("hostile engine", &["pid-namespace", "network-namespace", "landlock", "seccomp"]) {
        return;
    }
    // A folder anyone may write: only the sandbox keeps the engine out of it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let outside = dir.path().join("written-by-the-engine");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let engine = hostile_nboard_engine(&outside, std::process::id(), port);
    let mut hostile = open_seat(&isolated(Path::new(&engine))).unwrap();
    let mut good = open_seat(&isolated(&fixture("first_legal"))).unwrap();
    assert_eq!(hostile.name(), "Hostile");
    let record = play_game(hostile.as_mut(), good.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
    // It played its move (f5), then lost with its second f5, which is never legal: its own game.
    let first = &record.moves[0];
    assert_eq!((first.color, first.mv), (Color::Black, "f5".parse::<Move>().unwrap()), "{record:?}");
    assert_eq!(record.result.loser(), Some(Color::Black), "{:?}", record.result);
    assert_eq!(record.result.termination(), Termination::IllegalMove, "{:?}", record.result);
    if sandbox_has_layers("CPU time", &["cgroup"]) {
        assert!(first.cpu.is_some(), "the engine's move records its CPU time: {first:?}");
    }
    drop(hostile);
    // This test process was neither killed nor stopped (it runs on); nothing was written or
    // connected.
    assert!(!outside.exists(), "the engine wrote outside its scratch folder");
    assert!(listener.accept().is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock), "the engine connected");
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    assert!(status.lines().any(|l| l.starts_with("State:") && !l.contains("stopped")), "{status}");
}

#[test]
fn an_idle_sandboxed_engine_is_frozen_and_thawed_for_its_move() {
    if !sandbox_has_layers("frozen engine", &["pid-namespace", "freezer"]) {
        return;
    }
    let engine = fake_nboard_engine("spaced");
    let command = &othello_arena::nboard::EngineSpec::from_bot_name(&engine).unwrap().unwrap();
    let mut seat = NboardSeat::open_with_runner(command, None, seat_options(), None, Some(runner_command())).unwrap();
    let keeper = seat.engine_id().expect("a running engine");
    let f5 = "f5".parse::<Move>().unwrap().to_byte();
    for _ in 0..2 {
        assert_eq!(seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).unwrap().byte, f5);
        let engine = deepest_descendant(keeper);
        assert_ne!(engine, keeper, "the engine runs under its keeper");
        // Answered with a clock running: frozen at once (the freeze completes asynchronously).
        wait_for("the idle engine being frozen", || process_is_frozen(engine) == Some(true));
    }
}

#[test]
fn strict_refuses_an_engine_it_cannot_sandbox() {
    let strict = SeatOptions { sandbox: SandboxMode::Strict, ..seat_options() };
    let engine = fake_nboard_engine("spaced");
    let command = &othello_arena::nboard::EngineSpec::from_bot_name(&engine).unwrap().unwrap();
    let failure = NboardSeat::open_with_runner(command, None, strict, None, None).err().expect("refused");
    assert_eq!(failure.termination, Termination::LoadError);
    assert!(failure.detail.contains("strict"), "{failure:?}");
}

/// An engine run through an interpreter shim in a home-like folder (issue 25, 4), as pyenv, conda,
/// venv or nvm install them: `~/.tool/shims/engine` runs `~/.tool/libexec/fake_engine.sh`. The
/// shim's installation (`.tool`, above `shims`) is readable in the sandbox, so it plays. A shim
/// whose real engine lies elsewhere fails before the first game, with an error that names the
/// sandbox, the blocked path and the fix, not with a forfeit per game.
#[test]
fn an_engine_behind_a_shim_runs_and_a_blocked_one_says_why() {
    if !sandbox_has_layers("shim engine", &["landlock"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/nboard/fake_engine.sh");
    let shim = |tool: &str, engine_folder: &Path| {
        std::fs::create_dir_all(home.path().join(tool).join("shims")).unwrap();
        std::fs::create_dir_all(engine_folder).unwrap();
        std::fs::copy(&fake, engine_folder.join("fake_engine.sh")).unwrap();
        let shim = home.path().join(tool).join("shims").join("engine");
        let script = format!("#!/bin/sh\nexec sh '{}' spaced\n", engine_folder.join("fake_engine.sh").display());
        std::fs::write(&shim, script).unwrap();
        std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        othello_arena::nboard::EngineSpec::from_command(&shim.to_string_lossy()).unwrap()
    };
    let open = |spec| NboardSeat::open_with_runner(&spec, None, seat_options(), None, Some(runner_command()));
    let installed = shim(".tool", &home.path().join(".tool").join("libexec"));
    let mut seat = open(installed).expect("the engine behind its shim starts");
    assert_eq!(
        seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).unwrap().byte,
        "f5".parse::<Move>().unwrap().to_byte()
    );
    drop(seat);
    let blocked = shim(".other", &elsewhere.path().join("libexec"));
    let failure = open(blocked).err().expect("the blocked engine fails before the first game");
    assert_eq!(failure.termination, Termination::LoadError, "{failure}");
    let path = elsewhere.path().join("libexec").join("fake_engine.sh");
    for needed in ["the sandbox blocked", &path.display().to_string(), "--read", "--sandbox off"] {
        assert!(failure.detail.contains(needed), "{needed:?} missing from: {failure}");
    }

    // The fix, for this engine alone: its entry in the engines file lets it read the folder.
    let mut allowed = shim(".other", &elsewhere.path().join("libexec"));
    let entry = serde_json::json!([{
        "name": "Shimmed",
        "command": allowed.command,
        "read": [elsewhere.path().join("libexec")],
    }]);
    let file = othello_arena::nboard::EnginesFile::parse(&entry.to_string(), None).unwrap();
    allowed = file.find("Shimmed").unwrap().clone();
    let mut seat = open(allowed.clone()).expect("the engine its entry lets read starts");
    assert!(seat.think(&Position::start(), Some(TEST_TIME_LIMIT)).is_ok());
    // The entry's bot name carries its read list, so a resume starts it the same way.
    assert_eq!(othello_arena::nboard::EngineSpec::from_bot_name(&allowed.bot_name()).unwrap().unwrap(), allowed);
}
