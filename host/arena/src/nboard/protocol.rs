//! The NBoard protocol's text, both ways, with no I/O: splitting an engine command line, reading
//! what an engine answers (`=== F5/eval/time`, `search`, `nodestats`, `pong`), reading what a GUI
//! sends (`set game`, `move`, `go`, `hint`, …), and writing either side's lines.
//!
//! Real engines differ in the details, so the readers are lenient: moves in upper or lower case,
//! `PA`/`pa`/`pass` for a pass, `=== F5/-1.50/2.3` as well as `=== f5 -1.50 2.3`.

use std::time::Duration;

use othello_sdk::{Move, Position, SearchInfo};

use crate::ggf::{self, GgfGame};

/// The prefix that makes a bot name an NBoard engine command: `nboard:/usr/local/bin/edax -q -nboard`.
pub const NBOARD_PREFIX: &str = "nboard:";
/// The protocol version the host speaks (and announces with `nboard 2`).
pub const PROTOCOL_VERSION: u32 = 2;
/// What starts an engine's move reply.
pub const MOVE_REPLY_MARK: &str = "===";
/// The depth of a `search` line that NBoard reads as an exact solve.
pub const EXACT_SOLVE_DEPTH: &str = "100%";
/// Deepest search `set depth` can ask for: the 60 empties of a game.
pub const MAX_DEPTH: u32 = 60;

/// The engine command of an `nboard:` bot name or library path, if it is one.
pub fn engine_command(name: &str) -> Option<&str> {
    name.strip_prefix(NBOARD_PREFIX).map(str::trim).filter(|command| !command.is_empty())
}

/// Splits a command line into words as a shell would for simple cases: whitespace separates
/// words; single or double quotes keep whitespace inside a word; a backslash outside single
/// quotes takes the next character literally. No variables, globs or pipes.
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => match chars.next() {
                Some(escaped) => {
                    word.push(escaped);
                    in_word = true;
                }
                None => return Err(format!("`{command}` ends with a lone backslash")),
            },
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("`{command}` has an unclosed {q} quote"));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("the engine command is empty".to_owned());
    }
    Ok(words)
}

