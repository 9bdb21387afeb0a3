//! Two `othello serve` processes on one ladder (replicas; on PostgreSQL when the suite runs on it,
//! else on one SQLite file): an upload to the first, whose own worker is playing its check when
//! it is killed with `kill -9` and its machine's uploads are lost; the second, with a remote
//! worker, rates the bot from the bytes in the database, and every game counts once.

use std::path::Path;
use std::process::{Command, Stdio};

use othello_testkit::fixture_with;

use crate::serving::{ContestLadder, Process, count, othello_exe, seed_contest, start_server, upload, wait_until};

fn othello(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(othello_exe()).current_dir(dir).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(output.status.success(), "othello {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn get_json(address: &str, path: &str, token: &str) -> serde_json::Value {
    let mut response = crate::serving::agent()
        .get(format!("http://{address}{path}"))
        .header("Authorization", format!("Bearer {token}"))
        .call()
        .unwrap();
    serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap()
}

#[test]
fn a_replica_killed_mid_game_loses_nothing_and_the_other_rates_the_bot() {
    let root = tempfile::tempdir().unwrap();
    let (first_dir, second_dir) = (root.path().join("first"), root.path().join("second"));
    std::fs::create_dir_all(&first_dir).unwrap();
    let store = ContestLadder::new(&first_dir);
    let ladder = store.arg.clone();
    // A file ladder: both replicas open the same file, by its absolute path.
    let ladder = if ladder.starts_with("postgres") { ladder } else { first_dir.join(ladder).display().to_string() };
    seed_contest(&first_dir, &ladder);
    // The second replica runs from a folder of its own, with a pool of the same files (the pool's
    // paths are the first folder's: on one machine, as replicas behind one proxy would share it).
    std::fs::create_dir_all(second_dir.join("plugins")).unwrap();
    for file in ["librandom.so", "libfirst_legal.so"] {
        std::fs::copy(first_dir.join("plugins").join(file), second_dir.join("plugins").join(file)).unwrap();
    }
    let entrant = othello(&first_dir, &["serve", "entrant", "add", "Kim", "--ladder", &ladder])
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let worker_token =
        othello(&first_dir, &["serve", "worker", "add", "lab", "--ladder", &ladder]).lines().last().unwrap().to_owned();

    // The gated bot waits before each move while its gate is closed, which only the first
    // replica's worker lets it read: the first replica is held in its check by construction.
    let (gated, gate) = othello_testkit::Gate::bot("replica-kill9", "Gated");
    gate.close();
    let first_uploads = first_dir.join("uploads");
    let (mut first, first_address) = start_server(
        &first_dir,
        &ladder,
        &["--workers", "1", "--max-games", "8", "--read", gate.folder().to_str().unwrap()],
    );
    let (second, second_address) =
        start_server(&second_dir, &ladder, &["--workers", "0", "--lease-secs", "3", "--max-games", "8"]);
    let db = store_connection(&store, &ladder);
    assert_eq!(count(&db, "SELECT count(*) FROM server_replicas"), 2, "both replicas announced themselves");

    let id = upload(&first_address, &entrant, "libgated.so", &std::fs::read(gated).unwrap())["id"].as_i64().unwrap();
    wait_until("the first replica's worker to be playing the check", || {
        count(&db, "SELECT count(*) FROM server_jobs WHERE state = 'running' AND lease LIKE 'local:%'") == 1
    });
    // The second replica sees the first's upload on its own pages, and its game on the arena
    // screen, move by move.
    wait_until("the second replica to show the upload being checked", || {
        get_json(&second_address, &format!("/api/bots/{id}"), &entrant)["status"] == "checking"
    });
    wait_until("the first replica's game on the second's arena screen", || {
        let mut response = crate::serving::agent().get(format!("http://{second_address}/arena")).call().unwrap();
        response.body_mut().read_to_string().unwrap().contains("Gated")
    });
    first.0.kill().unwrap(); // SIGKILL: no clean-up, its row stays until it lapses
    first.0.wait().unwrap();
    // Its machine is gone with its uploads: the second replica has only the database.
    std::fs::remove_dir_all(&first_uploads).unwrap();

    let worker_dir = root.path().join("worker");
    std::fs::create_dir_all(&worker_dir).unwrap();
    let worker = Process(
        Command::new(othello_exe())
            .current_dir(&worker_dir)
            .args(["worker", "--server", &format!("http://{second_address}"), "--concurrency", "1"])
            .args(["--cache", "cache", "--allow-weak-sandbox"])
            .env("OTHELLO_WORKER_TOKEN", &worker_token)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let mut ids = vec![id];
    let named = std::fs::read(fixture_with("named", "replica-b", &[("NAME", "\"Beta\"".to_owned())])).unwrap();
    ids.push(upload(&second_address, &entrant, "libbeta.so", &named)["id"].as_i64().unwrap());
    for id in &ids {
        wait_until("every bot rated through the second replica", || {
            let bot = get_json(&second_address, &format!("/api/bots/{id}"), &entrant);
            assert_ne!(bot["status"], "rejected", "{bot}");
            bot["status"] == "rated"
        });
    }
    drop(worker);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(second.0.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    let mut second = second;
    assert!(second.0.wait().unwrap().success(), "a clean stop on SIGTERM");

    crate::serving::assert_every_job_done_and_every_game_counted_once(&db);
    assert!(
        count(&db, &format!("SELECT attempts FROM server_jobs WHERE kind = 'check' AND upload = {id}")) >= 2,
        "the killed replica's check was claimed again"
    );
    let gated_file = std::fs::read_dir(first_uploads.join(sha256_of(&db, id))).unwrap().count();
    assert_eq!(gated_file, 1, "the gated bot's file written again from the database, where the first replica kept it");
    assert_eq!(
        count(&db, &format!("SELECT count(*) FROM server_replicas WHERE address = '{second_address}'")),
        0,
        "the second replica left on its clean stop"
    );
}

fn sha256_of(db: &othello_db::Db, upload: i64) -> String {
    db.query_row("SELECT sha256 FROM server_uploads WHERE id = ?1", [upload], |row| row.get(0)).unwrap()
}

fn store_connection(store: &ContestLadder, ladder: &str) -> othello_db::Db {
    if ladder.starts_with("postgres") { store.open() } else { othello_db::open_sqlite_file(Path::new(ladder)).unwrap() }
}
