//! The trained pattern part of the evaluation.
//!
//! A pattern is a fixed set of squares (an edge with its two X-squares, a
//! 3x3 corner, a 2x5 corner, a line, a diagonal); each of its placements on
//! the board (its images under the board's eight symmetries) reads the
//! squares' states as a base-3 number, and a table gives that configuration's
//! value. Placements of one pattern share the table, and each phase of the
//! game (by empties) has its own tables. The sum is a correction added to the
//! hand-written evaluation: trained on few positions, an unseen configuration
//! keeps weight zero and the evaluation falls back to the hand-written one.
//!
//! The weights are trained by `examples/train.rs` (see its header and
//! `NOTES-README.md`) and ship inside the library (`weights/patterns.bin`).
//!
//! Reading a placement: the board is first transformed by the placement's
//! symmetry, then the pattern's canonical squares are gathered with a bit
//! extraction (`pext`), so all placements list their squares in the same
//! order.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The canonical square sets (bit `8 * row + col`; row 1 is the top row).
pub const PATTERN_MASKS: [u64; PATTERN_COUNT] = [
    0x0000_0000_0000_42FF, // row 1 and the X-squares b2, g2
    0x0000_0000_0007_0707, // the 3x3 corner a1..c3
    0x0000_0000_0000_1F1F, // the 2x5 corner a1..e2
    0x0000_0000_0000_FF00, // row 2
    0x0000_0000_00FF_0000, // row 3
    0x0000_0000_FF00_0000, // row 4
    0x8040_2010_0804_0201, // the a1-h8 diagonal
    0x0080_4020_1008_0402, // b1-h7
    0x0000_8040_2010_0804, // c1-h6
    0x0000_0080_4020_1008, // d1-h5
    0x0000_0000_8040_2010, // e1-h4
];
pub const PATTERN_NAMES: [&str; PATTERN_COUNT] = [
    "edge+2X",
    "corner 3x3",
    "corner 2x5",
    "line 2",
    "line 3",
    "line 4",
    "diagonal 8",
    "diagonal 7",
    "diagonal 6",
    "diagonal 5",
    "diagonal 4",
];
pub const PATTERN_COUNT: usize = 11;

/// Game phases, by empties: phase `empties / EMPTIES_PER_PHASE`.
pub const PHASE_COUNT: usize = 6;
pub const EMPTIES_PER_PHASE: u32 = 10;

/// The phases the self-play pipeline labels by exact solves and game results
/// (`examples/train.rs`, first stage); from 30 empties on, game results were
/// measured too noisy to beat the hand-written evaluation (the start position
/// came out at -13 discs), so those phases are labelled by searches into the
/// phases below (the second stage, `--midgame`).
pub const TRAINED_PHASE_COUNT: usize = 3;

/// Placements of all patterns on the board (distinct images under the symmetries).
pub const PLACEMENT_COUNT: usize = 46;

/// The weights file's first bytes (format version 1).
pub const WEIGHTS_MAGIC: &[u8; 8] = b"OTHPAT01";

/// The weights compiled into the bot: `WEIGHTS_MAGIC`, then for each phase
/// and each pattern `3^squares` little-endian `i16` in centi-discs.
static SHIPPED_WEIGHTS: &[u8] = include_bytes!("../weights/patterns.bin");

/// The phase of a position with this many empties.
#[inline(always)]
pub fn phase(empties: u32) -> usize {
    ((empties / EMPTIES_PER_PHASE) as usize).min(PHASE_COUNT - 1)
}

/// Number of configurations of each pattern (3^squares).
pub const fn pattern_sizes() -> [usize; PATTERN_COUNT] {
    let mut sizes = [0; PATTERN_COUNT];
    let mut i = 0;
    while i < PATTERN_COUNT {
        sizes[i] = 3usize.pow(PATTERN_MASKS[i].count_ones());
        i += 1;
    }
    sizes
}

/// Where each pattern's table starts within a phase.
pub const fn pattern_offsets() -> [usize; PATTERN_COUNT] {
    let sizes = pattern_sizes();
    let mut offsets = [0; PATTERN_COUNT];
    let mut i = 1;
    while i < PATTERN_COUNT {
        offsets[i] = offsets[i - 1] + sizes[i - 1];
        i += 1;
    }
    offsets
}

