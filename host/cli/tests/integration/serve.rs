//! `othello serve` as an organiser runs it: entrants added on the command line, and a server
//! killed with `kill -9` in the middle of a placement that resumes on restart with no game lost
//! or counted twice.

use std::path::Path;
use std::process::{Command, Stdio};

use othello_testkit::fixture_with;

use crate::serving::{ContestLadder, agent, count, othello_exe, seed_contest, upload, wait_until};

fn othello(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(othello_exe()).current_dir(dir).args(args).stdin(Stdio::null()).output().unwrap()
}

/// Starts `othello serve` with one local worker and a placement cap of 30 games.
#[test]
fn entrants_are_added_listed_and_revoked_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = ContestLadder::new(dir.path());
    let l = store.arg.as_str();
    let added = othello(dir.path(), &["serve", "entrant", "add", "Ada", "--ladder", l]);
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let stdout = String::from_utf8(added.stdout).unwrap();
    let token = stdout.lines().last().unwrap();
    assert_eq!(token.len(), 64, "the token alone on the last line: {stdout}");
    assert!(stdout.contains(&format!("/login#token={token}")), "a login link: {stdout}");
    let again = othello(dir.path(), &["serve", "entrant", "add", "Ada", "--ladder", l]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already"));
    let revoked = othello(dir.path(), &["serve", "entrant", "revoke", "Ada", "--ladder", l]);
    assert!(revoked.status.success());
    let list = othello(dir.path(), &["serve", "entrant", "list", "--ladder", l]);
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(list.contains("Ada") && list.contains("revoked"), "{list}");
    // A new token brings a revoked entrant back under the same name; the old one stays dead.
    let renewed = othello(dir.path(), &["serve", "entrant", "token", "Ada", "--ladder", l]);
    assert!(renewed.status.success(), "{}", String::from_utf8_lossy(&renewed.stderr));
    let stdout = String::from_utf8(renewed.stdout).unwrap();
    let new_token = stdout.lines().last().unwrap();
    assert!(new_token.len() == 64 && new_token != token, "{stdout}");
    assert!(stdout.contains(&format!("/login#token={new_token}")), "a login link: {stdout}");
    let list = othello(dir.path(), &["serve", "entrant", "list", "--ladder", l]);
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(list.contains("Ada") && !list.contains("revoked"), "{list}");
    let unknown = othello(dir.path(), &["serve", "entrant", "token", "Nobody", "--ladder", l]);
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("no entrant `Nobody`"));
    // Workers: a new token, and a purge of a worker that played nothing.
    let added = othello(dir.path(), &["serve", "worker", "add", "lab", "--ladder", l]);
    assert!(added.status.success());
    let renewed = othello(dir.path(), &["serve", "worker", "token", "lab", "--ladder", l]);
    assert_eq!(String::from_utf8(renewed.stdout).unwrap().lines().last().unwrap().len(), 64);
    let purged = othello(dir.path(), &["serve", "worker", "purge", "lab", "--ladder", l]);
    assert!(purged.status.success(), "{}", String::from_utf8_lossy(&purged.stderr));
    assert!(String::from_utf8(purged.stdout).unwrap().contains("Removed the 0 game(s)"));
    // The ladder commands still read the file the server added its tables to.
    let ladder = othello(dir.path(), &["ladder", "--ladder", l]);
    assert!(ladder.status.success(), "{}", String::from_utf8_lossy(&ladder.stderr));
}

