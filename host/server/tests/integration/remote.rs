//! Workers on other machines: a server that plays nothing itself, workers that claim its jobs
//! over HTTP, and the refusals: forged results, lapsed and foreign leases, the wrong tokens.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use othello_arena::plugins::{PluginInfo, PluginStatus};
use othello_arena::record::{GameRecord, MoveRecord, Outcome};
use othello_sdk::{Move, Position};
use othello_server::remote::Claimed;
use othello_server::remote_client::{WorkerOptions, run};
use othello_server::worker::Played;
use serde_json::Value;

use crate::{DEADLINE, TestServer, named_bot};

/// A worker playing in threads of this process, as `othello worker` does, with a cache folder of
/// its own (as on another machine).
pub struct TestWorker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<(), String>>>,
    _cache: tempfile::TempDir,
}

impl TestWorker {
    pub fn start(server: &TestServer, token: &str, concurrency: usize) -> TestWorker {
        let cache = tempfile::tempdir().unwrap();
        let options = WorkerOptions {
            server: server.url.clone(),
            token: token.to_owned(),
            concurrency,
            cache: cache.path().to_path_buf(),
            seating: othello_testkit::isolated_seating(),
            ca_certificates: None,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || run(&options, &flag));
        TestWorker { stop, thread: Some(thread), _cache: cache }
    }

