//! `othello_search_info`, as `export_bot!` exports it, honours the host's
//! `size`: it writes only the fields that fit, claims only those in `flags`,
//! and never touches a byte past `size`, whether the host's struct is shorter,
//! as long as, or longer than this crate's.
//!
//! The bot is exported from this test binary itself (the only crate in it using
//! `export_bot!`), and its shim is called directly, as a host would.

use std::mem::{offset_of, size_of};

use othello_sdk::abi::{OthelloSearchInfo, info_flags};
use othello_sdk::{Bot, Move, SearchInfo, ThinkRequest, export_bot};

/// Reports every field, whatever it was asked.
#[derive(Default)]
struct Reporter;

const REPORT: SearchInfo =
    SearchInfo { eval: Some(3.5), exact: true, depth: Some(7), nodes: Some(12_345), win_rate: Some(0.75) };

impl Bot for Reporter {
    const NAME: &'static str = "Reporter";

    fn think(&mut self, request: &ThinkRequest) -> Move {
        request.position.legal_moves().first().map_or(Move::Pass, Move::Play)
    }

    fn search_info(&self) -> Option<SearchInfo> {
        Some(REPORT)
    }
}

export_bot!(Reporter);

unsafe extern "C" {
    /// The shim `export_bot!` defined above, found by its unmangled name.
    fn othello_search_info(info: *mut OthelloSearchInfo);
}

/// This crate's struct: the ABI v1 fields, 40 bytes.
const V1_SIZE: usize = size_of::<OthelloSearchInfo>();
/// Bytes the bot must not touch: past the host's `size`, or the fields of a
/// longer struct this crate doesn't know.
const SENTINEL: u8 = 0xA5;
const BUFFER_LEN: usize = 64;

/// A host's memory holding its `OthelloSearchInfo`, aligned as the struct.
#[repr(C, align(8))]
struct HostBuffer([u8; BUFFER_LEN]);

impl HostBuffer {
    /// A host struct of `size` bytes prepared for the call: `size` set, the
    /// fields this crate knows zeroed; every other byte a sentinel.
    fn with_struct_size(size: u32) -> HostBuffer {
        let mut bytes = [SENTINEL; BUFFER_LEN];
        bytes[..known_bytes(size)].fill(0);
        bytes[..4].copy_from_slice(&size.to_ne_bytes());
        HostBuffer(bytes)
    }

    /// Calls the bot's shim on this buffer, as the host calls it.
    fn fill(mut self) -> HostBuffer {
        // SAFETY: the pointer is valid and writable for BUFFER_LEN bytes, at
        // least the `size` the buffer declares, and aligned for the struct.
        unsafe { othello_search_info(self.0.as_mut_ptr().cast()) };
        self
    }

    fn bytes(&self, offset: usize, len: usize) -> &[u8] {
        &self.0[offset..offset + len]
    }

    fn size(&self) -> u32 {
        u32::from_ne_bytes(self.bytes(offset_of!(OthelloSearchInfo, size), 4).try_into().unwrap())
    }

    fn flags(&self) -> u32 {
        u32::from_ne_bytes(self.bytes(offset_of!(OthelloSearchInfo, flags), 4).try_into().unwrap())
    }

    /// The buffer read as this crate's struct.
    fn as_v1(&self) -> OthelloSearchInfo {
        // SAFETY: the buffer holds more than V1_SIZE initialised bytes, and
        // any bytes make a valid `OthelloSearchInfo` (plain numbers only).
        unsafe { self.0.as_ptr().cast::<OthelloSearchInfo>().read_unaligned() }
    }

    /// Whether the bytes from `offset` to the buffer's end are all sentinels.
    fn untouched_from(&self, offset: usize) -> bool {
        self.0[offset..].iter().all(|&byte| byte == SENTINEL)
    }
}

/// How many bytes of a host struct of `size` bytes this crate knows (at least
/// the `size` field itself).
fn known_bytes(size: u32) -> usize {
    (size as usize).clamp(size_of::<u32>(), V1_SIZE)
}

/// A field `Reporter` fills, as the host reads it.
struct Field {
    name: &'static str,
    offset: usize,
    /// Its value, as bytes.
    value: Vec<u8>,
    /// The `flags` bits that claim it.
    flags: u32,
}

fn reported_fields() -> [Field; 4] {
    [
        Field {
            name: "eval",
            offset: offset_of!(OthelloSearchInfo, eval),
            value: REPORT.eval.unwrap().to_ne_bytes().to_vec(),
            flags: info_flags::EVAL | info_flags::EXACT,
        },
        Field {
            name: "win_rate",
            offset: offset_of!(OthelloSearchInfo, win_rate),
            value: REPORT.win_rate.unwrap().to_ne_bytes().to_vec(),
            flags: info_flags::WIN_RATE,
        },
        Field {
            name: "nodes",
            offset: offset_of!(OthelloSearchInfo, nodes),
            value: REPORT.nodes.unwrap().to_ne_bytes().to_vec(),
            flags: info_flags::NODES,
        },
        Field {
            name: "depth",
            offset: offset_of!(OthelloSearchInfo, depth),
            value: REPORT.depth.unwrap().to_ne_bytes().to_vec(),
            flags: info_flags::DEPTH,
        },
    ]
}

