//! The rating workers: threads that claim jobs from the queue and play them through the arena's
//! seats in the sandbox. A check loads the upload, reads its exports and plays two games against
//! `random`; a pair plays one opening with colours swapped against the opponent the ladder's
//! pairing picks, until the placement is precise enough ([`crate::Config::target_error`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use othello_arena::event::openings::OpeningSource;
use othello_arena::plugins::{PluginStatus, probe};
use othello_arena::record::GameRecord;
use othello_ladder::identity::{Identity, Kind, file_hash, library_identity, still_matches};
use othello_ladder::play::{Player, play_pair_with};
use othello_ladder::session::{
    GIVE_UP_AFTER_FAILED_GAMES, MIN_GAMES, OPENING_PLIES, current_ratings, lost_by_failure, pick_opponent,
};
use othello_ladder::{Entry, Ladder};
use othello_sdk::Color;

use crate::store::{self, Job, JobKind, Next, Status, Upload};
use crate::{Config, Shared};

/// What a check found, as the bot's page and `GET /api/bots/{id}` show it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The platform the server accepts.
    pub platform: String,
    pub loads: bool,
    /// Why it does not load (missing export, wrong ABI version, crash in `init` …).
    pub error: Option<String>,
    /// The name `init` returned.
    pub name: Option<String>,
    pub abi_version: Option<u32>,
    pub levels: u32,
    pub search_info: bool,
    pub last_error: bool,
    pub analysis: bool,
    /// The two games against `random`.
    pub games: Vec<CheckGame>,
}

/// One check game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckGame {
    /// The bot's colour: `black` or `white`.
    pub color: String,
    pub opponent: String,
    /// For the bot: `win`, `loss` or `draw`.
    pub result: String,
    /// Discs, black then white.
    pub discs: [u32; 2],
    /// `normal`, or the failure's name (`crash`, `timeout`, `illegal-move` …).
    pub termination: String,
    /// The bot's failure, if it lost by one: what happened.
    pub failure: Option<String>,
    /// The bot's last lines on stderr when it failed.
    pub stderr_tail: Vec<String>,
    /// The time the bot took for each of its moves, in milliseconds.
    pub move_times_ms: Vec<f64>,
}

/// One worker thread's loop; returns when the server stops.
pub fn run(index: usize, config: Arc<Config>, shared: Arc<Shared>) {
    let lease = format!("local-{index}");
    let (mut ladder, mut db) = match (Ladder::open(&config.ladder), store::open(&config.ladder)) {
        (Ok(ladder), Ok(db)) => (ladder, db),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("worker {index}: cannot open the ladder: {e}");
            return;
        }
    };
    while !shared.stop.load(Ordering::SeqCst) {
        let seen = shared.work_generation();
        // Test games come after the checks and before every ladder job.
        match crate::test_games::claim(&mut db, &lease) {
            Ok(Some(test)) => {
                if let Err(why) = crate::test_games::play(&test, &config, &shared, &ladder, &db) {
                    eprintln!("worker {index}: test games {}: {why}", test.id);
                }
                shared.changed();
                continue;
            }
            Ok(None) => {}
            Err(why) => eprintln!("worker {index}: {why}"),
        }
        match store::claim_job(&mut db, &lease) {
            Ok(Some(job)) => {
                if let Err(why) = run_job(&job, &config, &shared, &mut ladder, &mut db) {
                    if shared.stop.load(Ordering::SeqCst) {
                        break; // the job stays running: it is queued again on the next start
                    }
                    eprintln!("worker {index}: job {} failed: {why}", job.id);
                    let reason = format!("the server could not finish its work on this bot: {why}");
                    let _ = store::finish_job(&mut db, &job, Status::Rejected, Some(&reason), Next::Nothing);
                }
                shared.changed();
            }
            Ok(None) if config.continuous_games => match store::queue_refresh(&mut db) {
                Ok(true) => {}
                Ok(false) => shared.wait_for_work(seen),
                Err(why) => {
                    eprintln!("worker {index}: {why}");
                    shared.wait_for_work(seen);
                }
            },
            Ok(None) => shared.wait_for_work(seen),
            Err(why) => {
                eprintln!("worker {index}: {why}");
                shared.wait_for_work(seen);
            }
        }
    }
}

