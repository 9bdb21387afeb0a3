//! What the `serve` and `workers` tests share: an `othello serve` child on a free loopback port,
//! uploads to it, and waiting for the states it reaches.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use othello_db::{Db, Location};
use othello_testkit::postgres::{TestDatabase, ladder_location};
use othello_testkit::{fixture, random_bot};

/// How long a test waits for the server to get somewhere (it waits for states, never a fixed time).
pub const DEADLINE: Duration = Duration::from_secs(300);

pub fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

/// A child killed if the test fails before it ends it.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// A contest's ladder for one test: the file `contest.sqlite3` in the contest's folder, or a
/// database of its own when the suite runs on PostgreSQL (`OTHELLO_TEST_STORE=postgres`).
pub struct ContestLadder {
    /// What `--ladder` is given: the file's name (commands run in the contest's folder) or the URL.
    pub arg: String,
    pub location: Location,
    _database: Option<TestDatabase>,
}

impl ContestLadder {
    pub fn new(dir: &Path) -> ContestLadder {
        let (location, database) = ladder_location(dir, "contest.sqlite3");
        let arg = match &location {
            Location::File(_) => "contest.sqlite3".to_owned(),
            Location::Postgres(url) => url.clone(),
        };
        ContestLadder { arg, location, _database: database }
    }

    /// A connection of the test's own, to look at the tables.
    pub fn open(&self) -> Db {
        match &self.location {
            Location::File(path) => othello_db::open_sqlite_file(path).unwrap(),
            Location::Postgres(url) => Db::connect_postgres(url).unwrap(),
        }
    }
}

/// Starts `othello serve` in `dir` on a free loopback port, on the ladder `ladder` (a file in
/// `dir` or a database's URL: [`ContestLadder::arg`]) with the pool in `plugins`, 200 ms a move
/// and no continuous games, and `args` besides (`--workers N` …); returns it and its address.
pub fn start_server(dir: &Path, ladder: &str, args: &[&str]) -> (Process, String) {
    let mut child = Command::new(othello_exe())
        .current_dir(dir)
        .args(["serve", "--ladder", ladder, "--listen", "127.0.0.1:0"])
        .args(args)
        .args(["--allow-weak-sandbox", "--plugins", "plugins", "--time-ms", "200", "--error", "1"])
        .arg("--no-continuous-games")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let address = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("first line: {line:?}"));
    (Process(child), address.to_owned())
}

/// Makes `dir` a contest's folder: the pool (`random` and `first_legal`) in `plugins`, seeded in
/// the ladder `ladder` (a file in `dir` or a database's URL).
pub fn seed_contest(dir: &Path, ladder: &str) {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(random_bot(), plugins.join("librandom.so")).unwrap();
    std::fs::copy(fixture("first_legal"), plugins.join("libfirst_legal.so")).unwrap();
    let seeded = Command::new(othello_exe())
        .current_dir(dir)
        .args(["ladder", "--ladder", ladder])
        .args(["--seed-pool", "plugins/librandom.so", "plugins/libfirst_legal.so"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(seeded.status.success(), "{}", String::from_utf8_lossy(&seeded.stderr));
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// Uploads `library` as `file_name` for the entrant of `token`; returns the upload's JSON.
pub fn upload(address: &str, token: &str, file_name: &str, library: &[u8]) -> serde_json::Value {
    let boundary = "testboundary";
    let mut body =
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"bot\"; filename=\"{file_name}\"\r\n\r\n")
            .into_bytes();
    body.extend_from_slice(library);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let mut response = agent()
        .post(format!("http://{address}/api/bots"))
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", format!("multipart/form-data; boundary={boundary}"))
        .send(&body[..])
        .unwrap();
    let text = response.body_mut().read_to_string().unwrap();
    assert_eq!(response.status().as_u16(), 201, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// The number `sql` answers (NULL counts as 0), on either store.
pub fn count(db: &Db, sql: &str) -> i64 {
    db.query_row(sql, [], |row| row.get::<Option<i64>>(0)).unwrap().unwrap_or(0)
}

pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < DEADLINE, "waited {DEADLINE:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What every test of a server killed or a worker lost ends with: every job done, each pair job
/// with both its games once (none for one that found its placement done), and every game of the
/// uploaded bots belonging to a job, once.
pub fn assert_every_job_done_and_every_game_counted_once(db: &Db) {
    assert_eq!(count(db, "SELECT count(*) FROM server_jobs WHERE state != 'done'"), 0, "no job left behind");
    assert_eq!(
        count(
            db,
            "SELECT count(*) FROM server_jobs j WHERE kind = 'pair'
             AND (SELECT count(*) FROM server_job_games g WHERE g.job = j.id) NOT IN (0, 2)"
        ),
        0,
        "each pair job has both its games once"
    );
    assert_eq!(
        count(
            db,
            "SELECT count(*) FROM games WHERE (black IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL)
             OR white IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL))
             AND id NOT IN (SELECT game FROM server_job_games)"
        ),
        0,
        "every game of the uploaded bots belongs to a job, once"
    );
}
