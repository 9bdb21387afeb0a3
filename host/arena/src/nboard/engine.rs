//! The engine side of the NBoard protocol: a seat (a bot library in its isolated runner, as in
//! matches) answers a GUI's commands, so any bot can be registered as an engine in an
//! NBoard-protocol GUI (`othello nboard BOT[@LEVEL]`).
//!
//! Supported: `nboard N` (answered with `set myname`), `set depth N` (the bot's level, clamped to
//! the levels it has), `set game GGF`, `set contempt` (ignored), `move F5[/eval/time]`, `go`
//! (`nodestats` when the bot reports nodes, then `=== F5/eval/time`), `hint N` (one `search` line
//! with the bot's choice, then `status`), `ping N` → `pong N`, `learn` → `learned`, `analyze`
//! (acknowledged with a status line), `quit`. Anything else is answered with a status line and
//! otherwise ignored.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use othello_sdk::{Move, Position};

use super::protocol::{GuiCommand, format_move_reply, format_search_line, parse_gui_command};
use crate::ggf;
use crate::referee::validate;
use crate::seat::{Failure, Reply, Seat, Termination};

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
    position: Position,
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
        position: Position::start(),
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
                Ok(seat) => vec![format!("set myname {}", seat.name())],
                Err(failure) => vec![status_failure(&failure)],
            },
            GuiCommand::SetDepth(depth) => {
                self.set_depth(depth);
                Vec::new()
            }
            GuiCommand::SetGame(text) => match game_position(&text) {
                Ok(position) => {
                    self.position = position;
                    self.game_changed = true;
                    Vec::new()
                }
                Err(why) => vec![format!("status cannot read the game: {why}")],
            },
            GuiCommand::Move(mv) => match play(&mut self.position, mv) {
                Ok(()) => Vec::new(),
                Err(why) => vec![format!("status move ignored: {why}")],
            },
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
            let seat = (self.open)(self.level)?;
            self.levels = Some(seat.levels());
            self.game_changed = false; // a fresh seat has started its game
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

    /// Asks the bot for a move in the current position; the error is a status line, and the
    /// failure with the bot's stderr tail goes to the diagnostics.
    fn think(&mut self) -> Result<Answer, String> {
        let position = self.position;
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
    next.try_play(mv).map_err(|why| format!("{mv}: {why}"))?;
    *position = next;
    Ok(())
}