fn run_job(
    job: &Job,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Connection,
) -> Result<(), String> {
    let upload = store::upload(db, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    match job.kind {
        JobKind::Check => check(job, &upload, config, shared, ladder, db),
        JobKind::Pair | JobKind::Refresh => pair(job, &upload, config, shared, ladder, db),
    }
}

fn check(
    job: &Job,
    upload: &Upload,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Connection,
) -> Result<(), String> {
    store::set_status(db, upload.id, Status::Checking, None)?;
    shared.changed();
    let info = probe(&upload.path, &config.runner, &config.seat_options);
    let mut report = CheckReport {
        platform: crate::inspect::accepted_platform(),
        loads: info.is_ok(),
        name: info.is_ok().then(|| info.name.clone()),
        abi_version: info.abi_version,
        levels: info.levels,
        search_info: info.search_info,
        last_error: info.last_error,
        analysis: info.analysis,
        ..CheckReport::default()
    };
    if let PluginStatus::Error(why) = &info.status {
        report.error = Some(why.clone());
        let json = serde_json::to_string(&report).expect("reports serialize");
        store::save_report(db, upload.id, &json, None)?;
        let reason = format!("it does not load: {why}");
        return store::finish_job(db, job, Status::Rejected, Some(&reason), Next::Nothing);
    }
    let identity = library_identity(&upload.path, &info.name, None)?;
    let entry = ladder.entry_for(&identity)?;
    let me = Player::new(entry.clone(), &config.seating());
    let opponent = Player::new(
        Entry { id: 0, identity: library_identity(&config.check_opponent, "random", None)?, added_at: 0 },
        &config.seating(),
    );
    let opening = OpeningSource::Random { plies: OPENING_PLIES }.openings(1, config.seed ^ upload.id as u64).remove(0);
    let games = play_pair_with(&me, &opponent, &opening, config.time_limit, &mut |_, _, _, _| Ok(()))?;
    for (game, color) in games.iter().zip([Color::Black, Color::White]) {
        report.games.push(check_game(game, color));
    }
    let json = serde_json::to_string(&report).expect("reports serialize");
    store::save_report(db, upload.id, &json, Some(entry.id))?;
    // The placement's pairs in as many chains as there are workers, so all of them play it.
    store::finish_job(db, job, Status::Rating, None, Next::Pairs { first: 0, count: placement_chains(config) })?;
    shared.work_added();
    Ok(())
}

fn check_game(game: &GameRecord, color: Color) -> CheckGame {
    let result = match game.result.winner {
        Some(winner) if winner == color => "win",
        Some(_) => "loss",
        None => "draw",
    };
    let failure = lost_by_failure(game, color).then(|| game.result.failure()).flatten();
    CheckGame {
        color: if color == Color::Black { "black" } else { "white" }.to_owned(),
        opponent: game.name(!color).to_owned(),
        result: result.to_owned(),
        discs: game.result.discs,
        termination: game.result.termination().as_str().to_owned(),
        failure: failure.map(|f| format!("{}: {}", f.termination, f.detail)),
        stderr_tail: failure.map(|f| f.stderr_tail.clone()).unwrap_or_default(),
        move_times_ms: game
            .moves
            .iter()
            .filter(|m| m.color == color)
            .map(|m| (m.elapsed.as_secs_f64() * 1e4).round() / 10.0)
            .collect(),
    }
}

/// Why the placement of `entry` is over, if it is.
fn placement_done(ladder: &Ladder, entry: i64, config: &Config) -> Result<Option<String>, String> {
    let record = ladder.records()?.get(&entry).copied().unwrap_or_default();
    let (_, placement_errors) = current_ratings(ladder)?;
    let games = record.games as u32;
    Ok(if games >= config.max_games {
        Some(format!("the game cap ({}) was reached", config.max_games))
    } else if games >= GIVE_UP_AFTER_FAILED_GAMES && record.failures == record.games {
        Some("the bot lost every game by a failure: it is rated at the bottom".to_owned())
    } else if games >= MIN_GAMES
        && let Some(error) = placement_errors.get(&entry).filter(|&&e| e <= config.target_error)
    {
        Some(format!("its rating is known to ±{error:.0} Elo among its opponents"))
    } else {
        None
    })
}

fn pair(
    job: &Job,
    upload: &Upload,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Connection,
) -> Result<(), String> {
    let entry_id = upload.entry.ok_or("the upload has no ladder entry")?;
    let refresh = job.kind == JobKind::Refresh;
    if !refresh && upload.status == Status::Rated {
        // Another chain of this placement ended it.
        return store::finish_job(db, job, Status::Rated, None, Next::Nothing);
    }
    if !refresh && let Some(reason) = placement_done(ladder, entry_id, config)? {
        return finish_placement(job, &reason, ladder, db);
    }
    if !refresh {
        // The placement's other chains: the cap holds with the games of the pairs they play.
        let games = ladder.records()?.get(&entry_id).map_or(0, |r| r.games) as u32;
        if games + 2 * store::earlier_running_pairs(db, upload.id, job.id)? >= config.max_games {
            return store::finish_job(db, job, Status::Rating, None, Next::Nothing);
        }
    }
    let seating = config.seating();
    let entries = ladder.entries()?;
    let entry = entries.iter().find(|e| e.id == entry_id).ok_or("the upload's ladder entry is gone")?.clone();
    let me = Player::new(entry, &seating);
    let pool: Vec<Player> = entries
        .into_iter()
        .filter(|e| e.id != entry_id && still_built(&e.identity))
        .map(|e| Player::new(e, &seating))
        .collect();
    let (ratings, _) = current_ratings(ladder)?;
    let already = [store::job_game(db, job.id, 0)?, store::job_game(db, job.id, 1)?];
    // A pair cut short by a crash is finished against the opponent it began with.
    let began_against = match already.iter().flatten().next() {
        Some(&game) => ladder.game(game)?.map(|g| if g.black == entry_id { g.white } else { g.black }),
        None => None,
    };
    let index = match began_against.and_then(|id| pool.iter().position(|p| p.entry.id == id)) {
        Some(index) => index,
        None => {
            // Pairs met so far, one per game with the bot as black (each pair has one).
            let mut met: HashMap<i64, u32> = HashMap::new();
            for game in ladder.games_of(entry_id)?.into_iter().filter(|g| g.black == entry_id) {
                *met.entry(game.white).or_default() += 1;
            }
            pick_opponent(&pool, &ratings, ratings.get(&entry_id).copied(), &met)
                .ok_or("the ladder has no opponent to play")?
        }
    };
    let opening = OpeningSource::Random { plies: OPENING_PLIES }
        .openings(job.number as usize + 1, config.seed ^ entry_id as u64)
        .pop()
        .expect("one opening per pair");
    // A pair cut short by a crash is played again whole, but the game it had recorded is not
    // recorded again: each game is noted under its job and slot in the game's own transaction.
    if already.iter().any(Option::is_none) {
        play_pair_with(&me, &pool[index], &opening, config.time_limit, &mut |slot, black, white, game| {
            if shared.stop.load(Ordering::SeqCst) {
                return Err("the server is stopping".to_owned());
            }
            if already[slot].is_some() {
                return Ok(());
            }
            ladder.record_game_with(black.entry.id, white.entry.id, game, |transaction, id| {
                store::note_job_game(transaction, job.id, slot, id)
            })?;
            shared.changed();
            Ok(())
        })?;
    }
    if refresh {
        store::finish_job(db, job, Status::Rated, None, Next::Nothing)?;
        return Ok(());
    }
    match placement_done(ladder, entry_id, config)? {
        Some(reason) => finish_placement(job, &reason, ladder, db),
        None => {
            // The next pair of this job's chain (pair numbers are distinct across the chains).
            store::finish_job(db, job, Status::Rating, None, Next::Pair(job.number + placement_chains(config)))?;
            shared.work_added();
            Ok(())
        }
    }
}

/// Chains of placement pairs played at once for one upload: one per worker.
fn placement_chains(config: &Config) -> u32 {
    config.workers.max(1) as u32
}

fn finish_placement(job: &Job, reason: &str, ladder: &mut Ladder, db: &mut Connection) -> Result<(), String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, &format!("placed upload {}", job.upload))?;
    store::finish_job(db, job, Status::Rated, Some(reason), Next::Nothing)
}

