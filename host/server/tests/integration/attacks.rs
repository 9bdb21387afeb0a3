//! The second round of attacks (issue 45), one test each: a worker that lies, a copy of another
//! entrant's file, look-alike names, a lease held forever, a worker led to send its token
//! elsewhere or to hammer a server. Each asserts the attack had no effect and that the user sees
//! why.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use othello_arena::plugins::PluginStatus;
use othello_server::remote_client::{BACKOFF_FIRST, WorkerOptions, run};
use othello_server::worker::Played;
use serde_json::Value;

use crate::remote::{TestWorker, claim, count, made_up_check, made_up_game, post, refusals, remote_server, submit};
use crate::{DEADLINE, TestServer, compile_test_bot, named_bot};

fn worker(server: &TestServer, name: &str) -> String {
    othello_server::add_worker(&server.ladder(), name).unwrap()
}

fn upload_named(server: &TestServer, token: &str, tag: &str, name: &str) -> (i64, String) {
    let (status, json) = server.upload(Some(token), "bot.so", &std::fs::read(named_bot(tag, name)).unwrap());
    assert_eq!(status, 201, "{json}");
    (json["id"].as_i64().unwrap(), json["sha256"].as_str().unwrap().to_owned())
}

/// A worker fetches the libraries of its own leases only: not a classmate's bot by its hash.
#[test]
fn a_worker_cannot_download_a_library_that_none_of_its_leases_plays() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let fake = worker(&server, "fake");
    let (alice, bob) = (server.add_entrant("Alice"), server.add_entrant("Bob"));
    let (_, alice_hash) = upload_named(&server, &alice, "dl-alice", "Alice's bot");
    let (_, bob_hash) = upload_named(&server, &bob, "dl-bob", "Bob's bot");

    // No lease yet: nothing at all.
    let (status, body) = server.get(&format!("/api/worker/libraries/{bob_hash}"), Some(&fake));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("none of this worker's live leases"), "{body}");

    let claimed = claim(&server, &fake);
    let (leased, other) =
        if claimed.plan.bots[0].sha256 == alice_hash { (&alice_hash, &bob_hash) } else { (&bob_hash, &alice_hash) };
    let (status, body) = server.get(&format!("/api/worker/libraries/{other}"), Some(&fake));
    assert_eq!(status, 403, "the other entrant's library: {body}");
    let response = server
        .agent
        .get(format!("{}/api/worker/libraries/{leased}", server.url))
        .header("Authorization", format!("Bearer {fake}"))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "the library of its own lease");
}

/// Heartbeats renew a lease up to its hard cap, no further: then the job goes to another worker.
#[test]
fn a_lease_cannot_be_held_forever_by_heartbeats() {
    let server = TestServer::start_with(|config| {
        config.workers = 0;
        config.lease_duration = Duration::from_secs(60);
        config.lease_cap = Duration::from_millis(1500);
    });
    let (holder, other) = (worker(&server, "holder"), worker(&server, "other"));
    let entrant = server.add_entrant("Cid");
    upload_named(&server, &entrant, "cap", "Cid's bot");
    let claimed = claim(&server, &holder);
    assert!(claimed.lease_ms <= 1500, "a claim's lease ends by the cap: {}", claimed.lease_ms);
    let start = Instant::now();
    let why = loop {
        let (status, body) = post(&server, &format!("/api/worker/leases/{}/heartbeat", claimed.lease), &holder, b"");
        if status == 409 {
            break body["error"].as_str().unwrap().to_owned();
        }
        assert_eq!(status, 200, "{body}");
        assert!(start.elapsed() < DEADLINE, "the lease is still renewed after {DEADLINE:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(why.contains("hard cap"), "{why}");
    assert!(start.elapsed() >= Duration::from_millis(1000), "renewed until the cap, not refused at once");
    let again = claim(&server, &other);
    assert_eq!(again.job, claimed.job, "the capped job went to another worker");
    let (status, body) = submit(&server, &holder, &claimed.lease, &made_up_check(&claimed));
    assert_eq!(status, 409, "a result under the capped lease does not count: {body}");
}

/// One worker saying that a classmate's working bot "does not load" rejects nothing: the check is
/// played again by another worker, which finds it loads.
#[test]
fn one_workers_does_not_load_verdict_does_not_reject_an_upload() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let (liar, honest) = (worker(&server, "liar"), worker(&server, "honest"));
    let entrant = server.add_entrant("Dee");
    let (id, _) = upload_named(&server, &entrant, "verdict", "Dee's bot");
    let claimed = claim(&server, &liar);
    let mut lie = made_up_check(&claimed);
    lie.games.clear();
    lie.probe.as_mut().unwrap().status = PluginStatus::Error("missing symbol `think`".to_owned());
    let (status, body) = submit(&server, &liar, &claimed.lease, &lie);
    assert_eq!(status, 200, "taken as one worker's word: {body}");
    let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&entrant));
    assert_ne!(bot["status"], "rejected", "{bot}");
    assert!(bot["reason"].as_str().unwrap().contains("another worker checks it again"), "{bot}");
    // The liar is not given the same check again.
    let (status, body) = post(&server, "/api/worker/claim", &liar, b"{}");
    assert_eq!(status, 204, "{body}");

    let honest = TestWorker::start(&server, &honest, 1);
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    honest.stop().unwrap();
    assert_eq!(bot["status"], "rated", "the honest worker found it loads: {bot}");
}

