//! Two entrants upload bots and see them checked, placed and their games replayable.

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
        assert_eq!(code, 200);
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

/// `POST /api/bots/{id}/test-games` with a JSON body; the answer's status and JSON.
fn ask_for_test_games(server: &TestServer, token: &str, bot: i64, body: &str) -> (u16, serde_json::Value) {
    let mut response = server
        .agent
        .post(format!("{}/api/bots/{bot}/test-games", server.url))
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", "application/json")
        .send(body)
        .unwrap();
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap();
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
    let ladder_games = || othello_ladder::Ladder::open(&server.ladder()).unwrap().game_count().unwrap();
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