/// Weights per phase (all patterns' tables end to end).
pub const WEIGHTS_PER_PHASE: usize = {
    let sizes = pattern_sizes();
    let offsets = pattern_offsets();
    offsets[PATTERN_COUNT - 1] + sizes[PATTERN_COUNT - 1]
};

/// Mirror image left-right (column a ↔ h).
#[inline(always)]
const fn mirror_columns(b: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let b = ((b >> 1) & K1) | ((b & K1) << 1);
    let b = ((b >> 2) & K2) | ((b & K2) << 2);
    ((b >> 4) & K4) | ((b & K4) << 4)
}

/// Mirror image top-bottom (row 1 ↔ 8).
#[inline(always)]
const fn mirror_rows(b: u64) -> u64 {
    b.swap_bytes()
}

/// Mirror image in the a1-h8 diagonal: square (row, col) goes to (col, row).
#[inline(always)]
const fn transpose(mut b: u64) -> u64 {
    let t = 0x0F0F_0F0F_0000_0000 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
}

/// Symmetry number `s` (0..8): bit 0 transposes, bit 1 mirrors rows, bit 2 columns.
#[inline(always)]
pub(crate) const fn symmetry(b: u64, s: usize) -> u64 {
    let b = if s & 1 != 0 { transpose(b) } else { b };
    let b = if s & 2 != 0 { mirror_rows(b) } else { b };
    if s & 4 != 0 { mirror_columns(b) } else { b }
}

/// The inverse of [`symmetry`]: `inverse_symmetry(symmetry(b, s), s) == b`.
#[inline(always)]
pub(crate) const fn inverse_symmetry(b: u64, s: usize) -> u64 {
    let b = if s & 4 != 0 { mirror_columns(b) } else { b };
    let b = if s & 2 != 0 { mirror_rows(b) } else { b };
    if s & 1 != 0 { transpose(b) } else { b }
}

/// A placement: which pattern, read through which symmetry.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub pattern: usize,
    pub symmetry: usize,
}

/// Every placement: for each pattern, the symmetries that read distinct square sets.
pub const PLACEMENTS: [Placement; PLACEMENT_COUNT] = {
    let mut placements = [Placement { pattern: 0, symmetry: 0 }; PLACEMENT_COUNT];
    let mut count = 0;
    let mut pattern = 0;
    while pattern < PATTERN_COUNT {
        let mask = PATTERN_MASKS[pattern];
        let mut seen = [0u64; 8];
        let mut seen_count = 0;
        let mut s = 0;
        while s < 8 {
            // The original squares that land on the mask under symmetry s.
            let mut read = 0u64;
            let mut square = 0;
            while square < 64 {
                if symmetry(1u64 << square, s) & mask != 0 {
                    read |= 1 << square;
                }
                square += 1;
            }
            let mut new = true;
            let mut i = 0;
            while i < seen_count {
                if seen[i] == read {
                    new = false;
                }
                i += 1;
            }
            if new {
                seen[seen_count] = read;
                seen_count += 1;
                placements[count] = Placement { pattern, symmetry: s };
                count += 1;
            }
            s += 1;
        }
        pattern += 1;
    }
    assert!(count == PLACEMENT_COUNT);
    placements
};

/// Gathers the bits of `b` under `mask` into the low bits, in square order.
#[inline(always)]
fn extract(b: u64, mask: u64) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: this code is only compiled when the build targets BMI2 CPUs.
        unsafe { std::arch::x86_64::_pext_u64(b, mask) as usize }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let (mut out, mut bit, mut m) = (0usize, 0, mask);
        while m != 0 {
            let low = m & m.wrapping_neg();
            if b & low != 0 {
                out |= 1 << bit;
            }
            bit += 1;
            m &= m - 1;
        }
        out
    }
}

/// The original squares each placement reads: its pattern's squares carried
/// back through its symmetry.
const PLACEMENT_SQUARES: [u64; PLACEMENT_COUNT] = {
    let mut reads = [0u64; PLACEMENT_COUNT];
    let mut i = 0;
    while i < PLACEMENT_COUNT {
        let Placement { pattern, symmetry: s } = PLACEMENTS[i];
        let mut square = 0;
        while square < 64 {
            if symmetry(1u64 << square, s) & PATTERN_MASKS[pattern] != 0 {
                reads[i] |= 1 << square;
            }
            square += 1;
        }
        i += 1;
    }
    reads
};

