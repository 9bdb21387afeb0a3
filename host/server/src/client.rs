//! `othello worker`: a worker on another machine. It claims jobs from a server over HTTP,
//! downloads the libraries each names (checked against their SHA-256, kept in a
//! content-addressed cache), plays them through the arena's seats in its own sandbox while it
//! renews the lease, submits the games, and repeats. It never touches the server's database.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use othello_arena::seat::Seating;
use othello_ladder::identity::file_hash;

use crate::plan::{Accepted, Claimed, Hello, play_plan};
use crate::store::sha256_hex;

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The server's address, e.g. `https://ladder.example` or `http://127.0.0.1:8080`.
    pub server: String,
    pub token: String,
    /// Jobs played at once.
    pub concurrency: usize,
    /// Where downloaded libraries are kept, each in a folder named by its SHA-256.
    pub cache: PathBuf,
    /// How bots are run (isolated, in the sandbox).
    pub seating: Seating,
    /// A PEM file of the certificate authorities to trust instead of the public ones (a server
    /// whose TLS certificate is the organiser's own).
    pub ca_certificates: Option<PathBuf>,
}

/// Most bytes of a library download (the server's upload limit is smaller).
const MAX_LIBRARY_BYTES: u64 = 256 << 20;
/// Pause after a failed request before the next (the server may be restarting).
const RETRY_PAUSE: Duration = Duration::from_secs(2);
/// The first pause of the claims' back-off (no work, or the server erred); it doubles at each
/// such answer up to [`BACKOFF_MAX`] and starts again at the next job.
pub const BACKOFF_FIRST: Duration = Duration::from_millis(250);
/// The longest pause between two claims.
pub const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// Exponential back-off with jitter: each pause is drawn between half and all of the current
/// step, so workers restarted together do not claim in step.
#[derive(Debug, Clone)]
pub struct Backoff {
    step: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { step: BACKOFF_FIRST }
    }
}

impl Backoff {
    /// The next pause; the step doubles (up to [`BACKOFF_MAX`]).
    pub fn next_pause(&mut self) -> Duration {
        use rand::RngExt;
        let step = self.step;
        self.step = (self.step * 2).min(BACKOFF_MAX);
        let half = step / 2;
        half + Duration::from_millis(rand::rng().random_range(0..=half.as_millis() as u64))
    }

    /// Work came: the next pause is short again.
    pub fn reset(&mut self) {
        self.step = BACKOFF_FIRST;
    }
}
/// Attempts at sending a result (it is idempotent, so a retry after a lost answer is safe).
const SUBMIT_ATTEMPTS: u32 = 5;

struct Client {
    agent: ureq::Agent,
    base: String,
    authorization: String,
}

/// The certificate authorities of a PEM file.
fn certificate_authorities(path: &Path) -> Result<ureq::tls::RootCerts, String> {
    let pem = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut certificates = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item.map_err(|e| format!("{}: {e}", path.display()))? {
            ureq::tls::PemItem::Certificate(certificate) => certificates.push(certificate),
            ureq::tls::PemItem::PrivateKey(_) => {
                return Err(format!("{} holds a private key: give the certificate alone", path.display()));
            }
            _ => {} // whatever else a PEM file may hold is not a certificate authority
        }
    }
    if certificates.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok(ureq::tls::RootCerts::new_with_certs(&certificates))
}

