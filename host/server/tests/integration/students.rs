//! A student's usual mistakes, each answered with what to do (issue 46): a source file uploaded
//! instead of the library, C++ names without `extern "C"`, a move byte made by hand.

use std::path::Path;

use crate::{TestServer, compile_test_bot};

/// An uploaded `greedy.c` is told to compile first, with the build line.
#[test]
fn a_source_file_is_told_to_compile_first_with_the_build_line() {
    let server = TestServer::start();
    let student = server.add_entrant("Tam");
    let source = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/no_exports.c")).unwrap();
    let (status, json) = server.upload(Some(&student), "greedy.c", &source);
    assert_eq!(status, 422, "{json}");
    let why = json["error"].as_str().unwrap();
    assert!(why.contains("Compile it first"), "{why}");
    assert!(why.contains(othello_server::inspect::build_line()), "the build line: {why}");
}

/// A C++ bot without `extern "C"` does not load, and the reason names the C++ name and the fix.
#[test]
fn a_cpp_bot_without_extern_c_is_told_to_declare_it() {
    let server = TestServer::start();
    let student = server.add_entrant("Uma");
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("libmangled.so");
    let status = std::process::Command::new("c++")
        .args(["-shared", "-fPIC", "-O1"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cpp_mangled.cpp"))
        .arg("-o")
        .arg(&library)
        .status()
        .expect("a C++ compiler (c++)");
    assert!(status.success());
    let id = server.upload_file(&student, &library);
    let bot = server.wait_for_status(&student, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rejected", "{bot}");
    let why = bot["reason"].as_str().unwrap();
    assert!(why.contains("C++ name") && why.contains("extern \"C\"") && why.contains("_Z"), "{why}");
}

/// A library exporting neither `init` nor `think` is told which to define, with the build line.
#[test]
fn a_bot_without_think_is_told_what_to_define() {
    let server = TestServer::start();
    let student = server.add_entrant("Val");
    let dir = tempfile::tempdir().unwrap();
    let id = server.upload_file(&student, &compile_test_bot("no_exports", dir.path()));
    let bot = server.wait_for_status(&student, id, &["rated", "rejected"]);
    let why = bot["reason"].as_str().unwrap();
    assert!(why.contains("does not export `init` or `think`") && why.contains("greedy.c"), "{why}");
}

/// A move byte that is no square is explained with the helper to use.
#[test]
fn a_move_byte_made_by_hand_is_explained_with_othello_move() {
    let server = TestServer::start();
    let student = server.add_entrant("Wen");
    let id = server.upload_file(&student, &othello_testkit::fixture("illegal_off_board"));
    let bot = server.wait_for_status(&student, id, &["rated", "rejected"]);
    let games = bot["report"]["games"].as_array().unwrap();
    let failure = games.iter().find_map(|g| g["failure"].as_str()).unwrap_or_else(|| panic!("a failure: {bot}"));
    assert!(failure.contains("othello_move(row, col)") && failure.contains("OTHELLO_PASS"), "{failure}");
}

/// The starter kit on the site is enough: its header and `greedy.c`, built with its own Linux
/// line, make a bot that uploads, loads and is rated.
#[test]
fn the_starter_kit_builds_a_bot_that_is_rated() {
    let server = TestServer::start();
    let (status, page) = server.get("/starter", None);
    assert_eq!(status, 200);
    for needed in
        ["othello_bot.h", "greedy.c", "gcc -O2 -shared -fPIC", "mingw32", "cl /O2 /LD", "othello_move(row, col)"]
    {
        assert!(page.contains(needed), "{needed} on the starter page");
    }
    let dir = tempfile::tempdir().unwrap();
    for file in ["othello_bot.h", "greedy.c"] {
        let (status, text) = server.get(&format!("/starter/{file}"), None);
        assert_eq!(status, 200, "{file}");
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let (_, line) = othello_server::inspect::BUILD_LINES[0];
    let mut words = line.split_whitespace();
    let status = std::process::Command::new(words.next().unwrap())
        .args(words)
        .current_dir(dir.path())
        .status()
        .expect("the compiler of the starter kit's first line");
    assert!(status.success(), "{line}");
    let student = server.add_entrant("Xan");
    let id = server.upload_file(&student, &dir.path().join("libgreedy.so"));
    let bot = server.wait_for_status(&student, id, &["rated", "rejected"]);
    assert_eq!(bot["status"], "rated", "{bot}");
    assert_eq!(bot["report"]["name"], "Greedy (C)");
}

/// An address that leads nowhere answers the site's own 404 page (JSON under `/api/`).
#[test]
fn an_unknown_address_gets_the_sites_404_page() {
    let server = TestServer::start();
    let (status, page) = server.get("/no/such/page", None);
    assert_eq!(status, 404);
    assert!(page.contains("Page not found") && page.contains("href=\"/starter\""), "{page}");
    let (status, json) = server.get_json("/api/no-such-route", None);
    assert_eq!(status, 404);
    assert!(json["error"].as_str().unwrap().contains("no route"), "{json}");
}

/// A game lost by a crash says so in its replay (not "resigned"), at the time limit it was played at.
#[test]
fn a_crash_is_called_a_crash_in_the_replay_at_its_time_limit() {
    let server = TestServer::start();
    let student = server.add_entrant("Zoe");
    let dir = tempfile::tempdir().unwrap();
    let id = server.upload_file(&student, &compile_test_bot("crashes_always", dir.path()));
    server.wait_for_status(&student, id, &["rated", "rejected"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&student));
    let game = games.as_array().unwrap().iter().find(|g| g["kind"] != "test").unwrap()["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    assert_eq!(replay["termination"], "crash", "{replay}");
    assert_eq!(replay["time_limit_ms"], othello_testkit::TEST_TIME_LIMIT.as_millis() as u64, "{replay}");
    let (_, page) = server.get(&format!("/games/{game}"), None);
    assert!(page.contains(", crash") && !page.contains("resigned"), "{page}");
}