    pub fn stop(mut self) -> Result<(), String> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for TestWorker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub fn remote_server(lease: Duration) -> TestServer {
    TestServer::start_with(|config| {
        config.workers = 0;
        config.lease_duration = lease;
    })
}

pub fn post(server: &TestServer, path: &str, token: &str, body: &[u8]) -> (u16, Value) {
    let (status, text) = server.post_json(path, token, body);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Claims as `token` until a job comes (the server answers 204 while none waits).
pub fn claim(server: &TestServer, token: &str) -> Claimed {
    let start = Instant::now();
    loop {
        let (status, body) = post(server, "/api/worker/claim", token, br#"{"host": "test-host", "cores": 3}"#);
        if status == 200 {
            return serde_json::from_value(body).unwrap();
        }
        assert_eq!(status, 204, "{body}");
        assert!(start.elapsed() < DEADLINE, "no job to claim after {DEADLINE:?}");
    }
}

pub fn submit(server: &TestServer, token: &str, lease: &str, played: &Played) -> (u16, Value) {
    post(server, &format!("/api/worker/leases/{lease}/result"), token, &serde_json::to_vec(played).unwrap())
}

/// A whole game from the plan's opening where each side plays its first legal move: legal, as a
/// worker that cheated by not running the bots would make up.
pub fn made_up_game(claimed: &Claimed, black: &str, white: &str) -> GameRecord {
    let opening = claimed.plan.opening().unwrap();
    let start = opening.position();
    let mut position: Position = start;
    let mut moves = Vec::new();
    while !position.is_game_over() {
        let mv = position.legal_moves().into_iter().next().map_or(Move::Pass, Move::Play);
        moves.push(MoveRecord {
            color: position.side_to_move(),
            mv,
            elapsed: Duration::from_millis(1),
            info: None,
            cpu: None,
            throttled: None,
        });
        position.play_unchecked(mv);
    }
    GameRecord {
        black: black.to_owned(),
        white: white.to_owned(),
        opening: opening.moves().to_vec(),
        start,
        moves,
        time_limit_ms: claimed.plan.time_limit_ms,
        started_at: 0,
        result: Outcome::normal(&position),
        clock: None,
    }
}

/// A check's result as a worker would send it, made up.
pub fn made_up_check(claimed: &Claimed) -> Played {
    assert_eq!(claimed.plan.kind, "check", "{claimed:?}");
    let probe = PluginInfo {
        path: "bot.so".into(),
        name: "Made up".to_owned(),
        abi_version: Some(1),
        levels: 0,
        search_info: false,
        last_error: false,
        analysis: false,
        status: PluginStatus::Ok,
    };
    let games = vec![made_up_game(claimed, "Made up", "random"), made_up_game(claimed, "random", "Made up")];
    Played { probe: Some(probe), games }
}

pub fn count(server: &TestServer, sql: &str) -> i64 {
    let db = othello_server::store::open(&server.ladder()).unwrap();
    db.query_row(sql, [], |row| row.get(0)).unwrap()
}

pub fn refusals(server: &TestServer) -> Vec<String> {
    let db = othello_server::store::open(&server.ladder()).unwrap();
    othello_server::remote::refusals(&db).unwrap().into_iter().map(|r| r.reason).collect()
}

/// Each job's games are recorded once, and every game of an entrant's bot belongs to a job.
fn assert_every_game_counted_once(server: &TestServer) {
    assert_eq!(
        count(
            server,
            "SELECT count(*) FROM server_jobs j WHERE kind = 'pair'
             AND (SELECT count(*) FROM server_job_games g WHERE g.job = j.id) NOT IN (0, 2)"
        ),
        0,
        "each pair job has both its games once"
    );
    assert_eq!(
        count(
            server,
            "SELECT count(*) FROM games WHERE (black IN (SELECT entry FROM server_uploads)
             OR white IN (SELECT entry FROM server_uploads)) AND id NOT IN (SELECT game FROM server_job_games)"
        ),
        0,
        "every game of an uploaded bot belongs to a job"
    );
}

/// The entrants of the three-worker test: with the seed pool's two bots, ten bots to rate.
const ENTRANTS: [&str; 8] = ["Ann", "Ben", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"];

#[test]
fn three_remote_workers_rate_ten_bots_of_a_server_that_plays_nothing_itself() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let tokens: Vec<String> = ["north", "south", "west"]
        .iter()
        .map(|name| othello_server::add_worker(&server.ladder(), name).unwrap())
        .collect();
    let workers: Vec<TestWorker> = tokens.iter().map(|token| TestWorker::start(&server, token, 1)).collect();
    let entrants: Vec<(String, i64)> = ENTRANTS
        .iter()
        .map(|name| {
            let token = server.add_entrant(name);
            let id = server.upload_file(&token, &named_bot(&format!("remote-{name}"), &format!("{name}'s bot")));
            (token, id)
        })
        .collect();
    let mut remote_ratings = Vec::new();
    for (token, id) in &entrants {
        let bot = server.wait_for_status(token, *id, &["rated", "rejected"]);
        assert_eq!(bot["status"], "rated", "{bot}");
        assert_eq!(bot["report"]["games"].as_array().unwrap().len(), 2, "checked by a worker: {bot}");
        assert!(bot["games"].as_u64().unwrap() >= 6, "placed by the workers: {bot}");
        remote_ratings.push((bot["rating"].as_f64().unwrap(), bot["error"].as_f64().unwrap()));
    }
    for worker in workers {
        worker.stop().unwrap();
    }
    assert_every_game_counted_once(&server);
    assert_eq!(count(&server, "SELECT count(*) FROM server_jobs WHERE state != 'done'"), 0);
    // The workers' games add up to the jobs' (checks included), and the page shows the workers.
    let worker_games = count(&server, "SELECT sum(games) FROM server_workers");
    let job_games = count(&server, "SELECT count(*) FROM server_job_games");
    let checks = count(&server, "SELECT count(*) FROM server_jobs WHERE kind = 'check'");
    assert_eq!(worker_games, job_games + 2 * checks, "each worker's games are counted once");
    let (status, page) = server.get("/workers", None);
    assert_eq!(status, 200);
    for name in ["north", "south", "west"] {
        assert!(page.contains(name), "{name} on the workers page: {page}");
    }
    let (_, listed) = server.get_json("/api/workers", None);
    let listed = listed.as_array().unwrap();
    assert!(listed.iter().all(|w| w["cores"].as_u64().unwrap() >= 1 && w["last_seen"].is_number()), "{listed:?}");
    assert!(refusals(&server).is_empty(), "honest workers are never refused: {:?}", refusals(&server));

    // The same bots on a server that plays its games itself get the same ratings, within their
    // intervals.
    let local = TestServer::start();
    for ((name, (rating, error)), index) in ENTRANTS.iter().zip(remote_ratings).zip(1..) {
        let token = local.add_entrant(name);
        let id = local.upload_file(&token, &named_bot(&format!("remote-{name}"), &format!("{name}'s bot")));
        let bot = local.wait_for_status(&token, id, &["rated", "rejected"]);
        let (local_rating, local_error) = (bot["rating"].as_f64().unwrap(), bot["error"].as_f64().unwrap());
        assert!(
            (local_rating - rating).abs() <= local_error + error,
            "bot {index}: {rating:.0} ± {error:.0} with remote workers, {local_rating:.0} ± {local_error:.0} locally"
        );
    }
}

#[test]
fn a_lapsed_lease_goes_back_to_the_queue_and_a_late_or_foreign_result_is_refused() {
    let server = remote_server(Duration::from_secs(3));
    let (gone, honest) = (
        othello_server::add_worker(&server.ladder(), "gone").unwrap(),
        othello_server::add_worker(&server.ladder(), "honest").unwrap(),
    );
    let entrant = server.add_entrant("Dee");
    let id = server.upload_file(&entrant, &named_bot("lapsed", "Dee's bot"));
    // `gone` claims the check and then is heard of no more (as after kill -9).
    let lost = claim(&server, &gone);
    assert_eq!(lost.plan.kind, "check");
    assert_eq!(lost.libraries[0], format!("/api/worker/libraries/{}", lost.plan.bots[0].sha256));
    // The same job comes back to `honest` once the lease lapses.
    let again = claim(&server, &honest);
    assert_eq!(again.job, lost.job, "the lapsed job is the one claimed next");
    assert_ne!(again.lease, lost.lease);
    // `gone` wakes up: its heartbeat and its result are refused, and not counted.
    let (status, body) = post(&server, &format!("/api/worker/leases/{}/heartbeat", lost.lease), &gone, b"");
    assert_eq!(status, 409, "{body}");
    let (status, body) = submit(&server, &gone, &lost.lease, &made_up_check(&lost));
    assert_eq!(status, 409, "a lapsed lease: {body}");
    assert!(body["error"].as_str().unwrap().contains("expired"), "{body}");
    // `gone` cannot use `honest`'s lease either.
    let (status, body) = submit(&server, &gone, &again.lease, &made_up_check(&again));
    assert_eq!(status, 409, "another worker's lease: {body}");
    assert!(body["error"].as_str().unwrap().contains("another worker"), "{body}");
    // `honest` gives its lease back; a real worker then plays the whole placement.
    let (status, _) = post(&server, &format!("/api/worker/leases/{}/release", again.lease), &honest, b"");
    assert_eq!(status, 200);
    let worker = TestWorker::start(&server, &honest, 2);
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "{bot}");
    assert_eq!(bot["report"]["name"], "Dee's bot", "the real check's, not the refused one's: {bot}");
    worker.stop().unwrap();
    assert_every_game_counted_once(&server);
    let logged = refusals(&server);
    assert!(logged.iter().any(|r| r.contains("expired")), "{logged:?}");
    assert!(logged.iter().any(|r| r.contains("another worker")), "{logged:?}");
}

#[test]
fn forged_results_are_refused_and_logged_and_the_same_result_again_counts_once() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let worker = othello_server::add_worker(&server.ladder(), "forger").unwrap();
    let entrant = server.add_entrant("Eli");
    server.upload_file(&entrant, &named_bot("forged", "Eli's bot"));

