//! An abuser: bad tokens, someone else's bot, oversize and unusable files, names with HTML,
//! uploads past the rate limit.

use crate::{TestServer, named_bot};

#[test]
fn tokens_are_checked_and_an_entrant_sees_only_its_own_bots() {
    let server = TestServer::start();
    let alice = server.add_entrant("Alice");
    let mallory = server.add_entrant("Mallory");
    let library = std::fs::read(named_bot("tokens", "Token bot")).unwrap();

    let (code, json) = server.upload(None, "bot.so", &library);
    assert_eq!(code, 401, "no token: {json}");
    assert!(json["error"].as_str().unwrap().contains("token"));
    let (code, _) = server.upload(Some("not-a-token"), "bot.so", &library);
    assert_eq!(code, 401, "a wrong token");

    let (code, json) = server.upload(Some(&alice), "bot.so", &library);
    assert_eq!(code, 201, "{json}");
    let id = json["id"].as_i64().unwrap();
    let (code, json) = server.get_json(&format!("/api/bots/{id}"), Some(&mallory));
    assert_eq!(code, 404, "another entrant's bot is not shown: {json}");
    let (code, _) = server.get_json(&format!("/api/bots/{id}/games"), Some(&mallory));
    assert_eq!(code, 404);
    let (code, _) = server.get_json(&format!("/api/bots/{id}"), None);
    assert_eq!(code, 401);

    othello_server::revoke_entrant(&server.ladder(), "Mallory").unwrap();
    let (code, json) = server.upload(Some(&mallory), "bot.so", &library);
    assert_eq!(code, 401, "a revoked token: {json}");
    assert!(json["error"].as_str().unwrap().contains("revoked"));
    let entrants = othello_server::entrants(&server.ladder()).unwrap();
    assert!(entrants.iter().any(|e| e.name == "Mallory" && e.revoked));
    match server.ladder() {
        othello_db::Location::File(path) => {
            let db = std::fs::read(path).unwrap();
            let needle = alice.as_bytes();
            assert!(!db.windows(needle.len()).any(|w| w == needle), "tokens are stored hashed only");
        }
        othello_db::Location::Postgres(_) => {
            let db = othello_server::store::open(&server.ladder()).unwrap();
            let columns: Vec<String> =
                db.query_map("SELECT name || ' ' || token_hash FROM server_entrants", [], |row| row.get(0)).unwrap();
            assert!(columns.iter().all(|c| !c.contains(&alice)), "tokens are stored hashed only: {columns:?}");
        }
    }
}

fn stored_files(server: &TestServer) -> Vec<std::path::PathBuf> {
    let uploads = server.dir.path().join("uploads");
    let mut files = Vec::new();
    for folder in std::fs::read_dir(&uploads).unwrap() {
        for file in std::fs::read_dir(folder.unwrap().path()).unwrap() {
            files.push(file.unwrap().path());
        }
    }
    files
}

#[test]
fn unusable_and_oversize_files_are_refused_with_the_reason_before_they_are_stored() {
    let server = TestServer::start();
    let abuser = server.add_entrant("Abuser");

    // Refused on its announced length, before a byte of the body is read.
    assert_eq!(oversize_status(&server, &abuser), 413, "over the limit of 256 KiB");

    let (code, json) = server.upload(Some(&abuser), "bot.so", b"#!/bin/sh\necho I am a text file\n");
    assert_eq!(code, 422, "{json}");
    assert!(json["error"].as_str().unwrap().contains("not a shared library"), "{json}");

    // A real Windows DLL: host/testkit/fixtures/first_legal.c built with
    // `x86_64-w64-mingw32-gcc -O2 -shared -s -I sdk/include` (committed, as not every machine has MinGW).
    let dll = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/first_legal.dll")).unwrap();
    let (code, json) = server.upload(Some(&abuser), "bot.dll", &dll);
    assert_eq!(code, 422, "{json}");
    let why = json["error"].as_str().unwrap();
    assert!(why.contains("Windows") && why.contains("Linux"), "names what it is and what is accepted: {why}");

    assert!(stored_files(&server).is_empty(), "nothing refused was stored: {:?}", stored_files(&server));
}

