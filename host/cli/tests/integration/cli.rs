//! The `othello` command line, run as a user would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use othello_testkit::*;

/// The `othello` binary under test (it serves its own bots' runners as `othello runner`).
fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}
use othello_sdk::{Position, parse_transcript};
use serde_json::Value;

/// A scratch folder with a `plugins/` folder holding the given fixtures.
fn workspace(fixtures: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let library = |name: &&str| if *name == "random_c" { random_bot() } else { fixture(name) };
    othello_testkit::install_plugins(dir.path(), fixtures.iter().map(library));
    dir
}

fn othello(dir: &Path, args: &[&str]) -> Output {
    Command::new(othello_exe()).current_dir(dir).args(args).stdin(Stdio::null()).output().unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))).collect()
}

/// Replays a game line's transcript and checks its score.
fn check_game_line(game: &Value) {
    let mut position = Position::start();
    for mv in parse_transcript(game["moves"].as_str().unwrap()).unwrap() {
        position.play(mv);
    }
    if game["termination"] == "normal" {
        let (black, white) = position.final_score();
        assert_eq!(game["score"], serde_json::json!([black, white]), "{game}");
        assert!(position.is_game_over());
    }
}

#[test]
fn no_subcommand_opens_the_app_and_without_a_display_says_why_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(othello_exe())
        .current_dir(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the app could not start") && stderr.contains("othello --help"), "{stderr}");
}

#[test]
fn list_reports_every_library_and_why_it_cannot_play() {
    let dir = workspace(&["first_legal", "missing_think", "abi_999", "crash_on_load", "hang_on_load", "abort_in_init"]);
    std::fs::write(dir.path().join("plugins/libnotes.so"), "not a library").unwrap();
    // A Windows build renamed for Linux: the error says what it is.
    let windows_dll = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arena/tests/data/dlls/popcount-x64.dll");
    std::fs::copy(windows_dll, dir.path().join("plugins/libpopcount.so")).unwrap();
    let started = Instant::now();
    let text = stdout(&othello(dir.path(), &["list", "--load-timeout-ms", "1000"]));
    assert!(started.elapsed() < Duration::from_secs(20));
    let line = |file: &str| text.lines().find(|l| l.contains(file)).unwrap_or_else(|| panic!("{file} not in\n{text}"));
    assert!(line("libfirst_legal.so").contains("First legal") && line("libfirst_legal.so").ends_with("ok"));
    assert!(line("libmissing_think.so").ends_with("error: missing symbol `think`"));
    assert!(line("libabi_999.so").contains("error: ABI version 999 not supported"));
    assert!(
        line("libcrash_on_load.so").ends_with("error: killed by signal SIGSEGV (segmentation fault) while loading")
    );
    assert!(line("libhang_on_load.so").ends_with("error: did not finish loading within 1000 ms"));
    assert!(line("libabort_in_init.so").ends_with("error: killed by signal SIGABRT (abort) in init"));
    assert!(line("libnotes.so").contains("error: not a loadable library"));
    assert!(
        line("libpopcount.so").contains("error: not a loadable library: is a Windows DLL (PE, x86-64); Linux loads"),
        "{}",
        line("libpopcount.so")
    );

    let json = json_lines(&stdout(&othello(dir.path(), &["list", "--json", "--load-timeout-ms", "1000"])));
    let entry = |file: &str| json.iter().find(|v| v["path"].as_str().unwrap().ends_with(file)).unwrap().clone();
    assert_eq!(entry("libfirst_legal.so")["status"], "ok");
    assert_eq!(entry("libfirst_legal.so")["name"], "First legal");
    assert_eq!(entry("libfirst_legal.so")["abi_version"], 1);
    assert_eq!(entry("libmissing_think.so")["status"], "error");
    assert_eq!(entry("libmissing_think.so")["error"], "missing symbol `think`");
}

