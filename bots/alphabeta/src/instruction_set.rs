//! The instruction set the searches run on, chosen at run time.
//!
//! The builds target x86-64-v3 processors (AVX2; see `.cargo/config.toml`),
//! so that one binary runs on every machine of the last ten years. On a
//! processor that also has AVX-512 (Intel since Ice Lake, AMD since Zen 4) the
//! hot code of the endgame solver and of the midgame search runs a second
//! copy of itself, compiled with those instructions enabled: the compiler
//! then uses AVX-512's three-input logic, masked shifts and vector popcount
//! in the move generator, the evaluation and the stability test.
//!
//! How it is compiled twice: each recursive or hot function (the solver's
//! search and last empties, the midgame search, the ordering searches, the
//! evaluations and the stable discs) is written once, as a body generic over
//! a trait of its own file's (`EvalInstructions`, `StabilityInstructions`,
//! `OrderingInstructions`, `SolverInstructions`, `SearchInstructions`) and
//! always inlined, and calls its children through the token it was given.
//! [`Baseline`]'s methods are the traits' provided ones, ordinary functions,
//! implemented next to the code they run; those of [`Avx512`] are functions
//! compiled for AVX-512 (`#[target_feature]`), into which the body and
//! everything it inlines is compiled, implemented in `crate::dispatch`, the
//! one file above all the code it dispatches to. So a search started with the AVX-512 token stays in AVX-512 code
//! all the way down, and one started with [`Baseline`] is the code the build
//! always had. Both compute the same values and visit the same nodes; only
//! their speed differs.
//!
//! An [`Avx512`] token exists only once [`Avx512::detect`] has seen every
//! instruction it enables on this processor: that is what makes calling its
//! functions sound. `ALPHABETA_AVX512=0` in the environment keeps every
//! search on [`Baseline`] (for a comparison on the same binary, or should a
//! processor misreport its features).
//!
//! This file names the instruction sets and detects them; it imports nothing
//! of the crate, so every search file can take a token without a circle.

/// The instructions the build targets: every processor that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Baseline;

/// The instruction set for a new search: [`Avx512`] where this processor has
/// it (and `ALPHABETA_AVX512` is not `0`), else `None` for [`Baseline`].
/// Looked up once per process.
pub fn detected_avx512() -> Option<Avx512> {
    static DETECTED: std::sync::OnceLock<Option<Avx512>> = std::sync::OnceLock::new();
    *DETECTED.get_or_init(|| {
        let refused = std::env::var_os("ALPHABETA_AVX512").is_some_and(|value| value == "0");
        if refused { None } else { Avx512::detect() }
    })
}

pub use avx512::Avx512;

#[cfg(target_arch = "x86_64")]
mod avx512 {
    /// Proof that this processor runs AVX-512 (the foundation, 128- and
    /// 256-bit forms, byte, word, doubleword and quadword operations,
    /// conflict detection and vector popcount: Ice Lake, Zen 4 and later):
    /// only [`Avx512::detect`] makes one.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Avx512(());

    impl Avx512 {
        /// The token, if this processor has every instruction the AVX-512
        /// copy of the solver is compiled with (`crate::dispatch` enables
        /// the same list).
        pub fn detect() -> Option<Avx512> {
            let available = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512cd")
                && std::arch::is_x86_feature_detected!("avx512vpopcntdq");
            available.then_some(Avx512(()))
        }
    }
}

/// Elsewhere than on x86-64 there is no AVX-512: no token can be made.
#[cfg(not(target_arch = "x86_64"))]
mod avx512 {
    /// Never made on this architecture.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Avx512 {}

    impl Avx512 {
        /// Always `None` here.
        pub fn detect() -> Option<Avx512> {
            None
        }
    }
}