/// Two workers agreeing that a library does not load reject it, with their reason.
#[test]
fn two_workers_finding_a_library_unloadable_reject_it() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let dir = tempfile::tempdir().unwrap();
    let hollow = compile_test_bot("no_exports", dir.path());
    let entrant = server.add_entrant("Eve");
    let id = server.upload_file(&entrant, &hollow);
    let workers: Vec<TestWorker> =
        ["one", "two"].iter().map(|name| TestWorker::start(&server, &worker(&server, name), 1)).collect();
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    for worker in workers {
        worker.stop().unwrap();
    }
    assert_eq!(bot["status"], "rejected", "{bot}");
    assert!(bot["reason"].as_str().unwrap().contains("does not load"), "{bot}");
    assert_eq!(
        count(
            &server,
            &format!(
                "SELECT count(DISTINCT worker) FROM server_load_verdicts WHERE job IN (SELECT id FROM server_jobs WHERE upload = {id})"
            )
        ),
        2
    );
}

/// A worker reporting a library without the bot's exports as loadable is refused.
#[test]
fn a_workers_report_is_held_against_the_librarys_exports() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let fake = worker(&server, "fake");
    let dir = tempfile::tempdir().unwrap();
    let hollow = compile_test_bot("no_exports", dir.path());
    let entrant = server.add_entrant("Fay");
    let hollow_id = server.upload_file(&entrant, &hollow);
    let claimed = claim(&server, &fake);
    let (status, body) = submit(&server, &fake, &claimed.lease, &made_up_check(&claimed));
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("exports no init, think"), "{body}");
    let (_, bot) = server.get_json(&format!("/api/bots/{hollow_id}"), Some(&entrant));
    assert!(bot["entry"].is_null() && bot["status"] != "rated", "not on the ladder: {bot}");
    assert!(refusals(&server).iter().any(|r| r.contains("exports no init")), "logged for the organiser");
}

/// A name a worker reports for a bot (an escape sequence, 313 characters) is made harmless and
/// bounded as a local probe's is.
#[test]
fn a_name_a_worker_reports_is_made_harmless() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let fake = worker(&server, "fake");
    let entrant = server.add_entrant("Fay");
    let (id, _) = upload_named(&server, &entrant, "harmless", "Fay's bot");
    let claimed = claim(&server, &fake);
    let mut report = made_up_check(&claimed);
    let long_name = format!("\u{1b}]0;owned\u{7}{}", "x".repeat(303));
    assert_eq!(long_name.chars().count(), 313);
    report.probe.as_mut().unwrap().name = long_name;
    let (status, body) = submit(&server, &fake, &claimed.lease, &report);
    assert_eq!(status, 200, "{body}");
    let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&entrant));
    let name = bot["name"].as_str().unwrap();
    assert!(!name.contains('\u{1b}') && !name.contains('\u{7}'), "{name:?}");
    assert!(name.chars().count() <= othello_arena::seat::MAX_BOT_NAME_CHARS, "{name:?}");
}

/// A move a worker measured over the limit and its grace is that bot's timeout loss there: the
/// result counts (the honest worker is not taken for a cheat), the rest of the game does not.
#[test]
fn a_slow_move_is_the_bots_timeout_loss_not_a_refused_result() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let fake = worker(&server, "slow machine");
    let entrant = server.add_entrant("Gus");
    upload_named(&server, &entrant, "slow", "Gus's bot");
    let check = claim(&server, &fake);
    assert_eq!(submit(&server, &fake, &check.lease, &made_up_check(&check)).0, 200);
    let pair = claim(&server, &fake);
    assert_eq!(pair.plan.kind, "pair", "{pair:?}");
    let allowed = pair.plan.move_time_allowed(&othello_testkit::seat_options()).unwrap();
    assert_eq!(pair.plan.grace_ms.map(Duration::from_millis), Some(allowed - pair.plan.time_limit().unwrap()));
    let mut games = vec![made_up_game(&pair, "a", "b"), made_up_game(&pair, "b", "a")];
    // The first game's fifth move took longer than the rule allows.
    games[0].moves[4].elapsed = allowed + Duration::from_millis(55);
    let slow = games[0].moves[4].color;
    let (status, body) = submit(&server, &fake, &pair.lease, &Played { probe: None, games });
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["games"], 2, "{body}");
    assert!(refusals(&server).is_empty(), "{:?}", refusals(&server));
    let game = count(&server, &format!("SELECT min(game) FROM server_job_games WHERE job = {}", pair.job));
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    assert_eq!(replay["termination"], "timeout", "{replay}");
    let opening = pair.plan.opening().unwrap().moves().len();
    assert_eq!(replay["moves"].as_array().unwrap().len(), opening + 4, "the game ends at the slow move: {replay}");
    let winner = if slow == othello_sdk::Color::Black { "0-1" } else { "1-0" };
    assert!(replay["result"].as_str().unwrap().starts_with(winner), "{replay}");
}

/// A timeout claimed in a game without a time limit cannot have happened: refused.
#[test]
fn a_timeout_without_a_time_limit_is_refused() {
    let server = TestServer::start_with(|config| {
        config.workers = 0;
        config.time_limit = None;
    });
    let fake = worker(&server, "fake");
    let entrant = server.add_entrant("Hal");
    upload_named(&server, &entrant, "no-limit", "Hal's bot");
    let check = claim(&server, &fake);
    assert_eq!(submit(&server, &fake, &check.lease, &made_up_check(&check)).0, 200);
    let pair = claim(&server, &fake);
    let mut games = vec![made_up_game(&pair, "a", "b"), made_up_game(&pair, "b", "a")];
    // The opponent "timed out" at once: the game ends before its first move.
    let loser = games[0].start.side_to_move();
    games[0].moves.clear();
    games[0].result = othello_arena::record::Outcome::forfeit(
        loser,
        othello_arena::seat::Failure::new(othello_arena::seat::Termination::Timeout, "0 ms"),
    );
    let (status, body) = submit(&server, &fake, &pair.lease, &Played { probe: None, games });
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("no time limit"), "{body}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_job_games"), 0, "nothing counted");
}