/// The most squares any pattern has.
const MAX_PATTERN_SQUARES: usize = 10;

/// `PLACEMENT_TERNARY[i][bits]`: the base-3 value of the discs `bits` of
/// placement `i` (as gathered from the original board, lowest square first),
/// each disc weighted by the power of 3 of its place in the pattern's own
/// square order. The symmetric images of the board need not be computed: one
/// table lookup reorders the digits.
static PLACEMENT_TERNARY: [[u16; 1 << MAX_PATTERN_SQUARES]; PLACEMENT_COUNT] = {
    let mut tables = [[0u16; 1 << MAX_PATTERN_SQUARES]; PLACEMENT_COUNT];
    let mut i = 0;
    while i < PLACEMENT_COUNT {
        let Placement { pattern, symmetry: s } = PLACEMENTS[i];
        // The digit weight of each read square, in the order they are gathered.
        let mut weights = [0u16; MAX_PATTERN_SQUARES];
        let (mut gathered, mut square) = (0, 0);
        while square < 64 {
            if PLACEMENT_SQUARES[i] & (1u64 << square) != 0 {
                // Its place in the pattern: how many pattern squares come before its image.
                let image = symmetry(1u64 << square, s);
                let place = (PATTERN_MASKS[pattern] & (image - 1)).count_ones();
                weights[gathered] = 3u16.pow(place);
                gathered += 1;
            }
            square += 1;
        }
        let mut bits = 0;
        while bits < 1 << gathered {
            let mut value = 0;
            let mut k = 0;
            while k < gathered {
                if bits & (1 << k) != 0 {
                    value += weights[k];
                }
                k += 1;
            }
            tables[i][bits] = value;
            bits += 1;
        }
        i += 1;
    }
    tables
};

/// The configuration index of every placement (within its pattern's table):
/// empty 0, mover 1, opponent 2 per square, the squares read in the
/// pattern's canonical order.
#[inline]
pub fn placement_indices(player: u64, opponent: u64) -> [u32; PLACEMENT_COUNT] {
    let mut indices = [0u32; PLACEMENT_COUNT];
    for ((index, &squares), table) in indices.iter_mut().zip(PLACEMENT_SQUARES.iter()).zip(PLACEMENT_TERNARY.iter()) {
        *index = table[extract(player, squares)] as u32 + 2 * table[extract(opponent, squares)] as u32;
    }
    indices
}

/// A full set of pattern weights, `PHASE_COUNT * WEIGHTS_PER_PHASE` values.
pub struct PatternWeights {
    pub values: Vec<i16>,
    /// Phases from this one on have no weight set: no correction is summed there (see
    /// [`PatternWeights::set_used_phases`]), which keeps searches of those phases fast.
    used_phases: usize,
}

impl PatternWeights {
    /// All zero: no correction.
    pub fn zero() -> PatternWeights {
        PatternWeights { values: vec![0; PHASE_COUNT * WEIGHTS_PER_PHASE], used_phases: 0 }
    }

    /// These values, with every phase up to the last one holding a non-zero weight in use.
    pub fn from_values(values: Vec<i16>) -> PatternWeights {
        let mut weights = PatternWeights { values, used_phases: PHASE_COUNT };
        weights.set_used_phases();
        weights
    }

    /// Counts the phases in use again after `values` changed: up to the last one holding a
    /// non-zero weight.
    pub fn set_used_phases(&mut self) {
        self.used_phases = (0..PHASE_COUNT)
            .rev()
            .find(|&phase| self.values[phase * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE].iter().any(|&w| w != 0))
            .map_or(0, |phase| phase + 1);
    }

    /// The phases in use (see [`PatternWeights::set_used_phases`]).
    pub fn used_phases(&self) -> usize {
        self.used_phases
    }

    /// Parses a weights file; `None` if it is not one (wrong magic or size).
    pub fn from_bytes(bytes: &[u8]) -> Option<PatternWeights> {
        let body = bytes.strip_prefix(WEIGHTS_MAGIC.as_slice())?;
        if body.len() != 2 * PHASE_COUNT * WEIGHTS_PER_PHASE {
            return None;
        }
        Some(PatternWeights::from_values(body.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()))
    }