    // An illegal move in the middle of a game that does not say the bot lost by it.
    let claimed = claim(&server, &worker);
    let mut played = made_up_check(&claimed);
    let game = &mut played.games[0];
    let ply = game.moves.len() / 2;
    let before = game.moves[..ply].iter().fold(game.start, |mut p, m| {
        p.play_unchecked(m.mv);
        p
    });
    let occupied = ('a'..='h')
        .flat_map(|column| (1..=8).map(move |row| Move::Play(format!("{column}{row}").parse().unwrap())))
        .find(|&m| !before.is_legal(m))
        .unwrap();
    game.moves[ply].mv = occupied;
    let (status, body) = submit(&server, &worker, &claimed.lease, &played);
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("illegal"), "{body}");

    // The job went back to the queue: a wrong score next.
    let claimed = claim(&server, &worker);
    let mut played = made_up_check(&claimed);
    let result = &mut played.games[1].result;
    result.discs = [result.discs[0] + 1, result.discs[1].saturating_sub(1)];
    let (status, body) = submit(&server, &worker, &claimed.lease, &played);
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("not what its moves give"), "{body}");

    // A game played at another time limit than the plan's. (A move over the plan's limit is
    // its bot's timeout loss, not a forgery: see the attacks' tests.)
    let claimed = claim(&server, &worker);
    let mut played = made_up_check(&claimed);
    played.games[0].time_limit_ms = Some(60_000);
    let (status, body) = submit(&server, &worker, &claimed.lease, &played);
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("another time limit"), "{body}");

    // A result that checks out counts; sent again (a lost answer), it is harmless.
    let claimed = claim(&server, &worker);
    let played = made_up_check(&claimed);
    let (status, first) = submit(&server, &worker, &claimed.lease, &played);
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["duplicate"], false);
    let (status, second) = submit(&server, &worker, &claimed.lease, &played);
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["duplicate"], true);
    assert_eq!(count(&server, "SELECT count(*) FROM server_jobs WHERE kind = 'pair'"), 1, "one placement queued");
    assert_eq!(count(&server, "SELECT games FROM server_workers"), 2, "the check's games counted once");
    // Another result under the same lease is not.
    let mut other = played.clone();
    other.games.swap(0, 1);
    let (status, body) = submit(&server, &worker, &claimed.lease, &other);
    assert_eq!(status, 409, "{body}");

    let logged = refusals(&server);
    assert_eq!(logged.len(), 4, "{logged:?}");
    assert!(logged.iter().any(|r| r.contains("illegal")), "{logged:?}");
    assert!(logged.iter().any(|r| r.contains("not what its moves give")), "{logged:?}");
}

