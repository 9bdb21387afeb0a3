//! The third round's attacks, each a bot on move in an ordinary match with the default sandbox:
//! none has an effect beyond its own seat (the fixtures lose on purpose, with an off-board move,
//! when an attack succeeds), and what the user sees is clean.

use std::io::ErrorKind;
use std::path::PathBuf;

use othello_arena::record::GameRecord;
use othello_arena::seat::{Termination, open_seat};
use othello_testkit::*;

use crate::first_rounds::{assert_attack_failed, two_games};

/// A C string literal for a `-D` definition.
fn c_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A folder that `nobody` (the runner's user when the tests run as root) may enter and use.
fn shared_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    dir
}

/// Name of the environment variable that makes this test binary the child of
/// [`secrets_in_the_hosts_environment_never_reach_a_bot`].
const SECRETS_CHILD: &str = "OTHELLO_SANDBOX_TEST_SECRETS_CHILD";

/// A worker started as the manual said (`export OTHELLO_WORKER_TOKEN=…`) handed its token to every
/// bot. Now the clean environment is an allow-list: a bot sees none of the parent's secrets —
/// the worker's token, a database URL with its password, a PostgreSQL password — not even when
/// the user names them with `--env`. (The test binary runs itself again with the secrets in its
/// environment: a test cannot safely set variables in its own, multi-threaded, process.)
#[test]
fn secrets_in_the_hosts_environment_never_reach_a_bot() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "third_round::secrets_child", "--include-ignored", "--nocapture"])
        .env(SECRETS_CHILD, "1")
        .env("OTHELLO_WORKER_TOKEN", "worker-token-that-must-stay-home")
        .env("DATABASE_URL", "postgres://arena:hunter2@db.example/contest")
        .env("PGPASSWORD", "hunter2")
        .env("ENGINE_STORE", "https://arena:hunter2@store.example/")
        .output()
        .unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{report}");
    assert!(report.contains("1 passed"), "the child ran no test: {report}");
}

/// The child of [`secrets_in_the_hosts_environment_never_reach_a_bot`] (does nothing when run on
/// its own).
#[test]
#[ignore = "run by secrets_in_the_hosts_environment_never_reach_a_bot"]
fn secrets_child() {
    if std::env::var_os(SECRETS_CHILD).is_none() {
        return;
    }
    for secret in ["OTHELLO_WORKER_TOKEN", "DATABASE_URL", "PGPASSWORD", "ENGINE_STORE"] {
        assert!(std::env::var_os(secret).is_some(), "the parent gave {secret}");
        let reader = fixture_with("env_reader", &secret.to_lowercase(), &[("VARIABLE", c_string(secret))]);
        let named: &'static [String] = Box::leak(vec![secret.to_owned()].into_boxed_slice());
        // Named with --env too: a secret is never passed.
        for options in [seat_options(), othello_arena::seat::SeatOptions { env: named, ..seat_options() }] {
            for mode in [othello_arena::seat::SandboxMode::Auto, othello_arena::seat::SandboxMode::Off] {
                let options = othello_arena::seat::SeatOptions { sandbox: mode, ..options };
                let mut seat = open_seat(&isolated(&reader).with_options(options)).expect("the reader loads");
                seat.new_game().expect("init returns");
                let name = seat.name().to_owned();
                assert!(name.starts_with("unset "), "the bot saw {secret} ({mode:?}): {name}");
            }
        }
    }
}

/// A Unix socket another program of the machine listens on (D-Bus, a database, docker.sock),
/// by its path and by its abstract name: the bot reaches neither.
#[test]
fn a_unix_socket_of_the_machine_cannot_be_reached() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let dir = shared_folder();
    let path = dir.path().join("service.sock");
    let by_path = UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let abstract_name = format!("othello-test-{}", std::process::id());
    let by_name = UnixListener::bind_addr(&SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap()).unwrap();
    for listener in [&by_path, &by_name] {
        listener.set_nonblocking(true).unwrap();
    }
    let hostile = fixture_with(
        "unix_socket",
        "test",
        &[("SOCKET_PATH", c_string(&path.to_string_lossy())), ("ABSTRACT_NAME", c_string(&abstract_name))],
    );
    assert_attack_failed(&hostile);
    // `connect` returns once the connection is queued, before the bot answers.
    for listener in [&by_path, &by_name] {
        let accepted = listener.accept();
        assert!(
            matches!(&accepted, Err(e) if e.kind() == ErrorKind::WouldBlock),
            "a connection was made: {accepted:?}"
        );
    }
}