/// A short display name for an engine command: the program's file name and the other words,
/// paths cut to their file names (`edax -q -nboard`, `othello nboard libfirst_legal.so`).
pub fn display_name(words: &[String]) -> String {
    words
        .iter()
        .map(|word| match std::path::Path::new(word).file_name() {
            Some(name) if word.contains('/') => name.to_string_lossy().into_owned(),
            _ => word.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A move with the evaluation and time the engine gave with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveWithInfo {
    pub mv: Move,
    /// In discs, from the mover's view.
    pub eval: Option<f64>,
    /// Seconds the engine says it took.
    pub seconds: Option<f64>,
}

/// One line an engine wrote, as the host understands it.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineLine {
    /// `=== F5/eval/time`: the answer to `go`.
    Move(MoveWithInfo),
    /// A `===` line whose move cannot be read.
    UnreadableMove(String),
    /// `pong N`.
    Pong(u64),
    /// `nodestats NODES SECONDS`.
    NodeStats { nodes: u64 },
    /// `search MOVE EVAL 0 DEPTH…`: the search's current best move. A depth of `100%` is NBoard's
    /// mark of an exact solve (`exact`, no depth); `100%W` (win/loss/draw proven) is not exact.
    Search { mv: Move, eval: Option<f64>, depth: Option<u32>, exact: bool },
    /// `set myname NAME`.
    MyName(String),
    /// `learned`.
    Learned,
    /// `status TEXT` and anything else (debug output): not the answer awaited.
    Other,
}

/// Reads one line from an engine.
pub fn parse_engine_line(line: &str) -> EngineLine {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix(MOVE_REPLY_MARK) {
        return match parse_move_with_info(rest) {
            Some(reply) => EngineLine::Move(reply),
            None => EngineLine::UnreadableMove(line.to_owned()),
        };
    }
    let mut words = line.split_whitespace();
    match words.next() {
        Some("pong") => words.next().and_then(|n| n.parse().ok()).map_or(EngineLine::Other, EngineLine::Pong),
        Some("nodestats") => {
            words.next().and_then(parse_count).map_or(EngineLine::Other, |nodes| EngineLine::NodeStats { nodes })
        }
        Some("search") => {
            // The pv's first two characters are the move: `F5`, `F5d6C3`, `F5-D6-C3` (Edax writes
            // its whole pv).
            let first_move = |pv: &str| pv.get(..2).and_then(|m| m.parse::<Move>().ok());
            let Some(mv) = words.next().and_then(first_move) else { return EngineLine::Other };
            let eval = words.next().and_then(|e| e.parse::<f64>().ok()).filter(|e| e.is_finite());
            let _variance = words.next();
            let depth = words.next();
            let exact = depth == Some(EXACT_SOLVE_DEPTH);
            let depth = depth.filter(|_| !exact).and_then(leading_number);
            EngineLine::Search { mv, eval, depth, exact }
        }
        Some("set") if line.split_whitespace().nth(1) == Some("myname") => {
            let name = line.splitn(3, char::is_whitespace).nth(2).unwrap_or("").trim();
            EngineLine::MyName(name.to_owned())
        }
        Some("learned") => EngineLine::Learned,
        _ => EngineLine::Other,
    }
}

/// Node counts come as integers, or as floats from some engines (`1.2e6`).
fn parse_count(text: &str) -> Option<u64> {
    text.parse::<u64>()
        .ok()
        .or_else(|| text.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as u64))
}

/// `22` of `22@73%`: search depths may carry a selectivity suffix.
fn leading_number(text: &str) -> Option<u32> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// `F5/-1.50/2.3`, `f5 -1.50 2.3`, `F5`, `PA`: a move, then optional eval and seconds. An eval or
/// time that is not a number is left out rather than failing the move.
pub fn parse_move_with_info(text: &str) -> Option<MoveWithInfo> {
    let text = text.trim();
    // Slash-separated fields keep their places (`F5//0.5` has no eval); else words do.
    let mut fields: Box<dyn Iterator<Item = &str>> =
        if text.contains('/') { Box::new(text.split('/').map(str::trim)) } else { Box::new(text.split_whitespace()) };
    let mv = fields.next()?.parse::<Move>().ok()?;
    let number = |field: Option<&str>| field.and_then(|f| f.parse::<f64>().ok()).filter(|n| n.is_finite());
    let eval = number(fields.next());
    let seconds = number(fields.next());
    Some(MoveWithInfo { mv, eval, seconds })
}

/// A move as NBoard writes it: `F5`, or `PA` for a pass.
pub fn format_move(mv: Move) -> String {
    match mv {
        Move::Pass => "PA".to_owned(),
        Move::Play(square) => square.to_string().to_ascii_uppercase(),
    }
}

/// The engine's answer to `go`: `=== F5/-1.50/0.25` (eval omitted when unknown).
pub fn format_move_reply(mv: Move, eval: Option<f64>, elapsed: Duration) -> String {
    let eval = eval.map_or(String::new(), |e| format!("{e:.2}"));
    format!("{MOVE_REPLY_MARK} {}/{eval}/{:.3}", format_move(mv), elapsed.as_secs_f64())
}

/// A hint line: `search F5 -1.50 0 12` (eval 0 and depth 0 when the bot does not say).
pub fn format_search_line(mv: Move, info: Option<&SearchInfo>) -> String {
    let eval = info.and_then(|i| i.eval).unwrap_or(0.0);
    let depth = info.and_then(|i| i.depth).unwrap_or(0);
    format!("search {} {eval:.2} 0 {depth}", format_move(mv))
}

/// The `set game` line that puts an engine in `position`: a GGF game starting there with no moves
/// (the side to move is in `BO`), and the time per move as the clock, as NBoard gives it.
pub fn format_set_game(position: &Position, black: &str, white: &str, time_limit: Option<Duration>) -> String {
    let game = GgfGame {
        black: black.to_owned(),
        white: white.to_owned(),
        start: *position,
        moves: Vec::new(),
        time_limit_ms: None,
        started_at: 0,
        result: None,
    };
    let mut text = ggf::format(&game);
    if let Some(limit) = time_limit {
        // Inserted before the board: GGF readers find properties in any order.
        let clock = format!("TI[{}]", format_clock(limit));
        if let Some(at) = text.find("TY[") {
            text.insert_str(at, &clock);
        }
    }
    format!("set game {text}")
}

/// `mm:ss` of a time limit, rounded down to whole seconds but never below one: GGF clocks count
/// whole seconds, and an engine told it has no time left may refuse to search.
fn format_clock(limit: Duration) -> String {
    let seconds = limit.as_secs().max(1);
    format!("{:02}:{:02}", seconds / 60, seconds % 60)
}

/// A command a GUI sends to an engine.
#[derive(Debug, Clone, PartialEq)]
pub enum GuiCommand {
    /// `nboard VERSION`.
    Nboard(u32),
    /// `set depth N`.
    SetDepth(u32),
    /// `set game GGF`.
    SetGame(String),
    /// `set contempt N` and other `set` options the engine may ignore.
    SetOther,
    /// `move F5[/eval/time]`, or a bare `F5` as NBoard 1 sent it.
    Move(Move),
    /// A `move` whose move cannot be read: the text. The GUI has moved on, so the engine's game
    /// is no longer the GUI's.
    UnreadableMove(String),
    /// `go`.
    Go,
    /// `hint N`.
    Hint(u32),
    /// `ping N`.
    Ping(u64),
    /// `learn`.
    Learn,
    /// `analyze` (not supported: acknowledged with a status line).
    Analyze,
    /// `quit`.
    Quit,
    /// An empty line.
    Empty,
    /// Anything else, or a known command with unreadable arguments: the text, for a status line.
    Unknown(String),
}

/// Reads one command line from a GUI.
pub fn parse_gui_command(line: &str) -> GuiCommand {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(w, r)| (w, r.trim()));
    let unknown = || GuiCommand::Unknown(line.to_owned());
    match word {
        "" => GuiCommand::Empty,
        "nboard" => rest.parse().map_or_else(|_| unknown(), GuiCommand::Nboard),
        "set" => {
            let (option, value) = rest.split_once(char::is_whitespace).map_or((rest, ""), |(o, v)| (o, v.trim()));
            match option {
                "depth" => value.parse().map_or_else(|_| unknown(), GuiCommand::SetDepth),
                "game" => GuiCommand::SetGame(value.to_owned()),
                _ => GuiCommand::SetOther,
            }
        }
        "move" => parse_move_with_info(rest)
            .map_or_else(|| GuiCommand::UnreadableMove(line.to_owned()), |m| GuiCommand::Move(m.mv)),
        "go" => GuiCommand::Go,
        "hint" => rest.parse().map_or_else(|_| unknown(), GuiCommand::Hint),
        "ping" => rest.parse().map_or_else(|_| unknown(), GuiCommand::Ping),
        "learn" => GuiCommand::Learn,
        "analyze" => GuiCommand::Analyze,
        "quit" => GuiCommand::Quit,
        // Protocol version 1 sent a move alone (`F5`); Edax and NTest still read it.
        _ if rest.is_empty() && word.len() == 2 => word.parse().map_or_else(|_| unknown(), GuiCommand::Move),
        _ => unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn commands_split_like_a_shell_for_simple_cases() {
        assert_eq!(split_command("/usr/local/bin/edax -q -nboard").unwrap(), ["/usr/local/bin/edax", "-q", "-nboard"]);
        assert_eq!(split_command("  'my engine' \"a b\"  c\\ d ''").unwrap(), ["my engine", "a b", "c d", ""]);
        assert_eq!(split_command("sh -c 'echo \"hi\"'").unwrap(), ["sh", "-c", "echo \"hi\""]);
        assert!(split_command("edax 'unclosed").unwrap_err().contains("unclosed"));
        assert!(split_command("   ").is_err());
        assert!(split_command("edax \\").is_err());
        assert_eq!(engine_command("nboard: edax -q "), Some("edax -q"));
        assert_eq!(engine_command("nboard:"), None);
        assert_eq!(engine_command("alphabeta"), None);
        let words = split_command("/opt/x/othello nboard /tmp/libfirst.so").unwrap();
        assert_eq!(display_name(&words), "othello nboard libfirst.so");
    }

    #[test]
    fn move_replies_are_read_in_every_form_engines_send() {
        let f5 = square("f5");
        let full = MoveWithInfo { mv: f5, eval: Some(-1.5), seconds: Some(2.3) };
        assert_eq!(parse_engine_line("=== F5/-1.50/2.3"), EngineLine::Move(full));
        assert_eq!(parse_engine_line("=== f5 -1.50 2.3"), EngineLine::Move(full));
        assert_eq!(parse_engine_line("===f5"), EngineLine::Move(MoveWithInfo { mv: f5, eval: None, seconds: None }));
        assert_eq!(
            parse_engine_line("=== F5//0.5\r"),
            EngineLine::Move(MoveWithInfo { mv: f5, eval: None, seconds: Some(0.5) })
        );
        for pass in ["=== PA", "=== pa", "=== pass/0/0"] {
            assert!(matches!(parse_engine_line(pass), EngineLine::Move(MoveWithInfo { mv: Move::Pass, .. })), "{pass}");
        }
        // A move that is off the board or not a move cannot be read.
        for garbage in ["=== z9", "===", "=== hello", "=== 42"] {
            assert!(matches!(parse_engine_line(garbage), EngineLine::UnreadableMove(_)), "{garbage}");
        }
        // A junk eval does not cost the move.
        assert_eq!(
            parse_engine_line("=== a1/nan/x"),
            EngineLine::Move(MoveWithInfo { mv: square("a1"), eval: None, seconds: None })
        );
    }

    #[test]
    fn search_reports_and_other_lines_are_read() {
        assert_eq!(parse_engine_line("pong 7"), EngineLine::Pong(7));
        assert_eq!(parse_engine_line("pong x"), EngineLine::Other);
        assert_eq!(parse_engine_line("nodestats 123456 0.5"), EngineLine::NodeStats { nodes: 123_456 });
        assert_eq!(parse_engine_line("nodestats 1.5e6 2"), EngineLine::NodeStats { nodes: 1_500_000 });
        assert_eq!(
            parse_engine_line("search d3 +2.00 0 22@73%"),
            EngineLine::Search { mv: square("d3"), eval: Some(2.0), depth: Some(22), exact: false }
        );
        assert_eq!(
            parse_engine_line("search C4 -1 0"),
            EngineLine::Search { mv: square("c4"), eval: Some(-1.0), depth: None, exact: false }
        );
        assert_eq!(
            parse_engine_line("search F5d6 +4 0 100%"),
            EngineLine::Search { mv: square("f5"), eval: Some(4.0), depth: None, exact: true }
        );
        assert_eq!(
            parse_engine_line("search F5 +4 0 100%W"),
            EngineLine::Search { mv: square("f5"), eval: Some(4.0), depth: Some(100), exact: false }
        );
        assert_eq!(parse_engine_line("set myname Edax 4.4"), EngineLine::MyName("Edax 4.4".to_owned()));
        assert_eq!(parse_engine_line("learned"), EngineLine::Learned);
        assert_eq!(
            parse_engine_line("search F5-D6-C3 -2 0 12"),
            EngineLine::Search { mv: square("f5"), eval: Some(-2.0), depth: Some(12), exact: false }
        );
        for other in ["status thinking", "", "debug: 12 nodes", "search", "search zz 1 0 1", "search é5 1 0 1"] {
            assert_eq!(parse_engine_line(other), EngineLine::Other, "{other}");
        }
    }

    #[test]
    fn edax_sessions_are_read_as_edax_writes_them() {
        // The example session of NBoard's protocol document (Edax 4 answering `go`), and a hint
        // line as Edax's `play_hint` prints it (its pv, then `score 0 depth`).
        let edax = ["set myname Edax6", "pong 1", "status Edax is thinking", "nodestats 35805 0.00"];
        let read: Vec<EngineLine> = edax.iter().map(|line| parse_engine_line(line)).collect();
        assert_eq!(
            read,
            [
                EngineLine::MyName("Edax6".into()),
                EngineLine::Pong(1),
                EngineLine::Other,
                EngineLine::NodeStats { nodes: 35_805 }
            ]
        );
        assert_eq!(
            parse_engine_line("=== d6 -1.00 0.0"),
            EngineLine::Move(MoveWithInfo { mv: square("d6"), eval: Some(-1.0), seconds: Some(0.0) })
        );
        assert_eq!(
            parse_engine_line("search d3c3c4 -1 0 21"),
            EngineLine::Search { mv: square("d3"), eval: Some(-1.0), depth: Some(21), exact: false }
        );
    }

    #[test]
    fn engine_side_lines_are_written_as_nboard_expects() {
        assert_eq!(format_move_reply(square("f5"), Some(-1.5), Duration::from_millis(250)), "=== F5/-1.50/0.250");
        assert_eq!(format_move_reply(Move::Pass, None, Duration::ZERO), "=== PA//0.000");
        let info = SearchInfo { eval: Some(3.0), depth: Some(9), ..SearchInfo::default() };
        assert_eq!(format_search_line(square("c4"), Some(&info)), "search C4 3.00 0 9");
        assert_eq!(format_search_line(square("c4"), None), "search C4 0.00 0 0");
        // The host's own replies read back as the same move.
        let line = format_move_reply(square("h8"), Some(2.0), Duration::from_millis(10));
        assert!(matches!(parse_engine_line(&line), EngineLine::Move(MoveWithInfo { eval: Some(2.0), .. })));
    }

    #[test]
    fn set_game_puts_the_engine_in_the_position_with_the_clock() {
        let mut position = Position::start();
        position.play(square("f5"));
        let line = format_set_game(&position, "a", "b", Some(Duration::from_millis(2500)));
        assert!(line.starts_with("set game (;GM[Othello]"), "{line}");
        assert!(line.contains("TI[00:02]"), "{line}");
        assert!(line.ends_with(" O];)"), "white to move: {line}");
        let GuiCommand::SetGame(text) = parse_gui_command(&line) else { panic!("{line}") };
        let games = ggf::parse(&text).unwrap();
        assert_eq!(games[0].start, position);
        assert!(games[0].moves.is_empty());
        // Sub-second limits still give the engine a clock it can search with.
        assert!(format_set_game(&position, "a", "b", Some(Duration::from_millis(200))).contains("TI[00:01]"));
        assert!(!format_set_game(&position, "a", "b", None).contains("TI["));
    }

    #[test]
    fn gui_commands_are_read() {
        assert_eq!(parse_gui_command("nboard 2"), GuiCommand::Nboard(2));
        assert_eq!(parse_gui_command("set depth 12"), GuiCommand::SetDepth(12));
        assert_eq!(parse_gui_command("set contempt 0"), GuiCommand::SetOther);
        assert_eq!(parse_gui_command("set game (;GM[Othello];)"), GuiCommand::SetGame("(;GM[Othello];)".into()));
        assert_eq!(parse_gui_command("move F5/-1.2/3.0"), GuiCommand::Move(square("f5")));
        assert_eq!(parse_gui_command("move pa"), GuiCommand::Move(Move::Pass));
        assert_eq!(parse_gui_command(" go \r"), GuiCommand::Go);
        assert_eq!(parse_gui_command("hint 3"), GuiCommand::Hint(3));
        assert_eq!(parse_gui_command("ping 42"), GuiCommand::Ping(42));
        assert_eq!(parse_gui_command("learn"), GuiCommand::Learn);
        assert_eq!(parse_gui_command("analyze"), GuiCommand::Analyze);
        assert_eq!(parse_gui_command("quit"), GuiCommand::Quit);
        assert_eq!(parse_gui_command(""), GuiCommand::Empty);
        assert_eq!(parse_gui_command("move z9"), GuiCommand::UnreadableMove("move z9".into()));
        assert_eq!(parse_gui_command("move"), GuiCommand::UnreadableMove("move".into()));
        // NBoard 1's bare move.
        assert_eq!(parse_gui_command("F5"), GuiCommand::Move(square("f5")));
        assert_eq!(parse_gui_command("PA"), GuiCommand::Move(Move::Pass));
        assert_eq!(parse_gui_command("z9"), GuiCommand::Unknown("z9".into()));
        assert_eq!(parse_gui_command("ping"), GuiCommand::Unknown("ping".into()));
        assert_eq!(parse_gui_command("fly away"), GuiCommand::Unknown("fly away".into()));
    }
}
