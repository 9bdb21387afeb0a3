//! The engine side of the NBoard protocol: a seat (a bot library in its isolated runner, as in
//! matches) answers a GUI's commands, so any bot can be registered as an engine in an
//! NBoard-protocol GUI (`othello nboard BOT[@LEVEL]`).
//!
//! Supported: `nboard N` (answered with `set myname NAME`, spaces in the name written `_`: NBoard
//! reads one word), `set depth N` (the bot's level, clamped to the levels it has), `set game GGF`
//! (as NBoard sends it: `RE[?]`, moves with or without evals), `set contempt` (ignored),
//! `move F5[/eval/time]` (or a bare `F5`, as protocol 1 sent it), `go` (`nodestats` when the bot
//! reports nodes, then `=== F5/eval/time`), `hint N` (a bot with the analysis export: one
//! `search MOVE EVAL 0 DEPTH` line for each of the N best moves, all with the same depth, `100%`
//! when every value is exact, as NBoard reads an exact solve; a bot without: one `search` line
//! with its choice; then `status`), `ping N` → `pong N`, `learn` → `learned`, `analyze`
//! (acknowledged with a status line), `quit`. Anything else is answered with a status line and
//! otherwise ignored.
//!
//! A `set game` that cannot be read, or a `move` that cannot be read or played, leaves the engine
//! without the GUI's position: until the next `set game` it can read, `go` and `hint` are answered
//! with a status line that says why, and no move (never a move for an older position).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use othello_sdk::{Move, MoveValue, Position};

use super::protocol::{GuiCommand, format_move_reply, format_search_line, parse_gui_command};
use crate::ggf;
use crate::referee::validate;
use crate::seat::{AnalysisError, Failure, Reply, Seat, Termination};

/// Opens the bot's seat at a level (`None` = its default); called again after a failure or a
/// change of level.
pub type OpenSeat<'a> = dyn FnMut(Option<u32>) -> Result<Box<dyn Seat>, Failure> + 'a;

/// How the bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServeOptions {
    /// Time per move the bot is given (and held to) on `go` and `hint`.
    pub time_limit: Option<Duration>,
    /// Level before any `set depth` (`None` = the bot's default).
    pub level: Option<u32>,
}

/// The state of one session with a GUI.
struct Session<'a> {
    open: &'a mut OpenSeat<'a>,
    options: ServeOptions,
    level: Option<u32>,
    seat: Option<Box<dyn Seat>>,
    /// Levels of the bot, once a seat has been opened (0 = none).
    levels: Option<u32>,
    /// The GUI's position, or why the engine does not know it (a `set game` or `move` it could not
    /// follow).
    game: Result<Position, String>,
    /// A new game was set since the seat's last `new_game`.
    game_changed: bool,
    /// Where failures are told in full (the GUI gets one status line).
    diagnostics: &'a mut dyn Write,
}

/// Answers the GUI's commands read from `input` on `output` until `quit` or the end of the input.
/// Only I/O errors on `input` or `output` end it early. A bot's failure is reported with a status
/// line instead of a move (and in full, with its stderr tail, on `diagnostics`), and the bot is
/// started afresh for the next request; an illegal move is answered as it is, after a status line.
pub fn serve(
    open: &mut OpenSeat<'_>,
    options: ServeOptions,
    input: impl BufRead,
    mut output: impl Write,
    mut diagnostics: impl Write,
) -> io::Result<()> {
    let mut session = Session {
        open,
        options,
        level: options.level,
        seat: None,
        levels: None,
        game: Ok(Position::start()),
        game_changed: false,
        diagnostics: &mut diagnostics,
    };
    for line in input.lines() {
        let command = parse_gui_command(&line?);
        if command == GuiCommand::Quit {
            break;
        }
        for reply in session.answer(command) {
            writeln!(output, "{reply}")?;
        }
        output.flush()?;
    }
    Ok(())
}