impl Client {
    fn new(options: &WorkerOptions) -> Result<Client, String> {
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(path) = &options.ca_certificates {
            tls = tls.root_certs(certificate_authorities(path)?);
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .timeout_connect(Some(Duration::from_secs(20)))
            .tls_config(tls.build())
            .build()
            .into();
        Ok(Client {
            agent,
            base: options.server.trim_end_matches('/').to_owned(),
            authorization: format!("Bearer {}", options.token.trim()),
        })
    }

    /// Where `path` is: a path on the server, or an absolute URL on the server's own origin.
    /// The token goes with every request, so a URL elsewhere (a server naming another site, or
    /// `//host/…`) is refused and nothing is sent there.
    fn url(&self, path: &str) -> Result<String, String> {
        if path.starts_with('/') && !path.starts_with("//") {
            return Ok(format!("{}{path}", self.base));
        }
        if origin(path).is_some_and(|o| origin(&self.base).is_some_and(|base| o.eq_ignore_ascii_case(base))) {
            return Ok(path.to_owned());
        }
        Err(format!(
            "the server named `{}`, which is not on its own origin {}: the worker's token is sent nowhere else",
            othello_arena::text::one_line(path, 200),
            self.base
        ))
    }

    fn read(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Result<(u16, Vec<u8>), String> {
        let mut response = response.map_err(|e| format!("no answer: {e}"))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_LIBRARY_BYTES)
            .read_to_vec()
            .map_err(|e| format!("the answer broke off: {e}"))?;
        Ok((status, body))
    }

    fn post(&self, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        let request = self
            .agent
            .post(self.url(path)?)
            .header("Authorization", &self.authorization)
            .header("Content-Type", "application/json");
        Self::read(request.send(body))
    }

    fn get(&self, path: &str) -> Result<(u16, Vec<u8>), String> {
        Self::read(self.agent.get(self.url(path)?).header("Authorization", &self.authorization).call())
    }
}

/// `scheme://host:port` of an http(s) URL (the port as written), if it is one.
fn origin(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    // `user@host` names a host after the `@`: such a URL is never the server's own.
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    Some(&url[..scheme.len() + 3 + authority_end])
}

/// The server's `{"error": …}`, or the body as text.
fn error_text(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned())
}

/// Waits `pause` unless `stop` is set first.
fn pause_unless_stopped(stop: &AtomicBool, pause: Duration) {
    let step = Duration::from_millis(50);
    let mut waited = Duration::ZERO;
    while waited < pause && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step);
        waited += step;
    }
}

/// Plays the server's jobs with `options.concurrency` threads until `stop` is set (each thread
/// then finishes the game it is playing, gives its lease back and ends its runners) or the
/// server refuses the token.
pub fn run(options: &WorkerOptions, stop: &AtomicBool) -> Result<(), String> {
    std::fs::create_dir_all(&options.cache)
        .map_err(|e| format!("cannot create the cache {}: {e}", options.cache.display()))?;
    // Absolute, as runners start in folders of their own.
    let cache =
        options.cache.canonicalize().map_err(|e| format!("cannot find the cache {}: {e}", options.cache.display()))?;
    let options = &WorkerOptions { cache, ..options.clone() };
    Client::new(options)?; // a bad certificate file is said once, before any thread starts
    let hello = Hello {
        host: std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .or_else(|_| std::env::var("HOSTNAME"))
            .or_else(|_| std::env::var("COMPUTERNAME"))
            .unwrap_or_else(|_| "unknown".to_owned()),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
    };
    let hello = serde_json::to_vec(&hello).expect("a hello serializes");
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..options.concurrency.max(1))
            .map(|index| {
                let hello = &hello;
                scope.spawn(move || {
                    let result = slot(index, options, hello, stop);
                    if result.is_err() {
                        stop.store(true, Ordering::SeqCst); // a refused token stops every thread
                    }
                    result
                })
            })
            .collect();
        threads.into_iter().try_for_each(|t| t.join().unwrap_or_else(|_| Err("a worker thread panicked".to_owned())))
    })
}

