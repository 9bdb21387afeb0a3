//! GGF, the Generic Game Format of the GGS server that NBoard-style tools
//! read: one game per line,
//! `(;GM[Othello]PC[…]DT[…]PB[…]PW[…]RE[+18.00]TI[…]TY[8]BO[8 <64 squares> *]B[f5//0.01]W[d6/-1.50/0.20]…;)`.
//!
//! `BO` is the board the game starts from (`*` black, `O` white, `-` empty,
//! then the side to move); `B`/`W` moves are `square/eval/seconds`, `pa` a
//! pass; `RE` is black's disc difference, with `:t` for a loss on time and
//! `:r` for any other forfeit. A game still in progress has no `RE`, or NBoard's `RE[?]` (what its
//! `set game` lines carry), or Edax's `RE[-127.000]`; any other `RE` that is not a disc difference
//! is an error.
//!
//! The arena's games are always finished: [`write_game`] and [`read_games`] take and give
//! [`GameRecord`]s, and a game without a result is an error there. The app also saves and reopens
//! games in progress: [`format()`] and [`parse`] take and give [`GgfGame`]s, whose result is optional.

use std::fmt;
use std::time::Duration;

use othello_sdk::{Color, Move, Position, SearchInfo, Square};

use crate::record::{End, FORFEIT_DISCS, GameRecord, MoveRecord, Outcome};
use crate::seat::{Clock, Failure, Termination};

/// What the `PC` (place) property says.
pub const PLACE: &str = "othello-arena";

/// A game as a GGF text holds it: finished, with its result, or saved while still in progress.
#[derive(Debug, Clone, PartialEq)]
pub struct GgfGame {
    pub black: String,
    pub white: String,
    /// The board the game starts from (`BO`).
    pub start: Position,
    /// Every move from `start`, passes included.
    pub moves: Vec<MoveRecord>,
    /// The time limit per move (`TI`), if any.
    pub time_limit_ms: Option<u64>,
    /// When the game started, seconds since the Unix epoch (UTC); 0 if unknown.
    pub started_at: u64,
    /// How the game ended; `None` for a game still in progress (no `RE`).
    pub result: Option<Outcome>,
}

impl GgfGame {
    /// The finished game as an arena record; `None` for a game still in progress.
    pub fn into_finished(self) -> Option<GameRecord> {
        let result = self.result?;
        Some(GameRecord {
            black: self.black,
            white: self.white,
            opening: Vec::new(),
            start: self.start,
            moves: self.moves,
            time_limit_ms: self.time_limit_ms,
            started_at: self.started_at,
            result,
            clock: None,
        })
    }
}

/// What goes into one GGF line, borrowed from a [`GameRecord`] or a [`GgfGame`].
struct Line<'a> {
    black: &'a str,
    white: &'a str,
    started_at: u64,
    time_limit_ms: Option<u64>,
    /// Moves forced from the standard start before `start` (written without eval or time).
    opening: &'a [Move],
    start: Position,
    moves: &'a [MoveRecord],
    /// `None`: no `RE`, the game is in progress.
    result: Option<&'a Outcome>,
    /// The clock the time limit was counted on (`CK[cpu]`, `CK[wall]`, `CK[fuel]`: a property
    /// of this arena's, which GGF readers ignore).
    clock: Option<Clock>,
}

/// Writes a finished game as one GGF line (no trailing newline).
pub fn write_game(game: &GameRecord) -> String {
    write_line(&finished_line(game))
}

/// The line of a finished game.
fn finished_line(game: &GameRecord) -> Line<'_> {
    Line {
        black: &game.black,
        white: &game.white,
        started_at: game.started_at,
        time_limit_ms: game.time_limit_ms,
        opening: &game.opening,
        start: game.start,
        moves: &game.moves,
        result: Some(&game.result),
        clock: game.clock,
    }
}

/// Writes a game, finished or in progress, as one GGF line (no trailing newline). A game in
/// progress gets no `RE`, so no reader takes it for finished.
pub fn format(game: &GgfGame) -> String {
    write_line(&Line {
        black: &game.black,
        white: &game.white,
        started_at: game.started_at,
        time_limit_ms: game.time_limit_ms,
        opening: &[],
        start: game.start,
        moves: &game.moves,
        result: game.result.as_ref(),
        clock: None,
    })
}