#[test]
fn a_server_killed_mid_placement_resumes_with_no_game_lost_or_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let store = ContestLadder::new(dir.path());
    let l = store.arg.as_str();
    seed_contest(dir.path(), l);
    let added = othello(dir.path(), &["serve", "entrant", "add", "Kim", "--ladder", l]);
    let token = String::from_utf8(added.stdout).unwrap().lines().last().unwrap().to_owned();

    // The bot waits before each move while its gate is closed (the server lets it read the gate).
    let (survivor, gate) = othello_testkit::Gate::bot("kill9", "Survivor");
    let read = gate.folder().to_str().unwrap().to_owned();
    let (mut server, address) =
        crate::serving::start_server(dir.path(), l, &["--workers", "1", "--max-games", "30", "--read", &read]);
    let bot = std::fs::read(survivor).unwrap();
    let uploaded = upload(&address, &token, "libsurvivor.so", &bot);
    let id = uploaded["id"].as_i64().unwrap();

    let db = store.open();
    // Mid-rating: the check and a placement pair done and a game of the next one recorded.
    wait_until("three placement games", || {
        let (status, reason): (String, Option<String>) = db
            .query_row("SELECT status, reason FROM server_uploads WHERE id = ?1", [id], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .unwrap();
        assert_ne!(status, "rejected", "{reason:?}");
        count(&db, "SELECT count(*) FROM server_job_games") >= 3
    });
    // Held: a job that starts from now on cannot finish (the bot waits before its next move), so
    // once one runs the server is killed in the middle of it, however fast the machine.
    gate.close();
    let started_before = count(&db, "SELECT coalesce(max(id), 0) FROM server_jobs WHERE state != 'queued'");
    wait_until("a job started after the hold", || {
        count(&db, &format!("SELECT count(*) FROM server_jobs WHERE state = 'running' AND id > {started_before}")) > 0
    });
    server.0.kill().unwrap(); // SIGKILL: no clean-up at all
    server.0.wait().unwrap();
    let games_before = count(&db, "SELECT count(*) FROM games");
    let last_game_before = count(&db, "SELECT max(id) FROM games");
    assert!(count(&db, "SELECT count(*) FROM server_jobs WHERE state = 'running'") > 0, "killed mid-job");
    gate.open();

    let (mut server, address) =
        crate::serving::start_server(dir.path(), l, &["--workers", "1", "--max-games", "30", "--read", &read]);
    wait_until("the placement to end", || {
        let mut response = agent()
            .get(format!("http://{address}/api/bots/{id}"))
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .unwrap();
        let bot: serde_json::Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        bot["status"] == "rated"
    });
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server.0.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    assert!(server.0.wait().unwrap().success(), "a clean stop on SIGTERM");

    let entry: i64 = db.query_row("SELECT entry FROM server_uploads WHERE id = ?1", [id], |row| row.get(0)).unwrap();
    let bot_games = count(&db, &format!("SELECT count(*) FROM games WHERE black = {entry} OR white = {entry}"));
    assert_eq!(bot_games, 30, "the placement's game cap, every game counted once");
    assert!(count(&db, "SELECT count(*) FROM games") >= games_before, "no game lost");
    assert_eq!(
        count(&db, &format!("SELECT count(*) FROM games WHERE id <= {last_game_before}")),
        games_before,
        "every game recorded before the kill is still there"
    );
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM games WHERE (black = {entry} OR white = {entry})
                 AND id NOT IN (SELECT game FROM server_job_games)"
            )
        ),
        0,
        "every game of the placement belongs to a job"
    );
    crate::serving::assert_every_job_done_and_every_game_counted_once(&db);
}