/// One thread: claim, play, submit, until stopped.
fn slot(index: usize, options: &WorkerOptions, hello: &[u8], stop: &AtomicBool) -> Result<(), String> {
    let client = Client::new(options)?;
    let mut backoff = Backoff::default();
    while !stop.load(Ordering::SeqCst) {
        let asked = std::time::Instant::now();
        let (status, body) = match client.post("/api/worker/claim", hello) {
            Ok(answer) => answer,
            Err(why) => {
                eprintln!("worker {index}: cannot reach {}: {why}", client.base);
                pause_unless_stopped(stop, backoff.next_pause().max(RETRY_PAUSE));
                continue;
            }
        };
        match status {
            200 => {
                backoff.reset();
                let claimed: Claimed = serde_json::from_slice(&body)
                    .map_err(|e| format!("the server's claim answer is not understood: {e}"))?;
                play_claimed(index, &client, options, &claimed, asked, stop);
            }
            // Nothing to play now: ask again later, later each time.
            204 => pause_unless_stopped(stop, backoff.next_pause()),
            401 | 403 => return Err(format!("the server refuses this worker: {}", error_text(&body))),
            _ => {
                eprintln!("worker {index}: claim answered {status}: {}", error_text(&body));
                pause_unless_stopped(stop, backoff.next_pause().max(RETRY_PAUSE));
            }
        }
    }
    Ok(())
}