#[test]
fn worker_and_entrant_tokens_are_scoped_and_a_revoked_worker_loses_its_leases() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let worker = othello_server::add_worker(&server.ladder(), "scoped").unwrap();
    let entrant = server.add_entrant("Fay");
    let again = othello_server::add_worker(&server.ladder(), " scoped ").unwrap_err();
    assert!(again.contains("there is a worker `scoped` already"), "{again}");
    let unnamed = othello_server::add_worker(&server.ladder(), "  ").unwrap_err();
    assert!(unnamed.starts_with("a worker's name is 1 to 64 characters"), "{unnamed}");
    // Workers and entrants have names of their own: a worker may share an entrant's.
    othello_server::add_worker(&server.ladder(), "Fay").unwrap();
    let (status, body) = post(&server, "/api/worker/claim", &entrant, b"{}");
    assert_eq!(status, 403, "an entrant's token cannot claim: {body}");
    let (status, body) = post(&server, "/api/worker/claim", "not-a-token", b"{}");
    assert_eq!(status, 401, "{body}");
    let (status, body) = server.upload(Some(&worker), "libbot.so", b"\x7fELF");
    assert_eq!(status, 401, "a worker's token cannot upload: {body}");
    let (status, _) = server.get("/api/worker/libraries/00", Some(&entrant));
    assert_eq!(status, 403, "nor download");

    server.upload_file(&entrant, &named_bot("scoped", "Fay's bot"));
    let claimed = claim(&server, &worker);
    let mut download = server
        .agent
        .get(format!("{}{}", server.url, claimed.libraries[0]))
        .header("Authorization", format!("Bearer {worker}"))
        .call()
        .unwrap();
    assert_eq!(download.status().as_u16(), 200, "the worker downloads the plan's library");
    let library = download.body_mut().with_config().limit(64 << 20).read_to_vec().unwrap();
    assert_eq!(othello_server::store::sha256_hex(&library), claimed.plan.bots[0].sha256, "the library it names");
    assert_eq!(count(&server, "SELECT count(*) FROM server_jobs WHERE state = 'running'"), 1);
    assert_eq!(othello_server::revoke_worker(&server.ladder(), "scoped").unwrap(), 1, "its job went back");
    assert_eq!(count(&server, "SELECT count(*) FROM server_jobs WHERE state = 'running'"), 0);
    let (status, body) = submit(&server, &worker, &claimed.lease, &made_up_check(&claimed));
    assert_eq!(status, 401, "a revoked worker's token: {body}");
    let listed = othello_server::workers(&server.ladder()).unwrap();
    assert!(listed[0].revoked && listed[0].host.as_deref() == Some("test-host") && listed[0].cores == Some(3));
}

