//! `othello nboard BOT` as an NBoard GUI drives it, and `othello match` between `nboard:` seats
//! that run `othello nboard` — the same games as the direct match.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use othello_arena::ggf::{self, GgfGame};
use othello_arena::record::MoveRecord;
use othello_sdk::{Move, Position};
use othello_testkit::fixture_workspace;
use serde_json::Value;

fn othello_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_othello"))
}

/// Runs `othello nboard BOT`, sends it `script` (then closes its input) and returns its output
/// lines.
fn session(dir: &Path, bot: &str, script: &[String]) -> Vec<String> {
    othello_testkit::nboard_session(Path::new(env!("CARGO_BIN_EXE_othello")), dir, bot, script)
}

fn first_legal(position: &Position) -> Move {
    position.legal_moves().into_iter().next().map_or(Move::Pass, Move::Play)
}

fn nboard_move(mv: Move) -> String {
    match mv {
        Move::Pass => "PA".to_owned(),
        Move::Play(square) => square.to_string().to_uppercase(),
    }
}

/// A game in progress, from seeded random playouts, whose last move is a pass, with the position
/// after it: the side to move has moves, and after its first legal move the opponent has too, and
/// then the game goes on.
fn game_ending_in_a_pass() -> (GgfGame, Position) {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    loop {
        let mut position = Position::start();
        let mut moves = Vec::new();
        while !position.is_game_over() {
            let legal: Vec<_> = position.legal_moves().into_iter().collect();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[state as usize % legal.len()]) };
            let color = position.side_to_move();
            position.play(mv);
            moves.push(MoveRecord { color, mv, elapsed: Duration::ZERO, info: None, cpu: None, throttled: None });
            if mv == Move::Pass && goes_on_for_two_moves(position) {
                let game = GgfGame {
                    black: "a".into(),
                    white: "b".into(),
                    start: Position::start(),
                    moves,
                    time_limit_ms: None,
                    started_at: 0,
                    result: None,
                };
                return (game, position);
            }
        }
    }
}

fn goes_on_for_two_moves(mut position: Position) -> bool {
    for _ in 0..2 {
        if position.is_game_over() || position.must_pass() {
            return false;
        }
        position.play(first_legal(&position));
    }
    !position.is_game_over()
}

#[test]
fn a_scripted_gui_session_gets_the_bots_moves_hints_and_pongs() {
    let dir = fixture_workspace(&["first_legal"]);
    let (game, after_pass) = game_ending_in_a_pass();
    let reply = first_legal(&after_pass);
    let mut next = after_pass;
    next.play(reply);
    let opponent = first_legal(&next);
    let mut after_opponent = next;
    after_opponent.play(opponent);
    // The game and the reply with the pass left out, as some GUIs write it: the pass is put back.
    let mut without_pass = game.clone();
    let pass = without_pass.moves.pop().unwrap();
    without_pass.moves.push(MoveRecord { color: !pass.color, mv: reply, ..pass });
    let script = [
        "nboard 2".to_owned(),
        "set depth 5".to_owned(), // a bot without levels ignores it
        format!("set game {}", ggf::format(&game)),
        "go".to_owned(),
        "hint 1".to_owned(),
        format!("move {}/1.00/0.5", nboard_move(reply)),
        format!("move {}", nboard_move(opponent).to_lowercase()),
        "go".to_owned(),
        "ping 7".to_owned(),
        "learn".to_owned(),
        "move a1".to_owned(),
        "frobnicate".to_owned(),
        "set game (;GM[Othello]B[zz];)".to_owned(),
        "quit".to_owned(),
        "ping 8".to_owned(), // after quit: never answered
    ];
    let lines = session(dir.path(), "first_legal", &script);
    let expected_go = |mv: Move| format!("=== {}//", nboard_move(mv));
    assert_eq!(lines[0], "set myname First_legal", "one word, as NBoard reads it: {lines:?}");
    assert!(lines[1].starts_with(&expected_go(reply)), "{lines:?}");
    assert_eq!(lines[2], format!("search {} 0.00 0 0", nboard_move(reply)), "{lines:?}");
    assert_eq!(lines[3], "status", "{lines:?}");
    assert!(lines[4].starts_with(&expected_go(first_legal(&after_opponent))), "{lines:?}");
    assert_eq!(lines[5], "pong 7");
    assert_eq!(lines[6], "learned");
    assert!(lines[7].starts_with("status move ignored: a1"), "{lines:?}");
    assert!(lines[8].starts_with("status unknown command ignored: frobnicate"), "{lines:?}");
    assert!(lines[9].starts_with("status cannot read the game"), "{lines:?}");
    assert_eq!(lines.len(), 10, "{lines:?}");

    let lines =
        session(dir.path(), "first_legal", &[format!("set game {}", ggf::format(&without_pass)), "go".to_owned()]);
    assert!(lines[0].starts_with(&expected_go(opponent)), "the forced pass was put back: {lines:?}");
}