impl Session<'_> {
    /// The lines that answer `command` (none for most commands).
    fn answer(&mut self, command: GuiCommand) -> Vec<String> {
        match command {
            GuiCommand::Nboard(_) => match self.seat() {
                Ok(seat) => vec![format!("set myname {}", one_word(seat.name()))],
                Err(failure) => vec![status_failure(&failure)],
            },
            GuiCommand::SetDepth(depth) => {
                self.set_depth(depth);
                Vec::new()
            }
            GuiCommand::SetGame(text) => match game_position(&text) {
                Ok(position) => {
                    self.game = Ok(position);
                    self.game_changed = true;
                    Vec::new()
                }
                Err(why) => {
                    self.game = Err(format!("the last set game could not be read: {why}"));
                    vec![format!("status cannot read the game: {why}")]
                }
            },
            GuiCommand::Move(mv) => match &mut self.game {
                Ok(position) => match play(position, mv) {
                    Ok(()) => Vec::new(),
                    Err(why) => {
                        self.game = Err(format!("move {mv} could not be played: {why}"));
                        vec![format!("status move ignored: {mv}: {why}")]
                    }
                },
                Err(lost) => vec![format!("status move ignored: the position is unknown since {lost}")],
            },
            GuiCommand::UnreadableMove(text) => {
                self.game = Err(format!("`{text}` could not be read"));
                vec![format!("status move ignored: `{text}` is not a move")]
            }
            GuiCommand::Go => match self.think() {
                Ok(Answer { mv, reply, warning }) => {
                    let nodes = reply
                        .info
                        .and_then(|i| i.nodes)
                        .map(|nodes| format!("nodestats {nodes} {:.3}", reply.elapsed.as_secs_f64()));
                    let eval = reply.info.and_then(|i| i.eval);
                    warning.into_iter().chain(nodes).chain([format_move_reply(mv, eval, reply.elapsed)]).collect()
                }
                Err(why) => vec![why],
            },
            GuiCommand::Hint(_) if let Err(lost) = &self.game => vec![no_position("hint", lost)],
            GuiCommand::Hint(count) if self.analyzes() => self.hints(count),
            GuiCommand::Hint(_) => match self.think() {
                Ok(Answer { mv, reply, warning }) => warning
                    .into_iter()
                    .chain([format_search_line(mv, reply.info.as_ref()), "status".to_owned()])
                    .collect(),
                Err(why) => vec![why],
            },
            GuiCommand::Ping(n) => vec![format!("pong {n}")],
            GuiCommand::Learn => vec!["learned".to_owned()],
            GuiCommand::Analyze => vec!["status analyze is not supported".to_owned()],
            GuiCommand::SetOther | GuiCommand::Empty | GuiCommand::Quit => Vec::new(),
            GuiCommand::Unknown(text) => vec![format!("status unknown command ignored: {text}")],
        }
    }

    /// The open seat, opening one if needed.
    fn seat(&mut self) -> Result<&mut Box<dyn Seat>, Failure> {
        if self.seat.is_none() {
            let mut seat = (self.open)(self.level)?;
            // Opening only loads the bot: its game (and name, and level) starts with `new_game`.
            seat.new_game()?;
            self.levels = Some(seat.levels());
            self.game_changed = false;
            self.seat = Some(seat);
        }
        Ok(self.seat.as_mut().expect("just opened"))
    }

    /// `set depth N`: the bot's level N, clamped to its levels; a bot without levels ignores it.
    fn set_depth(&mut self, depth: u32) {
        let levels = match self.levels {
            Some(levels) => levels,
            None => match self.seat() {
                Ok(seat) => seat.levels(),
                Err(_) => return, // reported when a move is asked for
            },
        };
        if levels == 0 {
            return;
        }
        let level = Some(depth.clamp(1, levels));
        if level != self.level {
            self.level = level;
            self.seat = None; // reopened at the new level when next needed
        }
    }

    /// The bot (opened if need be) has the analysis export.
    fn analyzes(&mut self) -> bool {
        self.seat().is_ok_and(|seat| seat.analyzes())
    }

    /// `hint N` with the analysis export: the `search` lines of the N best moves, then `status`.
    fn hints(&mut self, count: u32) -> Vec<String> {
        let position = match &self.game {
            Ok(position) => *position,
            Err(lost) => return vec![no_position("hint", lost)],
        };
        if position.is_game_over() {
            return vec!["status the game is over: no move to hint".to_owned()];
        }
        let time_limit = self.options.time_limit;
        let result = self.seat().map(|_| ()).and_then(|()| {
            let seat = self.seat.as_mut().expect("open");
            if std::mem::take(&mut self.game_changed) {
                seat.new_game()?;
            }
            Ok(seat.analyze(&position, time_limit))
        });
        let analysis = match result {
            Ok(Ok(analysis)) => analysis,
            Ok(Err(AnalysisError::Failed(failure))) | Err(failure) => {
                self.seat = None;
                let _ = writeln!(self.diagnostics, "othello nboard: {failure}");
                return vec![status_failure(&failure)];
            }
            Ok(Err(error)) => return vec![format!("status no hint: {error}")],
        };
        if let Some(first) = analysis.rejected.first() {
            let count = analysis.rejected.len();
            let _ =
                writeln!(self.diagnostics, "othello nboard: {count} analysis value(s) left out, the first: {first}");
        }
        if position.must_pass() {
            return vec![format_search_line(Move::Pass, None), "status".to_owned()];
        }
        let shown = &analysis.values[..(count.max(1) as usize).min(analysis.values.len())];
        let depth = hint_depth(shown);
        shown.iter().map(|value| format_hint_line(value, &depth)).chain(["status".to_owned()]).collect()
    }

    /// Asks the bot for a move in the current position; the error is a status line, and the
    /// failure with the bot's stderr tail goes to the diagnostics.
    fn think(&mut self) -> Result<Answer, String> {
        let position = match &self.game {
            Ok(position) => *position,
            Err(lost) => return Err(no_position("move", lost)),
        };
        if position.is_game_over() {
            return Err("status the game is over: no move to make".to_owned());
        }
        let time_limit = self.options.time_limit;
        let result = self.seat().map(|_| ()).and_then(|()| {
            // A seat opened just now has started its game; one kept from an earlier game starts
            // the new one, so a bot that keeps state between moves does not mix games.
            let seat = self.seat.as_mut().expect("open");
            if std::mem::take(&mut self.game_changed) {
                seat.new_game()?;
            }
            seat.think(&position, time_limit)
        });
        let failure = match result {
            Ok(reply) => match (validate(&position, reply.byte), Move::from_byte(reply.byte)) {
                (Ok(mv), _) => return Ok(Answer { mv, reply, warning: None }),
                // An illegal move is still a move: the GUI (or the referee on the other side)
                // judges it, as it would judge any engine's. The bot starts afresh next time.
                (Err(why), Ok(mv)) => {
                    self.seat = None;
                    let warning = Some(format!("status the bot answered an illegal move: {why}"));
                    return Ok(Answer { mv, reply, warning });
                }
                (Err(why), Err(_)) => Failure::new(Termination::IllegalMove, why),
            },
            Err(failure) => failure,
        };
        self.seat = None;
        let _ = writeln!(self.diagnostics, "othello nboard: {failure}");
        Err(status_failure(&failure))
    }
}

