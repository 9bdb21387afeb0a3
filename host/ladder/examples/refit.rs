//! Refit time of a ladder: 50 entries with 10,000 and 100,000 games (real random games with
//! their GGF, results drawn from known strengths). Prints, for each size, the median time of
//! the fit alone (from the pair tallies) and of a whole refit as a rating session does it
//! (aggregating the games table in SQLite, then fitting).
//!
//! `cargo run --release -p othello-ladder --example refit [RUNS]`

use std::time::{Duration, Instant};

use othello_arena::record::{GameRecord, Outcome};
use othello_arena::referee::{Opening, Referee};
use othello_arena::seat::Reply;
use othello_ladder::fit::{FitOptions, expected_score, fit};
use othello_ladder::identity::{Identity, Kind};
use othello_ladder::{Entry, Ladder};
use othello_sdk::{Move, SplitMix64};

/// Entries in the benchmark ladder.
const ENTRIES: usize = 50;
/// Ladder sizes measured.
const SIZES: [usize; 2] = [10_000, 100_000];
/// Runs per measure when not given.
const DEFAULT_RUNS: usize = 7;
/// Opponents are drawn among this many nearest neighbours in strength (as adaptive pairing does).
const NEIGHBOURS: usize = 6;

fn main() {
    let runs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(DEFAULT_RUNS);
    let dir = std::env::temp_dir().join(format!("othello-ladder-refit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    for size in SIZES {
        let path = dir.join(format!("ladder-{size}.sqlite3"));
        let _ = std::fs::remove_file(&path);
        let (mut ladder, entries) = build(&path, size);
        let size_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let results = ladder.results(&entries).expect("tallies");
        let fit_only = median(runs, || {
            std::hint::black_box(fit(&results, &FitOptions::anchored_at(0)));
        });
        let whole = median(runs, || {
            let entries = ladder.entries().expect("entries");
            std::hint::black_box(ladder.fit(&entries).expect("a fit"));
        });
        let steps = fit(&results, &FitOptions::anchored_at(0)).steps;
        println!(
            "{size:>7} games, {ENTRIES} entries, {} pairs ({:.1} MB file): fit {:.3} ms ({steps} Newton steps), \
             refit from the database {:.1} ms (median of {runs})",
            results.pairs().count(),
            size_bytes as f64 / 1e6,
            fit_only.as_secs_f64() * 1e3,
            whole.as_secs_f64() * 1e3,
        );
        ladder.save_snapshot(&entries, &ladder.fit(&entries).expect("a fit"), "benchmark").expect("a snapshot");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn median(runs: usize, mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// A ladder of `games` games between [`ENTRIES`] entries of known strengths.
fn build(path: &std::path::Path, games: usize) -> (Ladder, Vec<Entry>) {
    let mut ladder = Ladder::open(path).expect("a new ladder");
    let mut entries = Vec::new();
    for i in 0..ENTRIES {
        let identity = Identity {
            kind: Kind::Library,
            name: format!("Bot {i}"),
            level: None,
            hash: format!("{i:064x}"),
            locator: format!("/bots/libbot{i}.so"),
        };
        entries.push(ladder.entry_for(&identity).expect("an entry"));
    }
    ladder.set_anchor_if_unset(entries[0].id).expect("the anchor");
    let strength = |i: usize| i as f64 * 30.0 - 300.0;
    let mut rng = SplitMix64::new(42);
    let mut batch: Vec<(i64, i64, GameRecord)> = Vec::with_capacity(games);
    for _ in 0..games {
        let a = rng.below(ENTRIES as u32) as usize;
        let offset = 1 + rng.below(NEIGHBOURS as u32) as usize;
        let b = if a + offset < ENTRIES { a + offset } else { a - offset };
        let mut game = random_game(&mut rng);
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        // The result follows the Elo model; the moves are a random game's.
        game.result = if u < expected_score(strength(a) - strength(b)) {
            Outcome::from_final_score(40, 24)
        } else {
            Outcome::from_final_score(24, 40)
        };
        batch.push((entries[a].id, entries[b].id, game));
    }
    let rows: Vec<(i64, i64, &GameRecord)> = batch.iter().map(|(a, b, g)| (*a, *b, g)).collect();
    ladder.record_games(&rows).expect("the games are stored");
    (ladder, entries)
}

/// A game of random legal moves, recorded by the referee.
fn random_game(rng: &mut SplitMix64) -> GameRecord {
    let mut referee = Referee::new(&Opening::none());
    while referee.to_move().is_some() {
        let legal: Vec<_> = referee.position().legal_moves().into_iter().collect();
        let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[rng.below(legal.len() as u32) as usize]) };
        referee.submit(Ok(Reply {
            byte: mv.to_byte(),
            elapsed: Duration::from_millis(1),
            info: None,
            cpu: None,
            throttled: None,
        }));
    }
    referee
        .into_record(["A".to_owned(), "B".to_owned()], Some(Duration::from_millis(100)), 1_700_000_000)
        .expect("over")
}