thread_local! {
    /// Each library's SHA-256 as of its size and modification time, per worker thread.
    static LIBRARY_HASHES: std::cell::RefCell<HashMap<std::path::PathBuf, (u64, std::time::SystemTime, String)>> =
        std::cell::RefCell::new(HashMap::new());
}

/// [`still_matches`] for every pair without hashing the whole pool each time (megabytes per
/// library: most of a pair's time in a debug build): a library's hash is computed again only when
/// its size or modification time changed (a rebuild changes both).
pub fn still_built(identity: &Identity) -> bool {
    if identity.kind != Kind::Library {
        return still_matches(identity);
    }
    let path = std::path::PathBuf::from(&identity.locator);
    let Ok(stamp) = std::fs::metadata(&path).and_then(|m| Ok((m.len(), m.modified()?))) else { return false };
    LIBRARY_HASHES.with(|hashes| {
        let mut hashes = hashes.borrow_mut();
        if let Some((len, modified, hash)) = hashes.get(&path)
            && (*len, *modified) == stamp
        {
            return *hash == identity.hash;
        }
        match file_hash(&path) {
            Ok(hash) => {
                let matches = hash == identity.hash;
                hashes.insert(path, (stamp.0, stamp.1, hash));
                matches
            }
            Err(_) => false,
        }
    })
}

/// How long an idle worker sleeps before looking at the queue again even without a wake-up (a
/// job added by another process on the same ladder).
pub const IDLE_POLL: Duration = Duration::from_secs(2);