#[test]
fn match_json_and_ggf_output() {
    let dir = workspace(&["first_legal", "random_c"]);
    let args = [
        "match",
        "first_legal",
        "Random (C)",
        "--games",
        "4",
        "--json",
        "--openings",
        "random:3",
        "--seed",
        "5",
        "--out",
        "games.ggf",
        "--time-ms",
        "500",
    ];
    let lines = json_lines(&stdout(&othello(dir.path(), &args)));
    assert_eq!(lines.len(), 5);
    let keys: Vec<&str> = lines[0].as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = [
        "black",
        "clock",
        "detail",
        "game",
        "loser",
        "move_times",
        "moves",
        "opening",
        "pair",
        "result",
        "score",
        "termination",
        "white",
    ];
    expected.sort();
    assert_eq!(keys, expected);
    let mut numbers: Vec<u64> = lines[..4].iter().map(|g| g["game"].as_u64().unwrap()).collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3, 4]);
    for game in &lines[..4] {
        check_game_line(game);
        assert_eq!(game["termination"], "normal");
        assert_eq!(game["loser"], Value::Null);
        // The default clock: the CPU time of each bot's process tree.
        assert_eq!(game["clock"], "cpu");
        let number = game["game"].as_u64().unwrap();
        let first_legal_black = number % 2 == 1;
        assert_eq!(game["black"], if first_legal_black { "First legal" } else { "Random (C)" });
        // Games 1-2 and 3-4 share an opening, the first three moves: they are pairs 1 and 2.
        assert!(game["moves"].as_str().unwrap().len() >= 6);
        assert_eq!(game["pair"].as_u64().unwrap(), number.div_ceil(2), "{game}");
        let opening = game["opening"].as_str().unwrap();
        assert_eq!(opening.len(), 6, "{game}");
        assert!(game["moves"].as_str().unwrap().starts_with(opening), "{game}");
        // Every move played, with its wall time and (in a cgroup) the CPU time of its bot.
        let times = game["move_times"].as_array().unwrap();
        let played: Vec<&str> = times.iter().map(|t| t["move"].as_str().unwrap()).filter(|m| *m != "pass").collect();
        assert!(game["moves"].as_str().unwrap().ends_with(&played.concat()), "{game}");
        assert!(!played.is_empty(), "the bots' moves, after the 3-move opening: {game}");
        assert!(times.iter().all(|t| t["wall_ms"].as_f64().unwrap() >= 0.0));
        assert!(times.iter().all(|t| t.get("cpu_ms").is_none_or(|c| c.as_f64().unwrap() >= 0.0)));
    }
    let by_number = |n: u64| lines.iter().find(|g| g["game"] == n).unwrap()["moves"].as_str().unwrap()[..6].to_owned();
    assert_eq!(by_number(1), by_number(2));
    assert_eq!(by_number(3), by_number(4));
    assert_ne!(by_number(1), by_number(3));

    let summary = &lines[4]["summary"];
    assert_eq!(summary["games"], 4);
    let standings = summary["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 2);
    let total_wins: u64 = standings.iter().map(|s| s["wins"].as_u64().unwrap()).sum();
    let total_draws: u64 = standings.iter().map(|s| s["draws"].as_u64().unwrap()).sum();
    assert_eq!(total_wins + total_draws / 2, 4);

    let games = othello_arena::ggf::read_file(&dir.path().join("games.ggf")).unwrap();
    assert_eq!(games.len(), 4);
    for game in &games {
        let line = lines.iter().find(|l| l["moves"] == game.transcript().as_str() && l["black"] == game.black.as_str());
        let line = line.unwrap_or_else(|| panic!("{} not in the JSON output", game.transcript()));
        assert_eq!(line["score"], serde_json::json!(game.result.discs));
    }
}

#[test]
fn tournament_prints_standings_and_cross_table() {
    let dir = workspace(&["first_legal", "random_c", "illegal_pass"]);
    let text = stdout(&othello(
        dir.path(),
        &["tournament", "first_legal", "random_c", "illegal_pass", "--concurrency", "2", "--time-ms", "500"],
    ));
    assert!(text.contains("6 games played"), "{text}");
    assert!(text.contains("Cross-table"), "{text}");
    for name in ["First legal", "Random (C)", "Passer"] {
        assert!(text.contains(name), "{text}");
    }
    assert!(text.contains("lost by illegal-move: move byte 0xff (a pass): cannot pass with legal moves"), "{text}");
}

#[test]
fn in_process_seats_of_one_library_do_not_share_state() {
    let dir = workspace(&["stateful"]);
    let lines = json_lines(&stdout(&othello(
        dir.path(),
        &["--in-process", "match", "stateful", "stateful", "--games", "2", "--json"],
    )));
    for game in &lines[..2] {
        assert_eq!(game["termination"], "normal", "{game}");
        assert!(game["black"].as_str().unwrap().starts_with("Stateful"));
    }
    assert_ne!(lines[0]["black"], lines[0]["white"]);
}

