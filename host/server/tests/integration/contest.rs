//! Two entrants upload bots and see them checked, placed and their games replayable.

use std::collections::HashMap;

use crate::{TestServer, named_bot};

#[test]
fn two_entrants_upload_bots_that_get_checked_rated_and_replayable() {
    let server = TestServer::start();
    let alice = server.add_entrant("Alice");
    let bob = server.add_entrant("Bob");
    let alice_bot = server.upload_file(&alice, &named_bot("alice", "Alice's bot"));
    let bob_bot = server.upload_file(&bob, &named_bot("bob", "Bob's bot"));

    // Both placed first: a bot placed early still plays the other's placement games.
    for (token, id) in [(&alice, alice_bot), (&bob, bob_bot)] {
        server.wait_for_status(token, id, &["rated", "rejected"]);
    }
    for (token, id, name) in [(&alice, alice_bot, "Alice's bot"), (&bob, bob_bot, "Bob's bot")] {
        let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(token));
        assert_eq!(bot["status"], "rated", "{bot}");
        let report = &bot["report"];
        assert_eq!(report["loads"], true, "{bot}");
        assert_eq!(report["name"], name);
        assert_eq!(report["abi_version"], 1);
        let games = report["games"].as_array().unwrap();
        assert_eq!(games.len(), 2, "two check games against random: {report}");
        for game in games {
            assert_eq!(game["opponent"], "random");
            assert!(!game["move_times_ms"].as_array().unwrap().is_empty(), "each move's time: {game}");
        }
        assert!(bot["rating"].is_number(), "rated: {bot}");
        assert!(bot["error"].as_f64().unwrap() > 0.0, "{bot}");
        assert!(bot["games"].as_u64().unwrap() >= 6, "placement games: {bot}");

        let (code, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(token));
        assert_eq!(code, 200);
        let games = games.as_array().unwrap();
        assert_eq!(games.len() as u64, bot["games"].as_u64().unwrap(), "every game listed: {games:?}");
        let first = games[0]["id"].as_i64().unwrap();
        let (code, replay) = server.get_json(&format!("/api/games/{first}"), None);
        assert_eq!(code, 200, "{replay}");
        let moves = replay["moves"].as_array().unwrap().len();
        assert_eq!(
            replay["positions"].as_array().unwrap().len(),
            moves + 1,
            "a board before each move and after the last"
        );
        let (code, page) = server.get(&format!("/games/{first}"), None);
        assert_eq!(code, 200);
        assert!(page.contains("id=\"replay\"") && page.contains("data-game="), "the replay page: {page}");
    }

    let (code, board) = server.get_json("/api/leaderboard", None);
    assert_eq!(code, 200);
    let rows = board.as_array().unwrap();
    for (entrant, name) in [("Alice", "Alice's bot"), ("Bob", "Bob's bot")] {
        let row = rows.iter().find(|r| r["entrant"] == entrant).unwrap_or_else(|| panic!("{entrant} on {board}"));
        assert_eq!(row["name"], name);
        for field in ["rating", "error", "games", "failures"] {
            assert!(row[field].is_number(), "{field} in {row}");
        }
    }
    assert!(rows.iter().any(|r| r["entrant"].is_null()), "the seeded pool is on the board too: {board}");
}