const ALL_FLAGS: u32 =
    info_flags::EVAL | info_flags::EXACT | info_flags::DEPTH | info_flags::NODES | info_flags::WIN_RATE;

#[test]
fn a_struct_ending_after_eval_gets_only_flags_and_eval() {
    let end_of_eval = offset_of!(OthelloSearchInfo, eval) + size_of::<f64>();
    let buffer = HostBuffer::with_struct_size(end_of_eval as u32).fill();
    assert_eq!(buffer.size(), end_of_eval as u32, "size is the host's");
    assert_eq!(buffer.flags(), info_flags::EVAL | info_flags::EXACT, "only eval (exact) is claimed");
    assert_eq!(buffer.bytes(offset_of!(OthelloSearchInfo, eval), 8), 3.5f64.to_ne_bytes());
    assert!(buffer.untouched_from(end_of_eval), "bytes past size were written: {:?}", &buffer.0[end_of_eval..]);
}

#[test]
fn a_field_cut_by_size_is_neither_written_nor_claimed() {
    // The struct ends halfway through `eval`.
    let size = offset_of!(OthelloSearchInfo, eval) + 4;
    let buffer = HostBuffer::with_struct_size(size as u32).fill();
    assert_eq!(buffer.flags(), 0);
    assert_eq!(buffer.bytes(offset_of!(OthelloSearchInfo, eval), 4), [0; 4], "the host's zeroes");
    assert!(buffer.untouched_from(size));
}

#[test]
fn a_struct_of_this_crates_size_gets_every_field() {
    let buffer = HostBuffer::with_struct_size(V1_SIZE as u32).fill();
    let raw = buffer.as_v1();
    assert_eq!(raw.size, V1_SIZE as u32);
    assert_eq!(raw.flags, ALL_FLAGS);
    assert_eq!(SearchInfo::from(raw), REPORT);
    assert_eq!(raw.reserved, 0, "the host's zero");
    assert!(buffer.untouched_from(V1_SIZE));
}

#[test]
fn a_longer_struct_gets_todays_fields_and_keeps_its_newer_ones() {
    let buffer = HostBuffer::with_struct_size(BUFFER_LEN as u32).fill();
    let raw = buffer.as_v1();
    assert_eq!(raw.size, BUFFER_LEN as u32, "size is the host's, not this crate's");
    assert_eq!(raw.flags, ALL_FLAGS);
    assert_eq!(SearchInfo::from(raw), REPORT);
    assert!(buffer.untouched_from(V1_SIZE), "fields this crate doesn't know were written: {:?}", &buffer.0[V1_SIZE..]);
}

#[test]
fn a_struct_without_room_for_flags_gets_nothing() {
    for size in [0, 4, 7] {
        let before = HostBuffer::with_struct_size(size);
        let after = HostBuffer(before.0).fill();
        assert_eq!(after.0, before.0, "size {size}");
    }
}

#[test]
fn every_size_gets_exactly_the_fields_that_fit() {
    for size in 0..=BUFFER_LEN {
        let buffer = HostBuffer::with_struct_size(size as u32).fill();
        let known = known_bytes(size as u32);
        assert_eq!(buffer.size(), size as u32, "size {size}: size is the host's");
        assert!(buffer.untouched_from(known), "size {size}: {:?}", &buffer.0[known..]);
        if size < 8 {
            assert!(buffer.0[4..known].iter().all(|&byte| byte == 0), "size {size}: no room for flags");
            continue;
        }
        let fits = |field: &Field| field.offset + field.value.len() <= size;
        let claimed = reported_fields().iter().filter(|field| fits(field)).fold(0, |bits, field| bits | field.flags);
        assert_eq!(buffer.flags(), claimed, "size {size}: flags claim exactly the fields that fit");
        for field in reported_fields() {
            let expected = if fits(&field) { field.value.clone() } else { vec![0; field.value.len()] };
            let within_known = known.saturating_sub(field.offset).min(expected.len());
            assert_eq!(
                buffer.bytes(field.offset, within_known),
                &expected[..within_known],
                "size {size}: {}",
                field.name
            );
        }
    }
}

#[test]
fn a_null_pointer_is_ignored() {
    // SAFETY: the ABI allows NULL; the shim must return without touching it.
    unsafe { othello_search_info(std::ptr::null_mut()) };
}