#[test]
fn set_depth_sets_the_bots_level_clamped_to_its_levels() {
    // The `levels` fixture plays legally only at level 2 of its 3.
    let dir = fixture_workspace(&["levels"]);
    let go = || "go".to_owned();
    let depth = |n: u32| format!("set depth {n}");
    let script = [depth(2), go(), depth(1), go(), depth(99), go(), depth(2), go()];
    let lines = session(dir.path(), "levels", &script);
    let start_move = nboard_move(first_legal(&Position::start()));
    assert!(lines[0].starts_with(&format!("=== {start_move}")), "{lines:?}");
    // At other levels it passes illegally: the pass is answered, after a status line.
    assert!(lines[1].starts_with("status the bot answered an illegal move"), "level 1: {lines:?}");
    assert!(lines[2].starts_with("=== PA"), "{lines:?}");
    assert!(lines[3].starts_with("status the bot answered an illegal move"), "99 is level 3: {lines:?}");
    assert!(lines[4].starts_with("=== PA"), "{lines:?}");
    assert!(lines[5].starts_with(&format!("=== {start_move}")), "{lines:?}");
    assert_eq!(lines.len(), 6, "{lines:?}");
}

/// One game of a match: its number, moves (passes omitted), score and termination.
type GameSummary = (u64, String, Value, String);

/// Openings and seed of the matches compared: chosen so that the games include passes.
const MATCH_ARGS: [&str; 8] = ["--games", "4", "--openings", "random:10", "--seed", "7", "--out", "games.ggf"];

/// `othello match … --json` in `dir`: the game lines by game number, and the GGF moves of every
/// game (passes included).
fn match_games_with_ggf(dir: &Path, black: &str, white: &str) -> (Vec<GameSummary>, Vec<Vec<Move>>) {
    let output = Command::new(othello_exe())
        .current_dir(dir)
        .args(["match", black, white, "--json"])
        .args(MATCH_ARGS)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut games: Vec<GameSummary> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line.get("game").is_some())
        .map(|game| {
            let termination = game["termination"].as_str().unwrap().to_owned();
            (
                game["game"].as_u64().unwrap(),
                game["moves"].as_str().unwrap().to_owned(),
                game["score"].clone(),
                termination,
            )
        })
        .collect();
    games.sort_by_key(|game| game.0);
    let mut records = ggf::read_file(&dir.join("games.ggf")).unwrap();
    records.sort_by_key(|record| record.transcript());
    let moves = records.iter().map(|record| record.moves.iter().map(|m| m.mv).collect()).collect();
    (games, moves)
}

fn match_games(dir: &Path, black: &str, white: &str) -> Vec<GameSummary> {
    match_games_with_ggf(dir, black, white).0
}

