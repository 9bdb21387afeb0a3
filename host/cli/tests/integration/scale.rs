//! Large events, run as a user would: shards merged back into the event (by hand and under GNU
//! parallel), a state folder cut mid-write, merges refused, and Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use othello_testkit::fixture_workspace;
use serde_json::Value;

fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

fn othello(dir: &Path, args: &[&str]) -> Output {
    Command::new(othello_exe()).current_dir(dir).args(args).stdin(Stdio::null()).output().unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The last line of `--json` output: the summary object.
fn summary(output: &Output) -> Value {
    let text = stdout(output);
    let last = text.lines().last().expect("a summary line");
    serde_json::from_str::<Value>(last).unwrap()["summary"].clone()
}

/// The games of a GGF file, without what differs between runs (dates): sorted.
fn games_of(path: &Path) -> Vec<(String, String, String, [u32; 2])> {
    let mut games: Vec<_> = othello_arena::ggf::read_file(path)
        .unwrap()
        .into_iter()
        .map(|g| (g.black.clone(), g.white.clone(), g.transcript(), g.result.discs))
        .collect();
    games.sort();
    games
}

/// Three deterministic bots (two copies of one), random openings from a fixed seed, in process.
const TOURNAMENT: [&str; 14] = [
    "tournament",
    "first_legal",
    "first_legal",
    "illegal_pass",
    "--rounds",
    "2",
    "--games",
    "5",
    "--openings",
    "random:4",
    "--seed",
    "9",
    "--in-process",
    "--json",
];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn run(dir: &Path, args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    othello(dir, &args)
}

#[test]
fn an_event_run_as_four_shards_and_merged_equals_the_single_run() {
    let dir = fixture_workspace(&["first_legal", "illegal_pass"]);
    let single = summary(&run(dir.path(), &with(&TOURNAMENT, &["--state", "single", "--out", "single.ggf"])));
    assert_eq!(single["games"], 2 * 3 * 5);

    let mut shard_games = 0;
    for k in 0..4 {
        let shard = format!("{k}/4");
        let part = summary(&run(dir.path(), &with(&TOURNAMENT, &["--shard", &shard, "--state", &format!("shard{k}")])));
        assert_eq!(part["shard"], shard.as_str());
        shard_games += part["games"].as_u64().unwrap();
    }
    assert_eq!(shard_games, 30, "the shards are disjoint and cover the event");

    let merged = othello(
        dir.path(),
        &["merge", "merged", "shard2", "shard0", "shard3", "shard1", "--json", "--out", "merged.ggf"],
    );
    let merged_summary = summary(&merged);
    assert_eq!(merged_summary["games"], single["games"]);
    assert_eq!(merged_summary["standings"], single["standings"], "standings, Elo and errors identical");
    assert_eq!(games_of(&dir.path().join("merged.ggf")), games_of(&dir.path().join("single.ggf")));
    let game_lines = stdout(&merged).lines().count() - 1;
    assert_eq!(game_lines, 30, "--json prints every merged game");

    // The text report, cross-table included, is the single run's.
    let text = |output: Output| {
        let text = stdout(&output);
        text[text.find("games played").unwrap()..].to_owned()
    };
    let single_text = text(othello(dir.path(), &["merge", "again", "single"]));
    let merged_text = text(othello(dir.path(), &["merge", "again2", "shard0", "shard1", "shard2", "shard3"]));
    assert!(merged_text.contains("Cross-table"), "{merged_text}");
    assert_eq!(merged_text, single_text);

    // The merged folder is the whole event, finished: resuming it plays nothing.
    let resumed = summary(&othello(dir.path(), &["tournament", "--state", "merged", "--resume", "--json"]));
    assert_eq!(resumed["standings"], single["standings"]);
    assert_eq!(resumed["unplayed"], 0);
}

#[test]
fn merges_of_the_wrong_shards_are_refused_with_the_reason() {
    let dir = fixture_workspace(&["first_legal", "illegal_pass"]);
    let base = ["match", "first_legal", "illegal_pass", "--games", "6", "--in-process", "--json"];
    for k in 0..3 {
        stdout(&run(dir.path(), &with(&base, &["--shard", &format!("{k}/3"), "--state", &format!("s{k}")])));
    }
    stdout(&run(dir.path(), &with(&base, &["--shard", "0/3", "--seed", "2", "--state", "other-seed"])));
    stdout(&run(dir.path(), &with(&base, &["--shard", "1/2", "--state", "halves"])));
    let refused = |args: &[&str], expected: &str| {
        let output = othello(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?} was not refused");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
        assert!(!dir.path().join(args[1]).join("games.jsonl").exists(), "{args:?} left a merged event");
    };
    refused(&["merge", "m1", "s0", "s1", "s1", "s2"], "shard 1/3 is given twice");
    refused(&["merge", "m2", "s0", "s2"], "shard 1/3 missing");
    refused(&["merge", "m3", "other-seed", "s1", "s2"], "the seeds differ: 2 against 1");
    refused(&["merge", "m4", "s0", "halves"], "the shards were cut differently");
    refused(&["merge", "m5", "s0", "no-such-folder"], "no-such-folder");

    // A shard whose last game was cut off is unfinished: finish it, then it merges.
    cut_last_line(&dir.path().join("s2/games.jsonl"));
    refused(&["merge", "m6", "s0", "s1", "s2"], "is unfinished: 1 of its 2 games");
    let resumed = summary(&othello(dir.path(), &["match", "--state", "s2", "--resume", "--json"]));
    assert_eq!(resumed["games"], 2);
    stdout(&othello(dir.path(), &["merge", "m7", "s0", "s1", "s2"]));
}

/// Cuts the last line of a log in its middle, as a machine dying mid-write leaves it.
fn cut_last_line(log: &Path) {
    let text = std::fs::read_to_string(log).unwrap();
    let last_start = text[..text.len() - 1].rfind('\n').map_or(0, |i| i + 1);
    let cut = last_start + (text.len() - last_start) / 2;
    std::fs::write(log, &text[..cut]).unwrap();
}

#[test]
fn a_log_cut_mid_write_replays_that_game_only_and_damage_elsewhere_is_refused() {
    let dir = fixture_workspace(&["first_legal", "illegal_pass"]);
    let args = with(&TOURNAMENT, &["--state", "state"]);
    let whole = summary(&run(dir.path(), &args));
    let log = dir.path().join("state/games.jsonl");
    let lines_before = std::fs::read_to_string(&log).unwrap().lines().count();
    cut_last_line(&log);

    let output = othello(dir.path(), &["tournament", "--state", "state", "--resume", "--json"]);
    assert!(stderr(&output).contains("cut off mid-write"), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 2, "one game replayed, then the summary: {text}");
    let resumed: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(resumed["summary"]["standings"], whole["standings"]);
    let log_text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(log_text.lines().count(), lines_before);
    assert!(log_text.ends_with('\n'));

    // A damaged line in the middle is not a crash's doing: refused, nothing changed.
    let mut lines: Vec<&str> = log_text.lines().collect();
    lines[3] = "{\"index\":";
    let damaged = lines.join("\n") + "\n";
    std::fs::write(&log, &damaged).unwrap();
    std::fs::remove_file(dir.path().join("state/checkpoint.json")).unwrap();
    let output = othello(dir.path(), &["tournament", "--state", "state", "--resume"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("is damaged at byte"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), damaged);
}

/// Complete lines in a file (0 if missing).
fn complete_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.matches('\n').count()).unwrap_or(0)
}