    /// The file form of these weights.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = WEIGHTS_MAGIC.to_vec();
        for value in &self.values {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    /// The pattern correction in centi-discs, mover's view.
    #[inline]
    pub fn correction(&self, player: u64, opponent: u64) -> i32 {
        self.correction_of_first::<PLACEMENT_COUNT>(player, opponent)
    }

    /// The part of [`PatternWeights::correction`] that the edge + 2X and
    /// corner 3x3 placements give (8 of the 46): what corners and edges are
    /// worth, which the hand-written evaluation knows least, at a sixth of
    /// the cost. The endgame solver orders its moves by it.
    #[inline]
    pub fn edge_and_corner_correction(&self, player: u64, opponent: u64) -> i32 {
        self.correction_of_first::<EDGE_AND_CORNER_PLACEMENTS>(player, opponent)
    }

    /// The correction summed over the first `COUNT` placements (a constant:
    /// the loop is unrolled with each placement's table offset folded in).
    #[inline(always)]
    fn correction_of_first<const COUNT: usize>(&self, player: u64, opponent: u64) -> i32 {
        let empties = (!(player | opponent)).count_ones();
        let phase = phase(empties);
        if phase >= self.used_phases {
            return 0;
        }
        let table = &self.values[phase * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE];
        let offsets = const { pattern_offsets() };
        let mut sum = 0;
        for i in 0..COUNT {
            let (squares, ternary) = (PLACEMENT_SQUARES[i], &PLACEMENT_TERNARY[i]);
            let index = ternary[extract(player, squares)] as usize + 2 * ternary[extract(opponent, squares)] as usize;
            sum += table[offsets[PLACEMENTS[i].pattern] + index] as i32;
        }
        sum
    }
}

/// How many placements the edge + 2X and corner 3x3 patterns (the first two)
/// have: they come first in [`PLACEMENTS`].
pub const EDGE_AND_CORNER_PLACEMENTS: usize = {
    let mut count = 0;
    while PLACEMENTS[count].pattern <= 1 {
        count += 1;
    }
    count
};

/// The weights shipped in the library (zero if the file is missing or bad,
/// which a test rules out).
pub static SHIPPED: LazyLock<PatternWeights> =
    LazyLock::new(|| PatternWeights::from_bytes(SHIPPED_WEIGHTS).unwrap_or_else(PatternWeights::zero));

/// Weights that replace the shipped ones in this process (null: none), for the training
/// program, which searches with the weights it is building.
static REPLACED: AtomicPtr<PatternWeights> = AtomicPtr::new(std::ptr::null_mut());

/// The weights the evaluation uses: the shipped ones, unless [`replace_weights`] was called.
#[inline(always)]
pub fn active() -> &'static PatternWeights {
    let replaced = REPLACED.load(Ordering::Acquire);
    if replaced.is_null() {
        &SHIPPED
    } else {
        // SAFETY: a non-null pointer comes only from `Box::leak` in `replace_weights`: a valid
        // `PatternWeights` that is never freed nor written again.
        unsafe { &*replaced }
    }
}

