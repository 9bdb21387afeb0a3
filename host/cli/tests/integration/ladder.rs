//! `othello rate` and `othello ladder`, run as a user would, on small ladders of C test bots.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use othello_testkit::{fixture, random_bot};
use serde_json::Value;

fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

/// Compiles `tests/ladder_bots/NAME.c` into `DIR/plugins/libNAME.so`.
fn compile_ladder_bot(dir: &Path, name: &str) -> PathBuf {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ladder_bots");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/include");
    let out = dir.join("plugins").join(format!("lib{name}.so"));
    let status = Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", "-w", "-I"])
        .arg(&include)
        .arg("-I")
        .arg(&sources)
        .arg(sources.join(format!("{name}.c")))
        .arg("-o")
        .arg(&out)
        .status()
        .expect("the C compiler `cc` runs");
    assert!(status.success(), "compiling {name}.c failed");
    out
}

/// A scratch folder with `plugins/` holding the C random bot (the pool's anchor), `first_legal`,
/// the two table bots and the given testkit fixtures.
fn workspace(fixtures: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    for source in [random_bot(), fixture("first_legal")].into_iter().chain(fixtures.iter().map(|f| fixture(f))) {
        std::fs::copy(&source, plugins.join(source.file_name().unwrap())).unwrap();
    }
    compile_ladder_bot(dir.path(), "corners");
    compile_ladder_bot(dir.path(), "gifts");
    dir
}

