//! The server's integration tests: each starts the real server on a loopback port and drives it
//! over HTTP as entrants and an abuser would.

mod abuse;
mod attacks;
mod browser;
mod contest;
mod fair_time;
mod migration;
mod pages;
mod remote;
mod replicas;
mod students;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use othello_db::Location;
use othello_ladder::identity::library_identity;
use othello_server::{Config, Server};
use othello_testkit::postgres::TestDatabase;
use serde_json::Value;

/// How long a test waits for the server to get somewhere before failing (generous: a loaded
/// machine plays slowly; the tests wait for the state, never for a fixed time).
pub const DEADLINE: Duration = Duration::from_secs(240);

/// A server on `127.0.0.1:0` over a fresh ladder seeded with two fixture bots.
pub struct TestServer {
    pub server: Option<Server>,
    pub dir: tempfile::TempDir,
    pub url: String,
    pub agent: ureq::Agent,
    pub ladder: Location,
    /// The ladder's PostgreSQL database when the suite runs on PostgreSQL (dropped last).
    pub database: Option<TestDatabase>,
}

/// The configuration of a test server whose ladder is `ladder` (see [`ladder_in`]) and whose
/// uploads are kept in `dir`.
pub fn config(dir: &Path, ladder: &Location) -> Config {
    let random = othello_testkit::random_bot();
    let first_legal = othello_testkit::fixture("first_legal");
    Config {
        require_wasm: false,
        wasm_replay_percent: 100,
        ladder: ladder.clone(),
        uploads: Some(dir.join("uploads")),
        listen: "127.0.0.1:0".parse().unwrap(),
        workers: 2,
        lease_duration: othello_server::remote::DEFAULT_LEASE,
        lease_cap: othello_server::remote::DEFAULT_LEASE_CAP,
        time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
        runner: othello_testkit::runner_command(),
        seat_options: othello_testkit::seat_options(),
        allow_weak_sandbox: true,
        seed_pool: vec![
            library_identity(&random, "Random", None).unwrap(),
            library_identity(&first_legal, "First legal", None).unwrap(),
        ],
        pool_calibration: None,
        refine_pool: true,
        check_opponent: random,
        // Loose, so a placement takes a few pairs.
        target_error: 400.0,
        max_games: 12,
        max_upload_bytes: 256 << 10,
        uploads_per_hour: 4,
        test_games_per_hour: 3,
        seed: 1,
        continuous_games: false,
    }
}

impl TestServer {
    pub fn start() -> TestServer {
        TestServer::start_with(|_| {})
    }

    pub fn start_with(change: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let (ladder, database) = ladder_in(dir.path());
        let mut config = config(dir.path(), &ladder);
        change(&mut config);
        let server = Server::start(config).unwrap();
        let url = format!("http://{}", server.addr);
        TestServer { server: Some(server), dir, url, agent: agent(), ladder, database }
    }

    /// The ladder: `contest.sqlite3` in the test's folder, or a PostgreSQL database of its own.
    pub fn ladder(&self) -> Location {
        self.ladder.clone()
    }