/// Makes every evaluation in this process use `weights` from now on, in place of the shipped
/// ones. For training programs: the weights are never freed (each call keeps a few MB).
pub fn replace_weights(weights: PatternWeights) {
    REPLACED.store(Box::leak(Box::new(weights)), Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::xorshift;

    #[test]
    fn the_shipped_weights_parse_and_cover_every_phase() {
        let shipped = PatternWeights::from_bytes(SHIPPED_WEIGHTS).expect("the shipped weights parse");
        // The midgame phases are trained too (a file with only the endgame phases would leave
        // most of a game to the hand-written evaluation).
        assert_eq!(shipped.used_phases(), PHASE_COUNT);
    }

    #[test]
    fn weights_survive_the_file_format() {
        let mut weights = PatternWeights::zero();
        weights.values[7] = -300;
        weights.values[WEIGHTS_PER_PHASE + 1] = 42;
        let again = PatternWeights::from_bytes(&weights.to_bytes()).unwrap();
        assert_eq!(again.values, weights.values);
        assert!(PatternWeights::from_bytes(b"OTHPAT01").is_none());
    }

    #[test]
    fn phases_without_weights_get_no_correction() {
        let mut values = vec![0; PHASE_COUNT * WEIGHTS_PER_PHASE];
        values[..TRAINED_PHASE_COUNT * WEIGHTS_PER_PHASE].fill(100);
        let weights = PatternWeights::from_values(values);
        assert_eq!(weights.used_phases(), TRAINED_PHASE_COUNT);
        let start = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
        assert_eq!(weights.correction(start.0, start.1), 0);
        // 28 empties (phase 2): every placement adds 100.
        let (player, opponent) = (0x0000_0000_00FF_0F0Fu64, 0x0000_000F_FF00_F0F0u64);
        assert_eq!((!(player | opponent)).count_ones(), 28);
        assert_eq!(weights.correction(player, opponent), 100 * PLACEMENT_COUNT as i32);
        // Every phase set: the start position (60 empties, the last phase) is corrected too.
        let all = PatternWeights::from_values(vec![100; PHASE_COUNT * WEIGHTS_PER_PHASE]);
        assert_eq!(all.used_phases(), PHASE_COUNT);
        assert_eq!(all.correction(start.0, start.1), 100 * PLACEMENT_COUNT as i32);
    }

    /// The configuration indices read the slow way: each symmetric image of the board, then
    /// the pattern's squares in order.
    fn placement_indices_by_images(player: u64, opponent: u64) -> [u32; PLACEMENT_COUNT] {
        let ternary = |bits: usize| (0..10).filter(|k| bits & (1 << k) != 0).map(|k| 3u32.pow(k)).sum::<u32>();
        PLACEMENTS.map(|Placement { pattern, symmetry: s }| {
            let mask = PATTERN_MASKS[pattern];
            ternary(extract(symmetry(player, s), mask)) + 2 * ternary(extract(symmetry(opponent, s), mask))
        })
    }

    #[test]
    fn placement_indices_read_the_symmetric_images() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            xorshift(&mut state);
            let occupied = state | state.rotate_left(19);
            let player = occupied & state.rotate_left(37);
            let opponent = occupied & !player;
            assert_eq!(placement_indices(player, opponent), placement_indices_by_images(player, opponent));
        }
        // One disc on a1 is digit 0 of the edge pattern's first placement.
        assert_eq!(placement_indices(1, 0)[0], 1);
    }

    #[test]
    fn corrections_sum_the_weights_of_their_placements() {
        assert_eq!(EDGE_AND_CORNER_PLACEMENTS, 8, "4 images of edge + 2X, 4 of the corner 3x3");
        let weights = &*SHIPPED;
        let offsets = pattern_offsets();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..5_000 {
            xorshift(&mut state);
            // About 16 empties, mostly in the trained phases (10 to 29).
            let occupied = !(state & state.rotate_left(23));
            let player = occupied & state.rotate_left(29);
            let opponent = occupied & !player;
            let table = &weights.values[phase(64 - occupied.count_ones()) * WEIGHTS_PER_PHASE..];
            let by_placement: Vec<i32> = placement_indices(player, opponent)
                .iter()
                .zip(PLACEMENTS.iter())
                .map(|(&index, placement)| table[offsets[placement.pattern] + index as usize] as i32)
                .collect();
            assert_eq!(weights.correction(player, opponent), by_placement.iter().sum::<i32>());
            assert_eq!(
                weights.edge_and_corner_correction(player, opponent),
                by_placement[..EDGE_AND_CORNER_PLACEMENTS].iter().sum::<i32>()
            );
        }
    }

    #[test]
    fn symmetries_move_squares_as_named() {
        for row in 0..8 {
            for col in 0..8 {
                let square = 1u64 << (8 * row + col);
                assert_eq!(transpose(square), 1u64 << (8 * col + row));
                assert_eq!(mirror_rows(square), 1u64 << (8 * (7 - row) + col));
                assert_eq!(mirror_columns(square), 1u64 << (8 * row + 7 - col));
            }
        }
    }

    #[test]
    fn placements_cover_the_expected_images() {
        let count = |pattern| PLACEMENTS.iter().filter(|p| p.pattern == pattern).count();
        assert_eq!([count(0), count(1), count(2), count(3), count(6), count(7)], [4, 4, 8, 4, 2, 4]);
    }
}
