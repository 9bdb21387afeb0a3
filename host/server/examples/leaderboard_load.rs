//! The leaderboard's latency under a classroom's load, as one contest server sees it: STREAMS
//! open pages (each holds `/api/events` open and, as the leaderboard page does, fetches
//! `/api/leaderboard` again at each `change` event) and CLIENTS that ask for a page as fast as
//! it comes, each on its own kept-alive connection. Prints the clients' latency percentiles.
//!
//! ```sh
//! cargo run --release -p othello-server --example leaderboard_load -- http://127.0.0.1:8080 \
//!     [--streams 300] [--clients 30] [--seconds 20] [--path /api/leaderboard] [--streams-only-listen]
//! ```
//!
//! Run it against a server whose workers play (`scripts/bench-serve.sh streams` does it all).
//! Loopback only: the load is bounded by the numbers given, and it speaks plain HTTP/1.1.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

struct Options {
    host: String,
    streams: usize,
    clients: usize,
    seconds: u64,
    path: String,
    /// The streams only read their events and never fetch (the lighter load).
    streams_only_listen: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: leaderboard_load http://HOST:PORT [--streams N] [--clients N] [--seconds N] [--path P] [--streams-only-listen]")?;
    let host = url
        .strip_prefix("http://")
        .ok_or("the URL must start with http:// (loopback servers only)")?
        .trim_end_matches('/')
        .to_string();
    let mut options = Options {
        host,
        streams: 300,
        clients: 30,
        seconds: 20,
        path: "/api/leaderboard".into(),
        streams_only_listen: false,
    };
    while let Some(flag) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next().and_then(|value| value.parse().ok()).ok_or(format!("{name} needs a number"))
        };
        match flag.as_str() {
            "--streams" => options.streams = number("--streams")? as usize,
            "--clients" => options.clients = number("--clients")? as usize,
            "--seconds" => options.seconds = number("--seconds")?,
            "--path" => options.path = args.next().ok_or("--path needs a path")?,
            "--streams-only-listen" => options.streams_only_listen = true,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(options)
}

/// One kept-alive HTTP/1.1 connection that GETs bodies with a Content-Length or chunked.
struct Connection {
    host: String,
    reader: BufReader<TcpStream>,
}

impl Connection {
    async fn open(host: &str) -> std::io::Result<Connection> {
        let stream = TcpStream::connect(host).await?;
        stream.set_nodelay(true)?;
        Ok(Connection { host: host.to_string(), reader: BufReader::new(stream) })
    }