/// A byte-identical copy of another entrant's library, or of a pool bot's, is refused with a
/// message naming whose it is; the original's row is untouched and the organiser sees the copy.
#[test]
fn a_copy_of_another_entrants_or_the_pools_file_is_refused_naming_it() {
    let server = TestServer::start();
    let (alice, bob) = (server.add_entrant("Alice"), server.add_entrant("Bob"));
    let greedy = named_bot("copied", "Greedy");
    let alice_id = server.upload_file(&alice, &greedy);
    let alice_bot = server.wait_for_status(&alice, alice_id, &["rated", "rejected"]);
    assert_eq!(alice_bot["status"], "rated", "{alice_bot}");

    let (status, json) = server.upload(Some(&bob), "greedy.so", &std::fs::read(&greedy).unwrap());
    assert_eq!(status, 409, "{json}");
    let why = json["error"].as_str().unwrap();
    assert!(why.contains("copy") && why.contains("Alice"), "{why}");
    let (status, json) = server.upload(Some(&bob), "random.so", &std::fs::read(othello_testkit::random_bot()).unwrap());
    assert_eq!(status, 409, "{json}");
    assert!(json["error"].as_str().unwrap().contains("pool"), "{json}");

    let (_, board) = server.get_json("/api/leaderboard", None);
    let rows = board.as_array().unwrap();
    let alice_row = rows.iter().find(|r| r["bot"] == alice_id).unwrap();
    assert_eq!(alice_row["entrant"], "Alice", "{alice_row}");
    assert!(rows.iter().all(|r| r["entrant"] != "Bob"), "Bob took no row: {board}");
    let random_row = rows.iter().find(|r| r["name"] == "Random").unwrap();
    assert!(random_row["entrant"].is_null(), "the pool's row stays the pool's: {random_row}");
    assert_eq!(
        count(
            &server,
            "SELECT count(*) FROM server_uploads WHERE entrant = (SELECT id FROM server_entrants WHERE name = 'Bob')"
        ),
        0
    );
    let db = othello_server::store::open(&server.ladder()).unwrap();
    let copies = othello_server::service::entries::copies(&db).unwrap();
    assert_eq!(copies.len(), 2, "both copies are flagged for the organiser: {copies:?}");
}

/// A bot named like another entrant's (a Greek capital alpha, another case, a right-to-left
/// override) is refused with the reason; the first keeps its name and its row.
#[test]
fn a_bot_name_that_looks_like_another_entrants_is_refused() {
    let server = TestServer::start();
    let (alice, bob, carol) = (server.add_entrant("Alice"), server.add_entrant("Bob"), server.add_entrant("Carol"));
    let first = server.upload_file(&alice, &named_bot("look-alpha", "Alpha"));
    assert_eq!(server.wait_for_status(&alice, first, &["rated", "rejected"])["status"], "rated");
    for (token, tag, name) in [(&bob, "look-greek", "\u{391}LPHA"), (&carol, "look-rlo", "Alpha\u{202E}")] {
        let id = server.upload_file(token, &named_bot(tag, name));
        let bot = server.wait_for_status(token, id, &["rated", "rejected"]);
        assert_eq!(bot["status"], "rejected", "{name:?}: {bot}");
        let why = bot["reason"].as_str().unwrap();
        assert!(why.contains("looks like `Alpha`") && why.contains("Alice"), "{why}");
    }
    // A pool bot's name is taken too.
    let id = server.upload_file(&bob, &named_bot("look-pool", "random"));
    let bot = server.wait_for_status(&bob, id, &["rated", "rejected"]);
    assert!(bot["reason"].as_str().unwrap().contains("organiser's pool"), "{bot}");
    // Alice's next version may keep its name (here in another case).
    let again = server.upload_file(&alice, &named_bot("look-alpha-2", "alpha"));
    assert_eq!(server.wait_for_status(&alice, again, &["rated", "rejected"])["status"], "rated");
}

/// Two uploads on one ladder entry (made before copies were refused) seed the final once: no
/// entry plays itself.
#[test]
fn the_final_seeds_each_entry_once() {
    let server = TestServer::start();
    let (alice, bob, carol) = (server.add_entrant("Alice"), server.add_entrant("Bob"), server.add_entrant("Carol"));
    let a = server.upload_file(&alice, &named_bot("final-a", "Ay"));
    let b = server.upload_file(&bob, &named_bot("final-b", "Bee"));
    let c = server.upload_file(&carol, &named_bot("final-c", "Cee"));
    for (token, id) in [(&alice, a), (&bob, b), (&carol, c)] {
        server.wait_for_status(token, id, &["rated"]);
    }
    // As an older server left it: Bob's upload on Alice's entry.
    let db = othello_server::store::open(&server.ladder()).unwrap();
    db.execute(
        &format!("UPDATE server_uploads SET entry = (SELECT entry FROM server_uploads WHERE id = {a}) WHERE id = {b}"),
        [],
    )
    .unwrap();
    let options = othello_server::final_round::FinalOptions {
        format: othello_server::final_round::Format::RoundRobin,
        games_per_pair: 2,
        time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
        seed: 1,
    };
    let (_, bots) = othello_server::start_final(&server.ladder(), options).unwrap();
    let entries: Vec<i64> = bots.iter().map(|b| b.entry).collect();
    assert_eq!(entries.len(), 2, "{bots:?}");
    assert_ne!(entries[0], entries[1]);
    let view = server.wait_for_final();
    assert_eq!(
        count(&server, "SELECT count(*) FROM games WHERE black = white"),
        0,
        "no game of an entry against itself: {view}"
    );
}

/// A request a [`FakeServer`] saw: its path, its `Authorization` header and when it came.
type Seen = (String, Option<String>, Instant);

