//! A throw-away PostgreSQL for the tests of the stores: a database of its own per test, on a
//! cluster given by `OTHELLO_TEST_POSTGRES` (an administrator's URL, as CI starts one) or else
//! started here, once per test process, in a temporary folder on a free loopback port, and
//! stopped when the process exits.
//!
//! `OTHELLO_TEST_STORE=postgres` runs the server's and the workers' suites on PostgreSQL instead
//! of SQLite files; then a missing PostgreSQL fails the tests instead of skipping them.

use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
#[cfg(unix)]
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use othello_db::{Db, Location};

/// Which store the suites run on (`OTHELLO_TEST_STORE`: `sqlite`, the default, or `postgres`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Sqlite,
    Postgres,
}

pub fn store() -> Store {
    match std::env::var("OTHELLO_TEST_STORE").as_deref() {
        Ok("postgres") => Store::Postgres,
        Ok("sqlite") | Err(_) => Store::Sqlite,
        Ok(other) => panic!("OTHELLO_TEST_STORE is `sqlite` or `postgres`, not `{other}`"),
    }
}

/// A ladder for one test: a file in `dir`, or a fresh PostgreSQL database when the suite runs on
/// PostgreSQL. Keep the returned guard alive as long as the ladder is used.
pub fn ladder_location(dir: &Path, file_name: &str) -> (Location, Option<TestDatabase>) {
    match store() {
        Store::Sqlite => (Location::File(dir.join(file_name)), None),
        Store::Postgres => {
            let database = database().expect("OTHELLO_TEST_STORE=postgres needs PostgreSQL");
            (Location::Postgres(database.url.clone()), Some(database))
        }
    }
}

/// A database of its own, dropped (with whatever still uses it) when this is.
pub struct TestDatabase {
    pub url: String,
    name: String,
    admin: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Ok(admin) = Db::connect_postgres(&self.admin) {
            let _ = admin.execute_batch(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}

/// A new, empty database; `None` (with the reason printed) when this machine has no PostgreSQL,
/// unless the suite runs on PostgreSQL, when that is a failure.
pub fn database() -> Option<TestDatabase> {
    let admin = match cluster() {
        Ok(admin) => admin,
        Err(why) if store() == Store::Postgres || std::env::var_os("OTHELLO_REQUIRE_POSTGRES").is_some() => {
            panic!("no PostgreSQL for the tests: {why}")
        }
        Err(why) => {
            eprintln!("skipped: no PostgreSQL here ({why})");
            return None;
        }
    };
    static NEXT: Mutex<u32> = Mutex::new(0);
    let number = {
        let mut next = NEXT.lock().unwrap_or_else(|p| p.into_inner());
        *next += 1;
        *next
    };
    let name = format!("othello_test_{}_{number}", std::process::id());
    let db = Db::connect_postgres(admin).unwrap_or_else(|e| panic!("cannot connect to the test cluster: {e}"));
    // One statement a call: neither may run inside the implicit transaction of a batch.
    for statement in [format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"), format!("CREATE DATABASE {name}")] {
        db.execute_batch(&statement).unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
    }
    let url = replace_database(admin, &name);
    Some(TestDatabase { url, name, admin: admin.to_owned() })
}

/// `postgres://…/postgres` with another database's name.
fn replace_database(admin: &str, name: &str) -> String {
    let (base, query) = admin.split_once('?').map_or((admin, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let root = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{root}/{name}?{query}"),
        None => format!("{root}/{name}"),
    }
}

/// The administrator's URL of the cluster the tests use, started here if need be.
fn cluster() -> Result<&'static str, String> {
    static CLUSTER: OnceLock<Result<String, String>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| match std::env::var("OTHELLO_TEST_POSTGRES") {
            Ok(url) => Ok(url),
            Err(_) => start_cluster(),
        })
        .as_deref()
        .map_err(|e| e.clone())
}

/// The folder of the cluster started here, stopped at exit.
#[cfg(unix)]
static STARTED: Mutex<Option<PathBuf>> = Mutex::new(None);

#[cfg(unix)]
fn postgres_bin() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|dir| dir.join("pg_ctl").is_file() && dir.join("initdb").is_file());
    on_path.or_else(|| {
        // Debian keeps them out of PATH, one folder per major version.
        let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .filter(|bin| bin.join("pg_ctl").is_file())
            .collect();
        versions.sort();
        versions.pop()
    })
}

#[cfg(unix)]
fn start_cluster() -> Result<String, String> {
    let bin = postgres_bin().ok_or("no initdb/pg_ctl (Debian: apt install postgresql)")?;
    let dir = tempfile::Builder::new().prefix("othello-pg-").tempdir().map_err(|e| e.to_string())?.keep();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // PostgreSQL refuses to run as root: as root (CI), the cluster is the `postgres` user's.
    let run = |program: &str| {
        let mut command = if root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(bin.join(program));
            c
        } else {
            Command::new(bin.join(program))
        };
        command.stdin(std::process::Stdio::null());
        command
    };
    if root {
        let status = Command::new("chown").args(["postgres:postgres"]).arg(&dir).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("cannot give {} to the postgres user", dir.display()));
        }
    }
    let data = dir.join("data");
    let output = run("initdb")
        .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "-D"])
        .arg(&data)
        .output()
        .map_err(|e| format!("initdb: {e}"))?;
    if !output.status.success() {
        return Err(format!("initdb failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let port =
        std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=400",
        dir.display()
    );
    let output = run("pg_ctl")
        .args(["-w", "-D"])
        .arg(&data)
        .arg("-l")
        .arg(dir.join("log"))
        .args(["-o", &options, "start"])
        .output()
        .map_err(|e| format!("pg_ctl: {e}"))?;
    if !output.status.success() {
        let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
        return Err(format!("pg_ctl start failed: {}{log}", String::from_utf8_lossy(&output.stderr)));
    }
    *STARTED.lock().unwrap_or_else(|p| p.into_inner()) = Some(dir);
    // SAFETY: `stop_cluster` is an `extern "C"` function without arguments that never unwinds.
    unsafe { libc::atexit(stop_cluster) };
    Ok(format!("postgres://postgres@127.0.0.1:{port}/postgres"))
}

#[cfg(not(unix))]
fn start_cluster() -> Result<String, String> {
    Err("the tests start PostgreSQL on Unix only: set OTHELLO_TEST_POSTGRES".to_owned())
}

/// At exit: the cluster started here stops at once and its folder goes.
#[cfg(unix)]
extern "C" fn stop_cluster() {
    let _ = std::panic::catch_unwind(|| {
        let Some(dir) = STARTED.lock().unwrap_or_else(|p| p.into_inner()).take() else { return };
        if let Some(bin) = postgres_bin() {
            // SAFETY: geteuid has no preconditions.
            let root = unsafe { libc::geteuid() } == 0;
            let mut command = if root {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(bin.join("pg_ctl"));
                c
            } else {
                Command::new(bin.join("pg_ctl"))
            };
            let _ = command
                .args(["-w", "-m", "immediate", "-D"])
                .arg(dir.join("data"))
                .arg("stop")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
}
