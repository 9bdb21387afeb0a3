//! The bot C ABI, version 1: the types and symbols `othello_bot.h` declares.
//!
//! A bot is a shared library exporting, unmangled, with the C calling convention:
//!
//! | symbol | signature | |
//! |---|---|---|
//! | `othello_abi_version` | `uint32_t (void)` | required; returns [`OTHELLO_ABI_VERSION`] |
//! | `init` | `const char *(void)` | required; called before every game; returns the display name or NULL |
//! | `think` | `uint8_t (const OthelloBoard *)` | required; the move `(row << 4) \| col`, or `0xFF` to pass |
//! | `othello_levels` | `uint32_t (void)` | optional; number of strength levels N (1..=N, N strongest; 0 = none) |
//! | `othello_set_level` | `void (uint32_t)` | optional; called after `init`, before the game's first `think` |
//! | `othello_search_info` | `void (OthelloSearchInfo *)` | optional; reports the last search after `think` returns |
//! | `othello_last_error` | `const char *(void)` | optional; why the last call failed (NULL = no failure) |
//! | `othello_analyze` | `uint32_t (const OthelloBoard *, OthelloMoveValue *, uint32_t)` | optional; the value of every legal move (see [`OthelloMoveValue`]) |
//!
//! The host calls a bot from one thread at a time. `think` is called on every
//! turn of the bot while the game is not over, also when it must pass.

use crate::{Bitboard, Color, Move, Position, Square};

/// The ABI version this crate speaks.
pub const OTHELLO_ABI_VERSION: u32 = 1;

/// The move byte for a pass.
pub const OTHELLO_PASS: u8 = 0xFF;

/// A non-move a bot returns from `think` when it failed internally (a Rust
/// bot's panic, say); `othello_last_error` then says why. Like any byte other
/// than a legal move or a forced pass, the host scores it as a loss.
pub const OTHELLO_MOVE_ERROR: u8 = 0xFE;

/// Symbol names, NUL-terminated for `dlsym`.
pub mod symbol {
    pub const ABI_VERSION: &[u8] = b"othello_abi_version\0";
    pub const INIT: &[u8] = b"init\0";
    pub const THINK: &[u8] = b"think\0";
    pub const LEVELS: &[u8] = b"othello_levels\0";
    pub const SET_LEVEL: &[u8] = b"othello_set_level\0";
    pub const SEARCH_INFO: &[u8] = b"othello_search_info\0";
    pub const LAST_ERROR: &[u8] = b"othello_last_error\0";
    pub const ANALYZE: &[u8] = b"othello_analyze\0";
}

/// The position handed to `think` (32 bytes, C layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OthelloBoard {
    /// Bit `8 * row + col` set = black disc.
    pub black: u64,
    pub white: u64,
    /// Legal moves of the side to move (0 = it must pass).
    pub legal: u64,
    /// 1 = black, 2 = white.
    pub to_move: u8,
    /// Zero.
    pub reserved: [u8; 3],
    /// Time the host allows for this move in milliseconds; 0 = no limit.
    pub time_limit_ms: u32,
}

const _: () = assert!(std::mem::size_of::<OthelloBoard>() == 32);

impl OthelloBoard {
    /// The board for `position` with the host's time limit (0 = none).
    pub fn new(position: &Position, time_limit_ms: u32) -> OthelloBoard {
        OthelloBoard {
            black: position.black().0,
            white: position.white().0,
            legal: position.legal_moves().0,
            to_move: position.side_to_move().to_abi(),
            reserved: [0; 3],
            time_limit_ms,
        }
    }

    /// The position, if the board is well-formed (no overlap, valid `to_move`).
    pub fn position(&self) -> Option<Position> {
        let side = Color::from_abi(self.to_move)?;
        Position::from_discs(Bitboard(self.black), Bitboard(self.white), side).ok()
    }
}

/// `flags` bits of [`OthelloSearchInfo`]: which fields hold a value.
pub mod info_flags {
    pub const EVAL: u32 = 1;
    pub const DEPTH: u32 = 2;
    pub const NODES: u32 = 4;
    pub const WIN_RATE: u32 = 8;
    /// `eval` is the exact final disc difference (an endgame solve).
    pub const EXACT: u32 = 16;
}

/// A report on the last search (40 bytes, C layout).
///
/// The host zeroes it and sets `size` before calling `othello_search_info`;
/// the bot fills the fields it knows and sets their bits in `flags`.
///
/// `size` lets the struct grow: later versions only append fields, and each
/// side may know a different length. So the bot writes only the fields that
/// lie entirely within the host's `size` bytes, sets in `flags` only the bits
/// of fields it wrote, never touches a byte past `size` (a longer struct's
/// newer fields keep the host's zeroes), and leaves `size` as the host set it.
/// A `size` below 8 (no room for `flags`) gets nothing written. This is how
/// [`export_bot!`](crate::export_bot) fills it; it spells out what v1 always
/// meant and is not an ABI change.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OthelloSearchInfo {
    /// `sizeof(OthelloSearchInfo)` as the host knows it; later versions only
    /// append fields. The bot writes only fields lying within these bytes.
    pub size: u32,
    /// `info_flags` bits.
    pub flags: u32,
    /// Evaluation in discs from the view of the side that moved (+ = good for it).
    pub eval: f64,
    /// Estimated probability of winning for the side that moved, 0..1.
    pub win_rate: f64,
    /// Nodes searched (or playouts, for Monte Carlo bots).
    pub nodes: u64,
    /// Depth reached, in plies.
    pub depth: u32,
    pub reserved: u32,
}

const _: () = assert!(std::mem::size_of::<OthelloSearchInfo>() == 40);