/// A stand-in server for the worker client: answers each request with `answer(path)` and notes
/// every request's line and `Authorization` header.
struct FakeServer {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeServer {
    fn start(answer: impl Fn(&str) -> (u16, String) + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (log, answer) = (seen.clone(), Arc::new(answer));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, answer) = (log.clone(), answer.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut stream = stream;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let (mut length, mut authorization) = (0, None);
                        loop {
                            let mut header = String::new();
                            if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                                break;
                            }
                            let (name, value) = header.split_once(':').unwrap_or((&header, ""));
                            if name.eq_ignore_ascii_case("content-length") {
                                length = value.trim().parse().unwrap_or(0);
                            }
                            if name.eq_ignore_ascii_case("authorization") {
                                authorization = Some(value.trim().to_owned());
                            }
                        }
                        let mut body = vec![0; length];
                        let _ = reader.read_exact(&mut body);
                        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                        log.lock().unwrap().push((path.clone(), authorization, Instant::now()));
                        let (status, body) = answer(&path);
                        let reply = format!(
                            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nContent-Type: application/json\r\n\r\n{body}",
                            body.len()
                        );
                        if stream.write_all(reply.as_bytes()).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        FakeServer { url, seen }
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn start_worker(
    url: &str,
    token: &str,
) -> (Arc<AtomicBool>, std::thread::JoinHandle<Result<(), String>>, tempfile::TempDir) {
    let cache = tempfile::tempdir().unwrap();
    let options = WorkerOptions {
        server: url.to_owned(),
        token: token.to_owned(),
        concurrency: 1,
        cache: cache.path().to_path_buf(),
        seating: othello_testkit::isolated_seating(),
        ca_certificates: None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    (stop, std::thread::spawn(move || run(&options, &flag)), cache)
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < DEADLINE, "{what} after {DEADLINE:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A server naming a library URL on another origin never gets the worker's token sent there:
/// the worker refuses the URL and gives the job back.
#[test]
fn a_worker_sends_its_token_to_no_other_origin() {
    let elsewhere = FakeServer::start(|_| (200, String::new()));
    let library = format!("{}/steal", elsewhere.url);
    let sha = "ab".repeat(32);
    let claim = serde_json::json!({
        "lease": "l1", "lease_ms": 60000, "job": 1,
        "plan": {
            "kind": "pair",
            "bots": [
                {"entry": 1, "name": "a", "level": null, "sha256": sha},
                {"entry": 2, "name": "b", "level": null, "sha256": sha}
            ],
            "opening": "f5d6", "time_limit_ms": 100
        },
        "libraries": [library, library]
    })
    .to_string();
    let served = Arc::new(AtomicBool::new(false));
    let once = served.clone();
    let server = FakeServer::start(move |path| {
        if path == "/api/worker/claim" && !once.swap(true, Ordering::SeqCst) {
            (200, claim.clone())
        } else if path.ends_with("/release") {
            (200, "{\"released\": true}".to_owned())
        } else {
            (204, String::new())
        }
    });
    let (stop, thread, _cache) = start_worker(&server.url, "secret-token");
    wait_until("no release", || server.requests().iter().any(|(path, _, _)| path.ends_with("/release")));
    stop.store(true, Ordering::SeqCst);
    thread.join().unwrap().unwrap();
    assert!(elsewhere.requests().is_empty(), "nothing was sent to the other origin: {:?}", elsewhere.requests());
    assert!(
        server.requests().iter().all(|(_, auth, _)| auth.as_deref() == Some("Bearer secret-token")),
        "the token goes to its own server"
    );
}

/// A server answering "no work" at once is not hammered: the claims back off exponentially.
#[test]
fn a_worker_backs_off_from_a_server_without_work() {
    let server = FakeServer::start(|_| (204, String::new()));
    let (stop, thread, _cache) = start_worker(&server.url, "token");
    wait_until("fewer than 6 claims", || server.requests().len() >= 6);
    stop.store(true, Ordering::SeqCst);
    thread.join().unwrap().unwrap();
    let times: Vec<Instant> = server.requests().iter().map(|(_, _, at)| *at).collect();
    // Each pause is at least half its step; the steps double from the first.
    let mut least = Duration::ZERO;
    let mut step = BACKOFF_FIRST;
    for _ in 0..5 {
        least += step / 2;
        step *= 2;
    }
    assert!(times[5] - times[0] >= least, "6 claims in {:?}, under the back-off's {least:?}", times[5] - times[0]);
}

/// The login cookie is a session id, not the token; logging out ends it on the server, so a
/// copied cookie is worth nothing afterwards.
#[test]
fn the_login_cookie_is_a_session_that_logout_ends() {
    let server = TestServer::start();
    let token = server.add_entrant("Ida");
    let cookie = crate::pages::session_cookie(&server, &token);
    assert!(!cookie.contains(&token), "the cookie is not the token: {cookie}");
    let (code, me) = server.get_with_cookie("/me", &cookie);
    assert_eq!(code, 200);
    assert!(me.contains("Ida"), "{me}");
    // A second login makes another session.
    let again = crate::pages::session_cookie(&server, &token);
    assert_ne!(again, cookie, "a new session id at every login");

    let (code, location, _) = server.post_form("/logout", "", Some(&cookie), Some(&server.url));
    assert_eq!((code, location.as_str()), (303, "/"));
    let (code, _) = server.get_with_cookie("/me", &cookie);
    assert_eq!(code, 303, "the ended session no longer logs in");
    let response = server.agent.get(format!("{}/api/bots/1", server.url)).header("Cookie", &cookie).call().unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let (code, _) = server.get_with_cookie("/me", &again);
    assert_eq!(code, 200, "the other login lives on");
}

/// A new token (command line or the organiser's button) ends the old token and its logins; a
/// revoked entrant gets back in under its own name.
#[test]
fn a_new_token_ends_the_old_one_and_its_logins() {
    let server = TestServer::start();
    let old = server.add_entrant("Jo");
    let cookie = crate::pages::session_cookie(&server, &old);
    let new = othello_server::reissue_entrant_token(&server.ladder(), "Jo").unwrap();
    assert_eq!(server.get("/api/bots/1", Some(&old)).0, 401, "the old token ends");
    assert_eq!(server.get_with_cookie("/me", &cookie).0, 303, "its login ends");
    assert_eq!(server.get("/api/bots/1", Some(&new)).0, 404, "the new one works (no bot 1 yet)");

    othello_server::revoke_entrant(&server.ladder(), "Jo").unwrap();
    assert_eq!(server.get("/api/bots/1", Some(&new)).0, 401);
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let admin_cookie = server.admin_session(&admin);
    let (code, _, page) = server.post_form("/admin/entrant-token", "name=Jo", Some(&admin_cookie), Some(&server.url));
    assert_eq!(code, 200, "{page}");
    let shown = page.split("id=\"issued-token\"").nth(1).unwrap();
    let token: String = shown.split("<code>").nth(1).unwrap().chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    assert_eq!(token.len(), 64, "{shown}");
    assert_eq!(server.get("/api/bots/1", Some(&token)).0, 404, "back in under the same name");
    assert_eq!(server.get("/api/bots/1", Some(&new)).0, 401);
    // From another site, the button does nothing.
    let (code, _, _) =
        server.post_form("/admin/entrant-token", "name=Jo", Some(&admin_cookie), Some("http://evil.example"));
    assert_eq!(code, 403);
    assert_eq!(server.get("/api/bots/1", Some(&token)).0, 404, "still the same token");
    // The organiser's logout ends the organiser's session too.
    server.post_form("/admin/logout", "", Some(&admin_cookie), Some(&server.url));
    assert_eq!(server.get_with_cookie("/admin", &admin_cookie).0, 403);
}

/// Every answer carries the security headers: no framing by another site, no sniffing, no
/// script, style or image from elsewhere, no referrer.
#[test]
fn every_answer_carries_the_security_headers() {
    let server = TestServer::start();
    for path in
        ["/", "/login", "/admin/login", "/api/leaderboard", "/history.svg", "/assets/app.js", "/workers", "/nowhere"]
    {
        let response = server.agent.get(format!("{}{path}", server.url)).call().unwrap();
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let policy = header("content-security-policy");
        assert!(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'self'"), "{path}: {policy}");
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("referrer-policy"), "same-origin", "{path}");
        assert_eq!(header("x-frame-options"), "DENY", "{path}");
    }
}

/// Worker host names are the organiser's to see: not on `/workers` nor `/api/workers`.
#[test]
fn worker_host_names_are_shown_on_the_admin_page_only() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let token = worker(&server, "lab");
    let (status, _) = post(&server, "/api/worker/claim", &token, br#"{"host": "secret-host-42", "cores": 2}"#);
    assert_eq!(status, 204);
    let (_, page) = server.get("/workers", None);
    assert!(page.contains("lab") && !page.contains("secret-host-42"), "{page}");
    let (_, json) = server.get("/api/workers", None);
    assert!(json.contains("\"lab\"") && !json.contains("secret-host-42"), "{json}");
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let (_, page) = server.get_with_cookie("/admin", &server.admin_session(&admin));
    assert!(page.contains("secret-host-42"), "the organiser sees it");
}

/// The organiser purges one worker's games with one action: they leave the ladder and the
/// ratings are refitted without them; the worker's tally is on the admin page.
#[test]
fn the_organiser_purges_one_workers_games_and_the_ladder_is_refitted() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let fake = worker(&server, "cheat");
    let entrant = server.add_entrant("Kim");
    let (id, _) = upload_named(&server, &entrant, "purged", "Kim's bot");
    let check = claim(&server, &fake);
    assert_eq!(submit(&server, &fake, &check.lease, &made_up_check(&check)).0, 200);
    for _ in 0..2 {
        let pair = claim(&server, &fake);
        let games = vec![made_up_game(&pair, "a", "b"), made_up_game(&pair, "b", "a")];
        assert_eq!(submit(&server, &fake, &pair.lease, &Played { probe: None, games }).0, 200);
    }
    assert_eq!(count(&server, "SELECT count(*) FROM server_worker_games"), 4);
    let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&entrant));
    assert_eq!(bot["games"], 4, "{bot}");
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let cookie = server.admin_session(&admin);
    let (_, page) = server.get_with_cookie("/admin", &cookie);
    assert!(page.contains("id=\"admin-worker-table\"") && page.contains("cheat"), "{page}");

