//! Jobs leased per second and the leaderboard's latency with one or more web replicas of a
//! contest: WORKERS simulated workers claim a job and give it back at once (`claim` then
//! `release`, the lease round trip of a real worker without the game), spread over the
//! replicas, while READERS ask each replica in turn for `/api/leaderboard`. Prints the leases a
//! second and the readers' latency percentiles.
//!
//! ```sh
//! cargo run --release -p othello-server --example lease_load -- TOKEN http://127.0.0.1:8081,http://127.0.0.1:8082 \
//!     [--workers 16] [--readers 8] [--seconds 20]
//! ```
//!
//! The ladder needs queued jobs (uploads nobody plays: `scripts/bench-replicas.sh` makes them);
//! a released job is queued again, so the queue never runs dry. Loopback only, bounded by the
//! numbers given.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

struct Options {
    token: String,
    replicas: Vec<String>,
    workers: usize,
    readers: usize,
    seconds: u64,
}

fn parse_options() -> Result<Options, String> {
    const USAGE: &str = "usage: lease_load TOKEN URL[,URL…] [--workers N] [--readers N] [--seconds N]";
    let mut args = std::env::args().skip(1);
    let token = args.next().ok_or(USAGE)?;
    let replicas: Vec<String> =
        args.next().ok_or(USAGE)?.split(',').map(|url| url.trim_end_matches('/').to_owned()).collect();
    if let Some(url) =
        replicas.iter().find(|url| !url.starts_with("http://127.") && !url.starts_with("http://localhost"))
    {
        return Err(format!("{url}: loopback servers only"));
    }
    let mut options = Options { token, replicas, workers: 16, readers: 8, seconds: 20 };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value.parse::<u64>().map_err(|e| format!("{flag} {value}: {e}"))?;
        match flag.as_str() {
            "--workers" => options.workers = number as usize,
            "--readers" => options.readers = number as usize,
            "--seconds" => options.seconds = number,
            _ => return Err(format!("unknown option {flag}\n{USAGE}")),
        }
    }
    Ok(options)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// One simulated worker: claims and releases on `url` until `stop`; counts its leases.
fn lease_loop(url: &str, token: &str, stop: &AtomicBool, leases: &AtomicU64, errors: &AtomicU64) {
    let agent = agent();
    let authorization = format!("Bearer {token}");
    while !stop.load(Ordering::Relaxed) {
        let claimed = agent
            .post(format!("{url}/api/worker/claim"))
            .header("Authorization", &authorization)
            .header("Content-Type", "application/json")
            .send(r#"{"host":"lease_load","cores":1}"#);
        let lease = match claimed {
            Ok(mut response) if response.status() == 200 => {
                let body: serde_json::Value = response
                    .body_mut()
                    .read_to_string()
                    .ok()
                    .and_then(|text| serde_json::from_str(&text).ok())
                    .unwrap_or_default();
                body["lease"].as_str().map(str::to_owned)
            }
            // Nothing queued (the long poll ended): not a lease, not an error.
            Ok(response) if response.status() == 204 => None,
            _ => {
                errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        };
        let Some(lease) = lease else { continue };
        leases.fetch_add(1, Ordering::Relaxed);
        let released = agent
            .post(format!("{url}/api/worker/leases/{lease}/release"))
            .header("Authorization", &authorization)
            .send("");
        if !matches!(released, Ok(ref response) if response.status() == 200) {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One reader: asks each replica in turn for the leaderboard until `stop`; returns the latencies.
fn read_loop(replicas: &[String], first: usize, stop: &AtomicBool, errors: &AtomicU64) -> Vec<Duration> {
    let agent = agent();
    let mut latencies = Vec::new();
    let mut next = first;
    while !stop.load(Ordering::Relaxed) {
        let url = &replicas[next % replicas.len()];
        next += 1;
        let start = Instant::now();
        let answered = match agent.get(format!("{url}/api/leaderboard")).call() {
            Ok(mut response) => response.status() == 200 && response.body_mut().read_to_vec().is_ok(),
            Err(_) => false,
        };
        if answered {
            latencies.push(start.elapsed());
        } else {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    }
    latencies
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index].as_secs_f64() * 1e3
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (leases, errors) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let options = Arc::new(options);
    let workers: Vec<_> = (0..options.workers)
        .map(|index| {
            let (options, stop, leases, errors) = (options.clone(), stop.clone(), leases.clone(), errors.clone());
            std::thread::spawn(move || {
                let url = &options.replicas[index % options.replicas.len()];
                lease_loop(url, &options.token, &stop, &leases, &errors);
            })
        })
        .collect();
    let readers: Vec<_> = (0..options.readers)
        .map(|index| {
            let (options, stop, errors) = (options.clone(), stop.clone(), errors.clone());
            std::thread::spawn(move || read_loop(&options.replicas, index, &stop, &errors))
        })
        .collect();
    // The first second warms the connections up: counted from then on.
    std::thread::sleep(Duration::from_secs(1));
    let (start, leased_before) = (Instant::now(), leases.load(Ordering::Relaxed));
    std::thread::sleep(Duration::from_secs(options.seconds));
    let leased = leases.load(Ordering::Relaxed) - leased_before;
    let elapsed = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = worker.join();
    }
    let mut latencies: Vec<Duration> = readers.into_iter().flat_map(|r| r.join().unwrap_or_default()).collect();
    latencies.sort_unstable();
    println!(
        "{} replica(s), {} workers, {} readers: {:.1} leases/s; leaderboard p50 {:.1} ms, p99 {:.1} ms ({} requests); {} errors",
        options.replicas.len(),
        options.workers,
        options.readers,
        leased as f64 / elapsed,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.len(),
        errors.load(Ordering::Relaxed)
    );
    ExitCode::SUCCESS
}