#[test]
fn a_bot_that_crashes_every_move_is_rated_at_the_bottom_with_its_failures() {
    let server = TestServer::start();
    let carol = server.add_entrant("Carol");
    let crasher = crate::compile_test_bot("crashes_always", server.dir.path());
    let id = server.upload_file(&carol, &crasher);
    let bot = server.wait_for_status(&carol, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "it loads, so it is placed: {bot}");
    let check_games = bot["report"]["games"].as_array().unwrap();
    for game in check_games {
        assert_eq!(game["result"], "loss");
        assert_eq!(game["termination"], "crash", "{game}");
        assert!(game["failure"].as_str().unwrap().contains("crash"), "the named reason: {game}");
        let tail: Vec<&str> = game["stderr_tail"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert!(tail.iter().any(|l| l.contains("about to dereference NULL")), "its stderr tail: {game}");
    }
    assert!(bot["games"].as_u64().unwrap() >= 4);
    assert_eq!(bot["failures"], bot["games"], "every game lost by its crash: {bot}");
    assert!(bot["reason"].as_str().unwrap().contains("failure"), "{bot}");
    let (_, board) = server.get_json("/api/leaderboard", None);
    let rows = board.as_array().unwrap();
    assert_eq!(rows.last().unwrap()["entrant"], "Carol", "at the bottom: {board}");
    let (_, page) = server.get(&format!("/bots/{id}"), None);
    assert!(!page.contains("Crasher"), "another visitor is not shown the bot's page");
}

#[test]
fn rated_bots_keep_playing_when_nothing_waits() {
    let server = TestServer::start_with(|config| config.continuous_games = true);
    let eve = server.add_entrant("Eve");
    let id = server.upload_file(&eve, &named_bot("fresh", "Fresh bot"));
    let placed = server.wait_for_status(&eve, id, &["rated"]);
    let placed_games = placed["games"].as_u64().unwrap();
    let start = std::time::Instant::now();
    loop {
        let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&eve));
        assert_eq!(bot["status"], "rated", "refresh games leave it rated: {bot}");
        if bot["games"].as_u64().unwrap() >= placed_games + 4 {
            break;
        }
        assert!(start.elapsed() < crate::DEADLINE, "no refresh games after its placement: {bot}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The standings a final's games give, recomputed from the games' replays (the ladder's records):
/// per bot name, (points, wins, draws, losses, disc difference, failures).
fn standings_from_replays(
    server: &TestServer,
    view: &serde_json::Value,
) -> HashMap<String, (f64, u32, u32, u32, i64, u32)> {
    let mut lines: HashMap<String, (f64, u32, u32, u32, i64, u32)> = HashMap::new();
    for game in view["games"].as_array().unwrap() {
        let id = game["game"].as_i64().unwrap_or_else(|| panic!("every game of an ended final was played: {game}"));
        let (code, replay) = server.get_json(&format!("/api/games/{id}"), None);
        assert_eq!(code, 200, "{replay}");
        // "1-0 (40–24)": the result, then black's and white's discs.
        let result = replay["result"].as_str().unwrap();
        let (score, discs) = result.split_once(" (").unwrap();
        let (black_discs, white_discs) = discs.trim_end_matches(')').split_once('–').unwrap();
        let (black_discs, white_discs): (i64, i64) = (black_discs.parse().unwrap(), white_discs.parse().unwrap());
        let black_score = match score {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        let failure = replay["termination"] != "normal";
        for (name, mine, mine_discs, theirs_discs) in [
            (replay["black"].as_str().unwrap(), black_score, black_discs, white_discs),
            (replay["white"].as_str().unwrap(), 1.0 - black_score, white_discs, black_discs),
        ] {
            let line = lines.entry(name.to_owned()).or_default();
            line.0 += mine;
            match mine {
                1.0 => line.1 += 1,
                0.0 => line.3 += 1,
                _ => line.2 += 1,
            }
            line.4 += mine_discs - theirs_discs;
            if failure && mine == 0.0 {
                line.5 += 1;
            }
        }
    }
    lines
}

#[test]
fn a_final_among_three_entrants_completes_with_standings_that_match_its_games() {
    let server = TestServer::start();
    let ann = server.add_entrant("Ann");
    let ben = server.add_entrant("Ben");
    let cid = server.add_entrant("Cid");
    let crasher = crate::compile_test_bot("crashes_always", server.dir.path());
    let bots = [
        (&ann, server.upload_file(&ann, &named_bot("final-ann", "Ann's bot"))),
        (&ben, server.upload_file(&ben, &named_bot("final-ben", "Ben's bot"))),
        (&cid, server.upload_file(&cid, &crasher)),
    ];
    for (token, id) in bots {
        server.wait_for_status(token, id, &["rating", "rated"]);
    }

    // The organiser starts a round robin from the organiser's page.
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let cookie = server.admin_session(&admin);
    let (code, location, body) = server.post_form(
        "/admin/final",
        "format=round-robin&games_per_pair=4&time_ms=200",
        Some(&cookie),
        Some(&server.url),
    );
    assert_eq!((code, location.as_str()), (303, "/final"), "{body}");
    let view = server.wait_for_final();
    assert_eq!(view["format"], "round-robin");
    assert_eq!(view["games_total"], 12, "three pairings of four games: {view}");
    assert_eq!(view["games_done"], 12);
    let games = view["games"].as_array().unwrap();
    assert_eq!(games.len(), 12);
    // Colours swapped on each opening: in each pairing each bot has black twice.
    for pairing in 0..3 {
        let mine: Vec<_> = games.iter().filter(|g| g["match_no"] == pairing).collect();
        assert_eq!(mine.len(), 4);
        for pair in mine.chunks(2) {
            assert_eq!((&pair[0]["black"], &pair[0]["white"]), (&pair[1]["white"], &pair[1]["black"]), "{pair:?}");
        }
    }

    let standings = view["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3);
    let expected = standings_from_replays(&server, &view);
    let mut total = 0.0;
    for line in standings {
        let name = line["name"].as_str().unwrap();
        let (points, wins, draws, losses, discs, failures) = expected[name];
        assert_eq!(line["points"].as_f64().unwrap(), points, "{line}");
        assert_eq!(
            (line["wins"].as_u64().unwrap(), line["draws"].as_u64().unwrap(), line["losses"].as_u64().unwrap()),
            (wins as u64, draws as u64, losses as u64),
            "{line}"
        );
        assert_eq!(line["games"], 8, "each bot plays two pairings of four: {line}");
        assert_eq!(line["disc_difference"].as_i64().unwrap(), discs, "{line}");
        assert_eq!(line["failures"].as_u64().unwrap(), failures as u64, "{line}");
        total += points;
    }
    assert_eq!(total, 12.0, "one point a game");
    let points: Vec<f64> = standings.iter().map(|l| l["points"].as_f64().unwrap()).collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "ranked by points: {points:?}");
    let last = standings.last().unwrap();
    assert_eq!(last["entrant"], "Cid", "the crasher is last: {view}");
    assert_eq!((last["points"].as_f64().unwrap(), last["failures"].as_u64().unwrap()), (0.0, 8), "{last}");

    // The results page needs no script: the standings and the games' links are in the HTML.
    let (code, page) = server.get("/final", None);
    assert_eq!(code, 200);
    assert!(
        page.contains("id=\"final-standings\"") && (page.contains("Ann&#39;s bot") || page.contains("Ann's bot")),
        "{page}"
    );
    for game in games {
        assert!(page.contains(&format!("href=\"/games/{}\"", game["game"])), "game {} linked", game["game"]);
    }
    // The static export: one file, no script, every game written out.
    let export = othello_server::export_final(&server.ladder()).unwrap();
    assert!(!export.contains("<script"), "no script");
    for game in games {
        assert!(export.contains(&format!("id=\"game-{}\"", game["game"])), "game {} in the export", game["game"]);
    }

    // Then a knockout of the same three: the best seed has a bye, two matches of two games.
    let (info, seeded) = othello_server::start_final(
        &server.ladder(),
        othello_server::final_round::FinalOptions {
            format: othello_server::final_round::Format::Knockout,
            games_per_pair: 2,
            time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
            seed: 7,
        },
    )
    .unwrap();
    assert_eq!(seeded.len(), 3);
    let view = server.wait_for_final();
    assert_eq!(view["id"], info.id);
    assert_eq!((view["games_total"].as_u64(), view["games_done"].as_u64()), (Some(4), Some(4)), "{view}");
    let rounds = view["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0][0]["b"]["kind"], "bye", "{view}");
    assert_eq!(rounds[0][0]["winner"], 1, "the first seed goes through its bye");
    let champion = rounds[1][0]["winner"].as_u64().unwrap();
    assert_eq!(view["standings"][0]["seed"].as_u64().unwrap(), champion, "the winner of the last match is first");
    let (_, page) = server.get("/final", None);
    assert!(page.contains("id=\"final-bracket\""));
}

/// `POST /api/bots/{id}/test-games` with a JSON body; the answer's status and JSON.
fn ask_for_test_games(server: &TestServer, token: &str, bot: i64, body: &str) -> (u16, serde_json::Value) {
    let (status, text) = server.post_json(&format!("/api/bots/{bot}/test-games"), token, body.as_bytes());
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

#[test]
fn test_games_are_played_unrated_for_their_entrant_only_and_rate_limited() {
    let server = TestServer::start();
    let alice = server.add_entrant("Alice");
    let mallory = server.add_entrant("Mallory");
    let id = server.upload_file(&alice, &named_bot("tester", "Tester"));
    server.wait_for_status(&alice, id, &["rated"]);
    let (_, board_before) = server.get_json("/api/leaderboard", None);
    let ladder_games = || othello_ladder::Ladder::open(server.ladder()).unwrap().game_count().unwrap();
    let games_before = ladder_games();
    let opponent =
        board_before.as_array().unwrap().iter().find(|r| r["name"] == "First legal").unwrap()["entry"].clone();

    // Another entrant cannot start test games with Alice's bot, nor see them.
    let (code, json) = ask_for_test_games(&server, &mallory, id, &format!("{{\"opponent\": {opponent}}}"));
    assert_eq!(code, 404, "{json}");
    // A wrong token is refused.
    let (code, _) = ask_for_test_games(&server, "not-a-token", id, &format!("{{\"opponent\": {opponent}}}"));
    assert_eq!(code, 401);
    let (code, json) = ask_for_test_games(&server, &alice, id, "{\"opponent\": 999999}");
    assert_eq!(code, 422, "not a current bot: {json}");
    assert!(json["error"].as_str().unwrap().contains("current bot"), "{json}");

    let (code, json) = ask_for_test_games(&server, &alice, id, &format!("{{\"opponent\": {opponent}}}"));
    assert_eq!(code, 202, "{json}");
    assert_eq!(json["opponent_name"], "First legal");
    let start = std::time::Instant::now();
    let tests = loop {
        let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&alice));
        let tests: Vec<serde_json::Value> =
            games.as_array().unwrap().iter().filter(|g| g["kind"] == "test").cloned().collect();
        if tests.len() == 2 {
            break tests;
        }
        assert!(start.elapsed() < crate::DEADLINE, "the test games were not played: {games}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let mut colours: Vec<&str> = tests.iter().map(|g| if g["black"] == "Tester" { "black" } else { "white" }).collect();
    colours.sort();
    assert_eq!(colours, ["black", "white"], "a pair with colours swapped: {tests:?}");
    for game in &tests {
        assert!([game["black"].as_str(), game["white"].as_str()].contains(&Some("First legal")), "{game}");
    }

    // Never counted: no ladder game, no rating moved.
    assert_eq!(ladder_games(), games_before, "test games are not ladder games");
    let (_, board_after) = server.get_json("/api/leaderboard", None);
    assert_eq!(board_after, board_before, "no rating, count or score changed");

    // Replayable by their entrant only.
    let test_game = tests[0]["id"].as_i64().unwrap();
    let (code, replay) = server.get_json(&format!("/api/test-games/{test_game}"), Some(&alice));
    assert_eq!(code, 200, "{replay}");
    assert_eq!(replay["positions"].as_array().unwrap().len(), replay["moves"].as_array().unwrap().len() + 1);
    let (code, _) = server.get_json(&format!("/api/test-games/{test_game}"), Some(&mallory));
    assert_eq!(code, 404);

    // The bot page's form: refused from another site's page, taken from the server's own.
    let cookie = crate::pages::session_cookie(&server, &alice);
    let form = |origin: &str| {
        let response = server
            .agent
            .post(format!("{}/bots/{id}/test-games", server.url))
            .header("Cookie", &cookie)
            .header("Origin", origin)
            .send_form([("opponent", opponent.to_string())])
            .unwrap();
        response.status().as_u16()
    };
    assert_eq!(form("http://evil.example"), 403, "a form from another site is refused");
    assert_eq!(form(&server.url), 303);
    let mut page = server.agent.get(format!("{}/bots/{id}", server.url)).header("Cookie", &cookie).call().unwrap();
    let page = page.body_mut().read_to_string().unwrap();
    assert!(page.contains("id=\"test-form\"") && page.contains(">test #"), "the form and the test games: {page}");

    // The limit (3 pairs an hour in the tests' server), by name this time.
    let (code, json) = ask_for_test_games(&server, &alice, id, "{\"opponent\": \"First legal\"}");
    assert_eq!(code, 202, "{json}");
    let (code, json) = ask_for_test_games(&server, &alice, id, &format!("{{\"opponent\": {opponent}}}"));
    assert_eq!(code, 429, "{json}");
    assert!(json["error"].as_str().unwrap().contains("limit is 3"), "the reason: {json}");
}

/// A fresh contest answers at once: the sample pool is on the leaderboard from the first page and
/// calibrated in the background with its true counts (`/api/seeding`, a note on every page);
/// an upload is checked meanwhile and its placement starts only once the pool is calibrated.
#[test]
fn a_fresh_contest_answers_at_once_and_calibrates_its_pool_in_the_background() {
    let server = TestServer::start_with(|config| {
        config.seed_pool.push(
            othello_ladder::identity::library_identity(&named_bot("pool-third", "Third"), "Third", None).unwrap(),
        );
    });
    // The pool's rows are there from the start, whatever the calibration has played.
    let (status, board) = server.get_json("/api/leaderboard", None);
    assert_eq!(status, 200);
    let names: Vec<&str> = board.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    for name in ["Random", "First legal", "Third"] {
        assert!(names.contains(&name), "{name} on the first leaderboard: {board}");
    }
    let (_, seeding) = server.get_json("/api/seeding", None);
    if seeding["running"] == true {
        assert_eq!(seeding["linking_games"], 12, "3 pairs × 2 openings × 2 games: {seeding}");
        assert!(seeding["games"].as_u64().unwrap() <= seeding["max_games"].as_u64().unwrap(), "{seeding}");
        assert_eq!(seeding["time_ms"], 200, "at the contest's time control: {seeding}");
    }
    let alice = server.add_entrant("Alice");
    let id = server.upload_file(&alice, &named_bot("during-seeding", "Early bird"));
    let bot = server.wait_for_status(&alice, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "{bot}");
    let (_, seeding) = server.get_json("/api/seeding", None);
    assert_eq!(seeding["running"], false, "calibrated before the placement ended: {seeding}");
    let (_, page) = server.get("/", None);
    assert!(!page.contains("id=\"seeding\""), "no calibration note once it is done");

    let count = |sql: &str| crate::remote::count(&server, sql);
    let pool_games = count(
        "SELECT count(*) FROM games WHERE black NOT IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL)
           AND white NOT IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL)",
    );
    assert!(pool_games >= 12, "the linking round at least: {pool_games}");
    let placement_before_calibration = count(
        "SELECT count(*) FROM games g WHERE (g.black IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL)
            OR g.white IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL))
           AND g.id < (SELECT max(id) FROM games p WHERE p.black NOT IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL)
                         AND p.white NOT IN (SELECT entry FROM server_uploads WHERE entry IS NOT NULL))",
    );
    assert_eq!(placement_before_calibration, 0, "placements wait for the calibration");
}

/// A fresh contest with a shipped calibration of its pool places a bot at once: the upload gets
/// a first rating while the pool's own calibration still runs in the background (it cannot end
/// here: one member of the pool is held before each move), with its true count on `/api/seeding`
/// and on the pages, which say what it started from.
#[test]
fn a_fresh_contest_places_a_bot_at_once_from_the_shipped_calibration() {
    use othello_ladder::calibration::Calibration;
    use othello_ladder::fit::PairTally;
    let (held, gate) = othello_testkit::Gate::bot("calibration-held", "Held");
    gate.close();
    let tally = |wins: f64, losses: f64| PairTally { wins, draws: 0.0, losses };
    let server = TestServer::start_with(|config| {
        config.seat_options = gate.seat_options();
        // A long time a move: the held bot never loses on time while its gate is closed.
        config.time_limit = Some(std::time::Duration::from_secs(600));
        config.seed_pool.push(othello_ladder::identity::library_identity(&held, "Held", None).unwrap());
        // A pool bot the shipped file does not name: rated by its own games, and the pages say so.
        let third = named_bot("pool-not-shipped", "Third");
        config.seed_pool.push(othello_ladder::identity::library_identity(&third, "Third", None).unwrap());
        config.pool_calibration = Some(Calibration {
            source: "the test's own".to_owned(),
            time_ms: Some(600_000),
            ratings: Vec::new(),
            pairs: vec![
                ("Random".to_owned(), "First legal".to_owned(), tally(4.0, 4.0)),
                ("Random".to_owned(), "Held".to_owned(), tally(0.0, 20.0)),
                ("First legal".to_owned(), "Held".to_owned(), tally(0.0, 20.0)),
                // Not in this pool: left out.
                ("Random".to_owned(), "Gone".to_owned(), tally(10.0, 0.0)),
            ],
        });
    });
    // Rated from the first page, before any game.
    let (_, board) = server.get_json("/api/leaderboard", None);
    let held_row = board.as_array().unwrap().iter().find(|r| r["name"] == "Held").unwrap().clone();
    assert!(held_row["rating"].as_f64().is_some_and(|r| r > 200.0), "the shipped rating: {held_row}");
    assert_eq!(held_row["games"], 0, "no game is counted as played here: {held_row}");
    let (_, seeding) = server.get_json("/api/seeding", None);
    assert_eq!(seeding["running"], true, "{seeding}");
    assert_eq!(seeding["shipped"], "the test's own", "{seeding}");
    assert_eq!(seeding["not_shipped"], serde_json::json!(["Third"]), "{seeding}");
    let (_, page) = server.get("/", None);
    assert!(page.contains("started from its shipped calibration (the test"), "{page}");
    assert!(page.contains("not in the shipped calibration, so rated by their games here: Third"), "{page}");

    let alice = server.add_entrant("Alice");
    let id = server.upload_file(&alice, &named_bot("placed-at-once", "Early bird"));
    let start = std::time::Instant::now();
    let first = loop {
        let (_, bot) = server.get_json(&format!("/api/bots/{id}"), Some(&alice));
        if bot["games"].as_u64().unwrap_or(0) > 0 && bot["rating"].as_f64().is_some() {
            break bot;
        }
        assert!(bot["status"] != "rejected", "{bot}");
        assert!(start.elapsed() < crate::DEADLINE, "no first rating: {bot}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let (_, seeding) = server.get_json("/api/seeding", None);
    assert_eq!(seeding["running"], true, "rated before the pool's calibration ended ({first}): {seeding}");
    assert!(
        seeding["games"].as_u64().unwrap() < seeding["linking_games"].as_u64().unwrap(),
        "its true count: {seeding}"
    );
    gate.open();
}

/// A bot that fails every game stops being scheduled once its placement gives up on it: no
/// refresh pair of continuous play, no opponent of another's placement; its entrant reads why
/// and what to do.
#[test]
fn a_bot_failing_every_game_is_no_longer_scheduled_and_its_entrant_is_told() {
    let server = TestServer::start_with(|config| config.continuous_games = true);
    let dir = tempfile::tempdir().unwrap();
    let alice = server.add_entrant("Alice");
    let crashing = server.upload_file(&alice, &crate::compile_test_bot("crashes_always", dir.path()));
    let bot = server.wait_for_status(&alice, crashing, &["rated", "rejected"]);
    let why = bot["reason"].as_str().unwrap();
    assert!(why.contains("plays no more games") && why.contains("upload the new version"), "{why}");
    let entry = bot["entry"].as_i64().unwrap();
    let count = |sql: &str| crate::remote::count(&server, sql);
    let games_of = |entry: i64| count(&format!("SELECT count(*) FROM games WHERE black = {entry} OR white = {entry}"));
    let placed_with = games_of(entry);

    let bob = server.add_entrant("Bob");
    let good = server.upload_file(&bob, &named_bot("after-crasher", "Steady"));
    assert_eq!(server.wait_for_status(&bob, good, &["rated", "rejected"])["status"], "rated");
    // Continuous play goes on: wait for refresh pairs to be played, then look.
    let start = std::time::Instant::now();
    while count("SELECT count(*) FROM server_jobs WHERE kind = 'refresh' AND state = 'done'") < 4 {
        assert!(start.elapsed() < crate::DEADLINE, "no refresh pairs played");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(games_of(entry), placed_with, "the failing bot played no game more");
    assert_eq!(count(&format!("SELECT count(*) FROM server_jobs WHERE kind = 'refresh' AND upload = {crashing}")), 0);
}

/// An entrant whose new version fails every game makes the earlier one count again (over the
/// API and from `/me`); the final then seeds the chosen version; only a checked version of one's
/// own may be chosen, and a form from another site changes nothing.
#[test]
fn an_entrant_makes_an_earlier_version_count_again() {
    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let alice = server.add_entrant("Alice");
    let bob = server.add_entrant("Bob");
    let working = named_bot("reverted", "Keeper");
    let v1 = server.upload_file(&alice, &working);
    assert_eq!(server.wait_for_status(&alice, v1, &["rated"])["status"], "rated");
    let v2 = server.upload_file(&alice, &crate::compile_test_bot("crashes_always", dir.path()));
    server.wait_for_status(&alice, v2, &["rated", "rejected"]);
    let b1 = server.upload_file(&bob, &named_bot("reverted-bob", "Bobby"));
    server.wait_for_status(&bob, b1, &["rated"]);

    // Sending the old file again changes nothing: it answers the earlier upload.
    let (status, json) = server.upload(Some(&alice), "keeper.so", &std::fs::read(&working).unwrap());
    assert_eq!((status, json["duplicate"].as_bool()), (202, Some(true)), "{json}");
    let choose = |token: &str, bot: i64| {
        let (status, text) = server.post_json(&format!("/api/bots/{bot}/current"), token, b"");
        (status, serde_json::from_str::<serde_json::Value>(&text).unwrap_or_default())
    };
    assert_eq!(choose(&bob, v1).0, 404, "another entrant's bot");
    let (status, json) = choose(&alice, v1);
    assert_eq!((status, &json["current"]), (200, &serde_json::Value::from(v1)), "{json}");

    let options = othello_server::final_round::FinalOptions {
        format: othello_server::final_round::Format::RoundRobin,
        games_per_pair: 2,
        time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
        seed: 1,
    };
    let (_, bots) = othello_server::start_final(&server.ladder(), options).unwrap();
    let seeded: Vec<i64> = bots.iter().map(|b| b.entry).collect();
    let (_, v1_view) = server.get_json(&format!("/api/bots/{v1}"), Some(&alice));
    let (_, v2_view) = server.get_json(&format!("/api/bots/{v2}"), Some(&alice));
    assert!(seeded.contains(&v1_view["entry"].as_i64().unwrap()), "the chosen version plays the final: {bots:?}");
    assert!(!seeded.contains(&v2_view["entry"].as_i64().unwrap()), "{bots:?}");
    server.wait_for_final();

    // A new upload is current again; a form from another site is refused.
    let v3 = server.upload_file(&alice, &named_bot("reverted-3", "Keeper the third"));
    server.wait_for_status(&alice, v3, &["rated"]);
    let login = server
        .agent
        .post(format!("{}/login", server.url))
        .header("Origin", &server.url)
        .send_form([("token", alice.as_str())]);
    let cookie =
        login.unwrap().headers().get("set-cookie").unwrap().to_str().unwrap().split(';').next().unwrap().to_owned();
    let (status, _, _) =
        server.post_form(&format!("/bots/{v1}/current"), "", Some(&cookie), Some("https://evil.example"));
    assert_eq!(status, 403, "another site's form");
    let (_, me) = server.get_with_cookie("/me", &cookie);
    assert!(me.contains(&format!("action=\"/bots/{v1}/current\"")), "v1 can be made current again: {me}");
    assert!(!me.contains(&format!("action=\"/bots/{v3}/current\"")), "v3, the newest, is current");
    let (status, location, _) = server.post_form(&format!("/bots/{v1}/current"), "", Some(&cookie), Some(&server.url));
    assert_eq!((status, location.as_str()), (303, "/me"));
    let (_, me) = server.get_with_cookie("/me", &cookie);
    assert!(me.contains(&format!("action=\"/bots/{v3}/current\"")), "v1 counts now: {me}");
    // Versions are numbered per entrant, the same on the leaderboard and on /me.
    let (_, board) = server.get_json("/api/leaderboard", None);
    let row = board.as_array().unwrap().iter().find(|r| r["bot"] == v3).unwrap().clone();
    assert_eq!(row["version"], 3, "Alice's third checked version: {row}");
    assert!(me.contains("<td>v3"), "{me}");
}

/// A calibration cut short by a stop goes on at the next start (the command line asks
/// `needs_pool`), and is marked done when it ends.
#[test]
fn a_calibration_cut_short_goes_on_at_the_next_start() {
    let mut server = TestServer::start();
    let wait_calibrated = |url: &str| {
        let start = std::time::Instant::now();
        loop {
            let mut response = crate::agent().get(format!("{url}/api/seeding")).call().unwrap();
            let json: serde_json::Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
            if json["running"] == false {
                return;
            }
            assert!(start.elapsed() < crate::DEADLINE, "still calibrating: {json}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    wait_calibrated(&server.url);
    server.server.take().unwrap().stop().unwrap();
    let ladder = server.ladder();
    assert!(!othello_server::needs_pool(&ladder).unwrap(), "calibrated: nothing to do at the next start");
    // As a stop in the middle of the calibration leaves it.
    let db = othello_server::store::open(&ladder).unwrap();
    othello_server::admin::set_seeding_unfinished(&db, true).unwrap();
    drop(db);
    assert!(othello_server::needs_pool(&ladder).unwrap(), "a calibration cut short is taken up again");
    let again = othello_server::Server::start(crate::config(server.dir.path(), &server.ladder())).unwrap();
    wait_calibrated(&format!("http://{}", again.addr));
    again.stop().unwrap();
    let db = othello_server::store::open(&ladder).unwrap();
    assert!(!othello_server::admin::seeding_unfinished(&db).unwrap());
}