#[test]
fn a_match_between_nboard_seats_running_othello_nboard_plays_the_direct_matchs_games() {
    // `stateful` keeps its colour between moves: it plays legally only if every game starts it anew.
    let dir = fixture_workspace(&["first_legal", "stateful"]);
    let direct = match_games_with_ggf(dir.path(), "stateful", "first_legal");
    assert_eq!(direct.0.len(), 4);
    assert!(direct.0.iter().all(|game| game.3 == "normal"), "{direct:?}");
    let passes = direct.1.iter().flatten().filter(|&&mv| mv == Move::Pass).count();
    assert!(passes > 0, "the games include passes");
    let engine = |bot: &str| format!("nboard:'{}' nboard {bot}", othello_exe().display());
    let through_nboard = match_games_with_ggf(dir.path(), &engine("stateful"), &engine("first_legal"));
    assert_eq!(through_nboard, direct, "the same games, passes included, with both bots in both colours");
}

#[test]
fn a_level_after_an_nboard_command_is_sent_as_set_depth() {
    // The `levels` fixture plays legally only at level 2: `@2` reaches it as `set depth 2`.
    let dir = fixture_workspace(&["first_legal", "levels"]);
    let engine = format!("nboard:'{}' nboard levels@2", othello_exe().display());
    let games = match_games(dir.path(), &engine, "first_legal");
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|game| game.3 == "normal"), "{games:?}");
    // Without it, its illegal pass is answered through the protocol and judged by the referee:
    // the same games as the direct match.
    let engine = format!("nboard:'{}' nboard levels", othello_exe().display());
    let through_nboard = match_games(dir.path(), &engine, "first_legal");
    assert!(through_nboard.iter().all(|game| game.3 == "illegal-move"), "{through_nboard:?}");
    assert_eq!(through_nboard, match_games(dir.path(), "levels", "first_legal"));
}