/// The library `sha256` in the cache, downloaded from `url` when it is not there (or no longer
/// matches its hash); a WebAssembly module (`wasm`) is kept as `bot.wasm`.
fn library(client: &Client, cache: &Path, url: &str, sha256: &str, wasm: bool) -> Result<PathBuf, String> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{sha256}` is not a SHA-256"));
    }
    let folder = cache.join(sha256);
    let extension = if wasm { othello_arena::seat::WASM_EXTENSION } else { std::env::consts::DLL_EXTENSION };
    let path = folder.join(format!("bot.{extension}"));
    if path.is_file() && file_hash(&path).ok().as_deref() == Some(sha256) {
        return Ok(path);
    }
    let (status, bytes) = client.get(url)?;
    if status != 200 {
        return Err(format!("download of {sha256} answered {status}: {}", error_text(&bytes)));
    }
    let got = sha256_hex(&bytes);
    if got != sha256 {
        return Err(format!("the library downloaded for {sha256} has the hash {got}: refused"));
    }
    std::fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    // Under a name of this thread's own, then renamed: another thread or a crash never leaves
    // half a library where a runner would load it.
    let partial = folder.join(format!(".partial-{:?}", std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&partial, &bytes)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

fn play_claimed(
    index: usize,
    client: &Client,
    options: &WorkerOptions,
    claimed: &Claimed,
    claimed_at: std::time::Instant,
    stop: &AtomicBool,
) {
    let plan = &claimed.plan;
    let what = format!("job {} ({}: {} vs {})", claimed.job, plan.kind, plan.bots[0].label(), plan.bots[1].label());
    let lease = &claimed.lease;
    let release = || {
        let _ = client.post(&format!("/api/worker/leases/{lease}/release"), b"");
    };
    let paths = (0..2)
        .map(|i| library(client, &options.cache, &claimed.libraries[i], &plan.bots[i].sha256, plan.bots[i].wasm))
        .collect::<Result<Vec<_>, _>>();
    let paths = match paths {
        Ok(paths) => paths,
        Err(why) => {
            eprintln!("worker {index}: {what}: {why}; the job is given back");
            release();
            pause_unless_stopped(stop, RETRY_PAUSE);
            return;
        }
    };
    let lost = AtomicBool::new(false);
    let playing = std::time::Instant::now();
    let played = std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let every = Duration::from_millis((claimed.lease_ms / 3).max(50));
        let (lost, what) = (&lost, &what);
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(every) {
                match client.post(&format!("/api/worker/leases/{lease}/heartbeat"), b"") {
                    Ok((200, _)) => {}
                    Ok((409, body)) => {
                        eprintln!("worker {index}: {what}: the lease is lost: {}", error_text(&body));
                        lost.store(true, Ordering::SeqCst);
                        return;
                    }
                    Ok((status, body)) => {
                        eprintln!("worker {index}: heartbeat answered {status}: {}", error_text(&body))
                    }
                    Err(why) => eprintln!("worker {index}: heartbeat: {why}"),
                }
            }
        });
        let played = play_plan(plan, [&paths[0], &paths[1]], &options.seating, None, &mut |_, _| {
            if stop.load(Ordering::SeqCst) {
                Err("the worker is stopping".to_owned())
            } else if lost.load(Ordering::SeqCst) {
                Err("the lease is lost".to_owned())
            } else {
                Ok(())
            }
        });
        drop(done);
        played
    });
    let played = match played {
        Ok(played) => played,
        Err(why) => {
            eprintln!("worker {index}: {what}: not finished: {why}");
            if !lost.load(Ordering::SeqCst) {
                release();
            }
            return;
        }
    };
    let play_ms = playing.elapsed().as_millis();
    let body = serde_json::to_vec(&played).expect("games serialize");
    for attempt in 1..=SUBMIT_ATTEMPTS {
        match client.post(&format!("/api/worker/leases/{lease}/result"), &body) {
            Ok((200, answer)) => {
                let accepted: Option<Accepted> = serde_json::from_slice(&answer).ok();
                let games = accepted.map_or(0, |a| a.games);
                // From the claim's answer to the result's: what coordination costs beside the games.
                let total_ms = claimed_at.elapsed().as_millis();
                eprintln!(
                    "worker {index}: {what}: done, {games} game(s) counted; {total_ms} ms from claim to submit, \
                     {play_ms} ms of it playing"
                );
                return;
            }
            Ok((status, answer)) if status < 500 => {
                eprintln!("worker {index}: {what}: the result was refused ({status}): {}", error_text(&answer));
                return;
            }
            Ok((status, answer)) => {
                eprintln!("worker {index}: {what}: submit answered {status}: {}", error_text(&answer))
            }
            Err(why) => eprintln!("worker {index}: {what}: submit (attempt {attempt}): {why}"),
        }
        pause_unless_stopped(&AtomicBool::new(false), RETRY_PAUSE);
    }
}

/// [`run`] until Ctrl-C or SIGTERM (then each thread finishes its game, gives its lease back and
/// ends its runners).
pub fn run_until_signal(options: &WorkerOptions) -> Result<(), String> {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let watcher = stop.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            runtime.block_on(crate::shared::shutdown_signal());
            eprintln!("Stopping: the games being played finish first");
            watcher.store(true, Ordering::SeqCst);
        })
        .map_err(|e| format!("cannot watch for signals: {e}"))?;
    run(options, &stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_back_off_doubles_with_jitter_up_to_its_cap_and_starts_again_after_work() {
        let mut backoff = Backoff::default();
        let mut step = BACKOFF_FIRST;
        for _ in 0..12 {
            let pause = backoff.next_pause();
            assert!(pause >= step / 2 && pause <= step, "{pause:?} outside [{:?}, {step:?}]", step / 2);
            step = (step * 2).min(BACKOFF_MAX);
        }
        assert_eq!(step, BACKOFF_MAX);
        backoff.reset();
        assert!(backoff.next_pause() <= BACKOFF_FIRST);
    }

    #[test]
    fn the_token_goes_to_the_servers_own_origin_only() {
        let options = WorkerOptions {
            server: "http://127.0.0.1:8080/".to_owned(),
            token: "t".to_owned(),
            concurrency: 1,
            cache: PathBuf::from("."),
            seating: Seating {
                isolation: othello_arena::seat::Isolation::InProcess,
                options: othello_arena::seat::SeatOptions::default(),
            },
            ca_certificates: None,
        };
        let client = Client::new(&options).unwrap();
        assert_eq!(client.url("/api/worker/claim").unwrap(), "http://127.0.0.1:8080/api/worker/claim");
        assert_eq!(client.url("http://127.0.0.1:8080/api/x").unwrap(), "http://127.0.0.1:8080/api/x");
        for elsewhere in [
            "http://127.0.0.1:9999/api/x",
            "https://127.0.0.1:8080/api/x",
            "http://evil.example/api/x",
            "//evil.example/api/x",
            "http://127.0.0.1:8080@evil.example/x",
            "ftp://127.0.0.1:8080/x",
            "api/x",
        ] {
            let why = client.url(elsewhere).unwrap_err();
            assert!(why.contains("not on its own origin"), "{elsewhere}: {why}");
        }
    }
}