#[test]
fn a_server_killed_mid_final_resumes_it_with_no_game_lost_or_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let store = ContestLadder::new(dir.path());
    let l = store.arg.as_str();
    seed_contest(dir.path(), l);
    let (gate_library, gate) = othello_testkit::Gate::bot("final-max", "Held");
    let server_args = ["--workers", "1", "--max-games", "30", "--read", gate.folder().to_str().unwrap()];
    let (mut server, address) = crate::serving::start_server(dir.path(), l, &server_args);
    let mut tokens = Vec::new();
    for entrant in ["Kim", "Lee", "Max"] {
        let added = othello(dir.path(), &["serve", "entrant", "add", entrant, "--ladder", l]);
        tokens.push(String::from_utf8(added.stdout).unwrap().lines().last().unwrap().to_owned());
    }
    let db = store.open();
    for (token, tag, name) in [(&tokens[0], "final-kim", "Kim's bot"), (&tokens[1], "final-lee", "Lee's bot")] {
        let library = std::fs::read(fixture_with("named", tag, &[("NAME", format!("\"{name}\""))])).unwrap();
        upload(&address, token, "libbot.so", &library);
    }
    wait_until("Kim's and Lee's bots placed", || {
        count(&db, "SELECT count(*) FROM server_uploads WHERE status = 'rated'") == 2
    });
    // Max's bot waits before each move while its gate is closed: held from its upload on, it
    // loses its placement games on time (so it is seeded last), and in the final, with a long
    // time a move, its first game cannot end: the kill lands in the middle of the final by
    // construction, after the first game (seed 1 against seed 2) is recorded.
    let held = gate_library;
    gate.close();
    let held_upload = upload(&address, &tokens[2], "libbot.so", &std::fs::read(&held).unwrap())["id"].as_i64().unwrap();
    wait_until("Max's bot checked", || {
        count(
            &db,
            &format!("SELECT count(*) FROM server_uploads WHERE id = {held_upload} AND status IN ('rating', 'rated')"),
        ) == 1
    });
    let last_game_before_final = count(&db, "SELECT max(id) FROM games");
    let started = othello(
        dir.path(),
        &["serve", "final", "start", "--ladder", l, "--games-per-pair", "2", "--time-ms", "600000"],
    );
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let stdout = String::from_utf8(started.stdout).unwrap();
    assert!(stdout.contains("3 bots") && stdout.contains("3. Held (Max)"), "the held bot seeded last: {stdout}");
    wait_until("the held bot's first game of the final", || {
        count(&db, "SELECT count(*) FROM server_final_games WHERE state = 'running' AND 3 IN (black, white)") > 0
    });
    server.0.kill().unwrap(); // SIGKILL: no clean-up at all
    server.0.wait().unwrap();
    let interrupted = count(&db, "SELECT id FROM server_final_games WHERE state = 'running'");
    let done_before = count(&db, "SELECT count(*) FROM server_final_games WHERE state = 'done'");
    let games_before = count(&db, "SELECT count(*) FROM games");
    let last_game_before = count(&db, "SELECT max(id) FROM games");
    assert_eq!(done_before, 1, "killed mid-final, after its first game");
    gate.open();

    let (mut server, _) = crate::serving::start_server(dir.path(), l, &server_args);
    wait_until("the final to end", || {
        count(&db, "SELECT count(*) FROM server_finals WHERE finished_at IS NOT NULL") == 1
    });
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server.0.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    assert!(server.0.wait().unwrap().success(), "a clean stop on SIGTERM");

    assert_eq!(count(&db, "SELECT count(*) FROM server_final_games"), 6, "three pairings of two games");
    assert_eq!(count(&db, "SELECT count(*) FROM server_final_games WHERE state = 'done' AND game IS NOT NULL"), 6);
    assert_eq!(count(&db, "SELECT count(DISTINCT game) FROM server_final_games"), 6, "six ladder games, each once");
    assert_eq!(
        count(&db, &format!("SELECT attempts FROM server_final_games WHERE id = {interrupted}")),
        2,
        "the interrupted game was played again"
    );
    assert_eq!(
        count(&db, &format!("SELECT count(*) FROM games WHERE id <= {last_game_before}")),
        games_before,
        "every game recorded before the kill is still there"
    );
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM games WHERE id > {last_game_before_final}
                 AND id NOT IN (SELECT game FROM server_job_games)
                 AND id NOT IN (SELECT game FROM server_final_games WHERE game IS NOT NULL)"
            )
        ),
        0,
        "every game since the final began belongs to one job or one game of the final"
    );

    let shown = othello(dir.path(), &["serve", "final", "show", "--ladder", l]);
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(shown.contains("6 of 6 games played, finished"), "{shown}");
    for name in ["Kim's bot", "Lee's bot", "Held"] {
        assert!(shown.contains(name), "{name} in {shown}");
    }
    let exported = othello(dir.path(), &["serve", "final", "export", "--ladder", l, "final.html"]);
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let html = std::fs::read_to_string(dir.path().join("final.html")).unwrap();
    assert!(html.contains("Kim's bot") || html.contains("Kim&#39;s bot"), "{html}");
    assert!(html.contains("id=\"final-standings\"") && !html.contains("<script"));
}

/// `othello serve copies enter|refuse` sets the organiser's rule for copies in the ladder file;
/// anything else is refused before it touches the file.
#[test]
fn the_organiser_chooses_on_the_command_line_whether_copies_are_entered() {
    let dir = tempfile::tempdir().unwrap();
    let store = ContestLadder::new(dir.path());
    let l = store.arg.as_str();
    let entered = othello(dir.path(), &["serve", "copies", "enter", "--ladder", l]);
    assert!(entered.status.success(), "{}", String::from_utf8_lossy(&entered.stderr));
    assert!(String::from_utf8_lossy(&entered.stdout).contains("entered"));
    let rule = |location: &othello_db::Location| {
        othello_server::admin::copy_rule(&othello_server::store::open(location).unwrap()).unwrap()
    };
    let ladder = store.location.clone();
    assert_eq!(rule(&ladder), othello_server::admin::CopyRule::Enter);
    let wrong = othello(dir.path(), &["serve", "copies", "share", "--ladder", l]);
    assert!(!wrong.status.success());
    assert_eq!(rule(&ladder), othello_server::admin::CopyRule::Enter, "unchanged by a wrong word");
    let refused = othello(dir.path(), &["serve", "copies", "refuse", "--ladder", l]);
    assert!(refused.status.success());
    assert_eq!(rule(&ladder), othello_server::admin::CopyRule::Refuse);
}