/// Writes a finished game as one GGF line (no trailing newline) to `out`: the streaming form of
/// [`write_game`], for files of many games.
pub fn write_game_to(out: &mut impl std::io::Write, game: &GameRecord) -> std::io::Result<()> {
    let mut line = String::with_capacity(LINE_CAPACITY);
    write_line_into(&mut line, &finished_line(game));
    out.write_all(line.as_bytes())
}

/// [`write_game_to`] with the clock the time limit was counted on (`CK[…]` after `TI`; `None`:
/// the record's own, if it has one).
pub fn write_game_with_clock_to(
    out: &mut impl std::io::Write,
    game: &GameRecord,
    clock: Option<Clock>,
) -> std::io::Result<()> {
    let mut line = String::with_capacity(LINE_CAPACITY);
    write_line_into(&mut line, &Line { clock: clock.or(game.clock), ..finished_line(game) });
    out.write_all(line.as_bytes())
}

const NANOS_PER_CENTISECOND: u128 = 10_000_000;

/// Room for a typical game's line (60 moves with times), so writing it allocates once.
const LINE_CAPACITY: usize = 1024;

fn write_line(game: &Line<'_>) -> String {
    let mut out = String::with_capacity(LINE_CAPACITY);
    write_line_into(&mut out, game);
    out
}

fn write_line_into(out: &mut String, game: &Line<'_>) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(out, "(;GM[Othello]PC[{}]DT[{}]", escape(PLACE), format_date(game.started_at));
    let _ = write!(out, "PB[{}]PW[{}]", escape(game.black), escape(game.white));
    if let Some(result) = game.result {
        let difference = result.discs[0] as i64 - result.discs[1] as i64;
        // GGF marks a loss on time `:t` and a resignation `:r`; it has no mark for a crash or an
        // illegal move, so those forfeits are written as resignations.
        let flag = match &result.end {
            End::Normal => "",
            End::Forfeit { failure, .. } if failure.termination == Termination::Timeout => ":t",
            End::Resigned { .. } | End::Forfeit { .. } => ":r",
        };
        let _ = write!(out, "RE[{difference:+}.00{flag}]");
    }
    if let Some(ms) = game.time_limit_ms {
        let _ = write!(out, "TI[00:00/{}/00:00]", format_clock(ms));
    }
    if let Some(clock) = game.clock {
        let _ = write!(out, "CK[{clock}]");
    }
    // The opening, if any, is part of the game from the standard start.
    let board = if game.opening.is_empty() { game.start } else { Position::start() };
    let _ = write!(out, "TY[8]BO[8 {}]", format_board(&board));
    let mut position = board;
    for &mv in game.opening {
        let _ = write!(out, "{}[{}]", color_letter(position.side_to_move()), format_move(mv));
        position.play_unchecked(mv);
    }
    for record in game.moves {
        let _ = write!(out, "{}[{}/", color_letter(record.color), format_move(record.mv));
        if let Some(eval) = record.info.and_then(|i| i.eval) {
            let _ = write!(out, "{eval:.2}");
        }
        // Centiseconds as integers: formatting a float per move was a tenth of writing a game.
        let centiseconds = (record.elapsed.as_nanos() + NANOS_PER_CENTISECOND / 2) / NANOS_PER_CENTISECOND;
        let _ = write!(out, "/{}.{:02}]", centiseconds / 100, centiseconds % 100);
    }
    out.push_str(";)");
}

/// A GGF text that could not be read: which game, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GgfError {
    /// 1-based number of the game in the text.
    pub game: usize,
    pub message: String,
}

impl fmt::Display for GgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GGF game {}: {}", self.game, self.message)
    }
}

impl std::error::Error for GgfError {}

/// Reads every finished game of a GGF text; a game without a result (`RE`) is an error. Moves are
/// checked by replaying them. The clock of `CK[…]` is the record's (an unknown one is left out).
pub fn read_games(text: &str) -> Result<Vec<GameRecord>, GgfError> {
    parse_with_clocks(text)?
        .into_iter()
        .enumerate()
        .map(|(index, (game, clock))| {
            let mut record = game.into_finished().ok_or_else(|| GgfError {
                game: index + 1,
                message: "the game is unfinished and has no result (RE)".to_owned(),
            })?;
            record.clock = clock;
            Ok(record)
        })
        .collect()
}