    let (code, location, body) =
        server.post_form("/admin/workers/purge", "name=cheat", Some(&cookie), Some(&server.url));
    assert_eq!((code, location.as_str()), (303, "/admin"), "{body}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_worker_games"), 0);
    assert_eq!(count(&server, "SELECT count(*) FROM server_job_games"), 0);
    let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&entrant));
    assert_eq!(bot["games"], 0, "its games left the ladder: {bot}");
    assert!(count(&server, "SELECT count(*) FROM snapshots WHERE reason LIKE '%purged%cheat%'") == 1, "refitted");
}

/// A bot named with a non-character (invalid in XML) does not break the history plot for
/// everyone: the name is cleaned before it is stored, and the plot is valid.
#[test]
fn a_name_with_a_noncharacter_does_not_break_the_history_plot() {
    let server = TestServer::start();
    let entrant = server.add_entrant("Lu");
    let id = server.upload_file(&entrant, &named_bot("nonchar", "Bad\u{FFFE}Name"));
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "{bot}");
    assert_eq!(bot["name"], "BadName", "{bot}");
    let (code, svg) = server.get("/history.svg", None);
    assert_eq!(code, 200);
    assert!(svg.starts_with("<svg") && !svg.contains('\u{FFFE}'), "{svg}");
    assert!(svg.contains("BadName"), "the bot is in the plot: {svg}");
}