/// The status of an upload announcing a body over the limit, sent without its body.
fn oversize_status(server: &TestServer, token: &str) -> u16 {
    use std::io::{Read, Write};
    let address = server.url.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /api/bots HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        33 << 20
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.split(' ').nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_executable_is_not_a_library() {
    // The runner's own executable (large in a debug build, which links wasmtime): a limit it fits.
    let executable = std::fs::read(othello_testkit::runner_command().program()).unwrap();
    let server = TestServer::start_with(|config| config.max_upload_bytes = executable.len() + (1 << 20));
    let abuser = server.add_entrant("Abuser");
    let (code, json) = server.upload(Some(&abuser), "runner.so", &executable);
    assert_eq!(code, 422, "{json}");
    assert!(json["error"].as_str().unwrap().contains("executable"), "{json}");
}

#[test]
fn a_path_in_the_file_name_is_ignored_and_uploads_are_rate_limited() {
    let server = TestServer::start();
    let abuser = server.add_entrant("Abuser");
    let library = std::fs::read(named_bot("path", "Path bot")).unwrap();
    let (code, json) = server.upload(Some(&abuser), "../../../outside.so", &library);
    assert_eq!(code, 201, "{json}");
    let files = stored_files(&server);
    assert_eq!(files.len(), 1);
    let sha = json["sha256"].as_str().unwrap();
    assert_eq!(files[0], server.dir.path().join("uploads").join(sha).join("outside.so"));
    assert!(!server.dir.path().join("outside.so").exists());
    // The same file again: 202 with the earlier id, nothing stored twice.
    let (again, same) = server.upload(Some(&abuser), "outside.so", &library);
    assert_eq!((again, &same["id"], &same["duplicate"]), (202, &json["id"], &serde_json::Value::Bool(true)), "{same}");
    assert_eq!(stored_files(&server).len(), 1);

    // The limit is 4 an hour.
    for tag in ["r1", "r2", "r3"] {
        let library = std::fs::read(named_bot(tag, &format!("Rate bot {tag}"))).unwrap();
        let (code, json) = server.upload(Some(&abuser), "bot.so", &library);
        assert_eq!(code, 201, "{json}");
    }
    let library = std::fs::read(named_bot("r4", "Rate bot r4")).unwrap();
    let (code, json) = server.upload(Some(&abuser), "bot.so", &library);
    assert_eq!(code, 429, "{json}");
    assert!(json["error"].as_str().unwrap().contains("limit"));
}

#[test]
fn html_and_script_in_names_are_shown_as_text() {
    let server = TestServer::start();
    let evil_entrant = "<script>alert('entrant')</script>";
    let token = server.add_entrant(evil_entrant);
    let id = server.upload_file(&token, &named_bot("evil", "<img src=x onerror=alert(1)>'; DROP TABLE games; --"));
    let bot = server.wait_for_status(&token, id, &["rating", "rated", "rejected"]);
    assert_ne!(bot["status"], "rejected", "{bot}");
    let (code, page) = server.get("/", None);
    assert_eq!(code, 200);
    assert!(page.contains("&lt;script&gt;alert('entrant')&lt;/script&gt;"), "the entrant's name as text: {page}");
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "the bot's name as text");
    assert!(!page.contains("<script>alert") && !page.contains("<img src=x"), "no markup from names: {page}");
    let (_, board) = server.get_json("/api/leaderboard", None);
    assert!(board.as_array().unwrap().iter().any(|r| r["entrant"] == evil_entrant), "the games table is still there");

    // A second version of the same bot; both side by side on the entrant's page, and the plot.
    // (Bytes after the end of a library change its hash, not what it does.)
    let mut rebuilt = std::fs::read(named_bot("evil", "<img src=x onerror=alert(1)>'; DROP TABLE games; --")).unwrap();
    rebuilt.extend_from_slice(b"version 2");
    let (code, json) = server.upload(Some(&token), "evil.so", &rebuilt);
    assert_eq!(code, 201, "{json}");
    let second = json["id"].as_i64().unwrap();
    for id in [id, second] {
        server.wait_for_status(&token, id, &["rated"]);
    }
    let (code, plot) = server.get("/history.svg", None);
    assert_eq!(code, 200);
    assert!(plot.starts_with("<svg") && plot.contains("<polyline"), "a plot: {plot}");
    assert!(plot.contains("&lt;img src=x onerror=alert(1)&gt;"), "the bot's name as text in the legend: {plot}");
    assert!(!plot.contains("<img src=x") && !plot.contains("<script"), "no markup from names: {plot}");
    let cookie = crate::pages::session_cookie(&server, &token);
    let mut me = server.agent.get(format!("{}/me", server.url)).header("Cookie", &cookie).call().unwrap();
    let me = me.body_mut().read_to_string().unwrap();
    let table = &me[me.find("id=\"versions\"").expect("the versions table")..];
    assert!(table.contains("&lt;img src=x onerror=alert(1)&gt;") && !me.contains("<img src=x"), "{me}");
    assert!(me.contains("&lt;script&gt;alert('entrant')&lt;/script&gt;") && !me.contains("<script>alert"), "{me}");
    let rows: Vec<&str> = table.split("<tr").skip(2).collect();
    assert_eq!(rows.len(), 2, "one row per version: {table}");
    assert!(
        rows[0].contains("class=\"current\"") && rows[0].contains("v2") && rows[0].contains(&format!("#{second}")),
        "the newest version first, marked current: {}",
        rows[0]
    );
    assert!(
        rows[1].contains("v1") && !rows[1].contains("class=\"current\"") && !rows[1].contains("badge"),
        "{}",
        rows[1]
    );
    for row in rows {
        assert!(
            row.contains("rated") && row.contains(" ± ") && row.contains(" %"),
            "status, rating ± error, score: {row}"
        );
    }
}