    /// GETs `path`; returns the status and the body's length.
    async fn get(&mut self, path: &str) -> std::io::Result<(u16, usize)> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: */*\r\n\r\n", self.host);
        self.reader.get_mut().write_all(request.as_bytes()).await?;
        let (status, length, chunked) = read_head(&mut self.reader).await?;
        let body = if chunked {
            read_chunked(&mut self.reader).await?
        } else {
            let mut body = vec![0; length.unwrap_or(0)];
            self.reader.read_exact(&mut body).await?;
            body.len()
        };
        Ok((status, body))
    }
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

/// Reads a response's head: status, Content-Length, whether the body is chunked.
async fn read_head(reader: &mut BufReader<TcpStream>) -> std::io::Result<(u16, Option<usize>, bool)> {
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    let status =
        line.split_whitespace().nth(1).and_then(|code| code.parse().ok()).ok_or_else(|| invalid("no status line"))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Err(invalid("the head ended early"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            return Ok((status, length, chunked));
        }
        let (name, value) = header.split_once(':').unwrap_or((header, ""));
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") && value.to_ascii_lowercase().contains("chunked") {
            chunked = true;
        }
    }
}

async fn read_chunked(reader: &mut BufReader<TcpStream>) -> std::io::Result<usize> {
    let mut total = 0;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await?;
        let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
            .map_err(|_| invalid("a bad chunk size"))?;
        let mut chunk = vec![0; size + 2]; // the chunk and its CRLF
        reader.read_exact(&mut chunk).await?;
        total += size;
        if size == 0 {
            return Ok(total);
        }
    }
}

#[derive(Default)]
struct StreamTally {
    opened: AtomicU64,
    /// Streams that never opened.
    refused: AtomicU64,
    /// Streams that opened and ended before the measurement did.
    ended_early: AtomicU64,
    events: AtomicU64,
    fetches: AtomicU64,
}

/// One open page: the event stream, and (unless told not to) a fetch of the leaderboard at each
/// `change`, as the page's script does.
async fn open_page(host: String, only_listen: bool, tally: Arc<StreamTally>, stop: Arc<AtomicBool>) {
    let mut opened = false;
    let run = async {
        let stream = TcpStream::connect(&host).await?;
        let mut reader = BufReader::new(stream);
        let request = format!("GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n");
        reader.get_mut().write_all(request.as_bytes()).await?;
        let (status, _, _) = read_head(&mut reader).await?;
        if status != 200 {
            return Err(invalid("the event stream was refused"));
        }
        opened = true;
        tally.opened.fetch_add(1, Ordering::Relaxed);
        let mut page = if only_listen { None } else { Some(Connection::open(&host).await?) };
        let mut line = String::new();
        while !stop.load(Ordering::Relaxed) {
            line.clear();
            if reader.read_line(&mut line).await? == 0 {
                break;
            }
            if line.starts_with("event:") {
                tally.events.fetch_add(1, Ordering::Relaxed);
                if line.contains("change")
                    && let Some(page) = page.as_mut()
                {
                    page.get("/api/leaderboard").await?;
                    tally.fetches.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        Ok::<(), std::io::Error>(())
    };
    let _ = run.await;
    if !opened {
        tally.refused.fetch_add(1, Ordering::Relaxed);
    } else if !stop.load(Ordering::Relaxed) {
        tally.ended_early.fetch_add(1, Ordering::Relaxed);
    }
}

/// One client: GETs `path` until `until`, returning each request's latency in microseconds.
async fn client(host: String, path: String, until: Instant) -> (Vec<u64>, u64) {
    let (mut latencies, mut errors) = (Vec::new(), 0);
    let mut connection = None;
    while Instant::now() < until {
        if connection.is_none() {
            match Connection::open(&host).await {
                Ok(opened) => connection = Some(opened),
                Err(_) => {
                    errors += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(open) = connection.as_mut() else { continue };
        let started = Instant::now();
        match open.get(&path).await {
            Ok((200, _)) => latencies.push(started.elapsed().as_micros() as u64),
            _ => {
                errors += 1;
                connection = None;
            }
        }
    }
    (latencies, errors)
}

fn percentile(sorted: &[u64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(StreamTally::default());
    let mut pages = Vec::new();
    for _ in 0..options.streams {
        pages.push(tokio::spawn(open_page(
            options.host.clone(),
            options.streams_only_listen,
            tally.clone(),
            stop.clone(),
        )));
    }
    // The clients start once every page has its stream (or gave up).
    let waited = Instant::now();
    while (tally.opened.load(Ordering::Relaxed) + tally.refused.load(Ordering::Relaxed)) < options.streams as u64
        && waited.elapsed() < Duration::from_secs(30)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let started = Instant::now();
    let until = started + Duration::from_secs(options.seconds);
    let clients: Vec<_> =
        (0..options.clients).map(|_| tokio::spawn(client(options.host.clone(), options.path.clone(), until))).collect();
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for client in clients {
        if let Ok((mine, failed)) = client.await {
            latencies.extend(mine);
            errors += failed;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let still_open = tally.opened.load(Ordering::Relaxed) - tally.ended_early.load(Ordering::Relaxed);
    for page in pages {
        page.abort();
    }
    latencies.sort_unstable();
    println!(
        "GET {}: {} requests in {elapsed:.1} s ({:.0}/s), p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {errors} errors; \
         {} of {} streams open, {} events, {} page fetches",
        options.path,
        latencies.len(),
        latencies.len() as f64 / elapsed,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
        still_open,
        options.streams,
        tally.events.load(Ordering::Relaxed),
        tally.fetches.load(Ordering::Relaxed),
    );
    if latencies.is_empty() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