/// Options every run gets: the ladder in the scratch folder and a short time per move.
fn othello(dir: &Path, args: &[&str]) -> Output {
    Command::new(othello_exe())
        .current_dir(dir)
        .args(args)
        .args(["--ladder", "ladder.sqlite3", "--time-ms", "200"])
        .env("XDG_DATA_HOME", dir.join("data")) // never the user's own ladder
        // The random anchor replays the same moves: the ratings the tests compare are then the
        // same on every run, not a draw that a rare unlucky clock seed turns over.
        .env("OTHELLO_SEED", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn rows(dir: &Path) -> Vec<Value> {
    stdout(&othello(dir, &["ladder", "--json"])).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("{name} not in {rows:?}"))
}

/// Seeds a pool of the C random bot (the anchor) and `first_legal`.
fn seed(dir: &Path) {
    let text = stdout(&othello(dir, &["ladder", "--seed-pool", "random_c", "first_legal", "--in-process"]));
    assert!(text.contains("Random (C)") && text.contains("anchor"), "{text}");
}

#[test]
fn rate_places_a_strong_and_a_weak_bot_in_the_right_order_and_the_ladder_shows_them() {
    let dir = workspace(&[]);
    seed(dir.path());
    for bot in ["corners", "gifts"] {
        let text = stdout(&othello(dir.path(), &["rate", bot, "--in-process", "--max-games", "24", "--seed", "5"]));
        // A line per pair of games (not a terminal), then the placement and the table.
        assert!(text.lines().any(|l| l.starts_with("2 games ") && l.contains("rating")), "{text}");
        assert!(text.contains("24 games this session") && text.contains("rank "), "{text}");
    }
    let rows = rows(dir.path());
    let rank = |name| row(&rows, name)["rank"].as_u64().unwrap();
    assert!(rank("Corners") < rank("Random (C)"), "{rows:?}");
    assert!(rank("Random (C)") < rank("Gifts"), "{rows:?}");
    assert_eq!(row(&rows, "Random (C)")["rating"], 0.0, "the anchor");
    assert_eq!(row(&rows, "Random (C)")["anchor"], true);
    for name in ["Corners", "Gifts"] {
        let r = row(&rows, name);
        // Corners may also have been an opponent of Gifts.
        assert!(r["games"].as_u64().unwrap() >= 24, "{r}");
        assert_eq!(r["version"], 1);
        assert!(r["error"].as_f64().unwrap() > 0.0);
        // Both intervals: among its opponents (their ratings held), and from the anchor.
        let placed = r["placement_error"].as_f64().unwrap();
        assert!(placed > 0.0 && placed <= r["error"].as_f64().unwrap() + 1e-9, "{r}");
        assert_eq!(r["failing"], false);
    }
    assert!(row(&rows, "Corners")["rating"].as_f64().unwrap() > 100.0, "{rows:?}");
    assert!(row(&rows, "Gifts")["rating"].as_f64().unwrap() < -100.0, "{rows:?}");

    // The text table and the web page show the same ladder, both intervals labelled, in the one
    // Elo format; Gifts, rated last, is marked.
    let table = stdout(&othello(dir.path(), &["ladder"]));
    assert!(table.contains("rating ± from anchor") && table.contains("± among opp."), "{table}");
    assert!(table.lines().any(|l| l.contains("Random (C)") && l.contains("+0.0 (anchor)")), "{table}");
    assert!(table.lines().any(|l| l.contains("Gifts") && l.contains("(rated last)") && l.contains(" ± ")), "{table}");
    let order: Vec<usize> = ["Corners", "Random (C)", "Gifts"].iter().map(|n| table.find(n).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{table}");
    let html = dir.path().join("page");
    othello(dir.path(), &["ladder", "--html", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("<svg") && page.contains("<polyline") && page.contains("Corners v1"), "{page}");
    let highlighted: Vec<&str> = page.lines().filter(|l| l.starts_with("<tr class=\"latest\">")).collect();
    assert!(highlighted.len() == 1 && highlighted[0].contains(">Gifts<"), "Gifts highlighted: {page}");
    assert!(page.contains("Rating ± from the anchor") && page.contains("± among its opponents"), "{page}");
    assert!(!page.contains("<script"), "no script needed");

    // Its games, as GGF.
    let ggf = stdout(&othello(dir.path(), &["ladder", "--games", "gifts"]));
    assert_eq!(ggf.lines().count() as u64, row(&rows, "Gifts")["games"].as_u64().unwrap());
    assert!(ggf.lines().all(|l| l.starts_with("(;GM[Othello]") && l.contains("Gifts")), "{ggf}");
    assert!(!othello(dir.path(), &["ladder", "--games", "nobody"]).status.success());

    // A rebuilt bot is a second version beside the first; a bot rated twice stays one entry.
    let corners = dir.path().join("plugins/libcorners.so");
    let mut bytes = std::fs::read(&corners).unwrap();
    bytes.extend_from_slice(b"rebuilt");
    std::fs::write(&corners, bytes).unwrap();
    stdout(&othello(dir.path(), &["rate", "corners", "--in-process", "--max-games", "4"]));
    let rows = self::rows(dir.path());
    let versions: Vec<u64> =
        rows.iter().filter(|r| r["name"] == "Corners").map(|r| r["version"].as_u64().unwrap()).collect();
    assert_eq!(versions.len(), 2, "{rows:?}");
    assert!(versions.contains(&1) && versions.contains(&2));
}

#[test]
fn a_bot_that_cannot_load_is_rated_at_the_bottom_with_its_failures() {
    let dir = workspace(&["missing_think"]);
    seed(dir.path());
    let output = othello(dir.path(), &["rate", "missing_think", "--max-games", "20", "--sandbox", "off"]);
    let text = stdout(&output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot play"));
    assert!(text.contains("lost every game by a failure"), "{text}");
    // The reasons, not only their count.
    let reasons = text.split("Games lost by a failure this session:").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(reasons.lines().nth(1).is_some_and(|l| l.contains(" × load-error: ") && l.contains("think")), "{text}");
    let rows = rows(dir.path());
    let broken = row(&rows, "missing_think");
    assert_eq!(broken["games"], broken["failures"]);
    assert!(broken["failures"].as_u64().unwrap() >= 4);
    // At the bottom, below the anchor, with a rank but no rating, whoever it met.
    assert_eq!(rows.last().unwrap()["name"], "missing_think", "at the bottom: {rows:?}");
    assert_eq!(broken["failing"], true);
    assert_eq!(broken["rating"], Value::Null);
    assert_eq!(broken["rank"].as_u64().unwrap(), rows.len() as u64);
    assert!(row(&rows, "Random (C)")["rank"].as_u64().unwrap() < rows.len() as u64);
    let table = stdout(&othello(dir.path(), &["ladder"]));
    assert!(table.lines().any(|l| l.contains("missing_think") && l.contains("every game failed")), "{table}");
    // The JSON placement carries the reasons too.
    let output = othello(dir.path(), &["rate", "missing_think", "--max-games", "4", "--sandbox", "off", "--json"]);
    let placement: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    let reasons = placement["failure_reasons"].as_array().unwrap();
    assert_eq!(reasons[0]["games"], 4, "{placement}");
    assert!(reasons[0]["reason"].as_str().unwrap().starts_with("load-error: "), "{placement}");
}

/// Forfeits a failing bot "won" against strong opponents would have placed it above the anchor:
/// its games are left out of the fit, so it is at the bottom whoever it met, and the strong
/// bots' ratings are not moved by its forfeits.
#[test]
fn a_failing_bot_that_met_only_strong_opponents_is_still_below_the_anchor() {
    let dir = workspace(&["missing_think"]);
    seed(dir.path());
    stdout(&othello(dir.path(), &["rate", "corners", "--in-process", "--max-games", "12"]));
    let corners_before = row(&rows(dir.path()), "Corners")["rating"].as_f64().unwrap();
    // Its only opponent: the pool is seeded with Corners alone beside it.
    let output = othello(dir.path(), &["ladder", "--seed-pool", "corners", "missing_think", "--sandbox", "off"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = rows(dir.path());
    let broken = row(&rows, "missing_think");
    assert_eq!(broken["failing"], true, "{rows:?}");
    assert_eq!(broken["rank"].as_u64().unwrap(), rows.len() as u64, "{rows:?}");
    assert!(row(&rows, "Random (C)")["rank"].as_u64().unwrap() < broken["rank"].as_u64().unwrap());
    let corners_after = row(&rows, "Corners")["rating"].as_f64().unwrap();
    assert!((corners_after - corners_before).abs() < 1e-6, "{corners_before} -> {corners_after}");
    // Nor is it an opponent of the bots rated after it.
    let games_before = broken["games"].clone();
    stdout(&othello(dir.path(), &["rate", "gifts", "--in-process", "--max-games", "12"]));
    assert_eq!(row(&self::rows(dir.path()), "missing_think")["games"], games_before);
}

#[test]
fn a_file_that_is_not_a_ladder_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let notes = "my notes, not a database\n".repeat(100);
    std::fs::write(dir.path().join("ladder.sqlite3"), &notes).unwrap();
    for args in [&["ladder"][..], &["rate", "whatever"][..]] {
        let output = othello(dir.path(), args);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("is not a usable othello ladder") && stderr.contains("left untouched"), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.path().join("ladder.sqlite3")).unwrap(), notes);
    }
}

#[test]
fn two_rate_processes_share_one_ladder_and_kill_9_loses_no_committed_game() {
    let dir = workspace(&[]);
    seed(dir.path());
    let before: u64 = rows(dir.path()).iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>() / 2;
    let start = |bot: &str, games: &str| {
        Command::new(othello_exe())
            .current_dir(dir.path())
            .args(["rate", bot, "--in-process", "--max-games", games, "--ladder", "ladder.sqlite3", "--time-ms", "200"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // Two sessions at once on one file …
    let (a, b) = (start("corners", "20"), start("gifts", "20"));
    for child in [a, b] {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    let rows_now = rows(dir.path());
    let games: u64 = rows_now.iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>() / 2;
    assert_eq!(games, before + 40, "every game of both sessions is in the ladder");
    // … and one killed after its first pair of games is reported: what it reported is kept.
    let mut child = start("first_legal", "1000");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let reported = loop {
        let line = lines.next().expect("a progress line").unwrap();
        if line.starts_with("2 games ") {
            break 2;
        }
    };
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let rows_after = rows(dir.path());
    let games_after: u64 = rows_after.iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>() / 2;
    assert!(games_after >= games + reported, "{games_after} < {games} + {reported}");
    let check = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(["ladder", "--ladder", "ladder.sqlite3"])
        .output()
        .unwrap();
    assert!(check.status.success());
}

#[test]
fn an_nboard_engine_is_rated_under_its_command_and_program() {
    let dir = workspace(&[]);
    seed(dir.path());
    // The scripted engine answers f5 to every `go`: it loses its games by illegal moves.
    let engine = othello_testkit::fake_nboard_engine("spaced");
    let text = stdout(&othello(dir.path(), &["rate", &engine, "--max-games", "4", "--in-process"]));
    assert!(text.contains("4 games this session"), "{text}");
    let rows = rows(dir.path());
    let row = rows.iter().find(|r| r["kind"] == "engine").unwrap_or_else(|| panic!("no engine in {rows:?}"));
    assert_eq!(row["games"], 4);
    assert!(row["failures"].as_u64().unwrap() >= 2, "{row}");
    assert!(row["locator"].as_str().unwrap().starts_with("nboard:"), "{row}");
    assert_eq!(rows.last().unwrap()["kind"], "engine", "at the bottom: {rows:?}");
}

/// The openings of a bot's games in the ladder (each game's first plies, which a pair shares),
/// sorted, and the opponents met.
fn openings_and_opponents(dir: &Path, bot: &str, name: &str) -> (Vec<String>, std::collections::BTreeSet<String>) {
    let ggf = stdout(&othello(dir, &["ladder", "--games", bot]));
    let mut openings = Vec::new();
    let mut opponents = std::collections::BTreeSet::new();
    for line in ggf.lines() {
        let tag = |key: &str| {
            line.split(&format!("{key}[")).nth(1).and_then(|rest| rest.split(']').next()).map(str::to_owned)
        };
        let (black, white) = (tag("PB").unwrap(), tag("PW").unwrap());
        opponents.insert(if black == name { white } else { black });
        // The moves follow the starting board `BO[8 … *]`.
        let after_board = line.split_once("BO[").unwrap().1.split_once(']').unwrap().1;
        let moves: Vec<&str> =
            after_board.split(['B', 'W']).filter_map(|part| part.strip_prefix('[')).map(|m| &m[..2]).take(6).collect();
        assert_eq!(moves.len(), 6, "{line}");
        openings.push(moves.join(" "));
    }
    openings.sort();
    (openings, opponents)
}

#[test]
fn rate_with_concurrency_plays_the_same_pool_and_records_every_game_once() {
    let mut runs = Vec::new();
    for concurrency in ["1", "2"] {
        let dir = workspace(&[]);
        seed(dir.path());
        let before: u64 = rows(dir.path()).iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>() / 2;
        let output = othello(
            dir.path(),
            &[
                "rate",
                "corners",
                "--in-process",
                "--max-games",
                "16",
                "--seed",
                "5",
                "--concurrency",
                concurrency,
                "--json",
            ],
        );
        let placement: Value = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(placement["session_games"], 16, "--concurrency {concurrency}: {placement}");
        let rows_after = rows(dir.path());
        let after: u64 = rows_after.iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>() / 2;
        assert_eq!(after, before + 16, "--concurrency {concurrency}: every game recorded, once");
        assert_eq!(row(&rows_after, "Corners")["games"], 16);
        let (openings, opponents) = openings_and_opponents(dir.path(), "corners", "Corners");
        assert_eq!(openings.len(), 16);
        runs.push((openings, opponents, row(&rows_after, "Corners")["rating"].as_f64().unwrap()));
    }
    let (serial, concurrent) = (&runs[0], &runs[1]);
    assert_eq!(concurrent.0, serial.0, "the same openings, each played with both colours");
    assert_eq!(concurrent.1, serial.1, "the same pool of opponents");
    assert!(
        serial.2 > 100.0 && concurrent.2 > 100.0,
        "both place Corners above the pool: {} {}",
        serial.2,
        concurrent.2
    );
}
