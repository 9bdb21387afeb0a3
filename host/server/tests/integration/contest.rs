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
