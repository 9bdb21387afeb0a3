//! The private channel between the host and a runner child: small binary
//! frames (`u32` little-endian length, then a tagged body), one request and
//! one answer at a time.

use othello_sdk::abi::{OTHELLO_ANALYZE_CAPACITY, OthelloBoard, OthelloMoveValue, OthelloSearchInfo};

/// Host → runner.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Call `init`, then `othello_set_level(level)` if a level is given.
    NewGame { level: Option<u32> },
    /// Call `think`, then `othello_search_info` (and `othello_last_error` on 0xFE).
    Think { board: OthelloBoard },
    /// Call `othello_analyze` (the bot's time is `board.time_limit_ms`), then `othello_last_error`
    /// if it failed.
    Analyze { board: OthelloBoard },
}

/// Runner → host.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// The library loaded and speaks a supported ABI; `memory_after_load` is the
    /// runner's data size then, in bytes (the part of the memory limit already used).
    Loaded {
        abi_version: u32,
        levels: u32,
        search_info: bool,
        last_error: bool,
        memory_after_load: u64,
        /// The library has the optional `othello_analyze`.
        analysis: bool,
    },
    /// The library is not a usable bot (the loader's explanation).
    LoadFailed { reason: String },
    /// `init` returned; `error` is `othello_last_error` when it returned NULL.
    Started { name: Option<String>, error: Option<String> },
    /// `think` returned `byte`; `error` is `othello_last_error` when it was 0xFE. `fuel`: the
    /// fuel a WebAssembly bot's move used (its virtual time), `None` for a library.
    Moved { byte: u8, info: Option<OthelloSearchInfo>, error: Option<String>, fuel: Option<u64> },
    /// `othello_analyze` returned `returned` (a count, as the bot gave it, or the error value);
    /// `values` are the elements within both that count and the capacity, unchecked; `error` is
    /// `othello_last_error` after a failure. A bot without the export gets `returned` = error
    /// and an error saying so.
    Analyzed { returned: u32, values: Vec<OthelloMoveValue>, error: Option<String> },
    /// A WebAssembly bot's call failed in a way the runner tells apart (a library's failures end
    /// the runner instead): `loss` is one of the `LOSS_…` codes, `output` the module's last lines
    /// of output. The runner serves on (the next game gets a fresh instance).
    Failed { loss: u8, detail: String, output: Vec<String> },
}

/// [`Response::Failed`]'s `loss`: out of fuel (a loss on time).
pub const LOSS_TIMEOUT: u8 = 1;
/// … over the memory limit.
pub const LOSS_OUT_OF_MEMORY: u8 = 2;
/// … a trap, an exit, or an answer the host cannot read.
pub const LOSS_CRASH: u8 = 3;
/// … failed while starting a game (`init`).
pub const LOSS_LOAD_ERROR: u8 = 4;
/// Most output lines a [`Response::Failed`] carries.
pub const MAX_OUTPUT_LINES: usize = 20;
/// Longest output line a [`Response::Failed`] carries, in characters.
pub const MAX_OUTPUT_LINE_CHARS: usize = 500;

/// A frame body that does not decode (a bug or a corrupted channel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub &'static str);

const NEW_GAME: u8 = 1;
const THINK: u8 = 2;
const ANALYZE: u8 = 3;
const LOADED: u8 = 1;
const LOAD_FAILED: u8 = 2;
const STARTED: u8 = 3;
const MOVED: u8 = 4;
const ANALYZED: u8 = 5;
const FAILED: u8 = 6;

/// Largest frame body either side accepts (names and error texts are short).
pub const MAX_FRAME: usize = 64 * 1024;
/// Length of the frame header.
pub const HEADER: usize = 4;

impl Request {
    /// The frame (header included).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::frame();
        match self {
            Request::NewGame { level } => {
                w.u8(NEW_GAME);
                w.u32(level.unwrap_or(0));
            }
            Request::Think { board } => {
                w.u8(THINK);
                w.board(board);
            }
            Request::Analyze { board } => {
                w.u8(ANALYZE);
                w.board(board);
            }
        }
        w.finish()
    }

    pub fn decode(body: &[u8]) -> Result<Request, DecodeError> {
        let mut r = Reader(body);
        let request = match r.u8()? {
            NEW_GAME => Request::NewGame { level: Some(r.u32()?).filter(|&l| l != 0) },
            THINK => Request::Think { board: r.board()? },
            ANALYZE => Request::Analyze { board: r.board()? },
            _ => return Err(DecodeError("unknown request tag")),
        };
        r.end()?;
        Ok(request)
    }
}