/// A move the bot gave, with its report and a status line to send first if it is illegal.
struct Answer {
    mv: Move,
    reply: Reply,
    warning: Option<String>,
}

/// The status line that answers `go` or `hint` when the engine does not know the GUI's position.
fn no_position(what: &str, lost: &str) -> String {
    format!("status no {what}: the position is unknown since {lost}; send a set game to go on")
}

/// A name as one word: NBoard reads the name of `set myname` up to the first space.
fn one_word(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join("_")
}

/// The depth of every line of one hint answer. NBoard keeps only the hints of the latest depth it
/// was sent (a line of another depth greys or drops the others), so one answer has one depth:
/// `100%`, NBoard's mark of an exact solve, when every value is exact, else the shallowest depth.
fn hint_depth(values: &[MoveValue]) -> String {
    if !values.is_empty() && values.iter().all(|value| value.exact) {
        return super::protocol::EXACT_SOLVE_DEPTH.to_owned();
    }
    values.iter().map(|value| value.depth.unwrap_or(0)).min().unwrap_or(0).to_string()
}

/// One `search MOVE EVAL 0 DEPTH` line of a hint, in NBoard's form: the eval in discs from the
/// side to move's view (a win rate alone is put on the disc scale, 50 % = 0 and 100 % = +64, so
/// the GUI orders the moves right).
fn format_hint_line(value: &MoveValue, depth: &str) -> String {
    let eval = match (value.eval, value.win_rate) {
        (Some(eval), _) => eval,
        (None, Some(rate)) => (rate - 0.5) * 2.0 * WIN_RATE_DISC_SCALE,
        (None, None) => 0.0,
    };
    format!("search {} {eval:.2} 0 {depth}", super::protocol::format_move(Move::Play(value.square)))
}

