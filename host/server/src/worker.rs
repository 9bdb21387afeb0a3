//! The rating workers: threads that claim jobs from the queue and play them through the arena's
//! seats in the sandbox. A check loads the upload, reads its exports and plays two games against
//! `random`; a pair plays one opening with colours swapped against the opponent the ladder's
//! pairing picks, until the placement is precise enough ([`crate::Config::target_error`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use othello_db::Db;
use serde::{Deserialize, Serialize};

use othello_arena::event::openings::OpeningSource;
use othello_arena::plugins::{PluginInfo, PluginStatus, probe};
use othello_arena::record::GameRecord;
use othello_arena::referee::Opening;
use othello_arena::seat::{Clock, Isolation, MoveBudget, SeatOptions, Seating};
use othello_ladder::identity::{Identity, Kind, file_hash, library_identity, still_matches};
use othello_ladder::play::{Player, play_pair_observed, play_pair_with};
use othello_ladder::session::{
    GIVE_UP_AFTER_FAILED_GAMES, MIN_GAMES, OPENING_PLIES, current_ratings, lost_by_failure, pick_opponent,
};
use othello_ladder::{Entry, Ladder};
use othello_sdk::{Color, format_transcript};

use crate::live::LiveObserver;
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
    let lease = shared.replica.local_lease(index);
    let (mut ladder, mut db) = match (Ladder::open(&config.ladder), store::open(&config.ladder)) {
        (Ok(ladder), Ok(db)) => (ladder, db),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("worker {index}: cannot open the ladder: {e}");
            return;
        }
    };
    while !shared.stop.load(Ordering::SeqCst) {
        let seen = shared.work_generation();
        // The final's games come before the ladder's jobs.
        match crate::final_round::claim(&mut db, &lease) {
            Ok(crate::final_round::Claim::Game(game)) => {
                let played = crate::blobs::ensure_all_local(&db)
                    .and_then(|()| crate::final_round::play(&game, &lease, &config, &shared, &mut ladder));
                if let Err(why) = played {
                    if shared.stop.load(Ordering::SeqCst) {
                        break; // the game stays running: it is queued again on the next start
                    }
                    eprintln!("worker {index}: game {} of the final failed: {why}", game.id);
                    let _ = crate::final_round::release(&db, game.id);
                }
                shared.changed();
                continue;
            }
            Ok(crate::final_round::Claim::Finished) => shared.changed(),
            Ok(crate::final_round::Claim::Nothing) => {}
            Err(why) => eprintln!("worker {index}: {why}"),
        }
        // Test games come after the checks and before every ladder job.
        match crate::test_games::claim(&mut db, &lease) {
            Ok(Some(test)) => {
                let played = crate::blobs::ensure_all_local(&db)
                    .and_then(|()| crate::test_games::play(&test, &config, &shared, &ladder, &db));
                if let Err(why) = played {
                    eprintln!("worker {index}: test games {}: {why}", test.id);
                }
                shared.changed();
                continue;
            }
            Ok(None) => {}
            Err(why) => eprintln!("worker {index}: {why}"),
        }
        // While the sample pool is calibrated from nothing, only checks are played (placements
        // wait for it); from a shipped calibration, placements go ahead.
        let seeding = shared.placements_wait();
        let claimed = if seeding { store::claim_check(&mut db, &lease) } else { store::claim_job(&mut db, &lease) };
        match claimed {
            Ok(Some(job)) => {
                let played = crate::blobs::ensure_all_local(&db)
                    .and_then(|()| run_job(&job, &config, &shared, &mut ladder, &mut db));
                if let Err(why) = played {
                    if shared.stop.load(Ordering::SeqCst) {
                        break; // the job stays running: it is queued again on the next start
                    }
                    eprintln!("worker {index}: job {} failed: {why}", job.id);
                    let reason = format!("the server could not finish its work on this bot: {why}");
                    let _ = store::finish_job(&mut db, &job, Status::Rejected, Some(&reason), Next::Nothing);
                }
                shared.changed();
            }
            Ok(None) if config.continuous_games && !seeding => match store::queue_refresh(&mut db) {
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

fn run_job(job: &Job, config: &Config, shared: &Shared, ladder: &mut Ladder, db: &mut Db) -> Result<(), String> {
    let Planned::Play(plan) = plan_job(job, config, shared, ladder, db, false)? else {
        return Ok(());
    };
    let recorded = [store::job_game(db, job.id, 0)?, store::job_game(db, job.id, 1)?];
    // A pair cut short by a crash whose two games are both recorded needs no game more.
    let played = if !plan.is_check() && recorded.iter().all(Option::is_some) {
        Played { probe: None, games: Vec::new() }
    } else {
        let paths = [plan.bots[0].path.clone(), plan.bots[1].path.clone()];
        play_plan(&plan, [&paths[0], &paths[1]], &config.seating(), Some(shared), &mut |slot, game| {
            if shared.stop.load(Ordering::SeqCst) {
                return Err("the server is stopping".to_owned());
            }
            if !plan.is_check() && record_slot(job, slot, &plan, game, ladder, db)? {
                shared.changed();
            }
            Ok(())
        })?
    };
    complete_job(job, &plan, &played, config, shared, ladder, db)
}

/// What a claimed job needs next.
pub enum Planned {
    /// Nothing to play: the job is finished (a placement found precise enough before its pair).
    Finished,
    Play(Box<Plan>),
}

/// Decides what `job` plays (the server's side of every job, for local and remote workers
/// alike): the bots, the opening, the colours and the time limit. `libraries_only` leaves out
/// opponents that are NBoard engines (a remote worker receives libraries only).
pub fn plan_job(
    job: &Job,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Db,
    libraries_only: bool,
) -> Result<Planned, String> {
    if job.kind == JobKind::Test {
        let test =
            crate::test_games::TestJob { id: job.number as i64, upload: job.upload, opponent: test_opponent(db, job)? };
        return Ok(Planned::Play(Box::new(crate::test_games::plan(&test, config, ladder, db)?)));
    }
    let upload = store::upload(db, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    // The organiser's time control (admin page or CLI) over the server's --time-ms.
    let time_limit = crate::admin::time_limit(db, config)?;
    let time_limit_ms = time_limit.map(|t| t.as_millis() as u64);
    let grace_ms = time_limit.map(|t| config.seat_options.grace_for(t).as_millis() as u64);
    if job.kind == JobKind::Check {
        store::set_status(db, upload.id, Status::Checking, None)?;
        shared.changed();
        let opening =
            OpeningSource::Random { plies: OPENING_PLIES }.openings(1, config.seed ^ upload.id as u64).remove(0);
        let stem = Path::new(&upload.file_name).file_stem().map_or_else(String::new, |s| s.to_string_lossy().into());
        let wasm = othello_arena::seat::is_wasm_file(Path::new(&upload.file_name));
        let me =
            PlannedBot { entry: 0, name: stem, level: None, sha256: upload.sha256.clone(), path: upload.path, wasm };
        let random = PlannedBot {
            entry: 0,
            name: "random".to_owned(),
            level: None,
            sha256: file_hash(&config.check_opponent)?,
            path: config.check_opponent.clone(),
            wasm: othello_arena::seat::is_wasm_file(&config.check_opponent),
        };
        return Ok(Planned::Play(Box::new(Plan {
            kind: "check".to_owned(),
            bots: [me, random],
            opening: format_transcript(opening.moves()),
            time_limit_ms,
            grace_ms,
            clock: Some(config.seat_options.clock),
            threads: Some(config.seat_options.threads),
            seed: Some(config.seed),
        })));
    }
    let entry_id = upload.entry.ok_or("the upload has no ladder entry")?;
    if job.kind == JobKind::Pair {
        if upload.status == Status::Rated {
            // Another chain of this placement ended it.
            store::finish_job(db, job, Status::Rated, None, Next::Nothing)?;
            return Ok(Planned::Finished);
        }
        if let Some(reason) = placement_done(ladder, entry_id, config)? {
            finish_placement(job, &reason, ladder, db)?;
            return Ok(Planned::Finished);
        }
        // The placement's other chains: the cap holds with the games of the pairs they play.
        let games = ladder.records()?.get(&entry_id).map_or(0, |r| r.games) as u32;
        if games + 2 * store::earlier_running_pairs(db, upload.id, job.id)? >= config.max_games {
            store::finish_job(db, job, Status::Rating, None, Next::Nothing)?;
            return Ok(Planned::Finished);
        }
    }
    let entries = ladder.entries()?;
    let entry = entries.iter().find(|e| e.id == entry_id).ok_or("the upload's ladder entry is gone")?.clone();
    let seating = config.seating();
    // A bot that failed every one of its placement games is no opponent: it plays no more games.
    let records = ladder.records()?;
    let gave_up = |id: i64| {
        records.get(&id).is_some_and(|r| r.games as u32 >= GIVE_UP_AFTER_FAILED_GAMES && r.failed_every_game())
    };
    let pool: Vec<Player> = entries
        .into_iter()
        .filter(|e| e.id != entry_id && still_built(&e.identity) && !gave_up(e.id))
        .filter(|e| !libraries_only || e.identity.kind == Kind::Library)
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
    Ok(Planned::Play(Box::new(Plan {
        kind: if job.kind == JobKind::Refresh { "refresh" } else { "pair" }.to_owned(),
        bots: [PlannedBot::of_entry(&entry), PlannedBot::of_entry(&pool[index].entry)],
        opening: format_transcript(opening.moves()),
        time_limit_ms,
        grace_ms,
        clock: Some(config.seat_options.clock),
        threads: Some(config.seat_options.threads),
        seed: Some(config.seed),
    })))
}

/// The opponent of a test job's pair (its ladder entry).
fn test_opponent(db: &Db, job: &Job) -> Result<i64, String> {
    db.query_row("SELECT opponent FROM server_test_games WHERE id = ?1", [job.number as i64], |row| row.get(0))
        .map_err(|e| format!("test games {}: {e}", job.number))
}

/// Records game `slot` of a pair unless the job recorded it already (a pair played again after
/// a crash or an expired lease counts each game once). Returns whether it recorded it.
pub fn record_slot(
    job: &Job,
    slot: usize,
    plan: &Plan,
    game: &GameRecord,
    ladder: &mut Ladder,
    db: &Db,
) -> Result<bool, String> {
    if store::job_game(db, job.id, slot)?.is_some() {
        return Ok(false);
    }
    let (black, white) = if slot == 0 { (&plan.bots[0], &plan.bots[1]) } else { (&plan.bots[1], &plan.bots[0]) };
    let mut game = game.clone();
    // The ladder's names, whoever played it.
    game.black = black.label();
    game.white = white.label();
    game.clock = Some(plan.game_clock());
    ladder.record_game_with(black.entry, white.entry, &game, |transaction, id| {
        store::note_job_game(transaction, job.id, slot, id, plan.time_limit_ms)
    })?;
    Ok(true)
}

/// Takes what playing `plan` gave (the server's side again): a check's report and its entry on
/// the ladder, or a pair's games recorded once each; then the job is finished and what follows
/// is queued.
pub fn complete_job(
    job: &Job,
    plan: &Plan,
    played: &Played,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Db,
) -> Result<(), String> {
    if job.kind == JobKind::Test {
        // Unrated: kept in the test games' tables, never in the ladder's.
        for (slot, game) in played.games.iter().enumerate() {
            let (black, white) =
                if slot == 0 { (&plan.bots[0], &plan.bots[1]) } else { (&plan.bots[1], &plan.bots[0]) };
            let mut game = game.clone();
            game.black = black.label();
            game.white = white.label();
            crate::test_games::record(db, job.number as i64, slot, &game)?;
        }
        crate::test_games::finish(db, job.number as i64, None)?;
        store::finish_test_job(db, job)?;
        shared.changed();
        return Ok(());
    }
    let upload = store::upload(db, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    if job.kind == JobKind::Check {
        return complete_check(job, &upload, played, config, shared, ladder, db);
    }
    for (slot, game) in played.games.iter().enumerate() {
        if record_slot(job, slot, plan, game, ladder, db)? {
            shared.changed();
        }
    }
    if job.kind == JobKind::Refresh {
        return store::finish_job(db, job, Status::Rated, None, Next::Nothing);
    }
    let entry_id = upload.entry.ok_or("the upload has no ladder entry")?;
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

fn complete_check(
    job: &Job,
    upload: &Upload,
    played: &Played,
    config: &Config,
    shared: &Shared,
    ladder: &mut Ladder,
    db: &mut Db,
) -> Result<(), String> {
    let info = played.probe.as_ref().ok_or("a check's result has no probe of the library")?;
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
        // What the student can do about it, read from the library's exports.
        let hint = std::fs::read(&upload.path).ok().and_then(|bytes| crate::inspect::load_hint(&bytes));
        let reason = match hint {
            Some(hint) => format!("it does not load: {why}. {hint}"),
            None => format!("it does not load: {why}"),
        };
        return store::finish_job(db, job, Status::Rejected, Some(&reason), Next::Nothing);
    }
    // One row per entrant's upload: a refused copy, or a name that looks like another's, gets
    // none; an entered copy gets one of its own.
    let name = match crate::service::entries::entry_name(db, ladder, upload.entrant, &upload.sha256, &info.name)? {
        Ok(name) => name,
        Err(why) => {
            let json = serde_json::to_string(&report).expect("reports serialize");
            store::save_report(db, upload.id, &json, None)?;
            return store::finish_job(db, job, Status::Rejected, Some(&why), Next::Nothing);
        }
    };
    let identity = library_identity(&upload.path, &name, None)?;
    let entry = ladder.entry_for(&identity)?;
    for (game, color) in played.games.iter().zip([Color::Black, Color::White]) {
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
        failure: failure.map(|f| match f.termination {
            // The mistake behind most illegal moves: a move byte made by hand.
            othello_arena::seat::Termination::IllegalMove => format!(
                "{}: {}. Your think must return a legal square as othello_move(row, col) (row and column 0–7, \
                 from the header), or OTHELLO_PASS only when there is no legal move",
                f.termination, f.detail
            ),
            _ => format!("{}: {}", f.termination, f.detail),
        }),
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
        Some(format!(
            "it lost each of its first {games} games by a failure (a crash, a timeout or an illegal move: the check's \
             games above say which), so it plays no more games and stays at the bottom; fix it and upload the new \
             version (test games show whether it works now)"
        ))
    } else if games >= MIN_GAMES
        && let Some(error) = placement_errors.get(&entry).filter(|&&e| e <= config.target_error)
    {
        // Said without "±": on the server's pages ± is always the interval from the anchor.
        Some(format!(
            "placed: its own games pin its rating to within {error:.0} Elo of where its opponents' ratings put it \
             (95 %; the target is {:.0})",
            config.target_error
        ))
    } else {
        None
    })
}

/// Chains of placement pairs played at once for one upload: one per local worker.
fn placement_chains(config: &Config) -> u32 {
    config.workers.max(1) as u32
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

fn finish_placement(job: &Job, reason: &str, ladder: &mut Ladder, db: &mut Db) -> Result<(), String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, &format!("placed upload {}", job.upload))?;
    store::finish_job(db, job, Status::Rated, Some(reason), Next::Nothing)
}

/// One bot of a [`Plan`]: its ladder entry, who it is and the SHA-256 of its library (what a
/// remote worker downloads and checks). The server's own path to the library is not sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedBot {
    /// Its ladder entry (0 for a bot that is not on the ladder: the upload being checked, and
    /// the check games' `random`).
    pub entry: i64,
    /// The bot's own name (an upload being checked: the file's stem until its check names it).
    pub name: String,
    pub level: Option<u32>,
    pub sha256: String,
    #[serde(skip)]
    pub path: PathBuf,
    /// A WebAssembly module, not a library (a remote worker keeps it as a `.wasm`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wasm: bool,
}

impl PlannedBot {
    pub(crate) fn of_entry(entry: &Entry) -> PlannedBot {
        PlannedBot {
            entry: entry.id,
            name: entry.identity.name.clone(),
            level: entry.identity.level,
            sha256: entry.identity.hash.clone(),
            wasm: othello_arena::seat::is_wasm_file(Path::new(&entry.identity.locator)),
            path: PathBuf::from(&entry.identity.locator),
        }
    }

    /// Whether the bot is a WebAssembly module (its file is a `.wasm`, or it was uploaded as one).
    pub fn is_wasm(&self) -> bool {
        self.wasm || othello_arena::seat::is_wasm_file(&self.path)
    }

    /// `Name` or `Name@LEVEL`, as the ladder's games name it.
    pub fn label(&self) -> String {
        othello_ladder::identity::label(&self.name, self.level)
    }
}

/// What the server decided a job plays: two games on one opening, `bots[0]` with black in the
/// first and with white in the second, at the server's time limit. Workers, local or remote,
/// play exactly this; they choose nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `check` (first probe `bots[0]`, then the games), `pair` or `refresh`.
    pub kind: String,
    pub bots: [PlannedBot; 2],
    /// The opening's moves from the standard start, e.g. `f5d6c3d3c4`.
    pub opening: String,
    pub time_limit_ms: Option<u64>,
    /// The grace after the time limit, in milliseconds: a move slower than the limit and its
    /// grace is its bot's timeout loss. The one rule of time: every worker plays by it and the
    /// server checks by it ([`Plan::move_time_allowed`]).
    #[serde(default)]
    pub grace_ms: Option<u64>,
    /// The clock the limit is counted on (`cpu`, the default, or `wall`): part of the rule of
    /// time, so every worker counts as the server does. `None`: a plan made before plans carried
    /// it, held to the wall clock.
    #[serde(default)]
    pub clock: Option<Clock>,
    /// The CPUs each bot may use at once (`--threads`): on the CPU-time clock, a move may use
    /// the limit's CPU time on each. `None`: the worker's own.
    #[serde(default)]
    pub threads: Option<u32>,
    /// Where the WebAssembly bots' random numbers start from: with the opening, what makes a
    /// game between two modules the same wherever it is played (the server re-plays some).
    #[serde(default)]
    pub seed: Option<u64>,
}

impl Plan {
    /// The longest a move may take under the plan's rule: the limit and its grace (the plan's
    /// grace, or `options`' for a plan made before plans carried one). `None`: no limit.
    pub fn move_time_allowed(&self, options: &SeatOptions) -> Option<Duration> {
        let limit = self.time_limit()?;
        let grace = self.grace_ms.map_or_else(|| options.grace_for(limit), Duration::from_millis);
        Some(limit + grace)
    }

    /// `seating` playing by the plan's rule of time: its grace exactly (no share of the limit),
    /// its clock and its threads.
    pub fn seating(&self, seating: &Seating) -> Seating {
        let mut seating = seating.clone();
        if let Some(grace) = self.grace_ms {
            seating.options.grace = Duration::from_millis(grace);
            seating.options.grace_percent = 0;
        }
        if let Some(clock) = self.clock {
            seating.options.clock = clock;
        }
        if let Some(threads) = self.threads {
            seating.options.threads = threads;
        }
        if let Some(seed) = self.seed {
            seating.options.wasm_seed = Some(seed);
        }
        seating
    }

    /// What a move of the plan's games is held to (`None`: no limit): its limit and grace on the
    /// plan's clock (the wall clock for a plan that names none), or on the modules' fuel for a
    /// game between two WebAssembly bots. The server rules a remote worker's moves by it.
    pub fn move_budget(&self, options: &SeatOptions) -> Option<MoveBudget> {
        let limit = self.time_limit()?;
        let grace = self.grace_ms.map_or_else(|| options.grace_for(limit), Duration::from_millis);
        let threads = self.threads.unwrap_or(options.threads);
        Some(MoveBudget::new(self.game_clock(), limit, grace, threads))
    }

    /// The clock the plan's games are counted on: fuel when both bots are WebAssembly modules,
    /// else the plan's (the wall clock for a plan that names none).
    pub fn game_clock(&self) -> Clock {
        let clock = self.clock.unwrap_or(Clock::Wall);
        if self.bots.iter().all(PlannedBot::is_wasm) { Clock::Fuel } else { clock }
    }

    pub fn opening(&self) -> Result<Opening, String> {
        Opening::parse(&self.opening).map_err(|e| format!("the plan's opening `{}`: {e}", self.opening))
    }

    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit_ms.map(Duration::from_millis)
    }

    pub fn is_check(&self) -> bool {
        self.kind == "check"
    }
}

