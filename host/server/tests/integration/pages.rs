//! The pages: logging in with the token, the cookie session, forms refused from other sites.

use crate::{TestServer, multipart, named_bot};

pub fn session_cookie(server: &TestServer, token: &str) -> String {
    let mut response = server
        .agent
        .post(format!("{}/login", server.url))
        .header("Origin", server.url.as_str())
        .send_form([("token", token)])
        .unwrap();
    assert_eq!(response.status().as_u16(), 303, "{}", response.body_mut().read_to_string().unwrap());
    let cookie = response.headers().get("set-cookie").unwrap().to_str().unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    cookie.split(';').next().unwrap().to_owned()
}

#[test]
fn an_entrant_logs_in_uploads_through_the_form_and_sees_the_report() {
    let server = TestServer::start();
    let token = server.add_entrant("Dora");
    let (code, page) = server.get("/login", None);
    assert_eq!(code, 200);
    assert!(page.contains("name=\"token\""));

    let mut wrong = server.agent.post(format!("{}/login", server.url)).send_form([("token", "wrong")]).unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    assert!(wrong.body_mut().read_to_string().unwrap().contains("not valid"));

    let cookie = session_cookie(&server, &token);
    let behind_tls = server
        .agent
        .post(format!("{}/login", server.url))
        .header("X-Forwarded-Proto", "https")
        .send_form([("token", token.as_str())])
        .unwrap();
    let secure_cookie = behind_tls.headers().get("set-cookie").unwrap().to_str().unwrap();
    assert!(secure_cookie.contains("; Secure"), "behind a TLS proxy: {secure_cookie}");
    let mut me = server.agent.get(format!("{}/me", server.url)).header("Cookie", &cookie).call().unwrap();
    let me = me.body_mut().read_to_string().unwrap();
    assert!(me.contains("Dora") && me.contains("id=\"upload\""), "{me}");

    let (content_type, body) = multipart("bot", "dora.so", &std::fs::read(named_bot("dora", "Dora's bot")).unwrap());
    let from_elsewhere = server
        .agent
        .post(format!("{}/upload", server.url))
        .header("Cookie", &cookie)
        .header("Origin", "http://evil.example")
        .header("Content-Type", &content_type)
        .send(&body[..])
        .unwrap();
    assert_eq!(from_elsewhere.status().as_u16(), 403, "a form from another site is refused");

    let uploaded = server
        .agent
        .post(format!("{}/upload", server.url))
        .header("Cookie", &cookie)
        .header("Origin", server.url.as_str())
        .header("Content-Type", &content_type)
        .send(&body[..])
        .unwrap();
    assert_eq!(uploaded.status().as_u16(), 303);
    let location = uploaded.headers().get("location").unwrap().to_str().unwrap().to_owned();
    let id: i64 = location.strip_prefix("/bots/").unwrap().parse().unwrap();
    server.wait_for_status(&token, id, &["rating", "rated"]);
    let mut page = server.agent.get(format!("{}{location}", server.url)).header("Cookie", &cookie).call().unwrap();
    let page = page.body_mut().read_to_string().unwrap();
    assert!(page.contains("Dora&#39;s bot") || page.contains("Dora's bot"), "{page}");
    assert!(page.contains("Loads: yes") && page.contains("Move times (ms)"), "the check report: {page}");

    // Cookies do not upload through the API (only a bearer token does).
    let api = server
        .agent
        .post(format!("{}/api/bots", server.url))
        .header("Cookie", &cookie)
        .header("Content-Type", &content_type)
        .send(&body[..])
        .unwrap();
    assert_eq!(api.status().as_u16(), 401);

    let (_, board) = server.get("/", None);
    assert!(board.contains("/assets/app.js") && board.contains("id=\"board\""));
    let (code, script) = server.get("/assets/app.js", None);
    assert_eq!(code, 200);
    assert!(script.contains("EventSource"), "served by the binary");
    // A weak sandbox (a layer missing on this machine, allowed by the organiser) is said on every page.
    let weak = othello_arena::seat::require_every_layer(&othello_testkit::runner_command()).is_err();
    assert_eq!(board.contains("id=\"weak-sandbox\""), weak);
    let (_, login) = server.get("/login", None);
    assert_eq!(login.contains("id=\"weak-sandbox\""), weak);
}

#[test]
fn a_page_following_live_changes_does_not_hold_up_the_server_when_it_stops() {
    use std::io::{BufRead, BufReader, Write};
    let mut server = TestServer::start();
    let address = server.url.strip_prefix("http://").unwrap().to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(stream, "GET /api/events HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let running = server.server.take().unwrap();
    let (done, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(running.stop()).unwrap());
    let result = stopped.recv_timeout(crate::DEADLINE).expect("the server stops with an event stream open");
    result.unwrap();
}

#[test]
fn without_every_sandbox_layer_the_server_refuses_to_start_unless_allowed_and_then_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (ladder, _database) = crate::ladder_in(dir.path());
    let mut config = crate::config(dir.path(), &ladder);
    config.seat_options.sandbox = othello_arena::seat::SandboxMode::Off;
    config.allow_weak_sandbox = false;
    let refused = othello_server::Server::start(config).err().expect("refused without --allow-weak-sandbox");
    assert!(refused.contains("--allow-weak-sandbox"), "{refused}");

    let server = TestServer::start_with(|config| config.seat_options.sandbox = othello_arena::seat::SandboxMode::Off);
    for path in ["/", "/login", "/arena"] {
        let (_, page) = server.get(path, None);
        assert!(page.contains("id=\"weak-sandbox\"") && page.contains("Weak sandbox"), "{path}: {page}");
    }
}

/// A replay works without JavaScript: each position is a page of its own (`?ply=N`, the final one
/// by default) with the board drawn by the server, links to step, named for screen readers.
#[test]
fn a_replay_steps_without_javascript() {
    let server = crate::TestServer::start();
    let entrant = server.add_entrant("Yan");
    let id = server.upload_file(&entrant, &crate::named_bot("no-js", "No script"));
    server.wait_for_status(&entrant, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
    let game = games[0]["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    let moves = replay["moves"].as_array().unwrap().len();
    let (status, page) = server.get(&format!("/games/{game}?ply=3"), None);
    assert_eq!(status, 200);
    assert!(page.contains(&format!("3 / {moves}")), "the position's number: {page}");
    let board = &page[page.find("id=\"board-svg\"").unwrap()..];
    let board = &board[..board.find("</svg>").unwrap()];
    assert!(board.matches("<circle").count() >= 4, "the discs drawn by the server: {board}");
    for (control, to) in [("first position", 0), ("previous move", 2), ("next move", 4)] {
        assert!(
            page.contains(&format!("href=\"?ply={to}\" role=\"button\" aria-label=\"{control}\"")),
            "{control}: {page}"
        );
    }
    let (_, last) = server.get(&format!("/games/{game}"), None);
    assert!(last.contains(&format!("{moves} / {moves}")), "the final position by default");
}