/// Entrants added before the first start (`serve entrant add` makes the ladder file) still get
/// the pool seeded: their first upload has opponents.
#[test]
fn entrants_added_before_the_first_start_still_get_a_seeded_pool() {
    let dir = tempfile::tempdir().unwrap();
    let (ladder, database) = crate::ladder_in(dir.path());
    let token = othello_server::add_entrant(&ladder, "Early").unwrap();
    assert!(othello_server::needs_pool(&ladder).unwrap(), "entrants alone are no pool");
    let started = othello_server::Server::start(crate::config(dir.path(), &ladder)).unwrap();
    let url = format!("http://{}", started.addr);
    let server = TestServer { server: Some(started), url, dir, agent: crate::agent(), ladder, database };
    let id = server.upload_file(&token, &named_bot("early", "Early bot"));
    assert_eq!(server.wait_for_status(&token, id, &["rated", "rejected"])["status"], "rated");
    // Placements wait for the pool's calibration: once placed, the pool is there for good.
    assert!(!othello_server::needs_pool(&server.ladder()).unwrap());
}

/// Half-sent requests cannot hold connections: the server closes each once the header-read
/// timeout passes, and answers others meanwhile.
#[test]
fn half_sent_requests_are_closed_after_the_header_read_timeout() {
    let server = TestServer::start();
    let address = server.server.as_ref().unwrap().addr;
    let mut slow: Vec<std::net::TcpStream> = (0..50)
        .map(|_| {
            let mut stream = std::net::TcpStream::connect(address).unwrap();
            stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ").unwrap();
            stream
        })
        .collect();
    assert_eq!(server.get("/api/leaderboard", None).0, 200, "others are served meanwhile");
    let start = Instant::now();
    for stream in &mut slow {
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        let mut buffer = [0u8; 512];
        // Closed (end of stream, or a reset), never left open until the deadline.
        let closed = match stream.read(&mut buffer) {
            Ok(_) => true,
            Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
        };
        assert!(closed, "a half-sent request is still open after {:?}", start.elapsed());
    }
    assert!(start.elapsed() < DEADLINE);
    assert!(
        start.elapsed() >= othello_server::web::HEADER_READ_TIMEOUT / 2,
        "not closed before the client had its time"
    );
}

/// Requests without a valid token are limited per address: past the limit they are answered
/// 429 with the reason, and nothing is stored; a valid token still passes.
#[test]
fn requests_without_a_valid_token_are_limited_per_address() {
    let server = TestServer::start();
    let entrant = server.add_entrant("Mo");
    let junk = vec![7u8; 64 << 10];
    let limit = othello_server::service::limits::UNAUTHENTICATED_PER_WINDOW;
    let statuses: Vec<u16> = (0..limit + 5).map(|_| server.upload(Some("not-a-token"), "x.so", &junk).0).collect();
    assert!(statuses[..limit].iter().all(|&s| s == 401), "{statuses:?}");
    assert!(statuses[limit..].iter().all(|&s| s == 429), "{statuses:?}");
    let (status, json) = server.upload(Some("not-a-token"), "x.so", &junk);
    assert_eq!(status, 429);
    assert!(json["error"].as_str().unwrap().contains("without a valid token"), "{json}");
    let (status, page) = {
        let mut response = server.agent.post(format!("{}/login", server.url)).send_form([("token", "wrong")]).unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    };
    assert_eq!(status, 429, "logins too: {page}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_uploads"), 0);
    let id = server.upload_file(&entrant, &named_bot("address-limit", "Mo's bot"));
    assert!(id > 0, "a valid token passes");
}

/// Refused uploads count toward the entrant's hourly limit: a flood of junk is not free.
#[test]
fn refused_uploads_count_toward_the_hourly_limit() {
    let server = TestServer::start();
    let entrant = server.add_entrant("Ned");
    let config = crate::config(server.dir.path(), &server.ladder());
    for _ in 0..config.uploads_per_hour {
        let (status, json) = server.upload(Some(&entrant), "junk.so", b"not a library at all");
        assert_eq!(status, 422, "{json}");
    }
    let (status, json) =
        server.upload(Some(&entrant), "bot.so", &std::fs::read(named_bot("after-junk", "Ned's bot")).unwrap());
    assert_eq!(status, 429, "{json}");
    assert!(json["error"].as_str().unwrap().contains("refused ones count too"), "{json}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_uploads"), 0);
}

