//! A tiny, fast, seedable random number generator for bots and tools.
//!
//! Its output for a seed never changes across versions of this crate, so a
//! seed names the same games forever.

/// SplitMix64 (Steele, Lea and Flood 2014): one add and a few multiply-xor
/// steps per number, statistically sound for games, and any seed is fine.
///
/// ```
/// use othello_sdk::SplitMix64;
/// let mut rng = SplitMix64::new(42);
/// let roll = rng.below(6);
/// assert!(roll < 6);
/// assert_eq!(SplitMix64::new(42).below(6), roll);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(Self::GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` ≥ 1), by multiplying instead of dividing
    /// (Lemire). The bias, at most n / 2³², is far below what a game notices.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(9);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[rng.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&count| (800..1200).contains(&count)), "{seen:?}");
    }

    #[test]
    fn same_seed_same_numbers() {
        let numbers = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..5).map(|_| rng.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(numbers(1), numbers(1));
        assert_ne!(numbers(1), numbers(2));
    }
}
