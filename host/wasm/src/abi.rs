//! The C ABI v1 over a module's memory: the exports a bot module has, and the structs of
//! `othello_bot.h` as bytes (wasm32 lays them out as x86-64 does: little-endian, 8-byte
//! aligned 64-bit fields).
//!
//! The host passes the board (and takes the search info and the analysis) through a buffer of
//! the module's own memory, whose address the module gives with [`BUFFER_EXPORT`]: the header
//! defines it for modules (an addition to ABI v1; libraries are unchanged).

use othello_sdk::abi::{OthelloBoard, OthelloMoveValue, OthelloSearchInfo};
use wasmtime::{Instance, Memory, Module, Store, TypedFunc};

use crate::LoadError;
use crate::host::HostState;

/// The export that gives the address of the module's exchange buffer.
pub const BUFFER_EXPORT: &str = "othello_wasm_buffer";
/// The size of the exchange buffer (`OTHELLO_WASM_BUFFER_SIZE` in the header).
pub const BUFFER_SIZE: u32 = 4096;
/// Where in the buffer the search info is passed.
pub(crate) const INFO_OFFSET: u32 = 64;
/// Where in the buffer the analysis values are passed.
pub(crate) const VALUES_OFFSET: u32 = 128;
/// The analysis capacity given to a module: the ABI's.
pub(crate) const VALUES_CAPACITY: u32 = othello_sdk::abi::OTHELLO_ANALYZE_CAPACITY;
pub(crate) const SEARCH_INFO_BYTES: usize = 40;
pub(crate) const MOVE_VALUE_BYTES: u32 = 32;
/// Longest text (name, error) read from a module.
pub(crate) const MAX_TEXT: usize = 4096;
const _: () = assert!(VALUES_OFFSET + VALUES_CAPACITY * MOVE_VALUE_BYTES <= BUFFER_SIZE);

/// The functions of a bot module.
pub(crate) struct Exports {
    pub memory: Memory,
    pub buffer: TypedFunc<(), u32>,
    pub abi_version: TypedFunc<(), u32>,
    pub init: TypedFunc<(), u32>,
    pub think: TypedFunc<u32, u32>,
    pub levels: Option<TypedFunc<(), u32>>,
    pub set_level: Option<TypedFunc<u32, ()>>,
    pub search_info: Option<TypedFunc<u32, ()>>,
    pub last_error: Option<TypedFunc<(), u32>>,
    pub analyze: Option<TypedFunc<(u32, u32, u32), u32>>,
    /// A reactor's start-up (`_initialize`), run once per instance.
    pub initialize: Option<TypedFunc<(), ()>>,
}

/// The exports a bot must have, and their WebAssembly types.
const REQUIRED: [&str; 5] = ["memory", BUFFER_EXPORT, "othello_abi_version", "init", "think"];

/// Checks that `module` exports what a bot must, before it is instantiated.
pub(crate) fn check_exports(module: &Module) -> Result<(), LoadError> {
    for name in REQUIRED {
        if module.get_export(name).is_none() {
            return Err(LoadError::MissingExport(name));
        }
    }
    Ok(())
}

impl Exports {
    pub(crate) fn find(instance: &Instance, store: &mut Store<HostState>) -> Result<Exports, LoadError> {
        let memory = instance.get_memory(&mut *store, "memory").ok_or(LoadError::MissingExport("memory"))?;
        macro_rules! required {
            ($name:expr) => {
                instance.get_typed_func(&mut *store, $name).map_err(|_| LoadError::WrongExport($name))?
            };
        }
        macro_rules! optional {
            ($name:expr) => {
                match instance.get_func(&mut *store, $name) {
                    None => None,
                    Some(func) => Some(func.typed(&*store).map_err(|_| LoadError::WrongExport($name))?),
                }
            };
        }
        Ok(Exports {
            memory,
            buffer: required!(BUFFER_EXPORT),
            abi_version: required!("othello_abi_version"),
            init: required!("init"),
            think: required!("think"),
            levels: optional!("othello_levels"),
            set_level: optional!("othello_set_level"),
            search_info: optional!("othello_search_info"),
            last_error: optional!("othello_last_error"),
            analyze: optional!("othello_analyze"),
            initialize: optional!("_initialize"),
        })
    }
}

/// `OthelloBoard` as the module reads it (32 bytes): what the host writes to the exchange buffer
/// before `think` (public for the tests and benchmarks that call a module themselves).
pub fn board_bytes(board: &OthelloBoard) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[0..8].copy_from_slice(&board.black.to_le_bytes());
    bytes[8..16].copy_from_slice(&board.white.to_le_bytes());
    bytes[16..24].copy_from_slice(&board.legal.to_le_bytes());
    bytes[24] = board.to_move;
    bytes[28..32].copy_from_slice(&board.time_limit_ms.to_le_bytes());
    bytes
}

/// An `OthelloSearchInfo` with only its `size` set, as the host passes it.
pub(crate) fn empty_search_info() -> [u8; SEARCH_INFO_BYTES] {
    let mut bytes = [0u8; SEARCH_INFO_BYTES];
    bytes[0..4].copy_from_slice(&(SEARCH_INFO_BYTES as u32).to_le_bytes());
    bytes
}

pub(crate) fn search_info_from(bytes: &[u8]) -> OthelloSearchInfo {
    OthelloSearchInfo {
        size: SEARCH_INFO_BYTES as u32,
        flags: u32_at(bytes, 4),
        eval: f64::from_bits(u64_at(bytes, 8)),
        win_rate: f64::from_bits(u64_at(bytes, 16)),
        nodes: u64_at(bytes, 24),
        depth: u32_at(bytes, 32),
        reserved: 0,
    }
}

/// An `OthelloMoveValue` with only its `size` set.
pub(crate) fn empty_move_value() -> [u8; MOVE_VALUE_BYTES as usize] {
    let mut bytes = [0u8; MOVE_VALUE_BYTES as usize];
    bytes[0..4].copy_from_slice(&MOVE_VALUE_BYTES.to_le_bytes());
    bytes
}

pub(crate) fn move_value_from(bytes: &[u8]) -> OthelloMoveValue {
    OthelloMoveValue {
        size: MOVE_VALUE_BYTES,
        mv: bytes[4],
        reserved: [0; 3],
        flags: u32_at(bytes, 8),
        depth: u32_at(bytes, 12),
        eval: f64::from_bits(u64_at(bytes, 16)),
        win_rate: f64::from_bits(u64_at(bytes, 24)),
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}