/// The keys of the System V objects of one test run.
fn ipc_keys() -> (i32, i32) {
    let base = 0x0e7e_0000 | (std::process::id() as i32 & 0xffff);
    (base, base ^ 0x0001_0000)
}

/// A bot leaves a 64 MiB shared-memory segment and a message queue behind for a bot of another
/// match (or its own next game), and looks for the host's segment: it sees nothing of the host's,
/// the next runner sees nothing it left, and nothing of it is left in the host's namespace.
#[test]
fn system_v_ipc_leaves_nothing_behind_and_sees_nothing_of_the_host() {
    let (bot_key, host_key) = ipc_keys();
    // SAFETY: shmget creates a small segment under a key of this test; it is removed below.
    let host_segment = unsafe { libc::shmget(host_key, 4096, libc::IPC_CREAT | 0o666) };
    assert!(host_segment >= 0, "the host's segment: {}", std::io::Error::last_os_error());
    let hostile = fixture_with("sysv_ipc", "test", &[("KEY", bot_key.to_string()), ("HOST_KEY", host_key.to_string())]);
    // Two matches, one after the other: the second runner would find what the first left.
    assert_attack_failed(&hostile);
    assert_attack_failed(&hostile);
    // SAFETY: a lookup by key (no creation) and the removal of this test's own segment.
    let (left_segment, left_queue) = unsafe {
        let found = (libc::shmget(bot_key, 0, 0), libc::msgget(bot_key, 0));
        libc::shmctl(host_segment, libc::IPC_RMID, std::ptr::null_mut());
        found
    };
    assert!(left_segment < 0 && left_queue < 0, "the bot left a segment or queue in the host's namespace");
}

/// A bot watches a folder outside its reach (Landlock does not govern inotify), to learn the
/// names of the files created there: it cannot.
#[test]
fn a_folder_cannot_be_watched_for_new_files() {
    let dir = tempfile::tempdir().unwrap();
    // Readable by every user, as most folders are: only the sandbox keeps the bot out.
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let hostile = fixture_with("inotify_watch", "test", &[("WATCHED", c_string(&dir.path().to_string_lossy()))]);
    assert_attack_failed(&hostile);
}

/// Both libraries in one folder (a contest's uploads, the plugins folder): the bot can neither
/// read its opponent's library nor see the folder's other files.
#[test]
fn the_rivals_library_and_the_folder_are_out_of_reach() {
    let rival = fixture("first_legal");
    let folder = rival.parent().unwrap().to_path_buf();
    let own_name = "libread_rival-test.so";
    let hostile = fixture_with(
        "read_rival",
        "test",
        &[
            ("RIVAL", c_string(&rival.to_string_lossy())),
            ("FOLDER", c_string(&folder.to_string_lossy())),
            ("OWN_NAME", c_string(own_name)),
        ],
    );
    assert_eq!(hostile.file_name().unwrap(), own_name, "the fixture's name");
    assert_eq!(hostile.parent(), Some(folder.as_path()), "both in one folder");
    assert_attack_failed(&hostile);
}

/// `clone` with namespace flags (and `clone3`) made new user, network and UTS namespaces with
/// CAP_SYS_ADMIN inside: now refused, while plain threads still start.
#[test]
fn new_namespaces_by_clone_are_refused_and_threads_still_start() {
    if !sandbox_has_layers("clone_namespaces", &["seccomp"]) {
        return;
    }
    assert_attack_failed(&fixture("clone_namespaces"));
}