fn ask_for_test_games(server: &TestServer, token: &str, bot: i64, opponent: i64) -> (u16, Value) {
    let (status, text) = server.post_json(
        &format!("/api/bots/{bot}/test-games"),
        token,
        format!("{{\"opponent\": {opponent}}}").as_bytes(),
    );
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// On a server whose games all go to remote workers (`--workers 0`), test games are played by
/// the workers at the organiser's time control; a worker that claims a pair and goes silent
/// delays it only until its lease lapses; refused requests do not count against the hourly limit.
#[test]
fn test_games_run_on_remote_workers_and_refused_requests_do_not_count() {
    let server = remote_server(Duration::from_millis(1500));
    othello_server::admin::set_time_control(&server.ladder(), 3000).unwrap();
    let honest_token = worker(&server, "honest");
    let silent = worker(&server, "silent");
    let honest = TestWorker::start(&server, &honest_token, 1);
    let entrant = server.add_entrant("Oz");
    let (id, _) = upload_named(&server, &entrant, "remote-test", "Oz's bot");
    server.wait_for_status(&entrant, id, &["rated"]);
    honest.stop().unwrap();
    let (_, board) = server.get_json("/api/leaderboard", None);
    let opponent =
        board.as_array().unwrap().iter().find(|r| r["entrant"].is_null()).unwrap()["entry"].as_i64().unwrap();
    let config = crate::config(server.dir.path(), &server.ladder());
    // Refused requests (no such opponent) are the entrant's mistakes, not games: never counted.
    for _ in 0..=config.test_games_per_hour {
        let (status, json) = ask_for_test_games(&server, &entrant, id, 999_999);
        assert_eq!(status, 422, "{json}");
        assert!(json["error"].as_str().unwrap().contains("not a current bot"), "{json}");
    }
    let (status, json) = ask_for_test_games(&server, &entrant, id, opponent);
    assert_eq!(status, 202, "queued after the refused requests: {json}");

    // A worker claims the pair (a job of kind `test`, at the organiser's time control) and
    // never answers: its lease lapses and the pair goes to the next worker.
    let claimed = claim(&server, &silent);
    assert_eq!(claimed.plan.kind, "test", "{claimed:?}");
    assert_eq!(claimed.plan.time_limit_ms, Some(3000), "{claimed:?}");
    let honest = TestWorker::start(&server, &honest_token, 1);
    let start = Instant::now();
    let game = loop {
        let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
        let tests: Vec<&Value> = games.as_array().unwrap().iter().filter(|g| g["kind"] == "test").collect();
        if tests.len() == 2 {
            break tests[0]["id"].as_i64().unwrap();
        }
        assert!(start.elapsed() < DEADLINE, "no test games after {DEADLINE:?}: {games}");
        std::thread::sleep(Duration::from_millis(100));
    };
    honest.stop().unwrap();
    let (_, replay) = server.get_json(&format!("/api/test-games/{game}"), Some(&entrant));
    assert_eq!(replay["time_limit_ms"], 3000, "{replay}");
    let (status, body) = submit(&server, &silent, &claimed.lease, &Played { probe: None, games: Vec::new() });
    assert_eq!(status, 409, "the lapsed lease's result does not count: {body}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_test_game_records"), 2, "each game recorded once");
    assert_eq!(count(&server, "SELECT count(*) FROM server_test_games WHERE state != 'done'"), 0);
    assert_eq!(
        count(
            &server,
            "SELECT count(*) FROM games WHERE id IN (SELECT game FROM server_job_games WHERE job IN (SELECT id FROM server_jobs WHERE kind = 'test'))"
        ),
        0,
        "unrated"
    );
}

/// A pair's games as a lying worker reports them: the job's own bot crashed before its first move
/// in both.
fn crashed_pair(claimed: &othello_server::remote::Claimed) -> Played {
    use othello_arena::record::Outcome;
    use othello_arena::seat::{Failure, Termination};
    use othello_sdk::Color;
    let games = [Color::Black, Color::White]
        .into_iter()
        .map(|loser| {
            let (black, white) = if loser == Color::Black {
                (claimed.plan.bots[0].label(), claimed.plan.bots[1].label())
            } else {
                (claimed.plan.bots[1].label(), claimed.plan.bots[0].label())
            };
            let mut game = made_up_game(claimed, &black, &white);
            game.moves.clear();
            game.result = Outcome::forfeit(loser, Failure::new(Termination::Crash, "killed by signal 11"));
            game
        })
        .collect();
    Played { probe: None, games }
}

/// Claims as `token` until a placement pair comes (an honest check is sent for a check).
fn claim_pair(server: &TestServer, token: &str) -> othello_server::remote::Claimed {
    loop {
        let claimed = claim(server, token);
        if claimed.plan.kind == "pair" {
            return claimed;
        }
        let (status, body) = submit(server, token, &claimed.lease, &made_up_check(&claimed));
        assert_eq!(status, 200, "{body}");
    }
}

/// One worker saying that a classmate's bot crashed at once (a loss it cannot contest, and four
/// of them end its placement at the bottom) counts for nothing: the pair goes to another worker,
/// which plays it honestly.
#[test]
fn one_workers_crashed_at_once_verdict_does_not_count() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let (liar, honest) = (worker(&server, "liar"), worker(&server, "honest"));
    let entrant = server.add_entrant("Rae");
    let (id, _) = upload_named(&server, &entrant, "crash-verdict", "Rae's bot");
    let claimed = claim_pair(&server, &liar);
    let (status, body) = submit(&server, &liar, &claimed.lease, &crashed_pair(&claimed));
    assert_eq!(status, 200, "taken as one worker's word: {body}");
    assert_eq!(body["games"], 0, "nothing counted: {body}");
    assert_eq!(count(&server, "SELECT count(*) FROM games WHERE termination = 'crash'"), 0);
    assert_eq!(
        count(&server, &format!("SELECT count(DISTINCT worker) FROM server_load_verdicts WHERE job = {}", claimed.job)),
        1
    );
    // The liar is not given the same pair again.
    let (status, body) = post(&server, "/api/worker/claim", &liar, b"{}");
    assert_eq!(status, 204, "{body}");

    let honest = TestWorker::start(&server, &honest, 1);
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    honest.stop().unwrap();
    assert_eq!(bot["status"], "rated", "{bot}");
    assert_eq!(
        count(&server, "SELECT count(*) FROM games WHERE termination = 'crash'"),
        0,
        "no crash was ever counted"
    );
}

/// Two workers finding that a bot crashes at once confirm each other: the losses count.
#[test]
fn two_workers_finding_a_bot_crashing_at_once_count_its_losses() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let (first, second) = (worker(&server, "first"), worker(&server, "second"));
    let entrant = server.add_entrant("Sol");
    upload_named(&server, &entrant, "crash-confirmed", "Sol's bot");
    let claimed = claim_pair(&server, &first);
    let (status, body) = submit(&server, &first, &claimed.lease, &crashed_pair(&claimed));
    assert_eq!((status, &body["games"]), (200, &Value::from(0)), "{body}");
    let again = claim(&server, &second);
    assert_eq!(again.job, claimed.job, "the pair went to another worker");
    let (status, body) = submit(&server, &second, &again.lease, &crashed_pair(&again));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["games"], 2, "confirmed: {body}");
    assert_eq!(count(&server, "SELECT count(*) FROM games WHERE termination = 'crash'"), 2);
}

