//! The pages in a real browser: headless Chromium driven through chromedriver's WebDriver API
//! (plain HTTP and JSON, so no browser-automation crate is needed). Needs Debian's `chromium`
//! and `chromium-driver` (`.ci/run` installs them).

use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use crate::{DEADLINE, TestServer, agent, named_bot};

/// WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Browser {
    fn start() -> Browser {
        Browser::start_with(json!({}))
    }

    /// A browser that runs no page script (its scripts blocked as a content setting; the test's
    /// own WebDriver scripts still run, to read the page).
    fn without_javascript() -> Browser {
        Browser::start_with(json!({"profile.managed_default_content_settings.javascript": 2}))
    }

    fn start_with(prefs: Value) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("chromedriver cannot start ({e}): install Debian's chromium and chromium-driver (.ci/run does)")
            });
        let base = format!("http://127.0.0.1:{port}");
        let agent = agent();
        let start = Instant::now();
        while agent.get(format!("{base}/status")).call().is_err() {
            assert!(start.elapsed() < DEADLINE, "chromedriver never answered");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"],
                "prefs": prefs
            }
        }}});
        let mut browser = Browser { driver, base, session: String::new(), agent };
        let session = browser.call("POST", "/session", Some(capabilities));
        browser.session = session["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {session}")).to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let mut response = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or(json!({})).to_string().as_bytes()),
        }
        .unwrap();
        let value: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        value["value"].clone()
    }

    fn session_path(&self, path: &str) -> String {
        format!("/session/{}{path}", self.session)
    }

    fn go(&self, url: &str) {
        self.call("POST", &self.session_path("/url"), Some(json!({ "url": url })));
    }

    fn find(&self, css: &str) -> String {
        let found =
            self.call("POST", &self.session_path("/element"), Some(json!({"using": "css selector", "value": css})));
        found[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}: {found}")).to_owned()
    }

    fn click(&self, css: &str) {
        let element = self.find(css);
        self.call("POST", &self.session_path(&format!("/element/{element}/click")), None);
    }

    fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call("POST", &self.session_path(&format!("/element/{element}/value")), Some(json!({ "text": text })));
    }

    fn script(&self, script: &str) -> Value {
        self.call("POST", &self.session_path("/execute/sync"), Some(json!({"script": script, "args": []})))
    }

    fn text(&self) -> String {
        self.script("return document.body.innerText;").as_str().unwrap_or_default().to_owned()
    }

    /// Saves a screenshot of the window as `NAME.png` in the folder `OTHELLO_SCREENSHOTS` names,
    /// if it names one (the book's screenshots are taken so); does nothing otherwise.
    fn screenshot(&self, name: &str) {
        let Some(folder) = std::env::var_os("OTHELLO_SCREENSHOTS") else { return };
        let encoded = self.call("GET", &self.session_path("/screenshot"), None);
        let png =
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, encoded.as_str().expect("a screenshot"))
                .expect("base64");
        std::fs::write(std::path::Path::new(&folder).join(format!("{name}.png")), png).unwrap();
    }

    /// Saves a PNG of the element `css` as `NAME.png` in the tests' folder of the target
    /// directory (for a person to look at, and for the book); returns its path.
    fn element_screenshot(&self, css: &str, name: &str) -> std::path::PathBuf {
        use base64::Engine;
        let element = self.find(css);
        let png = self.call("GET", &self.session_path(&format!("/element/{element}/screenshot")), None);
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Saves the whole page (the window as tall as the page) as `NAME.png` in the folder
    /// `OTHELLO_SCREENSHOTS` names, else in the tests' folder of the target directory.
    fn page_screenshot(&self, name: &str, width: u64) {
        use base64::Engine;
        let height =
            self.script("return Math.min(4000, document.documentElement.scrollHeight);").as_u64().unwrap_or(800);
        self.call("POST", &self.session_path("/window/rect"), Some(json!({"width": width, "height": height.max(400)})));
        let encoded = self.call("GET", &self.session_path("/screenshot"), None);
        let png = base64::engine::general_purpose::STANDARD.decode(encoded.as_str().expect("a screenshot")).unwrap();
        let folder = std::env::var_os("OTHELLO_SCREENSHOTS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("{name}.png")), png).unwrap();
    }

    /// Whether the page scrolls sideways: wider than the window.
    fn sideways(&self) -> Option<String> {
        let wide = self.script(
            "const s = document.scrollingElement; return s.scrollWidth <= window.innerWidth ? '' : \
             s.scrollWidth + ' px in ' + window.innerWidth + ': ' + Array.from(document.querySelectorAll('body *')) \
             .filter(e => e.getBoundingClientRect().right > window.innerWidth).slice(0, 4) \
             .map(e => e.tagName + '#' + e.id + '.' + e.className).join(', ');",
        );
        wide.as_str().filter(|w| !w.is_empty()).map(str::to_owned)
    }

    fn url(&self) -> String {
        self.call("GET", &self.session_path("/url"), None).as_str().unwrap_or_default().to_owned()
    }

    /// Waits until `check` holds in the page, which changes by itself (live updates, reloads).
    fn wait_for(&self, what: &str, check: impl Fn(&Browser) -> bool) {
        let start = Instant::now();
        while !check(self) {
            assert!(start.elapsed() < DEADLINE, "waited {DEADLINE:?} for {what}; the page says:\n{}", self.text());
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[test]
fn in_a_browser_an_entrant_logs_in_uploads_sees_the_report_and_replays_a_game() {
    let server = TestServer::start();
    let token = server.add_entrant("Browser user");
    let browser = Browser::start();

    // The leaderboard, open from the start: it must change by itself when the bot is placed.
    browser.go(&format!("{}/", server.url));
    let rows_before = browser.script("return document.querySelectorAll('#board tbody tr').length;").as_u64().unwrap();

    // The login link fills the form from its #fragment.
    browser.go(&format!("{}/login#token={token}", server.url));
    browser.wait_for("the token in the form", |b| {
        b.script("return document.getElementById('token').value;").as_str() == Some(token.as_str())
    });
    browser.click("#login button");
    browser.wait_for("my bots", |b| b.url().ends_with("/me"));
    assert!(browser.text().contains("Browser user"));

    let bot = named_bot("browser", "Web bot");
    browser.type_into("#upload input[type=file]", bot.to_str().unwrap());
    browser.click("#upload button");
    browser.wait_for("the bot's page", |b| b.url().contains("/bots/"));
    // The page reloads itself as the status moves on: the report, then the placement.
    browser.wait_for("the check report", |b| b.text().contains("Loads: yes"));
    browser.wait_for("the placement's end", |b| {
        b.script("return document.getElementById('status').textContent;").as_str() == Some("rated")
    });
    let text = browser.text();
    assert!(text.contains("Web bot") && text.contains("Move times (ms)"), "{text}");

    // A pair of test games against a bot of the pool, from the bot's page.
    let bot_page = browser.url();
    browser.click("#test-form button");
    browser.wait_for("the bot's page again", |b| b.url().contains("#test-games"));
    browser.wait_for("the two test games, apart from the rated ones", |b| {
        b.script("return document.querySelectorAll('#test-games-list tr.test').length;").as_u64() == Some(2)
    });
    let tests = browser.script("return document.querySelectorAll('#test-games-list tr.test a')[0].textContent;");
    let rated_tests = browser.script("return document.querySelectorAll('#games-list tr.test').length;");
    assert_eq!(rated_tests.as_u64(), Some(0), "the rated games list has no test game");
    assert!(tests.as_str().unwrap().starts_with("test #"), "{tests}");
    browser.go(&bot_page);

    browser.click("#games-list tr:not(.test) a"); // a rated game (test games have pages of their own)
    browser.wait_for("the replay", |b| b.url().contains("/games/"));
    let discs =
        |b: &Browser| b.script("return document.querySelectorAll('#board-svg circle').length;").as_u64().unwrap();
    let ply = |b: &Browser| b.script("return document.getElementById('ply').textContent;").as_str().unwrap().to_owned();
    assert!(ply(&browser).starts_with("0 / "), "{}", ply(&browser));
    let at_start = discs(&browser);
    browser.click("#next");
    assert!(ply(&browser).starts_with("1 / "));
    assert!(discs(&browser) > at_start, "a move adds a disc (and its marker)");
    browser.click("#last");
    browser.click("#prev");
    let total: u64 = ply(&browser).split(" / ").nth(1).unwrap().parse().unwrap();
    assert_eq!(ply(&browser), format!("{} / {total}", total - 1));

    browser.go(&format!("{}/", server.url));
    let rows_now = browser.script("return document.querySelectorAll('#board tbody tr').length;").as_u64().unwrap();
    assert_eq!(rows_now, rows_before + 1, "the bot is on the leaderboard");
    // Live: another entrant's bot appears without a reload.
    let other = server.add_entrant("Other");
    server.upload_file(&other, &named_bot("browser-other", "Other bot"));
    browser.wait_for("the live leaderboard", |b| {
        b.script("return document.querySelectorAll('#board tbody tr').length;").as_u64().unwrap() == rows_now + 1
    });
    assert!(browser.text().contains("Other bot"));

    // The rating-history plot under the table: an SVG image drawn by the server, with a legend
    // (the window made tall enough for the whole page in the screenshot).
    browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": 1200, "height": 1400})));
    browser.wait_for("the history plot", |b| {
        b.script("const p = document.getElementById('history-plot'); return p.complete && p.naturalWidth;").as_u64()
            == Some(960)
    });
    let shot = browser.element_screenshot("#history", "leaderboard-history");
    eprintln!("the leaderboard's history plot: {}", shot.display());
    let shot = browser.element_screenshot("main", "leaderboard");
    eprintln!("the leaderboard: {}", shot.display());

    // The arena screen plays the newest game by itself, with the standings beside it.
    browser.go(&format!("{}/arena", server.url));
    browser.wait_for("the arena's game", |b| {
        b.script("return document.getElementById('arena-players').textContent;").as_str().unwrap_or("").contains(" – ")
    });
    browser.wait_for("moves played on the arena board", |b| {
        !b.script("return document.getElementById('arena-move').textContent;").as_str().unwrap_or("").is_empty()
    });
    assert!(discs(&browser) >= 4);
    browser.wait_for("the arena's standings", |b| b.text().contains("Other bot"));
}

#[test]
fn in_a_browser_the_arena_screen_follows_a_live_game_of_the_final_and_its_standings() {
    // The held bot waits before each move while its gate is closed (the server lets it read it):
    // with a long time a move, its games of the final stand still on the arena screen until the
    // gate opens (when the test ends, whatever happens: dropping the gate opens it).
    let (held, gate) = othello_testkit::Gate::bot("arena-held", "Held");
    let server = TestServer::start_with(|config| config.seat_options = gate.seat_options());
    let mut uploads = Vec::new();
    for (entrant, library) in [
        ("Ann", named_bot("arena-ann", "Ann's bot")),
        ("Ben", crate::compile_test_bot("crashes_always", server.dir.path())),
        ("Max", held),
    ] {
        let token = server.add_entrant(entrant);
        let name = library.file_name().unwrap().to_string_lossy().into_owned();
        let (code, json) = server.upload(Some(&token), &name, &std::fs::read(&library).unwrap());
        assert_eq!(code, 201, "{json}");
        uploads.push((token, json));
    }
    for (token, json) in &uploads {
        server.wait_for_status(token, json["id"].as_i64().unwrap(), &["rated"]);
    }
    gate.close();
    let browser = Browser::start();
    browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": 1600, "height": 1000})));
    // The organiser logs in from the link `admin-token` prints and starts the final on the page.
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    browser.go(&format!("{}/admin/login#token={admin}", server.url));
    browser.wait_for("the token in the form", |b| {
        b.script("return document.getElementById('token').value;").as_str() == Some(admin.as_str())
    });
    browser.click("#admin-login button");
    browser.wait_for("the organiser's page", |b| b.url().ends_with("/admin"));
    browser.script(
        "document.querySelector('#start-final [name=games_per_pair]').value = '2';
         document.querySelector('#start-final [name=time_ms]').value = '600000';",
    );
    browser.screenshot("contest-admin");
    browser.click("#start-final button");
    browser.wait_for("the final's page", |b| b.url().ends_with("/final"));
    assert!(browser.text().contains("Round robin, 2 games a pairing"), "{}", browser.text());

    browser.go(&format!("{}/arena", server.url));
    let text_of = |b: &Browser, id: &str| {
        b.script(&format!("return document.getElementById('{id}').textContent;")).as_str().unwrap_or("").to_owned()
    };
    let start = Instant::now();
    while !(text_of(&browser, "arena-title").starts_with("Final")
        && text_of(&browser, "arena-players").contains("Held"))
    {
        assert!(
            start.elapsed() < DEADLINE,
            "no live game of the final on the arena screen: title {:?}, players {:?}; /api/live: {}",
            text_of(&browser, "arena-title"),
            text_of(&browser, "arena-players"),
            server.get("/api/live", None).1
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    browser.wait_for("the final's standings beside it", |b| {
        text_of(b, "arena-standings-title").starts_with("Final") && text_of(b, "arena-standings").contains("Ann's bot")
    });
    let board = |b: &Browser| {
        b.script("return document.getElementById('board-svg').dataset.board;").as_str().unwrap_or("").to_owned()
    };
    let held_board = board(&browser);
    assert_eq!(held_board.len(), 66, "a board string: {held_board:?}");
    assert!(text_of(&browser, "arena-clocks").contains("600 s a move"), "{}", text_of(&browser, "arena-clocks"));
    browser.screenshot("contest-arena");

    gate.open();
    browser.wait_for("the live board moving on", |b| board(b) != held_board);
    let (code, _) = server.get_json("/api/final", None);
    assert_eq!(code, 200);
    server.wait_for_final();
    // The winner stays on the screen after the final.
    browser.wait_for("the final's winner after it ended", |b| {
        text_of(b, "arena-standings-title").ends_with("finished") && text_of(b, "arena-winner").starts_with("Winner: ")
    });

    browser.go(&format!("{}/final", server.url));
    browser.wait_for("the final's results", |b| b.text().contains("6 of 6 games played"));
    let rows =
        browser.script("return document.querySelectorAll('#final-standings tbody tr').length;").as_u64().unwrap();
    assert_eq!(rows, 3);
    let crasher = browser.script("return document.querySelector('#final-standings tbody tr:last-child').textContent;");
    assert!(crasher.as_str().unwrap().contains("Crasher"), "the bot that crashes every game is last: {crasher}");
    browser.screenshot("contest-final");
    browser.click("#final-games a");
    browser.wait_for("a game of the final replayed", |b| b.url().contains("/games/"));

    // A knockout of the same three: the bracket, the best seed's bye, the winner in bold.
    othello_server::start_final(
        &server.ladder(),
        othello_server::final_round::FinalOptions {
            format: othello_server::final_round::Format::Knockout,
            games_per_pair: 2,
            time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
            seed: 4,
        },
    )
    .unwrap();
    server.wait_for_final();
    browser.go(&format!("{}/final", server.url));
    let matches = browser.script("return document.querySelectorAll('#final-bracket .match').length;").as_u64().unwrap();
    assert_eq!(matches, 3, "two matches in the first round (one a bye), then the last");
    let bye = browser.script("return document.querySelector('#final-bracket .match').textContent;");
    assert!(bye.as_str().unwrap().contains("(bye)"), "{bye}");
    let champion =
        browser.script("return document.querySelector('#final-bracket .round:last-child .winner').textContent;");
    let first = browser.script("return document.querySelector('#final-standings tbody td.name').textContent;");
    assert!(
        champion.as_str().unwrap().contains(first.as_str().unwrap()),
        "the winner of the last match ranks first: {champion} {first}"
    );
    browser.screenshot("contest-final-knockout");
}

/// Every page fits a 390 px phone without sideways scrolling (and a 1280×800 screen), screenshots
/// of each at both sizes in the tests' folder of the target directory.
#[test]
fn in_a_browser_every_page_fits_a_phone_without_sideways_scrolling() {
    let server = TestServer::start();
    let token = server.add_entrant("Phone user with a rather long name");
    let id = server.upload_file(&token, &named_bot("phone", "A bot with a long name of forty chars"));
    server.wait_for_status(&token, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&token));
    let game = games[0]["id"].as_i64().unwrap();
    let browser = Browser::start();
    let pages = [
        ("leaderboard", "/".to_owned()),
        ("starter", "/starter".to_owned()),
        ("login", "/login".to_owned()),
        ("replay", format!("/games/{game}")),
        ("final", "/final".to_owned()),
        ("arena", "/arena".to_owned()),
        ("workers", "/workers".to_owned()),
        ("not-found", "/no/such/page".to_owned()),
        ("me", "/me".to_owned()),
        ("bot", format!("/bots/{id}")),
    ];
    let mut too_wide = Vec::new();
    for (width, height) in [(390, 844), (1280, 800)] {
        browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": width, "height": height})));
        browser.go(&format!("{}/login#token={token}", server.url));
        browser.wait_for("the token in the form", |b| {
            b.script("return document.getElementById('token').value;").as_str() == Some(token.as_str())
        });
        browser.click("#login button");
        browser.wait_for("my bots", |b| b.url().ends_with("/me"));
        for (name, path) in &pages {
            browser.go(&format!("{}{path}", server.url));
            // A live page (the arena) lays itself out again as its game comes in: it is measured
            // until it settles, a few times at most.
            let measure = || {
                (
                    browser.script("return document.documentElement.scrollWidth;").as_u64().unwrap(),
                    browser.script("return document.documentElement.clientWidth;").as_u64().unwrap(),
                )
            };
            let (mut page, mut view) = measure();
            for _ in 0..20 {
                if page <= view {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
                (page, view) = measure();
            }
            if page > view {
                let culprits = browser.script(
                    "return Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth).slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ');",
                );
                too_wide.push(format!("{name} at {width}: {page} px in {view} ({culprits})"));
            }
            browser.element_screenshot("body", &format!("{name}-{width}"));
        }
    }
    assert!(too_wide.is_empty(), "pages wider than the screen: {too_wide:?}");
}

/// `/final` opened before any final shows the final as soon as the organiser starts it, without
/// a reload by hand.
#[test]
fn in_a_browser_the_final_page_follows_a_final_started_after_it_was_opened() {
    let server = TestServer::start();
    let (alice, bob) = (server.add_entrant("Alice"), server.add_entrant("Bob"));
    for (token, tag, name) in [(&alice, "final-live-a", "Ay"), (&bob, "final-live-b", "Bee")] {
        let id = server.upload_file(token, &named_bot(tag, name));
        server.wait_for_status(token, id, &["rated"]);
    }
    let browser = Browser::start();
    browser.go(&format!("{}/final", server.url));
    browser.wait_for("the page without a final", |b| b.text().contains("No final has been started yet"));
    let options = othello_server::final_round::FinalOptions {
        format: othello_server::final_round::Format::RoundRobin,
        games_per_pair: 2,
        time_limit: Some(othello_testkit::TEST_TIME_LIMIT),
        seed: 1,
    };
    othello_server::start_final(&server.ladder(), options).unwrap();
    browser.wait_for("the final's standings", |b| b.text().contains("Ay") && b.text().contains("Bee"));
    server.wait_for_final();
    browser.wait_for("the finished final", |b| b.text().contains("finished") || b.text().contains("Winner"));
}

/// Issue 46's class contest, as a teacher and three students would go through it: a fresh server,
/// the class added from a list file on the organiser's page, three uploads (two of the same
/// file), a version reverted, a final run and exported; every page checked at 1280×800 and
/// 390×844 without sideways scrolling, and a replay stepped with JavaScript off.
#[test]
fn in_a_browser_a_class_contest_from_the_first_start_to_the_exported_final() {
    let server = TestServer::start();
    let browser = Browser::start();
    browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": 1280, "height": 800})));

    // The teacher: the organiser's page, the class from a list file (one name a line).
    let admin = othello_server::admin::admin_token(&server.ladder()).unwrap();
    browser.go(&format!("{}/admin/login#token={admin}", server.url));
    browser.wait_for("the token in the form", |b| {
        b.script("return document.getElementById('token').value;").as_str() == Some(admin.as_str())
    });
    browser.click("#admin-login button");
    browser.wait_for("the organiser's page", |b| b.url().ends_with("/admin"));
    let list = server.dir.path().join("class.txt");
    std::fs::write(&list, "Alice\nBob\n\nCarol\n").unwrap();
    browser.type_into("#add-entrants input[type=file]", list.to_str().unwrap());
    browser.click("#add-entrants button");
    browser.wait_for("the tokens of the class", |b| b.text().contains("Entrants just added"));
    let tokens = browser.script(
        "return Array.from(document.querySelectorAll('#added-tokens tbody tr')).map(r => [r.cells[0].textContent, r.cells[1].textContent]);",
    );
    let tokens: Vec<(String, String)> = tokens
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| (pair[0].as_str().unwrap().to_owned(), pair[1].as_str().unwrap().to_owned()))
        .collect();
    let names: Vec<&str> = tokens.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["Alice", "Bob", "Carol"], "one entrant a line, the empty line skipped");
    let token_of = |name: &str| tokens.iter().find(|(n, _)| n == name).unwrap().1.clone();
    let download = browser.script("return document.getElementById('tokens-download').getAttribute('href');");
    let download = download.as_str().unwrap();
    assert!(download.starts_with("data:text/csv") && download.contains(&token_of("Carol")), "{download}");
    let admin_page = format!("{}/admin", server.url);

    // Students log in from their links and upload from /me.
    let log_in = |name: &str| {
        browser.go(&format!("{}/login#token={}", server.url, token_of(name)));
        browser.wait_for("the token in the form", |b| {
            b.script("return document.getElementById('token').value;").as_str() == Some(token_of(name).as_str())
        });
        browser.click("#login button");
        browser.wait_for("my bots", |b| b.url().ends_with("/me"));
    };
    let upload = |file: &std::path::Path| {
        browser.type_into("#upload input[type=file]", file.to_str().unwrap());
        browser.click("#upload button");
    };
    let bot_id = |b: &Browser| -> i64 {
        b.script("return document.getElementById('bot').dataset.id;").as_str().unwrap().parse().unwrap()
    };
    let wait_rated = |b: &Browser| {
        b.wait_for("the placement's end", |b| {
            b.script("return document.getElementById('status').textContent;").as_str() == Some("rated")
        })
    };
    // Alice and Bob compiled the same file: Bob's copy is refused, naming whose it is.
    let greedy = named_bot("class-greedy", "Greedy");
    log_in("Alice");
    upload(&greedy);
    browser.wait_for("Alice's bot page", |b| b.url().contains("/bots/"));
    wait_rated(&browser);
    log_in("Bob");
    upload(&greedy);
    browser.wait_for("Bob told his file is a copy", |b| {
        b.script("return (document.getElementById('upload-error') || {}).textContent || '';")
            .as_str()
            .is_some_and(|t| t.contains("Alice"))
    });
    let versions = browser.script("return document.querySelectorAll('#versions tbody tr').length;");
    assert_eq!(versions.as_u64().unwrap_or(0), 0, "a refused upload gets no version");

    // Carol: a first version, a second that crashes every game, and back to the first.
    log_in("Carol");
    let corner = named_bot("class-corner", "Corner");
    upload(&corner);
    browser.wait_for("Carol's first version", |b| b.url().contains("/bots/"));
    wait_rated(&browser);
    let first = bot_id(&browser);
    browser.go(&format!("{}/me", server.url));
    upload(&crate::compile_test_bot("crashes_always", server.dir.path()));
    browser.wait_for("Carol's second version", |b| b.url().contains("/bots/") && bot_id(b) != first);
    wait_rated(&browser);
    browser.go(&format!("{}/me", server.url));
    upload(&corner); // the same file as her first version
    browser.wait_for("the notice of the same file", |b| b.text().contains("You uploaded this same file before"));
    assert_eq!(bot_id(&browser), first);
    assert!(browser.text().contains("It is your version v1"), "{}", browser.text());
    browser.click("#uploaded-again button");
    browser.wait_for("/me", |b| b.url().ends_with("/me"));
    let current = browser.script("return document.querySelector('#versions tr.current td:nth-child(2)').textContent;");
    assert!(current.as_str().unwrap().starts_with("v1"), "the first version counts again: {current}");

    // The leaderboard: Carol's rows highlighted, names linking to public pages.
    browser.go(&format!("{}/", server.url));
    let mine = browser
        .script("return Array.from(document.querySelectorAll('#board tr.mine')).map(r => r.textContent).join('|');");
    assert!(mine.as_str().unwrap().contains("Carol") && !mine.as_str().unwrap().contains("Alice"), "{mine}");
    browser.click("#board tr.mine td.name a");
    browser.wait_for("the public page of Carol's bot", |b| b.url().contains("/entries/"));
    let public_page = browser.url();
    assert!(browser.text().contains("95 % interval"), "± is said once, the same way: {}", browser.text());
    browser.click("#games-list tbody a");
    browser.wait_for("a replay", |b| b.url().contains("/games/"));
    let replay_page = browser.url();
    let outcome = browser.script("return document.getElementById('outcome').textContent;");
    let outcome = outcome.as_str().unwrap();
    assert!(
        ["Black wins ", "White wins ", "Draw "].iter().any(|w| outcome.starts_with(w)),
        "the result winner first: {outcome}"
    );

    // The teacher runs the final from the organiser's page and exports it.
    browser.go(&admin_page);
    browser.script("document.querySelector('#start-final [name=games_per_pair]').value = '2';");
    browser.click("#start-final button");
    browser.wait_for("the final's page", |b| b.url().ends_with("/final"));
    let view = server.wait_for_final();
    let finalists: Vec<&str> = view["bots"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert!(finalists.contains(&"Corner") && finalists.contains(&"Greedy"), "the chosen version plays: {finalists:?}");
    assert!(!finalists.iter().any(|n| n.contains("Crash")), "not Carol's newest: {finalists:?}");
    browser.wait_for("the final's results", |b| b.text().contains("finished") || b.text().contains("Winner"));
    let (code, export) = server.get("/admin/export/final.html", Some(&admin));
    assert_eq!(code, 200, "{export}");
    assert!(
        export.contains("Corner") && export.contains("Greedy") && !export.contains("<script"),
        "a file that needs no server"
    );
    assert!(!export.contains("resigned"), "how games ended, as the ladder recorded it");
    let link = browser.script("return document.querySelector('a[href=\"/admin/export/final.html\"]') === null;");
    assert_eq!(link.as_bool(), Some(true), "the export link is on the organiser's page, not the public one");
    browser.go(&admin_page);
    assert!(browser.script("return document.getElementById('export-final') !== null;").as_bool().unwrap());

    // Every page of the contest at both sizes, with no sideways scroll (and a screenshot each).
    log_in("Carol");
    let pages = [
        ("leaderboard", format!("{}/", server.url)),
        ("me", format!("{}/me", server.url)),
        ("bot", format!("{}/bots/{first}", server.url)),
        ("bot-again", format!("{}/bots/{first}?again=1", server.url)),
        ("public-bot", public_page.clone()),
        ("replay", replay_page.clone()),
        ("final", format!("{}/final", server.url)),
        ("admin", admin_page.clone()),
        ("starter", format!("{}/starter", server.url)),
    ];
    let mut too_wide = Vec::new();
    for (width, height) in [(1280u64, 800u64), (390, 844)] {
        for (name, url) in &pages {
            browser.call(
                "POST",
                &browser.session_path("/window/rect"),
                Some(json!({"width": width, "height": height})),
            );
            browser.go(url);
            if let Some(wide) = browser.sideways() {
                too_wide.push(format!("{name} at {width}×{height}: {wide}"));
            }
            browser.page_screenshot(&format!("{name}-{width}"), width);
        }
    }
    assert!(too_wide.is_empty(), "pages that scroll sideways: {too_wide:?}");

    // The arena screen on a projector (1280×800) after the final: its standings whole, the
    // winner shown (the script on).
    let winner = view["standings"][0]["name"].as_str().unwrap().to_owned();
    let arena_checks = |b: &Browser, how: &str| {
        b.wait_for("the final's winner on the arena screen", |b| {
            b.script("return (document.getElementById('arena-winner') || {}).textContent || '';")
                .as_str()
                .is_some_and(|t| t.contains(&winner))
        });
        let cut = b.script(
            "const r = document.getElementById('arena-side').getBoundingClientRect(); \
             const t = document.getElementById('arena-standings'); \
             return r.bottom > window.innerHeight || r.right > window.innerWidth || t.scrollWidth > t.clientWidth \
               ? r.bottom + ' × ' + r.right + ' in ' + window.innerHeight + ' × ' + window.innerWidth : '';",
        );
        assert_eq!(cut.as_str(), Some(""), "the arena's standings cut at 1280×800 ({how})");
        let rows = b.script("return document.querySelectorAll('#arena-standings tbody tr').length;").as_u64();
        assert_eq!(rows, Some(view["bots"].as_array().unwrap().len() as u64), "every finalist ({how})");
    };
    browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": 1280, "height": 800})));
    browser.go(&format!("{}/arena", server.url));
    arena_checks(&browser, "with JavaScript");
    browser.screenshot("arena-final-1280");
    browser.element_screenshot("body", "arena-final-1280");

    // A replay with JavaScript off: the server draws each position, the controls are links.
    let plain = Browser::without_javascript();
    plain.call("POST", &plain.session_path("/window/rect"), Some(json!({"width": 390, "height": 844})));
    let discs =
        |b: &Browser| b.script("return document.querySelectorAll('#board-svg circle').length;").as_u64().unwrap();
    plain.go(&format!("{replay_page}?ply=0"));
    let at_start = discs(&plain);
    plain.go(&format!("{replay_page}?ply=3"));
    let ply = plain.script("return document.getElementById('ply').textContent;");
    assert!(ply.as_str().unwrap().starts_with("3 / "), "{ply}");
    let links = plain.script("return document.querySelectorAll('#moves li a').length;").as_u64().unwrap();
    assert!(links > 3, "no script ran: the server's list of links is there ({links})");
    assert!(discs(&plain) > at_start, "the server drew the position after three moves");
    let names = plain.script(
        "return Array.from(document.querySelectorAll('nav.controls a')).map(a => a.getAttribute('aria-label')).join(',');",
    );
    assert_eq!(names.as_str().unwrap(), "first position,previous move,next move,last position");
    plain.click("#next");
    plain.wait_for("the next position's page", |b| b.url().ends_with("ply=4"));
    assert!(plain.script("return document.getElementById('ply').textContent;").as_str().unwrap().starts_with("4 / "));
    assert_eq!(plain.sideways(), None);
    plain.page_screenshot("replay-no-js-390", 390);

    // The arena screen with JavaScript off: the server draws the game (the newest, its last
    // position), its players, and the final's standings with its winner; the page reloads itself.
    plain.call("POST", &plain.session_path("/window/rect"), Some(json!({"width": 1280, "height": 800})));
    plain.go(&format!("{}/arena", server.url));
    let text_of = |b: &Browser, id: &str| {
        b.script(&format!("return document.getElementById('{id}').textContent;")).as_str().unwrap_or("").to_owned()
    };
    assert!(text_of(&plain, "arena-players").contains(" – "), "the players: {}", plain.text());
    assert!(!text_of(&plain, "arena-move").is_empty(), "the last move or the result: {}", plain.text());
    assert!(discs(&plain) >= 4, "the board, drawn by the server");
    let refresh = plain.script("return document.querySelector('noscript') !== null;");
    assert_eq!(refresh.as_bool(), Some(true), "the page reloads itself without a script");
    arena_checks(&plain, "without JavaScript");
    assert_eq!(plain.sideways(), None);
    plain.page_screenshot("arena-no-js-1280", 1280);
    plain.call("POST", &plain.session_path("/window/rect"), Some(json!({"width": 390, "height": 844})));
    plain.go(&format!("{}/arena", server.url));
    assert_eq!(plain.sideways(), None, "the arena screen on a phone");
    plain.page_screenshot("arena-no-js-390", 390);
}

/// `/me` updates live: the event stream brings the change of one's own bot (its status, then its
/// rating) into the open page, without a reload. The bot is held before each move until the page
/// is open, so the change comes after it was drawn.
#[test]
fn in_a_browser_my_bots_page_follows_my_bot_live_without_a_reload() {
    let (held, gate) = othello_testkit::Gate::bot("me-live", "Slow starter");
    gate.close();
    let server = TestServer::start_with(|config| {
        config.seat_options = gate.seat_options();
        config.time_limit = Some(std::time::Duration::from_secs(600));
    });
    let token = server.add_entrant("Dana");
    let id = server.upload_file(&token, &held);
    let browser = Browser::start();
    browser.go(&format!("{}/login#token={token}", server.url));
    browser.wait_for("the token in the form", |b| {
        b.script("return document.getElementById('token').value;").as_str() == Some(token.as_str())
    });
    browser.click("#login button");
    browser.wait_for("my bots", |b| b.url().ends_with("/me"));
    // Its status and rating cells on the page.
    let cells = |b: &Browser| -> (String, String) {
        let value = b.script(&format!(
            "const a = document.querySelector('#versions a[href=\"/bots/{id}\"]'); \
             if (!a) return ['', '']; const c = a.closest('tr').cells; return [c[5].textContent, c[6].textContent];"
        ));
        (value[0].as_str().unwrap_or_default().to_owned(), value[1].as_str().unwrap_or_default().to_owned())
    };
    let (status, _) = cells(&browser);
    assert!(["queued", "checking"].contains(&status.as_str()), "held at its check: {status:?}");
    // A mark a reload would wipe out.
    browser.script("window.notReloaded = true;");
    gate.open();
    browser.wait_for("my bot rated on the open page", |b| cells(b).0 == "rated");
    let rated = server.wait_for_status(&token, id, &["rated"]);
    browser.wait_for("its rating as the API says", |b| cells(b).1 == rated["rating_text"].as_str().unwrap());
    assert_eq!(browser.script("return window.notReloaded === true;").as_bool(), Some(true), "no reload");
}

/// Sets the window to `width`×`height`, saves it as `NAME.png` (the tests' screenshots folder,
/// or `OTHELLO_SCREENSHOTS`) and says whether the page then scrolls sideways.
fn window_shot(browser: &Browser, name: &str, width: u64, height: u64) -> Option<String> {
    use base64::Engine;
    browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": width, "height": height})));
    let encoded = browser.call("GET", &browser.session_path("/screenshot"), None);
    let png = base64::engine::general_purpose::STANDARD.decode(encoded.as_str().expect("a screenshot")).unwrap();
    let folder = std::env::var_os("OTHELLO_SCREENSHOTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{name}.png")), png).unwrap();
    browser.sideways()
}

#[test]
fn in_a_browser_a_visitor_plays_a_wasm_bot_and_re_computes_a_game_between_modules() {
    // A contest of WebAssembly bots: the pool and the entry are the fixtures' searcher (its
    // depth decided by its virtual clock), built from C here.
    let (Some(pool), Some(entry)) = (
        othello_testkit::wasm_fixture("searcher", "browser-pool", &[("USE_PERCENT", "50".to_owned())]),
        othello_testkit::wasm_fixture("searcher", "browser-entry", &[("USE_PERCENT", "70".to_owned())]),
    ) else {
        return;
    };
    let pool_identity = othello_ladder::identity::library_identity(&pool, "Pool searcher", None).unwrap();
    let server = TestServer::start_with(|config| {
        config.require_wasm = true;
        config.seed_pool = vec![pool_identity];
        config.max_upload_bytes = 4 << 20;
        config.time_limit = Some(std::time::Duration::from_millis(10));
    });
    let token = server.add_entrant("Wasm player");
    let (status, accepted) = server.upload(Some(&token), "searcher.wasm", &std::fs::read(&entry).unwrap());
    assert_eq!(status, 201, "{accepted}");
    let id = accepted["id"].as_i64().unwrap();
    server.wait_for_status(&token, id, &["rated"]);
    let (_, board) = server.get_json("/api/leaderboard", None);
    let rows = board.as_array().cloned().or_else(|| board["rows"].as_array().cloned()).unwrap_or_default();
    let row = rows.iter().find(|row| row["entrant"] == "Wasm player").unwrap_or_else(|| panic!("{board}"));
    let entry_id = row["entry"].as_i64().unwrap_or_else(|| panic!("{row}"));

    // The bot's public page offers a game; the metered module is served as WebAssembly.
    let (status, page) = server.get(&format!("/entries/{entry_id}"), None);
    assert_eq!(status, 200);
    assert!(page.contains(&format!("/entries/{entry_id}/play")), "{page}");
    let mut module = agent().get(format!("{}/entries/{entry_id}/bot.wasm", server.url)).call().unwrap();
    assert_eq!(module.headers().get("content-type").unwrap(), "application/wasm");
    let bytes = module.body_mut().with_config().limit(16 << 20).read_to_vec().unwrap();
    assert!(bytes.starts_with(b"\0asm"), "a module");

    // A whole game in the page: the visitor clicks a legal square each turn, the bot answers.
    let browser = Browser::start();
    browser.go(&format!("{}/entries/{entry_id}/play", server.url));
    browser.wait_for("the bot loaded", |b| {
        b.script("return document.getElementById('play-start').disabled;").as_bool() == Some(false)
    });
    browser.click("#play-start");
    let mut clicks = 0;
    loop {
        browser.wait_for("the visitor's turn or the game's end", |b| {
            b.script(
                "return document.getElementById('play').dataset.state === 'over' || \
                 document.querySelector('#play-board rect[id^=sq-]') !== null;",
            )
            .as_bool()
                == Some(true)
        });
        if browser.script("return document.getElementById('play').dataset.state;").as_str() == Some("over") {
            break;
        }
        if clicks == 2 {
            assert_eq!(window_shot(&browser, "wasm-play-1280x800", 1280, 800), None, "no sideways scroll");
            assert_eq!(window_shot(&browser, "wasm-play-390x844", 390, 844), None, "no sideways scroll on a phone");
            browser.call("POST", &browser.session_path("/window/rect"), Some(json!({"width": 1200, "height": 900})));
        }
        browser.script("document.querySelector('#play-board rect[id^=sq-]').dispatchEvent(new MouseEvent('click'));");
        clicks += 1;
        assert!(clicks <= 40, "a game has at most 32 moves of the visitor's");
    }
    let status = browser.script("return document.getElementById('play-status').textContent;");
    let status = status.as_str().unwrap_or_default().to_owned();
    assert!(status.starts_with("Game over"), "the game ends normally: {status}");
    let moves = browser.script("return document.querySelectorAll('#play-moves li').length;").as_u64().unwrap();
    assert!(moves >= 20 && clicks >= 10, "a whole game: {moves} moves, {clicks} clicks");
    let bot_moves = browser.script(
        "return Array.from(document.querySelectorAll('#play-moves li')).filter(li => li.textContent.startsWith('bot: ')).length;",
    );
    assert!(bot_moves.as_u64().unwrap() >= 10, "the bot answered");
    window_shot(&browser, "wasm-play-over-1280x800", 1280, 800);

    // A rated game between the two modules, re-computed in the page: every move matches.
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&token));
    let game = games
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] != "test")
        .and_then(|g| g["id"].as_i64())
        .unwrap_or_else(|| panic!("a rated game: {games}"));
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    assert!(replay["wasm"]["black"]["module"].as_str().is_some(), "the replay names both modules: {replay}");
    browser.go(&format!("{}/games/{game}", server.url));
    browser.click("#recompute");
    browser.wait_for("the re-computation's verdict", |b| {
        b.script("const s = document.getElementById('recompute-result').dataset.state; return s && s !== 'running';")
            .as_bool()
            == Some(true)
    });
    let verdict = browser.script("return document.getElementById('recompute-result').textContent;");
    let verdict = verdict.as_str().unwrap_or_default().to_owned();
    assert!(verdict.starts_with("Every move matches"), "{verdict}");
    assert_eq!(window_shot(&browser, "wasm-recompute-1280x800", 1280, 800), None);
    assert_eq!(window_shot(&browser, "wasm-recompute-390x844", 390, 844), None);
}