impl Response {
    /// The frame (header included).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::frame();
        match self {
            Response::Loaded { abi_version, levels, search_info, last_error, memory_after_load, analysis } => {
                w.u8(LOADED);
                w.u32(*abi_version);
                w.u32(*levels);
                w.u8(u8::from(*search_info) | u8::from(*last_error) << 1 | u8::from(*analysis) << 2);
                w.u64(*memory_after_load);
            }
            Response::LoadFailed { reason } => {
                w.u8(LOAD_FAILED);
                w.str(reason);
            }
            Response::Started { name, error } => {
                w.u8(STARTED);
                w.opt_str(name.as_deref());
                w.opt_str(error.as_deref());
            }
            Response::Moved { byte, info, error, fuel } => {
                w.u8(MOVED);
                w.u8(*byte);
                match info {
                    None => w.u8(0),
                    Some(info) => {
                        w.u8(1);
                        w.u32(info.flags);
                        w.u64(info.eval.to_bits());
                        w.u64(info.win_rate.to_bits());
                        w.u64(info.nodes);
                        w.u32(info.depth);
                    }
                }
                w.opt_str(error.as_deref());
                match fuel {
                    None => w.u8(0),
                    Some(fuel) => {
                        w.u8(1);
                        w.u64(*fuel);
                    }
                }
            }
            Response::Failed { loss, detail, output } => {
                w.u8(FAILED);
                w.u8(*loss);
                w.str(detail);
                let output = &output[output.len().saturating_sub(MAX_OUTPUT_LINES)..];
                w.u32(output.len() as u32);
                for line in output {
                    // Short lines, so that a failure's frame always fits.
                    w.str(&line.chars().take(MAX_OUTPUT_LINE_CHARS).collect::<String>());
                }
            }
            Response::Analyzed { returned, values, error } => {
                w.u8(ANALYZED);
                w.u32(*returned);
                // At most the capacity: the loader never reads more.
                let values = &values[..values.len().min(OTHELLO_ANALYZE_CAPACITY as usize)];
                w.u32(values.len() as u32);
                for value in values {
                    w.u8(value.mv);
                    w.u32(value.flags);
                    w.u32(value.depth);
                    w.u64(value.eval.to_bits());
                    w.u64(value.win_rate.to_bits());
                }
                w.opt_str(error.as_deref());
            }
        }
        w.finish()
    }

    pub fn decode(body: &[u8]) -> Result<Response, DecodeError> {
        let mut r = Reader(body);
        let response = match r.u8()? {
            LOADED => {
                let (abi_version, levels, flags, memory_after_load) = (r.u32()?, r.u32()?, r.u8()?, r.u64()?);
                Response::Loaded {
                    abi_version,
                    levels,
                    search_info: flags & 1 != 0,
                    last_error: flags & 2 != 0,
                    memory_after_load,
                    analysis: flags & 4 != 0,
                }
            }
            LOAD_FAILED => Response::LoadFailed { reason: r.str()? },
            STARTED => Response::Started { name: r.opt_str()?, error: r.opt_str()? },
            MOVED => {
                let byte = r.u8()?;
                let info = match r.u8()? {
                    0 => None,
                    _ => Some(OthelloSearchInfo {
                        size: std::mem::size_of::<OthelloSearchInfo>() as u32,
                        flags: r.u32()?,
                        eval: f64::from_bits(r.u64()?),
                        win_rate: f64::from_bits(r.u64()?),
                        nodes: r.u64()?,
                        depth: r.u32()?,
                        reserved: 0,
                    }),
                };
                let error = r.opt_str()?;
                let fuel = match r.u8()? {
                    0 => None,
                    _ => Some(r.u64()?),
                };
                Response::Moved { byte, info, error, fuel }
            }
            FAILED => {
                let (loss, detail) = (r.u8()?, r.str()?);
                let count = r.u32()? as usize;
                if count > MAX_OUTPUT_LINES {
                    return Err(DecodeError("more output lines than a failure carries"));
                }
                let output = (0..count).map(|_| r.str()).collect::<Result<_, _>>()?;
                Response::Failed { loss, detail, output }
            }
            ANALYZED => {
                let returned = r.u32()?;
                let count = r.u32()?;
                if count > OTHELLO_ANALYZE_CAPACITY {
                    return Err(DecodeError("more analysis values than the capacity"));
                }
                let mut values = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    values.push(OthelloMoveValue {
                        size: std::mem::size_of::<OthelloMoveValue>() as u32,
                        mv: r.u8()?,
                        reserved: [0; 3],
                        flags: r.u32()?,
                        depth: r.u32()?,
                        eval: f64::from_bits(r.u64()?),
                        win_rate: f64::from_bits(r.u64()?),
                    });
                }
                Response::Analyzed { returned, values, error: r.opt_str()? }
            }
            _ => return Err(DecodeError("unknown response tag")),
        };
        r.end()?;
        Ok(response)
    }
}