/// Test games are played at the organiser's time control, as rating games are.
#[test]
fn test_games_use_the_organisers_time_control() {
    let server = TestServer::start();
    othello_server::admin::set_time_control(&server.ladder(), 3000).unwrap();
    let entrant = server.add_entrant("Pia");
    let id = server.upload_file(&entrant, &named_bot("test-time", "Pia's bot"));
    server.wait_for_status(&entrant, id, &["rated"]);
    let (_, board) = server.get_json("/api/leaderboard", None);
    let opponent =
        board.as_array().unwrap().iter().find(|r| r["entrant"].is_null()).unwrap()["entry"].as_i64().unwrap();
    let (status, json) = ask_for_test_games(&server, &entrant, id, opponent);
    assert_eq!(status, 202, "queued: {json}");
    let start = Instant::now();
    let game = loop {
        let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
        if let Some(game) = games.as_array().unwrap().iter().find(|g| g["kind"] == "test") {
            break game["id"].as_i64().unwrap();
        }
        assert!(start.elapsed() < DEADLINE, "no test game after {DEADLINE:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let (_, replay) = server.get_json(&format!("/api/test-games/{game}"), Some(&entrant));
    assert_eq!(replay["time_limit_ms"], 3000, "{replay}");
}

/// Wherever a bot is shown, its entrant is shown with it: the replay (JSON and page), the
/// history plot's legend, the leaderboard; the pool's bots have none.
#[test]
fn every_bot_is_shown_with_its_entrant() {
    let server = TestServer::start();
    let entrant = server.add_entrant("Quinn");
    let id = server.upload_file(&entrant, &named_bot("shown", "Shown"));
    server.wait_for_status(&entrant, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
    let game = games[0]["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    let (mine, other) = if replay["black"] == "Shown" { ("black", "white") } else { ("white", "black") };
    assert_eq!(replay[format!("{mine}_entrant")], "Quinn", "{replay}");
    assert!(replay[format!("{other}_entrant")].is_null(), "a pool bot: {replay}");
    let (_, page) = server.get(&format!("/games/{game}"), None);
    assert!(page.contains("<span class=\"entrant\">Quinn</span>"), "{page}");
    let (_, svg) = server.get("/history.svg", None);
    assert!(svg.contains("Shown (Quinn)"), "{svg}");
    let (_, board) = server.get_json("/api/leaderboard", None);
    assert!(board.as_array().unwrap().iter().any(|r| r["name"] == "Shown" && r["entrant"] == "Quinn"), "{board}");
}

/// The organiser may enter copies instead of refusing them (the admin page's form): a copy of
/// Alice's file and one of a pool bot's each become an entry of their own, named with their
/// entrant; nobody's row changes hands, the admin page flags them, and the final seeds each
/// entry once with no entry playing itself.
#[test]
fn copies_entered_by_the_organisers_choice_are_separate_entries() {
    let server = TestServer::start();
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let cookie = server.admin_session(&admin);
    let (status, _, body) = server.post_form("/admin/copies", "rule=enter", Some(&cookie), Some(&server.url));
    assert_eq!(status, 303, "{body}");
    let (alice, bob, carol) = (server.add_entrant("Alice"), server.add_entrant("Bob"), server.add_entrant("Carol"));
    let greedy = named_bot("entered-copy", "Greedy");
    let original = server.upload_file(&alice, &greedy);
    assert_eq!(server.wait_for_status(&alice, original, &["rated", "rejected"])["status"], "rated");
    let (_, board) = server.get_json("/api/leaderboard", None);
    let alice_games = board.as_array().unwrap().iter().find(|r| r["bot"] == original).unwrap()["games"].clone();

    let copy = server.upload_file(&bob, &greedy);
    let copied_pool = server.upload_file(&carol, &othello_testkit::random_bot());
    for (token, id) in [(&bob, copy), (&carol, copied_pool)] {
        let bot = server.wait_for_status(token, id, &["rated", "rejected"]);
        assert_eq!(bot["status"], "rated", "{bot}");
    }
    let (_, board) = server.get_json("/api/leaderboard", None);
    let rows = board.as_array().unwrap();
    let row = |bot: i64| rows.iter().find(|r| r["bot"] == bot).unwrap_or_else(|| panic!("no row of {bot}: {board}"));
    assert_eq!((&row(original)["name"], &row(original)["entrant"]), (&Value::from("Greedy"), &Value::from("Alice")));
    assert_eq!((&row(copy)["name"], &row(copy)["entrant"]), (&Value::from("Greedy (Bob)"), &Value::from("Bob")));
    assert_eq!(row(copied_pool)["entrant"], "Carol");
    assert_ne!(row(original)["entry"], row(copy)["entry"], "two entries");
    assert!(row(original)["games"].as_i64() >= alice_games.as_i64(), "Alice keeps her games: {board}");
    let pool_rows: Vec<&Value> = rows.iter().filter(|r| r["entrant"].is_null()).collect();
    assert_eq!(pool_rows.len(), 2, "the pool's rows stay the pool's: {board}");

    let (_, page) = server.get_with_cookie("/admin", &cookie);
    assert!(page.contains("entered as an entry of its own"), "{page}");
    assert_eq!(page.matches("<td>entered</td>").count(), 2, "both copies flagged: {page}");

    let options = othello_server::final_round::FinalOptions {
        format: othello_server::final_round::Format::RoundRobin,
        games_per_pair: 2,
        time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
        seed: 1,
    };
    let (_, bots) = othello_server::start_final(&server.ladder(), options).unwrap();
    let mut entries: Vec<i64> = bots.iter().map(|b| b.entry).collect();
    entries.sort();
    entries.dedup();
    assert_eq!(entries.len(), 3, "three entrants, three distinct entries: {bots:?}");
    server.wait_for_final();
    assert_eq!(count(&server, "SELECT count(*) FROM games WHERE black = white"), 0, "no entry plays itself");
}