/// What playing a [`Plan`] gave: the probe of the checked library (checks only) and the games
/// in the plan's order. A library that does not load plays no check games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    #[serde(default)]
    pub probe: Option<PluginInfo>,
    pub games: Vec<GameRecord>,
}

/// Plays `plan` with the libraries at `paths` (the same order as its bots), through `seating`'s
/// seats; `record(slot, game)` is called as soon as each game ends (an error stops the pair).
/// Local and remote workers both play every job through here; a local worker passes the
/// server's `shared` state, so that every move is shown live on the arena screen.
pub fn play_plan(
    plan: &Plan,
    paths: [&Path; 2],
    seating: &Seating,
    shared: Option<&Shared>,
    record: &mut dyn FnMut(usize, &GameRecord) -> Result<(), String>,
) -> Result<Played, String> {
    let opening = plan.opening()?;
    let seating = &plan.seating(seating);
    let mut names = [plan.bots[0].name.clone(), plan.bots[1].name.clone()];
    let mut probed = None;
    if plan.is_check() {
        let Isolation::Isolated(runner) = &seating.isolation else {
            return Err("checks run isolated bots only".to_owned());
        };
        let info = probe(paths[0], runner, &seating.options);
        if !info.is_ok() {
            return Ok(Played { probe: Some(info), games: Vec::new() });
        }
        names[0] = info.name.clone();
        probed = Some(info);
    }
    let player = |index: usize| -> Result<Player, String> {
        let bot = &plan.bots[index];
        let identity = Identity {
            kind: Kind::Library,
            name: names[index].clone(),
            level: bot.level,
            hash: bot.sha256.clone(),
            locator: paths[index].to_string_lossy().into_owned(),
        };
        Ok(Player::new(Entry { id: bot.entry, identity, added_at: 0 }, seating))
    };
    let (first, second) = (player(0)?, player(1)?);
    let record = &mut |slot, _: &Player, _: &Player, game: &GameRecord| record(slot, game);
    let games = match shared {
        Some(shared) => {
            let title = match plan.kind.as_str() {
                "check" => "Check",
                "pair" => "Placement",
                _ => "Ladder",
            };
            let observer = &mut LiveObserver::new(shared, title, false);
            play_pair_observed(&first, &second, &opening, plan.time_limit(), record, observer)?
        }
        None => play_pair_with(&first, &second, &opening, plan.time_limit(), record)?,
    };
    Ok(Played { probe: probed, games: games.into() })
}

/// How long an idle worker sleeps before looking at the queue again even without a wake-up (a
/// job added by another process on the same ladder).
pub const IDLE_POLL: Duration = Duration::from_secs(2);
