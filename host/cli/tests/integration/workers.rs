//! `othello worker` processes playing for an `othello serve --workers 0` server, each in a folder
//! of its own as on other machines: one is killed with `kill -9` in the middle of a job, its
//! lease lapses, another plays the job, and every game counts once.

use std::path::Path;
use std::process::{Command, Stdio};

use othello_testkit::fixture_with;

use crate::serving::{
    ContestLadder, Process, agent, count, othello_exe, seed_contest, start_server, upload, wait_until,
};

fn othello(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(othello_exe()).current_dir(dir).args(args).stdin(Stdio::null()).output().unwrap();
    assert!(output.status.success(), "othello {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn start_worker(dir: &Path, address: &str, token: &str) -> Process {
    start_worker_reading(dir, address, token, None)
}

/// A worker whose bots may read `read` too (a test bot's gate).
fn start_worker_reading(dir: &Path, address: &str, token: &str, read: Option<&Path>) -> Process {
    std::fs::create_dir_all(dir).unwrap();
    let child = Command::new(othello_exe())
        .current_dir(dir)
        .args(["worker", "--server", &format!("http://{address}"), "--concurrency", "1", "--cache", "cache"])
        .args(read.iter().flat_map(|folder| [Path::new("--read"), folder]))
        .arg("--allow-weak-sandbox")
        .env("OTHELLO_WORKER_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    Process(child)
}

fn get_json(address: &str, path: &str, token: Option<&str>) -> serde_json::Value {
    let mut request = agent().get(format!("http://{address}{path}"));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let mut response = request.call().unwrap();
    serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap()
}

#[test]
fn worker_processes_rate_the_bots_and_a_worker_killed_mid_job_loses_nothing() {
    let root = tempfile::tempdir().unwrap();
    let server_dir = root.path().join("server");
    std::fs::create_dir_all(&server_dir).unwrap();
    let store = ContestLadder::new(&server_dir);
    seed_contest(&server_dir, &store.arg);
    let ladder = ["--ladder", store.arg.as_str()];
    let entrant = othello(&server_dir, &[&["serve", "entrant", "add", "Kim"][..], &ladder].concat())
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let tokens: Vec<String> = ["one", "two", "three"]
        .iter()
        .map(|name| {
            let out = othello(&server_dir, &[&["serve", "worker", "add", name][..], &ladder].concat());
            let token = out.lines().last().unwrap().to_owned();
            assert_eq!(token.len(), 64, "the token alone on the last line: {out}");
            token
        })
        .collect();

    let (server, address) =
        start_server(&server_dir, &store.arg, &["--workers", "0", "--lease-secs", "3", "--max-games", "8"]);

    // The gated bot waits before each move while its gate is closed, which only the first worker
    // lets it read: its first job is held in the middle by construction, and the worker is killed
    // there; the other workers play it freely.
    let (gated, gate) = othello_testkit::Gate::bot("worker-kill9", "Gated");
    let gated = std::fs::read(gated).unwrap();
    gate.close();
    let mut one = start_worker_reading(&root.path().join("one"), &address, &tokens[0], Some(gate.folder()));
    let first = upload(&address, &entrant, "libgated.so", &gated)["id"].as_i64().unwrap();
    wait_until("worker one to be playing the check", || {
        let workers = get_json(&address, "/api/workers", None);
        workers.as_array().unwrap().iter().any(|w| w["name"] == "one" && !w["playing"].as_array().unwrap().is_empty())
    });
    one.0.kill().unwrap(); // SIGKILL: no release, no clean-up
    one.0.wait().unwrap();

    let others: Vec<Process> = [("two", &tokens[1]), ("three", &tokens[2])]
        .iter()
        .map(|(name, token)| start_worker(&root.path().join(name), &address, token))
        .collect();
    let mut ids = vec![first];
    for (tag, name) in [("worker-a", "Alpha"), ("worker-b", "Beta")] {
        let bot = std::fs::read(fixture_with("named", tag, &[("NAME", format!("\"{name}\""))])).unwrap();
        ids.push(upload(&address, &entrant, &format!("lib{tag}.so"), &bot)["id"].as_i64().unwrap());
    }
    for id in &ids {
        wait_until("every bot placed", || {
            let bot = get_json(&address, &format!("/api/bots/{id}"), Some(&entrant));
            assert_ne!(bot["status"], "rejected", "{bot}");
            bot["status"] == "rated"
        });
    }
    for mut worker in others {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(worker.0.id() as i32), nix::sys::signal::Signal::SIGTERM)
            .unwrap();
        assert!(worker.0.wait().unwrap().success(), "a worker stops cleanly on SIGTERM");
    }
    drop(server);

    let db = store.open();
    crate::serving::assert_every_job_done_and_every_game_counted_once(&db);
    for id in &ids {
        let entry: i64 =
            db.query_row("SELECT entry FROM server_uploads WHERE id = ?1", [*id], |row| row.get(0)).unwrap();
        assert_eq!(count(&db, &format!("SELECT count(*) FROM games WHERE black = {entry} OR white = {entry}")) % 2, 0);
    }
    assert!(
        count(
            &db,
            "SELECT attempts FROM server_jobs WHERE kind = 'check' AND upload = (SELECT min(id) FROM server_uploads)"
        ) >= 2,
        "the killed worker's job was claimed again"
    );
    assert_eq!(
        count(&db, "SELECT games FROM server_workers WHERE name = 'one'"),
        0,
        "the killed worker counted nothing"
    );
    let listed = othello(&server_dir, &[&["serve", "worker", "list"][..], &ladder].concat());
    assert!(listed.contains("two") && listed.contains("three"), "{listed}");
}