/// Reads the finished games of a GGF file (see [`read_games`]).
pub fn read_file(path: &std::path::Path) -> Result<Vec<GameRecord>, String> {
    let text = read_text(path)?;
    read_games(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads every game of a GGF text, finished or in progress (no `RE`). Moves are checked by
/// replaying them; anything malformed is an error that names the game and says why.
pub fn parse(text: &str) -> Result<Vec<GgfGame>, GgfError> {
    Ok(parse_with_clocks(text)?.into_iter().map(|(game, _)| game).collect())
}

/// [`parse`], with each game's clock (`CK[…]`, this arena's own property).
fn parse_with_clocks(text: &str) -> Result<Vec<(GgfGame, Option<Clock>)>, GgfError> {
    let mut games = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("(;") {
        let number = games.len() + 1;
        let error = |message: String| GgfError { game: number, message };
        let body_start = start + 2;
        let (properties, consumed) = parse_properties(&rest[body_start..]).map_err(error)?;
        let clock = properties.iter().find(|(key, _)| key == "CK").and_then(|(_, value)| clock_named(value));
        games.push((build_game(&properties).map_err(error)?, clock));
        rest = &rest[body_start + consumed..];
    }
    if games.is_empty() && !text.trim().is_empty() {
        return Err(GgfError { game: 1, message: "no game found (a GGF game starts with `(;`)".to_owned() });
    }
    Ok(games)
}

/// The clock a `CK[…]` value names (`fuel` too, which `--clock` does not take).
fn clock_named(value: &str) -> Option<Clock> {
    match value.trim() {
        "fuel" => Some(Clock::Fuel),
        other => other.parse().ok(),
    }
}

/// Reads every game of a GGF file, finished or in progress (see [`parse`]).
pub fn parse_file(path: &std::path::Path) -> Result<Vec<GgfGame>, String> {
    let text = read_text(path)?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_text(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// `KEY[value]` pairs up to the closing `;)`; returns them and the bytes used.
fn parse_properties(text: &str) -> Result<(Vec<(String, String)>, usize), String> {
    let bytes = text.as_bytes();
    let mut properties = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if text[i..].starts_with(";)") {
            return Ok((properties, i + 2));
        }
        if i >= bytes.len() {
            return Err("the game is not closed with `;)`".to_owned());
        }
        let key_start = i;
        while i < bytes.len() && bytes[i].is_ascii_uppercase() {
            i += 1;
        }
        if i == key_start || bytes.get(i) != Some(&b'[') {
            let found: String = text[key_start..].chars().take(12).collect();
            return Err(format!("expected a property like `PB[name]` at `{found}`"));
        }
        let key = text[key_start..i].to_owned();
        i += 1;
        let mut value = String::new();
        loop {
            let Some(c) = text[i..].chars().next() else {
                return Err(format!("property {key} is not closed with `]`"));
            };
            i += c.len_utf8();
            match c {
                ']' => break,
                '\\' => {
                    if let Some(escaped) = text[i..].chars().next() {
                        value.push(escaped);
                        i += escaped.len_utf8();
                    }
                }
                c => value.push(c),
            }
        }
        properties.push((key, value));
    }
}

fn build_game(properties: &[(String, String)]) -> Result<GgfGame, String> {
    let get = |key: &str| properties.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    if let Some(game) = get("GM")
        && !game.eq_ignore_ascii_case("othello")
    {
        return Err(format!("GM[{game}] is not an Othello game"));
    }
    let start = match get("BO") {
        Some(board) => parse_board(board)?,
        None => Position::start(),
    };
    let mut position = start;
    let mut moves = Vec::new();
    for (key, value) in properties.iter().filter(|(k, _)| k == "B" || k == "W") {
        let color = if key == "B" { Color::Black } else { Color::White };
        let mut parts = value.split('/');
        let text = parts.next().unwrap_or("").trim();
        let move_number = moves.len() + 1;
        let mv: Move = text.parse().map_err(|_| format!("move {move_number}: `{text}` is not a move"))?;
        // Passes may be left out: insert the forced ones.
        if color != position.side_to_move() && position.must_pass() {
            moves.push(MoveRecord {
                color: position.side_to_move(),
                mv: Move::Pass,
                elapsed: Duration::ZERO,
                info: None,
                cpu: None,
                throttled: None,
            });
            position.play_unchecked(Move::Pass);
        }
        if color != position.side_to_move() {
            return Err(format!("move {move_number} ({key}[{value}]): it is {}'s turn", position.side_to_move()));
        }
        position.try_play(mv).map_err(|why| format!("move {move_number} ({key}[{value}]) is illegal: {why}"))?;
        let eval = parts.next().map(str::trim).filter(|e| !e.is_empty());
        let eval = match eval {
            Some(e) => Some(e.parse::<f64>().map_err(|_| format!("move {move_number}: eval `{e}` is not a number"))?),
            None => None,
        };
        let seconds = parts.next().map(str::trim).filter(|t| !t.is_empty());
        let elapsed = match seconds {
            Some(t) => Duration::try_from_secs_f64(
                t.parse::<f64>().map_err(|_| format!("move {move_number}: time `{t}` is not a number"))?,
            )
            .map_err(|_| format!("move {move_number}: time `{t}` is out of range"))?,
            None => Duration::ZERO,
        };
        let info = eval.map(|eval| SearchInfo { eval: Some(eval), ..SearchInfo::default() });
        moves.push(MoveRecord { color, mv, elapsed, info, cpu: None, throttled: None });
    }
    let result = match (position.is_game_over(), get("RE")) {
        (true, _) => Some(Outcome::normal(&position)),
        (false, None) => None, // still in progress
        (false, Some(re)) if is_in_progress_mark(re) => None,
        (false, Some(re)) => Some(early_end_from(re)?),
    };
    Ok(GgfGame {
        black: get("PB").unwrap_or("?").to_owned(),
        white: get("PW").unwrap_or("?").to_owned(),
        start,
        moves,
        time_limit_ms: get("TI").and_then(parse_increment_ms),
        started_at: get("DT").and_then(parse_date).unwrap_or(0),
        result,
    })
}

/// What programs write in `RE` for a game still in progress: NBoard's `RE[?]` (its `set game`
/// lines and saved games), an empty `RE[]`, and Edax's `RE[-127.000]` (its "no score", written by
/// `save` for an unfinished game).
fn is_in_progress_mark(re: &str) -> bool {
    let re = re.trim();
    re.is_empty() || re == "?" || re.parse::<f64>().is_ok_and(|difference| difference == EDAX_NO_SCORE)
}

/// Edax's `-SCORE_INF`, its score of a game that is not over.
const EDAX_NO_SCORE: f64 = -127.0;

/// The result of a game that did not reach its end: `RE[-64.00:t]` (lost on time) or
/// `RE[+64.00:r]` (resigned); a drawn early end is not a result the arena knows.
fn early_end_from(re: &str) -> Result<Outcome, String> {
    let (number, flag) = re.split_once(':').unwrap_or((re, ""));
    let not_a_result =
        || format!("RE[{re}] is not a result (black's disc difference like +18.00, or ? for a game in progress)");
    let difference: f64 = number.trim().parse().map_err(|_| not_a_result())?;
    if !difference.is_finite() || difference.abs() > f64::from(FORFEIT_DISCS) {
        return Err(not_a_result());
    }
    let loser = match difference.total_cmp(&0.0) {
        std::cmp::Ordering::Greater => Color::White,
        std::cmp::Ordering::Less => Color::Black,
        std::cmp::Ordering::Equal => {
            return Err(format!("RE[{re}]: the game did not reach its end, yet nobody lost it"));
        }
    };
    let mut outcome = match flag {
        "t" => Outcome::forfeit(loser, Failure::new(Termination::Timeout, format!("lost on time (RE[{re}])"))),
        _ => Outcome::resigned(loser),
    };
    let black = ((FORFEIT_DISCS as f64 + difference) / 2.0).clamp(0.0, FORFEIT_DISCS as f64).round() as u32;
    outcome.discs = [black, FORFEIT_DISCS - black];
    Ok(outcome)
}

fn parse_board(text: &str) -> Result<Position, String> {
    let rest = text.trim_start();
    let rest = rest.strip_prefix('8').ok_or_else(|| format!("BO[{text}]: only 8x8 boards are supported"))?;
    Position::from_board_string(rest).map_err(|e| format!("BO: {e}"))
}

fn format_board(position: &Position) -> String {
    let mut out = String::new();
    for square in Square::all() {
        if square.index() % 8 == 0 && square.index() > 0 {
            out.push(' ');
        }
        out.push(match position.color_on(square) {
            Some(Color::Black) => '*',
            Some(Color::White) => 'O',
            None => '-',
        });
    }
    out.push(' ');
    out.push(if position.side_to_move() == Color::Black { '*' } else { 'O' });
    out
}

fn format_move(mv: Move) -> String {
    match mv {
        Move::Pass => "pa".to_owned(),
        Move::Play(square) => square.to_string(),
    }
}

fn color_letter(color: Color) -> char {
    if color == Color::Black { 'B' } else { 'W' }
}

/// GGF texts end a value at `]`; escape it and the escape character.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// `mm:ss` (or `h:mm:ss`) for a per-move time, as GGF clocks are written.
fn format_clock(ms: u64) -> String {
    let seconds = ms.div_ceil(1000);
    if seconds >= 3600 {
        format!("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
    } else {
        format!("{:02}:{:02}", seconds / 60, seconds % 60)
    }
}

/// The increment of `TI[base/increment/extension]` in milliseconds.
fn parse_increment_ms(ti: &str) -> Option<u64> {
    let increment = ti.split('/').nth(1)?;
    let mut seconds = 0u64;
    for part in increment.split(':') {
        seconds = seconds * 60 + part.trim().parse::<u64>().ok()?;
    }
    (seconds > 0).then_some(seconds * 1000)
}

/// `2026.11.22_01:02:03.UTC`.
pub fn format_date(unix: u64) -> String {
    let (days, seconds) = (unix / 86_400, unix % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}.{month:02}.{day:02}_{:02}:{:02}:{:02}.UTC", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// Reads dates as [`format_date`] and GGS write them (`2010.10.17_05:23:05.MDT`) and as NBoard
/// writes them (`2019-09-29 03:22:14 GMT`); the zone is not converted. Other forms are ignored.
fn parse_date(text: &str) -> Option<u64> {
    let (date, time) = text.trim().split_once(['_', ' '])?;
    let mut date = date.split(['.', '-']).map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (date.next()??, date.next()??, date.next()??);
    let time = time.split(['.', ' ']).next()?;
    let mut time = time.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (time.next()??, time.next()??, time.next()??);
    let days = days_from_civil(year, month, day);
    (days >= 0).then(|| days as u64 * 86_400 + h * 3600 + m * 60 + s)
}

/// Howard Hinnant's calendar algorithms (proleptic Gregorian, UTC).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(format_date(0), "1970.01.01_00:00:00.UTC");
        // 2000-03-01 (after a leap day): 951868800.
        assert_eq!(format_date(951_868_800 + 3_723), "2000.03.01_01:02:03.UTC");
        assert_eq!(parse_date("2000.03.01_01:02:03.UTC"), Some(951_868_800 + 3_723));
        // GGS's local zones and NBoard's dashes.
        assert_eq!(parse_date("2000.03.01_01:02:03.MDT"), Some(951_868_800 + 3_723));
        assert_eq!(parse_date("2000-03-01 01:02:03 GMT"), Some(951_868_800 + 3_723));
        assert_eq!(parse_date("yesterday"), None);
    }

    /// A finished game with at least one pass, from seeded random playouts.
    #[test]
    fn the_clock_is_written_and_read_back() {
        let game = game_with_a_pass();
        let mut line = Vec::new();
        write_game_with_clock_to(&mut line, &game, Some(Clock::Cpu)).unwrap();
        let line = String::from_utf8(line).unwrap();
        assert!(line.contains("CK[cpu]"), "{line}");
        let read = &read_games(&line).unwrap()[0];
        assert_eq!((read.transcript(), read.clock), (game.transcript(), Some(Clock::Cpu)));
        assert!(!write_game(&game).contains("CK["));
        // A record's own clock is written by every writer (the ladder's and the server's games).
        for clock in [Clock::Cpu, Clock::Wall, Clock::Fuel] {
            let line = write_game(&GameRecord { clock: Some(clock), ..game.clone() });
            assert!(line.contains(&format!("CK[{clock}]")), "{line}");
            assert_eq!(read_games(&line).unwrap()[0].clock, Some(clock));
        }
        // Other programs' readers skip it; an unknown clock is left out, not an error.
        let odd = write_game(&game).replacen("TY[8]", "CK[sundial]TY[8]", 1);
        assert_eq!(read_games(&odd).unwrap()[0].clock, None);
    }

    fn game_with_a_pass() -> GameRecord {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
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
                moves.push(MoveRecord {
                    color,
                    mv,
                    elapsed: Duration::from_millis(10),
                    info: None,
                    cpu: None,
                    throttled: None,
                });
            }
            if moves.iter().any(|m| m.mv == Move::Pass) {
                return GameRecord {
                    black: "Black [1]".into(),
                    white: "White\\".into(),
                    opening: Vec::new(),
                    start: Position::start(),
                    moves,
                    time_limit_ms: Some(2000),
                    started_at: 1_700_000_000,
                    result: Outcome::normal(&position),
                    clock: None,
                };
            }
        }
    }

    #[test]
    fn passes_and_escaped_names_round_trip() {
        let game = game_with_a_pass();
        let text = write_game(&game);
        assert!(text.contains("[pa/"), "{text}");
        assert!(text.contains("TI[00:00/00:02/00:00]"), "{text}");
        let read = read_games(&text).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].black, game.black);
        assert_eq!(read[0].white, game.white);
        assert_eq!(
            read[0].moves.iter().map(|m| m.mv).collect::<Vec<_>>(),
            game.moves.iter().map(|m| m.mv).collect::<Vec<_>>()
        );
        assert_eq!(read[0].result, game.result);
        assert_eq!(read[0].time_limit_ms, Some(2000));
        // Tools that leave passes out are read too: the forced pass is put back.
        let without_passes = text.replace("B[pa/", "X[").replace("W[pa/", "X[");
        let without_passes: String = without_passes
            .split("X[")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part.to_owned()
                } else {
                    part.split_once(']').map_or(String::new(), |(_, rest)| rest.to_owned())
                }
            })
            .collect();
        let read = read_games(&format!("junk before {without_passes} and after")).unwrap();
        assert_eq!(read[0].final_position(), game.final_position());
        assert_eq!(read[0].moves.len(), game.moves.len());
    }

    #[test]
    fn a_game_in_progress_is_read_without_a_result_and_never_as_finished() {
        let finished = game_with_a_pass();
        let in_progress = GgfGame {
            black: finished.black.clone(),
            white: finished.white.clone(),
            start: finished.start,
            moves: finished.moves[..20].to_vec(),
            time_limit_ms: None,
            started_at: finished.started_at,
            result: None,
        };
        let line = format(&in_progress);
        assert!(!line.contains("RE["), "{line}");
        let text = format!("{}\n{line}\n", write_game(&finished));
        let games = parse(&text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[1], GgfGame { moves: read_back(&in_progress.moves), ..in_progress.clone() });
        assert_eq!(games[0].result.as_ref(), Some(&finished.result));
        assert_eq!(games[0].clone().into_finished().map(|g| g.moves.len()), Some(finished.moves.len()));
        assert_eq!(games[1].clone().into_finished(), None);
        // The arena's reader refuses it, naming the game.
        let error = read_games(&text).unwrap_err();
        assert_eq!(error.game, 2);
        assert!(error.message.contains("unfinished"), "{error}");
    }

    /// Moves as GGF gives them back: times to the hundredth of a second.
    fn read_back(moves: &[MoveRecord]) -> Vec<MoveRecord> {
        let centis = |d: Duration| Duration::from_secs_f64((d.as_secs_f64() * 100.0).round() / 100.0);
        moves
            .iter()
            .map(|m| MoveRecord { elapsed: centis(m.elapsed), cpu: None, throttled: None, ..m.clone() })
            .collect()
    }

    #[test]
    fn malformed_games_get_clear_errors() {
        let error = read_games("(;GM[Othello]PB[a]PW[b]BO[8 ").unwrap_err();
        assert_eq!(error.game, 1);
        assert!(error.message.contains("not closed"), "{error}");
        let error = read_games("(;GM[Othello]B[f5]W[a1];)").unwrap_err();
        assert!(error.to_string().contains("move 2 (W[a1]) is illegal: a1 flips no disc"), "{error}");
        let error = read_games("(;GM[Othello]B[f5];)").unwrap_err();
        assert!(error.to_string().contains("unfinished"), "{error}");
        // Accepting games in progress accepts nothing malformed.
        for broken in ["(;GM[Othello]B[f5]", "(;GM[Othello]B[f5]W[a1];)", "(;GM[Othello]B[zz];)", "hello"] {
            assert!(parse(broken).is_err(), "{broken}");
        }
        assert_eq!(parse("(;GM[Othello]B[f5];)").unwrap()[0].result, None);
        assert!(read_games("hello").unwrap_err().to_string().contains("no game found"));
        assert!(read_games("(;GM[Chess];)").unwrap_err().to_string().contains("not an Othello game"));
    }
}