#[test]
fn ctrl_c_prints_the_standings_so_far_and_leaves_a_resumable_event() {
    let dir = fixture_workspace(&["slow", "first_legal"]);
    let args =
        ["tournament", "slow", "slow", "first_legal", "--rounds", "3", "--state", "state", "--openings", "random:2"];
    let total = 3 * 3 * 2;
    let log = dir.path().join("state/games.jsonl");
    let child = Command::new(othello_exe())
        .current_dir(dir.path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while complete_lines(&log) < 2 {
        assert!(Instant::now() < deadline, "no game finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let saved = complete_lines(&log);
    assert!(saved < total, "the tournament finished before Ctrl-C");
    assert!(out.contains(&format!("{saved} games played, {} not played", total - saved)), "{out}");
    assert!(out.contains("Cross-table"), "{out}");
    assert!(err.contains("tournament --state state --resume"), "{err}");

    let output = othello(dir.path(), &["tournament", "--state", "state", "--resume", "--json"]);
    let text = stdout(&output);
    assert_eq!(text.lines().count() - 1, total - saved, "each unplayed game is played once");
    let records: Vec<Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut indices: Vec<u64> = records.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    indices.sort();
    assert_eq!(indices, (0..total as u64).collect::<Vec<_>>(), "no game lost, none replayed");
}

/// Whether a program can be started.
fn have(program: &str) -> bool {
    Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

#[test]
fn shards_run_under_gnu_parallel_merge_into_the_single_run() {
    if !have("parallel") {
        assert!(std::env::var_os("CI").is_none(), "CI must have GNU parallel (.ci/run installs it)");
        eprintln!("skipped: GNU parallel is not installed (apt-get install parallel)");
        return;
    }
    let dir = fixture_workspace(&["first_legal"]);
    let exe = othello_exe();
    let event = "match first_legal first_legal --games 40 --openings random:6 --seed 4 --in-process \
                 --sprt elo0=-10,elo1=10,alpha=0.05,beta=0.05";
    // As the manual's recipe (book/src/large-events.md) runs it: one job per shard, each with its own state folder.
    let status = Command::new("parallel")
        .current_dir(dir.path())
        .args(["--will-cite", "--halt", "now,fail=1", "-j", "2"])
        .arg(format!("{} {event} --shard {{}}/4 --state shard{{}} > shard{{}}.txt", exe.display()))
        .args([":::", "0", "1", "2", "3"])
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let merged = summary(&othello(dir.path(), &["merge", "merged", "shard0", "shard1", "shard2", "shard3", "--json"]));
    let mut single_args: Vec<&str> = event.split_whitespace().collect();
    single_args.push("--json");
    let single = summary(&othello(dir.path(), &single_args));
    assert_eq!(merged["games"], 40);
    assert_eq!(merged["standings"], single["standings"]);
    assert_eq!(merged["sprt"], single["sprt"], "the merged SPRT is the single run's");
    assert_eq!(merged["sprt"]["decision"], "continue");
}