/// Terminal escapes, a carriage return and forged result lines in a bot's name, stderr and
/// `othello_last_error`: every text the user sees of it — the seat's name, the failure and its
/// quoted stderr lines, the game's GGF and JSON — is one harmless line each, and no line the bot
/// wrote can start a line of the host's report.
#[test]
fn terminal_escapes_and_forged_lines_reach_no_output() {
    let hostile_name = "\\x1b]0;pwned\\x07\\x1b[2JEvil\\rResult: 64-0\\nA\\xe2\\x80\\x8blpha\\xef\\xbf\\xbe";
    let noisy = fixture_with("noisy_output", "test", &[("NAME", format!("\"{hostile_name}\""))]);
    let [first, second] = two_games(&noisy);
    assert_eq!(first.result.termination(), Termination::Crash, "{:?}", first.result);
    assert_eq!(second.result.termination(), Termination::Normal, "{:?}", second.result);
    let failure = first.result.failure().expect("the bot's failure").clone();
    let name = first.black.clone();
    let visible = |text: &str| !text.chars().any(othello_arena::text::is_hidden_or_control);
    assert!(visible(&name) && name.contains("Evil") && name.contains("Alpha"), "{name:?}");
    assert!(visible(&failure.detail) && failure.detail.contains("(last error)"), "{failure:?}");
    assert!(!failure.stderr_tail.is_empty(), "the bot's stderr is quoted");
    for line in &failure.stderr_tail {
        assert!(visible(line), "{line:?}");
    }
    // The terminal: the failure's own line, then quoted lines only.
    let shown = failure.to_string();
    let mut lines = shown.lines();
    assert!(lines.next().unwrap().starts_with("crash: "), "{shown}");
    for line in lines {
        assert!(line == "  last stderr lines:" || line.starts_with(othello_arena::text::QUOTE), "{line:?} in {shown}");
    }
    assert!(!shown.chars().any(|c| c != '\n' && othello_arena::text::is_hidden_or_control(c)), "{shown:?}");
    // The files: GGF and JSON carry the same harmless texts.
    let ggf = othello_arena::ggf::write_game(&first);
    assert!(!ggf.chars().any(othello_arena::text::is_hidden_or_control), "{ggf:?}");
    let json = serde_json::to_string(&first).unwrap();
    let back: GameRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back.result.failure(), Some(&failure));
    // A forged JSON record (a worker's report) is cleaned as it is read.
    let forged = json.replace("Evil", "Evil\\u001b[2J\\r\\nStandings: 1. Evil");
    let read: GameRecord = serde_json::from_str(&forged).unwrap();
    let detail = &read.result.failure().unwrap().detail;
    assert!(visible(detail), "{detail:?}");
}

/// Bots named alike — zero-width characters, a Cyrillic letter, full-width letters, another case —
/// are shown with what tells them apart (their file) wherever the arena lists or seats them, and
/// a name that looks like several asks for the file.
#[test]
fn look_alike_names_are_told_apart() {
    let named = |tag: &str, name: &str| fixture_with("named", tag, &[("NAME", format!("\"{name}\""))]);
    let libraries: Vec<PathBuf> = vec![
        named("real", "Alpha-beta"),
        named("zero-width", "Al\\xe2\\x80\\x8bpha-beta"),
        named("cyrillic", "\\xd0\\x90lpha-beta"),
        named("wide", "\\xef\\xbc\\xa1lpha-beta"),
        named("upper", "ALPHA-BETA"),
    ];
    let infos = othello_arena::plugins::probe_all(&libraries, &runner_command(), &seat_options());
    let names: Vec<&str> = infos.iter().map(|info| info.name.as_str()).collect();
    for (info, library) in infos.iter().zip(&libraries) {
        let file = library.file_name().unwrap().to_string_lossy();
        assert!(info.name.ends_with(&format!("({file})")), "{names:?}");
    }
    let distinct: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), libraries.len(), "{names:?}");
    // Resolving the name finds several: the user must name the file.
    let isolated_folder = shared_folder();
    for library in &libraries {
        std::fs::copy(library, isolated_folder.path().join(library.file_name().unwrap())).unwrap();
    }
    let resolved = othello_arena::plugins::resolve(
        "Alpha-beta",
        &[isolated_folder.path().to_path_buf()],
        &runner_command(),
        &seat_options(),
    );
    let why = resolved.expect_err("a name several bots look like is ambiguous");
    assert!(why.contains("several bots look like `Alpha-beta`"), "{why}");
}