/// The body length announced by a frame header.
pub fn body_length(header: [u8; HEADER]) -> usize {
    u32::from_le_bytes(header) as usize
}

struct Writer(Vec<u8>);

impl Writer {
    fn frame() -> Writer {
        Writer(vec![0; HEADER])
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn board(&mut self, board: &OthelloBoard) {
        self.u64(board.black);
        self.u64(board.white);
        self.u64(board.legal);
        self.u8(board.to_move);
        self.u32(board.time_limit_ms);
    }
    fn str(&mut self, s: &str) {
        // Texts come from bots: cut them so a frame always fits.
        let mut end = s.len().min(MAX_TEXT);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.u32(end as u32);
        self.0.extend_from_slice(&s.as_bytes()[..end]);
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
    fn finish(mut self) -> Vec<u8> {
        let body = (self.0.len() - HEADER) as u32;
        self.0[..HEADER].copy_from_slice(&body.to_le_bytes());
        self.0
    }
}

/// Longest text (name, error) carried in a frame.
const MAX_TEXT: usize = 4096;

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        if self.0.len() < n {
            return Err(DecodeError("frame too short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn board(&mut self) -> Result<OthelloBoard, DecodeError> {
        Ok(OthelloBoard {
            black: self.u64()?,
            white: self.u64()?,
            legal: self.u64()?,
            to_move: self.u8()?,
            reserved: [0; 3],
            time_limit_ms: self.u32()?,
        })
    }
    fn str(&mut self) -> Result<String, DecodeError> {
        let len = self.u32()? as usize;
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }
    fn opt_str(&mut self) -> Result<Option<String>, DecodeError> {
        match self.u8()? {
            0 => Ok(None),
            _ => self.str().map(Some),
        }
    }
    fn end(&self) -> Result<(), DecodeError> {
        if self.0.is_empty() { Ok(()) } else { Err(DecodeError("trailing bytes in frame")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(frame: &[u8]) -> &[u8] {
        assert_eq!(body_length(frame[..HEADER].try_into().unwrap()), frame.len() - HEADER);
        &frame[HEADER..]
    }

    #[test]
    fn every_message_survives_the_channel() {
        let board = OthelloBoard::new(&othello_sdk::Position::start(), 250);
        for request in [
            Request::NewGame { level: Some(3) },
            Request::NewGame { level: None },
            Request::Think { board },
            Request::Analyze { board },
        ] {
            assert_eq!(Request::decode(body(&request.encode())), Ok(request));
        }
        let info =
            OthelloSearchInfo { size: 40, flags: 5, eval: -2.5, win_rate: 0.0, nodes: 123, depth: 0, reserved: 0 };
        for response in [
            Response::Loaded {
                abi_version: 1,
                levels: 5,
                search_info: true,
                last_error: false,
                memory_after_load: 7 << 20,
                analysis: true,
            },
            Response::LoadFailed { reason: "missing symbol `think`".into() },
            Response::Started { name: Some("Bot ✓".into()), error: None },
            Response::Moved { byte: 0xFE, info: Some(info), error: Some("panicked: boom".into()), fuel: None },
            Response::Moved { byte: 0x23, info: None, error: None, fuel: Some(123_456_789_012) },
            Response::Failed {
                loss: LOSS_TIMEOUT,
                detail: "used all its fuel in think".into(),
                output: vec!["about to misbehave".into(), String::new()],
            },
            Response::Analyzed {
                returned: 1000,
                values: vec![OthelloMoveValue {
                    size: 32,
                    mv: 0x88,
                    flags: 3,
                    depth: 7,
                    eval: -4.5,
                    win_rate: 0.25,
                    ..Default::default()
                }],
                error: None,
            },
            Response::Analyzed { returned: u32::MAX, values: Vec::new(), error: Some("panicked: no".into()) },
        ] {
            assert_eq!(Response::decode(body(&response.encode())), Ok(response));
        }
        assert!(Response::decode(&[9]).is_err());
        assert!(Request::decode(&[THINK, 1, 2]).is_err());
    }
}