/// The standings names of `othello match … --json` run in `dir` with `extra` arguments, or its
/// error text.
fn standings_names(dir: &Path, args: &[&str]) -> Result<Vec<String>, String> {
    let output = Command::new(othello_exe())
        .current_dir(dir)
        .args(["match", "--json", "--games", "2"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let text = String::from_utf8(output.stdout).unwrap();
    let summary =
        text.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()).find(|l| l["summary"].is_object());
    let standings = summary.expect("a summary line")["summary"]["standings"].as_array().unwrap().clone();
    let mut names: Vec<String> = standings.iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect();
    names.sort();
    Ok(names)
}

#[test]
fn an_engine_is_named_from_the_start_by_the_name_it_gives_itself() {
    let dir = fixture_workspace(&["first_legal", "stateful"]);
    let engine = format!("nboard:'{}' nboard stateful", othello_exe().display());
    let names = standings_names(dir.path(), &["first_legal", &engine]).unwrap();
    assert_eq!(names, ["First legal", "Stateful"], "not `othello nboard stateful`");
}

#[test]
fn an_engines_file_names_engines_with_their_folder_for_match() {
    // The engine runs in the folder with the plugins (where `othello nboard` finds `stateful`);
    // the match runs elsewhere and finds the engine by its name in the file.
    let engine_home = fixture_workspace(&["stateful"]);
    let elsewhere = fixture_workspace(&["first_legal"]);
    let engines = engine_home.path().join("my-engines.json");
    let command = format!("'{}' nboard", othello_exe().display());
    let entry = serde_json::json!([{ "name": "Home engine", "command": command, "arguments": ["stateful"],
        "workingDirectory": ".", "initStrings": ["set contempt 0"] }]);
    std::fs::write(&engines, entry.to_string()).unwrap();
    let file = engines.to_str().unwrap();
    let names = standings_names(elsewhere.path(), &["--engines", file, "home ENGINE", "first_legal"]).unwrap();
    assert_eq!(names, ["First legal", "Home engine"]);
    // `./engines.json` is read when no file is given.
    std::fs::copy(&engines, elsewhere.path().join("engines.json")).unwrap();
    assert_eq!(standings_names(elsewhere.path(), &["first_legal", "Home engine"]).unwrap(), names);

    std::fs::write(&engines, r#"[{"name": "Edax", "command": "edax", "protocol": "uci"}]"#).unwrap();
    let error = standings_names(elsewhere.path(), &["--engines", file, "Edax", "first_legal"]).unwrap_err();
    assert!(error.contains("my-engines.json: engine 1 (`Edax`): protocol `uci` is not spoken here"), "{error}");
    let error = standings_names(elsewhere.path(), &["--engines", "missing.json", "x", "first_legal"]).unwrap_err();
    assert!(error.contains("cannot read missing.json"), "{error}");
}

#[test]
fn a_bot_that_crashes_is_told_to_the_gui_and_started_afresh() {
    let dir = fixture_workspace(&["segfault"]);
    let set_game = othello_arena::nboard::protocol::format_set_game(&Position::start(), "A", "B", None);
    let script = ["nboard 2", &set_game, "go", "ping 1", "go", "ping 2"].map(str::to_owned);
    let lines = session(dir.path(), "segfault", &script);
    let crash = "status the bot failed: crash: killed by signal SIGSEGV (segmentation fault) in think";
    assert_eq!(lines, ["set myname Segfault", crash, "pong 1", crash, "pong 2"], "no move and no exit: a status line");
}

/// `othello nboard BOT` driven as an NBoard GUI drives an engine: one command at a time, each
/// followed by `ping N`; the lines before `pong N` are that command's answer.
struct Gui {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    pings: u64,
}

/// How long a GUI waits for an answer before the test calls the engine hung (a session answers
/// in well under a second).
const ANSWER_DEADLINE: Duration = Duration::from_secs(60);

impl Gui {
    fn start(dir: &Path, bot: &str) -> Gui {
        use std::io::BufRead;
        let mut child = Command::new(othello_exe())
            .current_dir(dir)
            .args(["nboard", bot])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in output.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Gui { child, input, lines, pings: 0 }
    }

    /// Sends `command` and returns its answer.
    fn send(&mut self, command: &str) -> Vec<String> {
        use std::io::Write;
        self.pings += 1;
        writeln!(self.input, "{command}\nping {}", self.pings).unwrap();
        self.input.flush().unwrap();
        let pong = format!("pong {}", self.pings);
        let mut answer = Vec::new();
        loop {
            let line = self.lines.recv_timeout(ANSWER_DEADLINE).unwrap_or_else(|_| {
                let _ = self.child.kill();
                panic!("no `{pong}` after `{command}`; answered so far: {answer:?}")
            });
            if line == pong {
                return answer;
            }
            answer.push(line);
        }
    }

    /// Sends `quit`: the engine exits at once and cleanly.
    fn quit(mut self) {
        use std::io::Write;
        writeln!(self.input, "quit").unwrap();
        drop(self.input);
        assert!(self.child.wait().unwrap().success());
    }
}

/// A `set game` line exactly as an NBoard GUI sent it: the result of a game in progress `RE[?]`,
/// a date, a clock, moves with empty evals (also in `tests/data` of the arena, with its source).
const NBOARD_SET_GAME: &str = "set game (;GM[Othello]PC[NBoard]DT[2019-09-29 03:22:14 GMT]PB[Andy]PW[rustrs]RE[?]\
    TI[5:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[C4//5.558]W[C3]\
    B[F5//26.906];)";

/// The position of [`NBOARD_SET_GAME`] and after more moves (transcript, as NBoard plays them).
fn after(moves: &str) -> Position {
    othello_sdk::parse_transcript_from(Position::start(), &format!("c4c3f5{moves}")).unwrap().1
}

/// The move of a `=== F5/eval/time` answer, checked to be legal in `position`.
fn legal_move_of(answer: &[String], position: &Position) -> Move {
    assert_eq!(answer.len(), 1, "one line, the move: {answer:?}");
    let reply = answer[0].strip_prefix("=== ").unwrap_or_else(|| panic!("a move: {answer:?}"));
    let mv: Move = reply.split('/').next().unwrap().parse().unwrap();
    let Move::Play(square) = mv else { panic!("a pass where moves exist: {answer:?}") };
    assert!(position.legal_moves().contains(square), "{mv} is legal in the GUI's position: {answer:?}");
    mv
}

#[test]
fn a_gui_session_built_from_real_nboard_traffic_gets_legal_moves_and_never_a_stale_one() {
    let dir = fixture_workspace(&["first_legal", "analyzes"]);
    let mut gui = Gui::start(dir.path(), "first_legal");
    assert_eq!(gui.send("nboard 2"), ["set myname First_legal"]);
    assert_eq!(gui.send("set depth 6"), Vec::<String>::new(), "a bot without levels ignores the depth");
    assert_eq!(gui.send(NBOARD_SET_GAME), Vec::<String>::new(), "RE[?] is a game in progress");
    assert_eq!(gui.send("set contempt 0"), Vec::<String>::new());
    let first = legal_move_of(&gui.send("go"), &after(""));
    assert_eq!(first, first_legal(&after("")));
    // The GUI plays the engine's move and the user's, with evals and times as NBoard sends them.
    assert_eq!(gui.send(&format!("move {}/0.00/0.1", nboard_move(first))), Vec::<String>::new());
    let user = first_legal(&after(&first.to_string()));
    // A human move comes with its time only (`F5//3.2`), as in NBoard's own `set game` lines.
    assert_eq!(gui.send(&format!("move {}//3.2", nboard_move(user))), Vec::<String>::new());
    let now = after(&format!("{first}{user}"));
    assert_eq!(gui.send("hint 1"), [format!("search {} 0.00 0 0", nboard_move(first_legal(&now))), "status".into()]);

    // A game it cannot read: a status line that says why, then no move and no hint for the
    // position it had before, until a game it can read.
    let broken = NBOARD_SET_GAME.replace("W[C3]", "W[A1]");
    let why = "GGF game 1: move 2 (W[A1]) is illegal: a1 flips no disc";
    assert_eq!(gui.send(&broken), [format!("status cannot read the game: {why}")]);
    let lost =
        format!("the position is unknown since the last set game could not be read: {why}; send a set game to go on");
    assert_eq!(gui.send("go"), [format!("status no move: {lost}")]);
    assert_eq!(gui.send("hint 1"), [format!("status no hint: {lost}")]);
    assert_eq!(gui.send(NBOARD_SET_GAME), Vec::<String>::new());
    legal_move_of(&gui.send("go"), &after(""));
    // A move it cannot play leaves it without the GUI's position too.
    assert_eq!(gui.send("move A1/0.5/1"), ["status move ignored: a1: a1 flips no disc"]);
    let lost = "the position is unknown since move a1 could not be played: a1 flips no disc";
    assert_eq!(gui.send("go"), [format!("status no move: {lost}; send a set game to go on")]);
    assert_eq!(gui.send("move B1"), [format!("status move ignored: {lost}")]);
    assert_eq!(gui.send(NBOARD_SET_GAME), Vec::<String>::new());
    assert_eq!(gui.send("learn"), ["learned"]);
    assert_eq!(gui.send("analyze"), ["status analyze is not supported"]);
    gui.quit();

    // A bot with the analysis export: one hint line per move asked for, all of one depth.
    let mut gui = Gui::start(dir.path(), "analyzes");
    gui.send("nboard 2");
    gui.send(NBOARD_SET_GAME);
    let hints = gui.send("hint 3");
    assert_eq!(hints.len(), 4, "{hints:?}");
    for hint in &hints[..3] {
        let words: Vec<&str> = hint.split(' ').collect();
        assert_eq!((words[0], words[3], words[4]), ("search", "0", "1"), "{hints:?}");
        let Ok(Move::Play(square)) = words[1].parse::<Move>() else { panic!("{hints:?}") };
        assert!(after("").legal_moves().contains(square), "{hints:?}");
    }
    assert_eq!(hints[3], "status");
    gui.quit();
}