#[test]
fn bad_input_gets_a_clear_error() {
    let dir = workspace(&["first_legal", "levels"]);
    let output = othello(dir.path(), &["match", "nosuchbot", "first_legal"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("no bot `nosuchbot`") && error.contains("first_legal (First legal)"), "{error}");

    std::fs::write(dir.path().join("openings.txt"), "f5d6\nf5e4\n").unwrap();
    let output = othello(dir.path(), &["match", "first_legal", "first_legal", "--openings", "openings.txt"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("openings.txt:2: move 2 (at character 3): e4 is illegal"), "{error}");

    let output = othello(dir.path(), &["match", "first_legal", "first_legal", "--sprt", "elo0=0"]);
    assert_eq!(output.status.code(), Some(2));
    let output = othello(dir.path(), &["match", "first_legal", "first_legal", "--sprt", "elo0=0,elo1=5,model=binary"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("pentanomial or trinomial"));

    // A level the bot does not have names the valid range; a bot without levels says so.
    let output = othello(dir.path(), &["match", "levels@9", "first_legal"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("has levels 1-3: `@9` is out of range"), "{error}");
    let output = othello(dir.path(), &["match", "first_legal@2", "levels"]);
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("First legal has no strength levels: drop `@2`"), "{error}");
}

/// Number of complete lines in a file (0 if missing).
fn complete_lines(path: &PathBuf) -> usize {
    std::fs::read_to_string(path).map(|t| t.matches('\n').count()).unwrap_or(0)
}

#[test]
fn a_tournament_killed_with_sigkill_resumes_without_losing_or_replaying_games() {
    let dir = workspace(&["slow", "first_legal"]);
    let state = dir.path().join("state");
    let games_file = state.join("games.jsonl");
    let args = [
        "tournament",
        "slow",
        "slow",
        "first_legal",
        "--rounds",
        "3",
        "--state",
        "state",
        "--out",
        "games.ggf",
        "--json",
        "--openings",
        "random:2",
    ];
    let total = 3 * 3 * 2;
    let mut child = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while complete_lines(&games_file) < 2 {
        assert!(Instant::now() < deadline, "no game finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let saved = complete_lines(&games_file);
    assert!(saved < total, "the tournament finished before it was killed");
    // A line cut off mid-write is not a finished game.
    let mut file = std::fs::OpenOptions::new().append(true).open(&games_file).unwrap();
    std::io::Write::write_all(&mut file, b"{\"index\":17,\"bla").unwrap();
    drop(file);

    let output = othello(dir.path(), &["tournament", "--state", "state", "--resume", "--json", "--out", "games.ggf"]);
    let lines = json_lines(&stdout(&output));
    let resumed_games = &lines[..lines.len() - 1];
    assert_eq!(resumed_games.len(), total - saved, "each unfinished game is played once");
    assert_eq!(lines.last().unwrap()["summary"]["games"], total);

    let records: Vec<Value> = json_lines(&std::fs::read_to_string(&games_file).unwrap());
    let mut indices: Vec<u64> = records.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    indices.sort();
    assert_eq!(indices, (0..total as u64).collect::<Vec<_>>());
    for game in resumed_games {
        let index = game["game"].as_u64().unwrap() - 1;
        assert!(records.iter().skip(saved).any(|r| r["index"] == index), "game {index} was replayed");
        check_game_line(game);
    }
    assert_eq!(othello_arena::ggf::read_file(&dir.path().join("games.ggf")).unwrap().len(), total);

    // Starting over in the same folder is refused rather than overwriting it.
    let output = othello(dir.path(), &["tournament", "slow", "first_legal", "--state", "state"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--resume"));
}

/// Processes whose command line mentions `text`.
fn processes_mentioning(text: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(text))
        .count()
}

#[test]
fn runners_do_not_outlive_a_killed_host() {
    let dir = workspace(&["hang", "first_legal"]);
    let plugins = dir.path().join("plugins");
    let plugins = plugins.to_str().unwrap();
    let mut host = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(["match", "hang", "first_legal", "--time-ms", "60000", "--games", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while processes_mentioning(plugins) < 2 {
        assert!(Instant::now() < deadline, "the runners did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200)); // the hanging bot is thinking now
    let host_pid = host.id();
    host.kill().unwrap();
    host.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while processes_mentioning(plugins) > 0 {
        assert!(Instant::now() < deadline, "runners survived their host");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Their sandboxes' scratch folders went with them (removed by the runners themselves).
    let prefix = format!("othello-scratch-{host_pid}-");
    let scratch_left = || {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    };
    while scratch_left() {
        assert!(Instant::now() < deadline, "scratch folders survived their host");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_level_after_the_bot_name_reaches_the_bot() {
    let dir = workspace(&["levels", "first_legal"]);
    let listed = stdout(&othello(dir.path(), &["list"]));
    assert!(listed.lines().any(|l| l.contains("liblevels.so") && l.contains("levels 1-3")), "{listed}");
    let lines =
        json_lines(&stdout(&othello(dir.path(), &["match", "levels@2", "first_legal", "--games", "2", "--json"])));
    for game in &lines[..2] {
        assert_eq!(game["termination"], "normal", "{game}");
    }
    assert_eq!(lines[0]["black"], "Levels@2");
    let lines =
        json_lines(&stdout(&othello(dir.path(), &["match", "levels@3", "first_legal", "--games", "1", "--json"])));
    assert_eq!(lines[0]["termination"], "illegal-move");
}

/// `othello match … --json | head -1`: the reader goes away after one line; the arena stops
/// quietly (exit 0, no panic) instead of playing on or crashing on the closed pipe.
#[test]
fn a_reader_that_goes_away_ends_the_event_quietly() {
    use std::io::BufRead;
    let dir = workspace(&["first_legal"]);
    let mut child = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(["match", "first_legal", "first_legal", "--games", "100000", "--in-process", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("{\"game\":1"), "{first}");
    // The reader (and with it the pipe) is gone now.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `othello list | head -1`: the listing ends quietly when its reader is gone.
#[test]
fn a_listing_whose_reader_is_gone_ends_quietly() {
    let dir = workspace(&["first_legal"]);
    let mut child = Command::new(othello_exe())
        .current_dir(dir.path())
        .arg("list")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before the first line
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Two libraries whose bots give one name (a fake "Alpha-beta") are told apart by their file in
/// `list`, in a match's output, its JSON and its GGF.
#[test]
fn two_libraries_with_one_name_are_told_apart_everywhere() {
    let dir = workspace(&[]);
    for tag in ["real", "fake"] {
        let library = fixture_with("named", tag, &[("NAME", "\"Alpha-beta\"".to_owned())]);
        std::fs::copy(&library, dir.path().join("plugins").join(library.file_name().unwrap())).unwrap();
    }
    let (real, fake) = ("Alpha-beta (libnamed-real.so)", "Alpha-beta (libnamed-fake.so)");
    let list = stdout(&othello(dir.path(), &["list"]));
    assert!(list.contains(real) && list.contains(fake), "{list}");
    let args = ["match", "named-real", "named-fake", "--games", "2", "--json", "--out", "games.ggf"];
    let lines = json_lines(&stdout(&othello(dir.path(), &args)));
    assert_eq!((lines[0]["black"].as_str(), lines[0]["white"].as_str()), (Some(real), Some(fake)));
    let games = othello_arena::ggf::read_file(&dir.path().join("games.ggf")).unwrap();
    assert!(games.iter().all(|g| [real, fake].contains(&g.black.as_str()) && g.black != g.white));
}

/// `--affinity` pins the game slots (and their bots) to processors: the games are the same.
#[test]
fn pinned_game_slots_play_the_same_games() {
    let dir = workspace(&["first_legal", "stateful"]);
    let args =
        ["match", "stateful", "first_legal", "--games", "6", "--openings", "random:6", "--json", "--concurrency", "2"];
    let games = |extra: &[&str]| {
        let all: Vec<&str> = args.iter().chain(extra).copied().collect();
        let mut lines: Vec<Value> =
            json_lines(&stdout(&othello(dir.path(), &all))).into_iter().filter(|l| l.get("game").is_some()).collect();
        lines.sort_by_key(|l| l["game"].as_u64());
        lines.iter().map(|l| (l["moves"].clone(), l["score"].clone(), l["termination"].clone())).collect::<Vec<_>>()
    };
    let pinned = games(&["--affinity"]);
    assert_eq!(pinned.len(), 6);
    assert_eq!(pinned, games(&[]));
}

/// The repository's root folder.
fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The anchor mdBook and GitHub give a heading: lower case, spaces to `-`, other punctuation gone.
fn heading_anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings and the relative link targets in its text, both
/// outside code blocks.
fn markdown_anchors_and_links(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut anchors, mut links, mut in_code) = (Vec::new(), Vec::new(), false);
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if line.starts_with('#') {
            anchors.push(heading_anchor(line.trim_start_matches('#')));
        }
        for (start, _) in line.match_indices("](") {
            let target = &line[start + 2..];
            let Some(end) = target.find(')') else { continue };
            let target = &target[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                links.push(target.to_owned());
            }
        }
    }
    (anchors, links)
}

/// Every link of the README and the manual leads to a file that exists, and to a heading there
/// when it names one; every chapter is in the manual's table of contents.
#[test]
fn the_readme_and_the_manual_have_no_broken_links() {
    let root = repository_root();
    let book = root.join("book/src");
    let mut documents = vec![root.join("README.md")];
    for entry in std::fs::read_dir(&book).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    let summary = std::fs::read_to_string(book.join("SUMMARY.md")).unwrap();
    let mut broken = Vec::new();
    for document in &documents {
        let name = document.file_name().unwrap().to_string_lossy().into_owned();
        if document.parent() == Some(book.as_path()) && name != "SUMMARY.md" {
            assert!(summary.contains(&format!("]({name})")), "{name} is not in book/src/SUMMARY.md");
        }
        let (own_anchors, links) = markdown_anchors_and_links(&std::fs::read_to_string(document).unwrap());
        for link in links {
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() { document.clone() } else { document.parent().unwrap().join(file) };
            if !target.exists() {
                broken.push(format!("{name}: {link} (no such file)"));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            let anchors = if file.is_empty() {
                own_anchors.clone()
            } else {
                markdown_anchors_and_links(&std::fs::read_to_string(&target).unwrap()).0
            };
            if !anchors.iter().any(|a| a == anchor) {
                broken.push(format!("{name}: {link} (no such heading)"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `--sprt elo0=0,elo1=5` alone (default alpha and beta, no `--games`): the match runs until the
/// test decides. A bot against itself scores exactly 1 point in every colour-swapped pair (the
/// second game mirrors the first), so the pentanomial counts are `[0, 0, n, 0, 0]`; fishtest's
/// `LLRcalc.LLR_logistic(0, 5, [0, 0, n, 0, 0])` first falls below the lower bound
/// ln(0.05/0.95) = -2.944 at n = 204 pairs (LLR -2.94838; 203 pairs give -2.93389), so the
/// match stops after 408 games with H0 accepted.
#[test]
fn an_sprt_without_a_game_count_runs_until_it_decides_on_pairs() {
    let dir = workspace(&["first_legal"]);
    let args = [
        "match",
        "first_legal",
        "first_legal",
        "--sprt",
        "elo0=0,elo1=5",
        "--openings",
        "random:6",
        "--in-process",
        "--json",
    ];
    let output = othello(dir.path(), &args);
    let lines = json_lines(&stdout(&output));
    let summary = &lines.last().unwrap()["summary"];
    assert_eq!(summary["games"], 408, "{summary}");
    let sprt = &summary["sprt"];
    assert_eq!(sprt["decision"], "accept-h0", "{sprt}");
    assert_eq!((sprt["alpha"].as_f64(), sprt["beta"].as_f64()), (Some(0.05), Some(0.05)));
    assert_eq!(sprt["model"], "pentanomial");
    assert_eq!(sprt["pentanomial"], serde_json::json!([0, 0, 204, 0, 0]), "{sprt}");
    assert!((sprt["llr"].as_f64().unwrap() - -2.9483843378).abs() < 1e-6, "{sprt}");
    assert!((sprt["lower_bound"].as_f64().unwrap() - (0.05f64 / 0.95).ln()).abs() < 1e-12);
    assert_eq!((&sprt["first"], &sprt["second"]), (&lines[0]["black"], &lines[0]["white"]));
    assert_eq!(
        sprt["wins"].as_u64().unwrap() + sprt["draws"].as_u64().unwrap() + sprt["losses"].as_u64().unwrap(),
        408
    );
    assert_eq!(sprt["elo"], 0.0);
    assert_eq!(sprt["los"], 0.5);
    for key in ["elo_error", "nelo", "nelo_error", "draw_ratio", "upper_bound"] {
        assert!(sprt.get(key).is_some(), "{key} in {sprt}");
    }
    // Every game line names its pair and opening; a pair's two games share the opening.
    let games = &lines[..lines.len() - 1];
    assert_eq!(games.len(), 408);
    for game in games {
        let partner = games.iter().find(|g| g["pair"] == game["pair"] && g["game"] != game["game"]).unwrap();
        assert_eq!(partner["opening"], game["opening"]);
        assert_eq!(game["opening"].as_str().unwrap().len(), 12);
    }

    // The text summary says the same from the first bot's side.
    let text = stdout(&othello(dir.path(), &args[..args.len() - 1]));
    assert!(text.contains("SPRT (elo0=0,elo1=5,alpha=0.05,beta=0.05,model=pentanomial)"), "{text}");
    assert!(text.contains("Pairs: 204 (LL 0, LD 0, DD+WL 204, WD 0, WW 0)"), "{text}");
    assert!(text.contains("LLR -2.95 (bounds -2.94, 2.94): H0 accepted"), "{text}");
    assert!(text.contains("LOS 50.00 %"), "{text}");
    assert!(text.starts_with("408 games played\n"), "the cap's unplayed games are not news: {text}");
}

/// `othello check` (issue 25, 4) says a bot runs in the sandbox; an NBoard engine the sandbox
/// blocks (a shim whose real engine lies outside the engine's folders) is named with the blocked
/// path and the fix before any game is played, by `check` and by `match` alike.
#[test]
fn check_says_a_bot_runs_and_names_what_the_sandbox_blocked() {
    let dir = workspace(&["first_legal"]);
    let ok = othello(dir.path(), &["check", "first_legal", "--time-ms", "1000"]);
    assert!(stdout(&ok).contains("first_legal: runs with --sandbox auto"), "{ok:?}");
    if !sandbox_has_layers("blocked engine", &["landlock"]) {
        return;
    }
    let (home, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/nboard/fake_engine.sh");
    let real = elsewhere.path().join("fake_engine.sh");
    std::fs::copy(fake, &real).unwrap();
    let shim = home.path().join(".tool/shims/engine");
    std::fs::create_dir_all(shim.parent().unwrap()).unwrap();
    std::fs::write(&shim, format!("#!/bin/sh\nexec sh '{}' spaced\n", real.display())).unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let engine = format!("nboard:{}", shim.display());
    for args in [vec!["check", &engine], vec!["match", &engine, "first_legal", "--games", "2"]] {
        let output = othello(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded: {stderr}");
        for needed in ["the sandbox blocked", &real.display().to_string(), "--read", "--sandbox off"] {
            assert!(stderr.contains(needed), "{args:?}: {needed:?} missing from: {stderr}");
        }
        assert!(!String::from_utf8_lossy(&output.stdout).contains("forfeit"), "a game was played: {output:?}");
    }
}

/// A C string literal for a fixture's `-D` definition.
fn c_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `othello` takes the secrets it is given out of its own environment before any bot starts: a bot
/// loaded in the same process (`--in-process`) does not find a worker's token or a database URL
/// there, and `--env` refuses to pass a secret on to sandboxed bots.
#[test]
fn secrets_are_taken_out_of_othellos_own_environment() {
    let dir = tempfile::tempdir().unwrap();
    for secret in ["OTHELLO_WORKER_TOKEN", "DATABASE_URL"] {
        let reader =
            fixture_with("env_reader", &format!("cli-{}", secret.to_lowercase()), &[("VARIABLE", c_string(secret))]);
        let output = Command::new(othello_exe())
            .current_dir(dir.path())
            .args([
                "--in-process",
                "match",
                reader.to_str().unwrap(),
                reader.to_str().unwrap(),
                "--games",
                "2",
                "--json",
            ])
            .env(secret, "postgres://arena:hunter2@db.example/contest")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let games = json_lines(&stdout(&output));
        let names: Vec<&str> = games.iter().filter_map(|game| game["black"].as_str()).collect();
        assert!(!names.is_empty() && names.iter().all(|name| name.starts_with("unset ")), "{secret}: {names:?}");
    }
    let named = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(["match", "a", "b", "--env", "OTHELLO_WORKER_TOKEN"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!named.status.success());
    let why = String::from_utf8_lossy(&named.stderr);
    assert!(why.contains("OTHELLO_WORKER_TOKEN looks like a secret") && why.contains("never passed"), "{why}");
}

/// A bot's hostile texts — escapes and forged lines in its name, its stderr and its
/// `othello_last_error` — reach the terminal summary, the GGF file and the JSON lines as harmless
/// lines: no control character but the line breaks of `othello`'s own output, no line of the
/// bot's that starts like one of `othello`'s.
#[test]
fn a_bots_hostile_texts_reach_no_output_raw() {
    let dir = tempfile::tempdir().unwrap();
    let name = "\\x1b]0;pwned\\x07\\x1b[2JEvil\\rResult: 64-0\\nStandings\\xe2\\x80\\xae\\xef\\xbf\\xbe";
    let noisy = fixture_with("noisy_output", "cli", &[("NAME", format!("\"{name}\""))]);
    let good = fixture("first_legal");
    let args = [noisy.to_str().unwrap(), good.to_str().unwrap(), "--games", "2", "--time-ms", "500"];
    let hidden = |text: &str| text.chars().any(|c| c != '\n' && othello_arena::text::is_hidden_or_control(c));
    // The terminal: standings and the failure with its quoted stderr.
    let terminal = othello(dir.path(), &[&["match"][..], &args].concat());
    let shown = format!("{}{}", String::from_utf8_lossy(&terminal.stdout), String::from_utf8_lossy(&terminal.stderr));
    assert!(terminal.status.success(), "{shown}");
    assert!(!hidden(&shown), "{shown:?}");
    assert!(shown.contains("Evil") && shown.contains("(last error)"), "{shown}");
    for line in shown.lines().filter(|line| line.contains("forged") || line.contains("All games won")) {
        // Quoted (`| `, indented as the report nests it), never at a line's start.
        assert!(
            line.trim_start().starts_with(othello_arena::text::QUOTE.trim_start()),
            "a bot's line passes for othello's: {line:?}"
        );
    }
    // GGF and JSON.
    let ggf = dir.path().join("games.ggf");
    let files = othello(dir.path(), &[&["match"][..], &args, &["--json", "--out", ggf.to_str().unwrap()]].concat());
    let json = stdout(&files);
    assert!(!hidden(&json), "{json:?}");
    for game in json_lines(&json) {
        assert!(!game.to_string().contains("\\u001b"), "{game}");
    }
    let ggf = std::fs::read_to_string(ggf).unwrap();
    assert!(!hidden(&ggf) && ggf.contains("Evil"), "{ggf:?}");
}

/// Two bots whose names look alike (a Cyrillic `А` for a Latin `A`) are shown with their files
/// in every output of a match: the standings, the JSON lines and the GGF file.
#[test]
fn look_alike_bots_are_told_apart_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let latin = fixture_with("named", "cli-latin", &[("NAME", "\"Alpha-beta\"".to_owned())]);
    let cyrillic = fixture_with("named", "cli-cyrillic", &[("NAME", "\"\\xd0\\x90lpha-beta\"".to_owned())]);
    let ggf = dir.path().join("games.ggf");
    let args = [
        "match",
        latin.to_str().unwrap(),
        cyrillic.to_str().unwrap(),
        "--games",
        "2",
        "--json",
        "--out",
        ggf.to_str().unwrap(),
    ];
    let output = othello(dir.path(), &args);
    let games = json_lines(&stdout(&output));
    let told_apart =
        |name: &str| name.ends_with("(libnamed-cli-latin.so)") || name.ends_with("(libnamed-cli-cyrillic.so)");
    for game in games.iter().filter(|game| game.get("black").is_some()) {
        for side in ["black", "white"] {
            assert!(told_apart(game[side].as_str().unwrap()), "{game}");
        }
    }
    let written = std::fs::read_to_string(&ggf).unwrap();
    assert_eq!(written.lines().filter(|line| line.contains("PB[")).count(), 2, "{written}");
    for game in written.lines().filter(|line| line.contains("PB[")) {
        assert!(game.contains("(libnamed-cli-latin.so)") && game.contains("(libnamed-cli-cyrillic.so)"), "{game}");
    }
    let terminal = othello(dir.path(), &args[..5]);
    let standings = stdout(&terminal);
    assert!(standings.contains("Alpha-beta (libnamed-cli-latin.so)"), "{standings}");
    assert!(standings.contains("\u{410}lpha-beta (libnamed-cli-cyrillic.so)"), "{standings}");
}