/// A TLS terminator in front of the server, as Caddy or nginx would be on a real contest: TLS on a
/// loopback port with a certificate for `localhost` signed by the test authority
/// (`tests/data/tls`, made with openssl), each connection's bytes passed on to `backend`.
/// Returns its port.
fn tls_proxy(backend: std::net::SocketAddr) -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tls");
    let chain: Vec<CertificateDer> =
        CertificateDer::pem_file_iter(data.join("localhost.pem")).unwrap().collect::<Result<_, _>>().unwrap();
    let key = PrivateKeyDer::from_pem_file(data.join("localhost.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let config = Arc::new(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || relay(client, config, backend));
        }
    });
    port
}

/// Passes bytes both ways between a TLS client and the plain backend until either side closes.
fn relay(client: std::net::TcpStream, config: Arc<rustls::ServerConfig>, backend: std::net::SocketAddr) {
    use std::io::{ErrorKind, Read, Write};
    let Ok(mut server) = std::net::TcpStream::connect(backend) else { return };
    // Short read timeouts let one thread serve both directions.
    let poll = Some(Duration::from_millis(5));
    client.set_read_timeout(poll).unwrap();
    server.set_read_timeout(poll).unwrap();
    let mut tls = rustls::StreamOwned::new(rustls::ServerConnection::new(config).unwrap(), client);
    let mut buffer = vec![0; 64 << 10];
    let idle = |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
    loop {
        match tls.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if server.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => return,
        }
        match server.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if tls.write_all(&buffer[..n]).and_then(|()| tls.flush()).is_err() {
                    return;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => return,
        }
    }
}

#[test]
fn a_worker_reaches_a_server_behind_a_tls_proxy_that_it_trusts() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let port = tls_proxy(server.server.as_ref().unwrap().addr);
    let token = othello_server::add_worker(&server.ladder(), "remote").unwrap();
    let ca = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tls/ca.pem");

    // Without the organiser's authority, the certificate is refused: no claim gets through.
    let public_roots: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let refused = public_roots.post(format!("https://localhost:{port}/api/worker/claim")).send_empty();
    assert!(refused.is_err(), "a certificate no public authority signed: {refused:?}");

    let cache = tempfile::tempdir().unwrap();
    let options = WorkerOptions {
        server: format!("https://localhost:{port}"),
        token,
        concurrency: 1,
        cache: cache.path().to_path_buf(),
        seating: othello_testkit::isolated_seating(),
        ca_certificates: Some(ca),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let worker = std::thread::spawn(move || run(&options, &flag));
    let entrant = server.add_entrant("Gil");
    let id = server.upload_file(&entrant, &named_bot("tls", "Gil's bot"));
    let bot = server.wait_for_status(&entrant, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "checked and placed through TLS: {bot}");
    stop.store(true, Ordering::SeqCst);
    worker.join().unwrap().unwrap();
    assert!(count(&server, "SELECT games FROM server_workers") >= 8, "its games went through the proxy");
}

/// Remote workers play checks and rating pairs, not a final's games: a server that plays nothing
/// itself refuses to start a final, with the reason and the fix, instead of a final never played.
#[test]
fn a_server_that_plays_nothing_itself_refuses_a_final_and_says_why() {
    let server = remote_server(othello_server::remote::DEFAULT_LEASE);
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let cookie = server.admin_session(&admin);
    let (code, _, page) = server.post_form(
        "/admin/final",
        "format=round-robin&games_per_pair=2&time_ms=100",
        Some(&cookie),
        Some(&server.url),
    );
    assert_eq!(code, 409, "{page}");
    assert!(page.contains("--workers 0") && page.contains("--workers 1 or more"), "{page}");
    assert_eq!(count(&server, "SELECT count(*) FROM server_finals"), 0, "no final was started");
}