    pub fn add_entrant(&self, name: &str) -> String {
        othello_server::add_entrant(&self.ladder(), name).unwrap()
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> (u16, String) {
        let mut request = self.agent.get(format!("{}{path}", self.url));
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let mut response = request.call().unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    }

    /// `POST path` with a JSON body as `token`: the status and the body as text.
    pub fn post_json(&self, path: &str, token: &str, body: &[u8]) -> (u16, String) {
        let mut response = self
            .agent
            .post(format!("{}{path}", self.url))
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .send(body)
            .unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    }

    pub fn get_json(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let (status, body) = self.get(path, token);
        (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}")))
    }

    /// `POST /api/bots` with the file as the multipart field `bot`.
    pub fn upload(&self, token: Option<&str>, file_name: &str, bytes: &[u8]) -> (u16, Value) {
        let (content_type, body) = multipart("bot", file_name, bytes);
        let mut request = self.agent.post(format!("{}/api/bots", self.url)).header("Content-Type", content_type);
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let mut response = request.send(&body[..]).unwrap();
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("upload: not JSON ({e}): {text}")))
    }

    /// `POST path` of a form (`a=1&b=2`), as a browser sends it from `origin` with `cookie`;
    /// returns the status, the `Location` header (redirects are not followed) and the body.
    pub fn post_form(
        &self,
        path: &str,
        form: &str,
        cookie: Option<&str>,
        origin: Option<&str>,
    ) -> (u16, String, String) {
        let mut request =
            self.agent.post(format!("{}{path}", self.url)).header("Content-Type", "application/x-www-form-urlencoded");
        if let Some(cookie) = cookie {
            request = request.header("Cookie", cookie);
        }
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        let mut response = request.send(form.as_bytes()).unwrap();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        (response.status().as_u16(), location, response.body_mut().read_to_string().unwrap())
    }

    /// Logs in at `/admin/login` with the organiser's `token`; returns the session's cookie
    /// (`othello_admin=ID`, a session id, never the token).
    pub fn admin_session(&self, token: &str) -> String {
        let mut response = self
            .agent
            .post(format!("{}/admin/login", self.url))
            .header("Origin", &self.url)
            .send_form([("token", token)])
            .unwrap();
        assert_eq!(response.status().as_u16(), 303, "{}", response.body_mut().read_to_string().unwrap());
        let cookie = response.headers().get("set-cookie").unwrap().to_str().unwrap().to_owned();
        let pair = cookie.split(';').next().unwrap().to_owned();
        assert!(!pair.contains(token), "the cookie is a session id, not the token: {cookie}");
        pair
    }

    /// `GET path` with a cookie.
    pub fn get_with_cookie(&self, path: &str, cookie: &str) -> (u16, String) {
        let mut response = self.agent.get(format!("{}{path}", self.url)).header("Cookie", cookie).call().unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    }

    /// Waits until the newest final has ended; returns `GET /api/final`.
    pub fn wait_for_final(&self) -> Value {
        let start = Instant::now();
        loop {
            let (code, view) = self.get_json("/api/final", None);
            assert_eq!(code, 200, "{view}");
            if view["status"] == "finished" {
                return view;
            }
            assert!(start.elapsed() < DEADLINE, "the final still runs after {DEADLINE:?}: {view}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn upload_file(&self, token: &str, path: &Path) -> i64 {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (status, json) = self.upload(Some(token), &name, &std::fs::read(path).unwrap());
        assert_eq!(status, 201, "{json}");
        json["id"].as_i64().unwrap()
    }

    /// Waits until the bot's status is one of `states`; returns its JSON.
    pub fn wait_for_status(&self, token: &str, id: i64, states: &[&str]) -> Value {
        let start = Instant::now();
        loop {
            let (code, bot) = self.get_json(&format!("/api/bots/{id}"), Some(token));
            assert_eq!(code, 200, "{bot}");
            if states.contains(&bot["status"].as_str().unwrap()) {
                return bot;
            }
            assert!(start.elapsed() < DEADLINE, "bot {id} still {} after {DEADLINE:?}: {bot}", bot["status"]);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A fresh ladder for a test: `contest.sqlite3` in `dir`, or a PostgreSQL database of its own
/// when the suite runs on PostgreSQL (`OTHELLO_TEST_STORE=postgres`; keep the guard alive).
pub fn ladder_in(dir: &Path) -> (Location, Option<TestDatabase>) {
    othello_testkit::postgres::ladder_location(dir, "contest.sqlite3")
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop().unwrap();
        }
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .build()
        .into()
}

/// A `multipart/form-data` body with one file field.
pub fn multipart(field: &str, file_name: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "----othello-test-boundary-7d1f";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A fixture bot that gives itself `name` (a library of its own for each tag).
pub fn named_bot(tag: &str, name: &str) -> PathBuf {
    othello_testkit::fixture_with("named", tag, &[("NAME", format!("\"{}\"", name.replace('"', "\\\"")))])
}

/// Compiles `tests/data/NAME.c` into a library of its own (a bot only these tests need).
/// The library is written into `dir` (a test's own folder, removed with it).
pub fn compile_test_bot(name: &str, dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.join(format!("lib{name}.so"));
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-I"])
        .arg(manifest.join("../../sdk/include"))
        .arg(manifest.join("tests/data").join(format!("{name}.c")))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("a C compiler (cc)");
    assert!(status.success(), "cc failed on {name}.c");
    out
}