/// The disc difference a certain win is shown as when a bot reports win rates only.
const WIN_RATE_DISC_SCALE: f64 = 64.0;

/// A failure as one status line (the stderr tail would not fit a status bar).
fn status_failure(failure: &Failure) -> String {
    format!("status the bot failed: {}: {}", failure.termination, failure.detail.replace('\n', " "))
}

/// The position after every move of the (first) game in a GGF text, passes included.
fn game_position(text: &str) -> Result<Position, String> {
    let games = ggf::parse(text).map_err(|e| e.to_string())?;
    let game = games.into_iter().next().ok_or("no game in the text")?;
    let mut position = game.start;
    for record in &game.moves {
        position.play_unchecked(record.mv); // checked by the reader
    }
    Ok(position)
}

/// Plays a GUI's move; a GUI that leaves a forced pass out gets it put in.
fn play(position: &mut Position, mv: Move) -> Result<(), String> {
    let mut next = *position;
    if mv != Move::Pass && next.must_pass() {
        next.play(Move::Pass);
    }
    next.try_play(mv).map_err(|why| why.to_string())?;
    *position = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// A bot that plays its first legal move, or a fixed byte, with a search report.
    struct ScriptedBot {
        level: Option<u32>,
        answer: Option<u8>,
        games_started: Arc<AtomicU32>,
    }

    impl Seat for ScriptedBot {
        fn name(&self) -> &str {
            "Scripted"
        }
        fn levels(&self) -> u32 {
            4
        }
        fn new_game(&mut self) -> Result<(), Failure> {
            self.games_started.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
        fn think(&mut self, position: &Position, _: Option<Duration>) -> Result<Reply, Failure> {
            if self.level == Some(1) {
                return Err(Failure::new(Termination::Crash, "level 1 crashes"));
            }
            let first = position.legal_moves().into_iter().next().map_or(Move::Pass, Move::Play);
            let info = othello_sdk::SearchInfo {
                eval: Some(1.25),
                depth: self.level,
                nodes: Some(42),
                ..othello_sdk::SearchInfo::default()
            };
            Ok(Reply {
                byte: self.answer.unwrap_or(first.to_byte()),
                elapsed: Duration::ZERO,
                info: Some(info),
                cpu: None,
                throttled: None,
            })
        }
    }

    fn run(script: &str, answer: Option<u8>) -> (Vec<String>, Vec<Option<u32>>, u32, String) {
        let opened = std::cell::RefCell::new(Vec::new());
        let games = Arc::new(AtomicU32::new(0));
        let mut open = |level: Option<u32>| -> Result<Box<dyn Seat>, Failure> {
            opened.borrow_mut().push(level);
            Ok(Box::new(ScriptedBot { level, answer, games_started: games.clone() }))
        };
        let (mut output, mut diagnostics) = (Vec::new(), Vec::new());
        serve(&mut open, ServeOptions::default(), script.as_bytes(), &mut output, &mut diagnostics).unwrap();
        let lines = String::from_utf8(output).unwrap().lines().map(str::to_owned).collect();
        (lines, opened.into_inner(), games.load(Ordering::SeqCst), String::from_utf8(diagnostics).unwrap())
    }

    fn first_legal(position: &Position) -> Move {
        position.legal_moves().into_iter().next().map_or(Move::Pass, Move::Play)
    }

    fn upper(mv: Move) -> String {
        super::super::protocol::format_move(mv)
    }

    #[test]
    fn a_session_gets_moves_with_reports_hints_and_pongs() {
        let mut position = Position::start();
        for mv in ["f5", "d6"] {
            position.play(mv.parse().unwrap());
        }
        let reply = first_legal(&position);
        position.play(reply);
        let opponent = first_legal(&position);
        position.play(opponent);
        let second = first_legal(&position);
        let script = format!(
            "nboard 2\nset game (;GM[Othello]B[f5]W[d6];)\ngo\nhint 2\nmove {}\nmove {}/0.5/1\ngo\nping 3\nlearn\n",
            upper(reply),
            upper(opponent).to_lowercase()
        );
        let (lines, opened, games, _) = run(&script, None);
        let expected = [
            "set myname Scripted".to_owned(),
            "nodestats 42 0.000".to_owned(),
            format!("=== {}/1.25/0.000", upper(reply)),
            format!("search {} 1.25 0 0", upper(reply)),
            "status".to_owned(),
            "nodestats 42 0.000".to_owned(),
            format!("=== {}/1.25/0.000", upper(second)),
            "pong 3".to_owned(),
            "learned".to_owned(),
        ];
        assert_eq!(lines, expected);
        assert_eq!(opened, [None], "one seat for the session");
        assert_eq!(games, 2, "opening the seat started its first game, the set game a new one");
    }

    /// A `set game` line exactly as an NBoard GUI sent it (`RE[?]`, a date, empty evals).
    const NBOARD_SET_GAME: &str = "set game (;GM[Othello]PC[NBoard]DT[2019-09-29 03:22:14 GMT]PB[Andy]PW[rustrs]RE[?]TI[5:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[C4//5.558]W[C3]B[F5//26.906];)";

    #[test]
    fn after_a_game_or_move_it_cannot_follow_the_engine_answers_no_move_until_a_good_set_game() {
        let mut position = Position::start();
        for mv in ["c4", "c3", "f5"] {
            position.play(mv.parse().unwrap());
        }
        let after_nboard_game = first_legal(&position);
        let unreadable = NBOARD_SET_GAME.replace("RE[?]", "RE[what]");
        let script = [
            "nboard 2",
            NBOARD_SET_GAME,
            "go",
            &unreadable,
            "go",
            "hint 3",
            "move D3",
            "ping 5",
            NBOARD_SET_GAME,
            "go",
            "move A1/0.5/1",
            "go",
            NBOARD_SET_GAME,
            "move z9",
            "hint 1",
            NBOARD_SET_GAME,
            "hint 1",
        ]
        .join("\n");
        let (lines, _, _, _) = run(&script, None);
        let no = |what: &str, why: &str| {
            format!("status no {what}: the position is unknown since {why}; send a set game to go on")
        };
        let why = "GGF game 1: RE[what] is not a result (black's disc difference like +18.00, or ? for a game in \
            progress)";
        let unread = format!("the last set game could not be read: {why}");
        let expected = [
            "set myname Scripted".to_owned(),
            "nodestats 42 0.000".to_owned(),
            format!("=== {}/1.25/0.000", upper(after_nboard_game)),
            format!("status cannot read the game: {why}"),
            no("move", &unread),
            no("hint", &unread),
            format!("status move ignored: the position is unknown since {unread}"),
            "pong 5".to_owned(),
            "nodestats 42 0.000".to_owned(),
            format!("=== {}/1.25/0.000", upper(after_nboard_game)),
            "status move ignored: a1: a1 flips no disc".to_owned(),
            no("move", "move a1 could not be played: a1 flips no disc"),
            "status move ignored: `move z9` is not a move".to_owned(),
            no("hint", "`move z9` could not be read"),
            format!("search {} 1.25 0 0", upper(after_nboard_game)),
            "status".to_owned(),
        ];
        assert_eq!(lines, expected);
    }

    #[test]
    fn a_game_as_edax_saves_it_is_a_game_in_progress() {
        // Edax's `save` of F5D6C3D3C4 (game_export_ggf): lower-case GM, RE[-127.000] for a game
        // that is not over.
        let edax = "set game (;GM[othello]PC[Edax]PB[?]PW[?]RE[-127.000]BO[8 -------- -------- -------- ---O*--- \
            ---*O--- -------- -------- -------- *]B[F5]W[D6]B[C3]W[D3]B[C4];)";
        let position = othello_sdk::parse_transcript_from(Position::start(), "f5d6c3d3c4").unwrap().1;
        let (lines, _, _, _) = run(&format!("{edax}\ngo\n"), None);
        assert_eq!(
            lines,
            ["nodestats 42 0.000".to_owned(), format!("=== {}/1.25/0.000", upper(first_legal(&position)))]
        );
    }

    #[test]
    fn names_are_sent_as_one_word_and_hints_with_one_depth() {
        assert_eq!(one_word("First legal  bot"), "First_legal_bot");
        let value = |square: &str, depth: u32, exact: bool| MoveValue {
            depth: Some(depth),
            exact,
            eval: Some(1.0),
            ..MoveValue::new(square.parse().unwrap())
        };
        assert_eq!(hint_depth(&[value("a1", 20, true), value("b1", 20, true)]), "100%");
        assert_eq!(hint_depth(&[value("a1", 20, true), value("b1", 12, false), value("c1", 14, false)]), "12");
        assert_eq!(hint_depth(&[]), "0");
        assert_eq!(format_hint_line(&value("c4", 9, false), "100%"), "search C4 1.00 0 100%");
    }

    #[test]
    fn set_depth_reopens_the_bot_at_the_clamped_level_and_failures_are_status_lines() {
        let (lines, opened, _, diagnostics) = run("set depth 2\ngo\nset depth 99\ngo\nset depth 1\ngo\ngo\n", None);
        assert_eq!(opened, [None, Some(2), Some(4), Some(1), Some(1)], "{lines:?}");
        assert_eq!(lines[1], "=== D3/1.25/0.000");
        assert!(lines[4].starts_with("status the bot failed: crash: level 1 crashes"), "{lines:?}");
        assert!(lines[5].starts_with("status the bot failed"), "started afresh, failed again: {lines:?}");
        assert!(diagnostics.contains("level 1 crashes"), "{diagnostics}");
    }

    /// A seat that analyses: win rates only (as MCTS reports), f5 certain to win, the rest even.
    struct WinRates;

    impl Seat for WinRates {
        fn name(&self) -> &str {
            "Win rates"
        }
        fn levels(&self) -> u32 {
            0
        }
        fn new_game(&mut self) -> Result<(), Failure> {
            Ok(())
        }
        fn think(&mut self, _: &Position, _: Option<Duration>) -> Result<Reply, Failure> {
            Err(Failure::new(Termination::Crash, "hint must not think"))
        }
        fn analyzes(&self) -> bool {
            true
        }
        fn analyze(
            &mut self,
            position: &Position,
            _: Option<Duration>,
        ) -> Result<crate::seat::Analysis, AnalysisError> {
            let f5: othello_sdk::Square = "f5".parse().unwrap();
            let mut values: Vec<MoveValue> = position
                .legal_moves()
                .into_iter()
                .map(|square| MoveValue {
                    win_rate: Some(if square == f5 { 1.0 } else { 0.5 }),
                    depth: Some(100),
                    ..MoveValue::new(square)
                })
                .collect();
            values.sort_by(|a, b| b.win_rate.unwrap().total_cmp(&a.win_rate.unwrap()));
            Ok(crate::seat::Analysis { values, ..Default::default() })
        }
    }

    #[test]
    fn hints_from_win_rates_are_put_on_the_disc_scale() {
        let mut open = |_: Option<u32>| -> Result<Box<dyn Seat>, Failure> { Ok(Box::new(WinRates)) };
        let mut output = Vec::new();
        serve(&mut open, ServeOptions::default(), "hint 2\n".as_bytes(), &mut output, Vec::new()).unwrap();
        let lines: Vec<String> = String::from_utf8(output).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(lines[0], "search F5 64.00 0 100", "{lines:?}");
        assert!(lines[1].starts_with("search ") && lines[1].ends_with(" 0.00 0 100"), "{lines:?}");
        assert_eq!(lines[2], "status");
    }

    #[test]
    fn illegal_answers_are_sent_after_a_status_line_and_non_moves_are_not() {
        let (lines, opened, _, _) = run("go\ngo\n", Some(0x00));
        assert!(lines[0].starts_with("status the bot answered an illegal move: move byte 0x00 (a1)"), "{lines:?}");
        assert_eq!(lines[2], "=== A1/1.25/0.000", "{lines:?}");
        assert_eq!(opened.len(), 2, "the bot starts afresh after an illegal move");
        let (lines, _, _, _) = run("go\n", Some(0x88));
        assert!(lines[0].starts_with("status the bot failed: illegal-move"), "{lines:?}");
        assert_eq!(lines.len(), 1);
    }
}