#[test]
fn uploads_are_refused_while_submissions_are_closed() {
    let server = TestServer::start();
    let token = server.add_entrant("Late");
    let library = std::fs::read(named_bot("late", "Late bot")).unwrap();
    othello_server::set_submissions_open(&server.ladder(), false).unwrap();
    let (code, json) = server.upload(Some(&token), "late.so", &library);
    assert_eq!(code, 403, "{json}");
    assert!(json["error"].as_str().unwrap().contains("closed"));
    othello_server::set_submissions_open(&server.ladder(), true).unwrap();
    let (code, json) = server.upload(Some(&token), "late.so", &library);
    assert_eq!(code, 201, "{json}");
}

#[test]
fn the_organisers_page_refuses_entrants_and_cross_site_forms() {
    let server = TestServer::start();
    let mallory = server.add_entrant("Mallory");
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    let admin_cookie = server.admin_session(&admin);
    let entrant_as_admin = format!("{}={mallory}", othello_server::web::ADMIN_COOKIE);
    let entrant_session = format!("{}={mallory}", othello_server::web::SESSION_COOKIE);

    // No token, an entrant's session, an entrant's token where the organiser's goes: refused.
    assert_eq!(server.get("/admin", None).0, 401);
    assert_eq!(server.get_with_cookie("/admin", &entrant_session).0, 401);
    let (code, page) = server.get_with_cookie("/admin", &entrant_as_admin);
    assert_eq!(code, 403, "{page}");
    assert!(page.contains("not the organiser"), "{page}");
    assert_eq!(server.get("/admin", Some(&mallory)).0, 403, "an entrant's bearer token");
    let (code, _, page) = server.post_form("/admin/login", &format!("token={mallory}"), None, Some(&server.url));
    assert_eq!(code, 401, "an entrant's token does not log in as the organiser: {page}");
    for (path, form) in [
        ("/admin/submissions", "state=close"),
        ("/admin/time-control", "time_ms=5"),
        ("/admin/final", "format=round-robin&games_per_pair=2&time_ms=100"),
    ] {
        let (code, _, _) = server.post_form(path, form, Some(&entrant_as_admin), Some(&server.url));
        assert_eq!(code, 403, "{path} with an entrant's token");
        // The organiser's own cookie, sent by another site's page: refused before anything is done.
        let (code, _, page) = server.post_form(path, form, Some(&admin_cookie), Some("http://evil.example"));
        assert_eq!(code, 403, "{path} from another site: {page}");
        assert!(page.contains("another site"), "{page}");
    }
    let (code, page) = server.get_with_cookie("/admin", &admin_cookie);
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("id=\"submissions-state\">open<"), "nothing changed: {page}");
    assert_eq!(server.get_json("/api/final", None).0, 404, "no final was started");

    // The organiser, from this site: logs in from the token, closes submissions, sets the clock.
    let (code, location, _) = server.post_form("/admin/login", &format!("token={admin}"), None, Some(&server.url));
    assert_eq!((code, location.as_str()), (303, "/admin"));
    let (code, location, _) =
        server.post_form("/admin/submissions", "state=close", Some(&admin_cookie), Some(&server.url));
    assert_eq!((code, location.as_str()), (303, "/admin"));
    let library = std::fs::read(named_bot("admin-closed", "Late bot")).unwrap();
    assert_eq!(server.upload(Some(&mallory), "late.so", &library).0, 403, "submissions are closed");
    let (code, _, _) = server.post_form("/admin/submissions", "state=open", Some(&admin_cookie), Some(&server.url));
    assert_eq!(code, 303);
    let (code, _, page) =
        server.post_form("/admin/time-control", "time_ms=lots", Some(&admin_cookie), Some(&server.url));
    assert_eq!(code, 400, "{page}");
    let (code, _, _) = server.post_form("/admin/time-control", "time_ms=2000", Some(&admin_cookie), Some(&server.url));
    assert_eq!(code, 303);
    let (_, page) = server.get_with_cookie("/admin", &admin_cookie);
    assert!(page.contains("id=\"time-control\">2000 ms a move<"), "{page}");
    // A final needs two entrants with a checked bot: refused with the reason.
    let (code, _, page) = server.post_form(
        "/admin/final",
        "format=knockout&games_per_pair=2&time_ms=100",
        Some(&admin_cookie),
        Some(&server.url),
    );
    assert_eq!(code, 409, "{page}");
    assert!(page.contains("at least two entrants"), "{page}");

    // The workers play new games at the organiser's time control.
    let (code, json) = server.upload(Some(&mallory), "late.so", &library);
    assert_eq!(code, 201, "{json}");
    let id = json["id"].as_i64().unwrap();
    server.wait_for_status(&mallory, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&mallory));
    let first = games[0]["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{first}"), None);
    // (GGF keeps whole seconds: the test's own time control, 200 ms, would read as 1000.)
    assert_eq!(replay["time_limit_ms"], 2000, "{replay}");
}
