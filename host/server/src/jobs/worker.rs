//! The rating workers: threads that claim jobs from the queue and play them through the arena's
//! seats in the sandbox. A check loads the upload, reads its exports and plays two games against
//! `random`; a pair plays one opening with colours swapped against the opponent the ladder's
//! pairing picks, until the placement is precise enough ([`crate::config::Config::target_error`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use othello_db::Db;

use othello_arena::event::openings::OpeningSource;
use othello_arena::plugins::PluginStatus;
use othello_arena::record::GameRecord;
use othello_ladder::Ladder;
use othello_ladder::identity::{Kind, file_hash, library_identity};
use othello_ladder::play::Player;
use othello_ladder::session::{
    GIVE_UP_AFTER_FAILED_GAMES, MIN_GAMES, OPENING_PLIES, current_ratings, lost_by_failure, pick_opponent,
};
use othello_sdk::{Color, format_transcript};

use crate::config::Config;
pub use crate::plan::{CheckGame, CheckReport, Plan, PlannedBot, Played, play_plan};
use crate::shared::Shared;
use crate::shared::live::LiveObserver;
use crate::store::{self, Job, JobKind, Next, Status, Upload};

/// One worker thread's loop; returns when the server stops.
pub fn run(index: usize, config: Arc<Config>, shared: Arc<Shared>) {
    let lease = shared.replica.local_lease(index);
    let (mut ladder, mut db) = match (Ladder::open(&config.ladder), store::open(&config.ladder)) {
        (Ok(ladder), Ok(db)) => (ladder, db),
        (ladder, db) => {
            let e = ladder.err().or(db.err().map(String::from)).unwrap_or_default();
            eprintln!("worker {index}: cannot open the ladder: {e}");
            return;
        }
    };
    while !shared.stop.load(Ordering::SeqCst) {
        let seen = shared.work_generation();
        // The final's games come before the ladder's jobs.
        match crate::jobs::final_round::claim(&mut db, &lease) {
            Ok(crate::jobs::final_round::Claim::Game(game)) => {
                let played = crate::store::blobs::ensure_all_local(&db)
                    .map_err(String::from)
                    .and_then(|()| crate::jobs::final_round::play(&game, &lease, &config, &shared, &mut ladder));
                if let Err(why) = played {
                    if shared.stop.load(Ordering::SeqCst) {
                        break; // the game stays running: it is queued again on the next start
                    }
                    eprintln!("worker {index}: game {} of the final failed: {why}", game.id);
                    let _ = crate::jobs::final_round::release(&db, game.id);
                }
                shared.changed();
                continue;
            }
            Ok(crate::jobs::final_round::Claim::Finished) => shared.changed(),
            Ok(crate::jobs::final_round::Claim::Nothing) => {}
            Err(why) => eprintln!("worker {index}: {why}"),
        }
        // Test games come after the checks and before every ladder job.
        match crate::jobs::test_games::claim(&mut db, &lease) {
            Ok(Some(test)) => {
                let played = crate::store::blobs::ensure_all_local(&db)
                    .map_err(String::from)
                    .and_then(|()| crate::jobs::test_games::play(&test, &config, &shared, &ladder, &db));
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
                let played = crate::store::blobs::ensure_all_local(&db)
                    .map_err(String::from)
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
        play_plan(
            &plan,
            [&paths[0], &paths[1]],
            &config.seating(),
            Some(&mut LiveObserver::new(shared, plan.title(), false)),
            &mut |slot, game| {
                if shared.stop.load(Ordering::SeqCst) {
                    return Err("the server is stopping".to_owned());
                }
                if !plan.is_check() && record_slot(job, slot, &plan, game, ladder, db)? {
                    shared.changed();
                }
                Ok(())
            },
        )?
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
        let test = crate::jobs::test_games::TestJob {
            id: job.number as i64,
            upload: job.upload,
            opponent: test_opponent(db, job)?,
        };
        return Ok(Planned::Play(Box::new(crate::jobs::test_games::plan(&test, config, ladder, db)?)));
    }
    let upload = store::upload(db, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    // The organiser's time control (admin page or CLI) over the server's --time-ms.
    let time_limit = crate::store::settings::time_limit(db, config)?;
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
        .filter(|e| e.id != entry_id && crate::jobs::library::still_built(&e.identity) && !gave_up(e.id))
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
    crate::store::test_games::opponent(db, job.number as i64).map_err(|e| format!("test games {}: {e}", job.number))
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
            crate::jobs::test_games::record(db, job.number as i64, slot, &game)?;
        }
        crate::jobs::test_games::finish(db, job.number as i64, None)?;
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
        return Ok(store::finish_job(db, job, Status::Rated, None, Next::Nothing)?);
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
        platform: crate::service::inspect::accepted_platform(),
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
        let hint = std::fs::read(&upload.path).ok().and_then(|bytes| crate::service::inspect::load_hint(&bytes));
        let reason = match hint {
            Some(hint) => format!("it does not load: {why}. {hint}"),
            None => format!("it does not load: {why}"),
        };
        return Ok(store::finish_job(db, job, Status::Rejected, Some(&reason), Next::Nothing)?);
    }
    // One row per entrant's upload: a refused copy, or a name that looks like another's, gets
    // none; an entered copy gets one of its own.
    let name = match crate::service::entries::entry_name(db, ladder, upload.entrant, &upload.sha256, &info.name)? {
        Ok(name) => name,
        Err(why) => {
            let json = serde_json::to_string(&report).expect("reports serialize");
            store::save_report(db, upload.id, &json, None)?;
            return Ok(store::finish_job(db, job, Status::Rejected, Some(&why), Next::Nothing)?);
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

fn finish_placement(job: &Job, reason: &str, ladder: &mut Ladder, db: &mut Db) -> Result<(), String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, &format!("placed upload {}", job.upload))?;
    Ok(store::finish_job(db, job, Status::Rated, Some(reason), Next::Nothing)?)
}