/// The Rust view of a search report: each field is optional. With the `serde` feature it
/// serialises as an object of the fields it has (`{"eval":2.5,"depth":12}`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct SearchInfo {
    /// Evaluation in discs from the mover's view.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub eval: Option<f64>,
    /// `eval` is an exact endgame result.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "std::ops::Not::not"))]
    pub exact: bool,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub depth: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub nodes: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub win_rate: Option<f64>,
}

impl From<SearchInfo> for OthelloSearchInfo {
    fn from(info: SearchInfo) -> OthelloSearchInfo {
        let mut raw = OthelloSearchInfo { size: std::mem::size_of::<OthelloSearchInfo>() as u32, ..Default::default() };
        if let Some(eval) = info.eval {
            raw.flags |= info_flags::EVAL;
            raw.eval = eval;
        }
        if info.exact {
            raw.flags |= info_flags::EXACT;
        }
        if let Some(depth) = info.depth {
            raw.flags |= info_flags::DEPTH;
            raw.depth = depth;
        }
        if let Some(nodes) = info.nodes {
            raw.flags |= info_flags::NODES;
            raw.nodes = nodes;
        }
        if let Some(win_rate) = info.win_rate {
            raw.flags |= info_flags::WIN_RATE;
            raw.win_rate = win_rate;
        }
        raw
    }
}

impl From<OthelloSearchInfo> for SearchInfo {
    fn from(raw: OthelloSearchInfo) -> SearchInfo {
        let has = |flag| raw.flags & flag != 0;
        SearchInfo {
            eval: (has(info_flags::EVAL) && raw.eval.is_finite()).then_some(raw.eval),
            exact: has(info_flags::EXACT),
            depth: has(info_flags::DEPTH).then_some(raw.depth),
            nodes: has(info_flags::NODES).then_some(raw.nodes),
            win_rate: (has(info_flags::WIN_RATE) && raw.win_rate.is_finite()).then_some(raw.win_rate),
        }
    }
}

/// What `othello_analyze` returns when it failed (`othello_last_error` then says why); never a
/// count of values.
pub const OTHELLO_ANALYZE_ERROR: u32 = u32::MAX;

/// Room the host gives `othello_analyze`: more than the legal moves of any position (at most 33
/// are known), so a bot never has to leave one out.
pub const OTHELLO_ANALYZE_CAPACITY: u32 = 64;

/// The value of one legal move, as `othello_analyze` reports it (32 bytes, C layout).
///
/// `othello_analyze(board, out, capacity)` is an optional export added to ABI v1 (not an ABI
/// change: a bot without it keeps working and is simply not offered for analysis). It searches
/// `board` for at most `board->time_limit_ms` (0 = as the bot sees fit) and fills one element
/// per legal move of the side to move, best first or in any order, at most `capacity` of them,
/// and returns how many it filled; [`OTHELLO_ANALYZE_ERROR`] if it failed; 0 when the side to
/// move must pass.
///
/// Versioned like [`OthelloSearchInfo`]: the host zeroes the array and sets `size` in every
/// element to the size of the struct as it knows it; elements lie `size` bytes apart (`out[i]`
/// when the bot's header is the host's). Later versions only append fields: the bot writes only
/// the fields that lie entirely within `size`, sets only the `flags` bits of fields written, and
/// leaves `size` as it is. The host checks everything it reads: a count above `capacity`, a
/// square that is not a legal move, a repeated move or a value that is not a finite number in its
/// range is left out (and said so), never trusted.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OthelloMoveValue {
    /// `sizeof(OthelloMoveValue)` as the host knows it, and the distance between two elements.
    pub size: u32,
    /// The move, `(row << 4) | col`.
    pub mv: u8,
    pub reserved: [u8; 3],
    /// `info_flags` bits of the fields set: `EVAL`, `DEPTH`, `WIN_RATE`, `EXACT`.
    pub flags: u32,
    /// Depth reached for this move, in plies.
    pub depth: u32,
    /// Final disc difference with best play after this move, from the view of the side to move
    /// in `board` (+ = good for it), -64..=64.
    pub eval: f64,
    /// The side to move's chance of winning after this move, 0..=1.
    pub win_rate: f64,
}

const _: () = assert!(std::mem::size_of::<OthelloMoveValue>() == 32);

/// The Rust view of one move's value in an analysis: each report is optional.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveValue {
    /// The move (a legal move of the side to move).
    pub square: Square,
    /// Disc difference with best play after the move, from the view of the side to move.
    pub eval: Option<f64>,
    /// `eval` is the exact final disc difference (an endgame solve).
    pub exact: bool,
    /// Depth reached for this move, in plies.
    pub depth: Option<u32>,
    /// The side to move's chance of winning after this move, 0..=1.
    pub win_rate: Option<f64>,
}

impl MoveValue {
    /// A value of `square` with nothing reported yet.
    pub fn new(square: Square) -> MoveValue {
        MoveValue { square, eval: None, exact: false, depth: None, win_rate: None }
    }
}

impl From<MoveValue> for OthelloMoveValue {
    fn from(value: MoveValue) -> OthelloMoveValue {
        let mut raw = OthelloMoveValue {
            size: std::mem::size_of::<OthelloMoveValue>() as u32,
            mv: Move::Play(value.square).to_byte(),
            ..Default::default()
        };
        if let Some(eval) = value.eval {
            raw.flags |= info_flags::EVAL;
            raw.eval = eval;
        }
        if value.exact {
            raw.flags |= info_flags::EXACT;
        }
        if let Some(depth) = value.depth {
            raw.flags |= info_flags::DEPTH;
            raw.depth = depth;
        }
        if let Some(win_rate) = value.win_rate {
            raw.flags |= info_flags::WIN_RATE;
            raw.win_rate = win_rate;
        }
        raw
    }
}
