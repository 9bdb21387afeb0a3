//! Fair time on the server: the clock every game is counted on is in its record and on its page,
//! and the plans workers play by carry it.

use othello_arena::seat::Clock;

use crate::{TestServer, named_bot};

#[test]
fn a_games_page_says_which_clock_counted_its_time() {
    let server = TestServer::start_with(|config| config.seat_options.clock = Clock::Cpu);
    let entrant = server.add_entrant("Cleo");
    let id = server.upload_file(&entrant, &named_bot("cpu-clock", "On CPU time"));
    server.wait_for_status(&entrant, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
    let game = games[0]["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    assert_eq!(replay["clock"], "cpu", "{replay}");
    let (status, page) = server.get(&format!("/games/{game}"), None);
    assert_eq!(status, 200);
    let limit = replay["time_limit_ms"].as_u64().expect("the server's games have a time limit");
    assert!(page.contains(&format!("{limit} ms a move, counted on the CPU-time clock")), "{page}");
}

/// A contest of WebAssembly bots with remote workers only: its pool is a module too, so every
/// rating pair is between two modules (and re-played: the test server's share is 100 %).
fn wasm_contest(pool: &std::path::Path) -> TestServer {
    let pool = othello_ladder::identity::library_identity(pool, "Pool searcher", None).unwrap();
    TestServer::start_with(|config| {
        config.workers = 0;
        config.require_wasm = true;
        config.seed_pool = vec![pool];
        config.max_upload_bytes = 4 << 20;
        // Short moves: the server's re-play of a pair plays both games again.
        config.time_limit = Some(std::time::Duration::from_millis(10));
    })
}

#[test]
fn a_forged_result_between_wasm_bots_is_caught_by_the_servers_replay() {
    let (Some(pool), Some(entry)) = (
        othello_testkit::wasm_fixture("searcher", "pool", &[("USE_PERCENT", "50".to_owned())]),
        othello_testkit::wasm_fixture("searcher", "entry", &[("USE_PERCENT", "70".to_owned())]),
    ) else {
        return;
    };
    let server = wasm_contest(&pool);
    let entrant = server.add_entrant("Wanda");
    // --require-wasm: a library is refused, saying what to upload instead.
    let library = std::fs::read(named_bot("native", "Native")).unwrap();
    let (status, refused) = server.upload(Some(&entrant), "bot.so", &library);
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("WebAssembly bots only"), "{refused}");
    // A module is taken (whatever its name: it is stored as a .wasm) and checked.
    let (status, accepted) = server.upload(Some(&entrant), "wanda.so", &std::fs::read(&entry).unwrap());
    assert_eq!(status, 201, "{accepted}");

    let forger = othello_server::add_worker(&server.ladder(), "forger").unwrap();
    let check = crate::remote::claim(&server, &forger);
    assert_eq!(crate::remote::submit(&server, &forger, &check.lease, &crate::remote::made_up_check(&check)).0, 200);
    let pair = crate::remote::claim(&server, &forger);
    assert_eq!(pair.plan.kind, "pair", "{pair:?}");
    assert!(pair.plan.bots.iter().all(|bot| bot.wasm), "both bots are modules: {:?}", pair.plan.bots);
    // Legal games, but not the bots' own moves.
    let forged = othello_server::worker::Played {
        probe: None,
        games: vec![crate::remote::made_up_game(&pair, "a", "b"), crate::remote::made_up_game(&pair, "b", "a")],
    };
    let (status, body) = crate::remote::submit(&server, &forger, &pair.lease, &forged);
    assert_eq!(status, 422, "{body}");
    let why = body["error"].as_str().unwrap();
    assert!(why.contains("played this pair of WebAssembly bots again and got other moves: game 1: move"), "{why}");
    assert_eq!(crate::remote::count(&server, "SELECT count(*) FROM server_job_games"), 0, "nothing counted");
    // The forger stands out on the workers' tallies.
    let db = othello_server::store::open(&server.ladder()).unwrap();
    let tallies = othello_server::remote::tallies(&db, &Default::default()).unwrap();
    let flagged = tallies.iter().find(|tally| tally.worker == "forger").and_then(|tally| tally.flagged.clone());
    assert!(flagged.is_some_and(|why| why.starts_with("1 of its 1 re-played pairs differ")), "{tallies:?}");

    // An honest worker plays the same pair with the bots themselves (each in the sandboxed
    // runner): the server's re-play gives its moves, and the games count.
    let honest = othello_server::add_worker(&server.ladder(), "honest").unwrap();
    let again = crate::remote::claim(&server, &honest);
    assert_eq!((again.job, again.plan.kind.as_str()), (pair.job, "pair"));
    let paths =
        again.plan.bots.clone().map(|bot| if bot.name == "Pool searcher" { pool.clone() } else { entry.clone() });
    let seating = othello_testkit::isolated_seating();
    let played =
        othello_server::worker::play_plan(&again.plan, [&paths[0], &paths[1]], &seating, None, &mut |_, _| Ok(()))
            .unwrap();
    assert!(played.games.iter().all(|game| game.result.termination() == othello_arena::seat::Termination::Normal));
    let (status, body) = crate::remote::submit(&server, &honest, &again.lease, &played);
    assert_eq!(status, 200, "{body}");
    assert_eq!(crate::remote::count(&server, "SELECT count(*) FROM server_job_games"), 2);
    let (_, replay) = server.get_json(
        &format!("/api/games/{}", crate::remote::count(&server, "SELECT min(game) FROM server_job_games")),
        None,
    );
    assert_eq!(replay["clock"], "fuel", "two modules play on fuel: {replay}");
}
