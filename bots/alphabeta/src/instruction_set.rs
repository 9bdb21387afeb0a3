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
//! the crate's `InstructionSet` trait and always inlined, and calls its
//! children through the token it was given. [`Baseline`]'s methods are
//! ordinary functions; those of [`Avx512`] are functions compiled for AVX-512
//! (`#[target_feature]`), into which the body and everything it inlines is
//! compiled. So a search started with the AVX-512 token stays in AVX-512 code
//! all the way down, and one started with [`Baseline`] is the code the build
//! always had. Both compute the same values and visit the same nodes; only
//! their speed differs.
//!
//! An [`Avx512`] token exists only once [`Avx512::detect`] has seen every
//! instruction it enables on this processor: that is what makes calling its
//! functions sound. `ALPHABETA_AVX512=0` in the environment keeps every
//! search on [`Baseline`] (for a comparison on the same binary, or should a
//! processor misreport its features).

use crate::endgame::Solver;
use crate::search::Worker;

/// A way of running the searches' hot functions: [`Baseline`] or [`Avx512`].
/// Each method runs the named function's body compiled for this instruction
/// set; the bodies call on through the same token. The provided methods are
/// [`Baseline`]'s: the bodies compiled as the build is. Crate-private: its
/// methods take the searches' own types.
pub(crate) trait InstructionSet: Copy {
    /// [`Solver::search`].
    fn search(self, solver: &mut Solver<'_>, player: u64, opponent: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        solver.search_with(self, player, opponent, alpha, beta, passed)
    }

    /// The midgame search's recursion ([`crate::search`]).
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        self,
        worker: &mut Worker<'_>,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        worker.negamax_with(self, player, opponent, depth, alpha, beta, passed)
    }

    /// The solver's search of 5 or more empties below its table's reach.
    #[allow(clippy::too_many_arguments)]
    fn shallow_with_parity(
        self,
        solver: &mut Solver<'_>,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        passed: bool,
        odd: u64,
    ) -> i32 {
        solver.shallow_with_parity_with(self, player, opponent, alpha, beta, passed, odd)
    }

    /// The solver's search of 4 empties.
    #[allow(clippy::too_many_arguments)]
    fn solve_4(
        self,
        solver: &mut Solver<'_>,
        player: u64,
        opponent: u64,
        alpha: i32,
        beta: i32,
        squares: [usize; 4],
        passed: bool,
    ) -> i32 {
        solver.solve_4_with(self, player, opponent, alpha, beta, squares, passed)
    }

    /// [`crate::ordering::shallow_search`].
    fn shallow_search<const WITH_PATTERNS: bool>(
        self,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        crate::ordering::shallow_search_with::<_, WITH_PATTERNS>(self, player, opponent, depth, alpha, beta)
    }

    /// [`crate::eval::evaluate`].
    #[inline(always)]
    fn evaluate(self, player: u64, opponent: u64) -> i32 {
        crate::eval::evaluate(player, opponent)
    }

    /// [`crate::eval::ordering_evaluate`].
    #[inline(always)]
    fn ordering_evaluate(self, player: u64, opponent: u64) -> i32 {
        crate::eval::ordering_evaluate(player, opponent)
    }

    /// [`crate::stability::stable_discs_for_cut`].
    #[inline(always)]
    fn stable_discs_for_cut(self, player: u64, opponent: u64, needed: u32) -> u64 {
        crate::stability::stable_discs_for_cut(player, opponent, needed)
    }
    /// [`crate::stability::stable_discs`]: the cut's search, never stopped early.
    #[inline(always)]
    fn stable_discs(self, player: u64, opponent: u64) -> u64 {
        self.stable_discs_for_cut(player, opponent, u32::MAX)
    }
}

/// The instructions the build targets: every processor that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Baseline;

impl InstructionSet for Baseline {}

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
    use super::InstructionSet;
    use crate::endgame::Solver;
    use crate::search::Worker;

    /// Proof that this processor runs AVX-512 (the foundation, 128- and
    /// 256-bit forms, byte, word, doubleword and quadword operations,
    /// conflict detection and vector popcount: Ice Lake, Zen 4 and later):
    /// only [`Avx512::detect`] makes one.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Avx512(());

    impl Avx512 {
        /// The token, if this processor has every instruction the AVX-512
        /// copy of the solver is compiled with.
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

    /// Each method of [`Avx512`]: a function compiled with the instructions
    /// [`Avx512::detect`] checks, which runs the body (the token named by the
    /// first parameter), and the trait method that calls it.
    macro_rules! compiled_for_avx512 {
        ($(
            fn $name:ident $(<const $flag:ident: bool>)? ($isa:ident $(, $arg:ident: $type:ty)* $(,)?) -> $result:ty
                $body:block
        )*) => {
            $(
                #[allow(clippy::too_many_arguments)]
                #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512vpopcntdq")]
                fn $name $(<const $flag: bool>)? ($isa: Avx512 $(, $arg: $type)*) -> $result $body
            )*

            impl InstructionSet for Avx512 {
                $(
                    #[allow(clippy::too_many_arguments)]
                    #[inline(always)]
                    fn $name $(<const $flag: bool>)? (self $(, $arg: $type)*) -> $result {
                        // SAFETY: the function is compiled for the instructions
                        // `Avx512::detect` checked this processor for, and `self`
                        // is the token only `detect` makes: they run here.
                        unsafe { $name $(::<$flag>)? (self $(, $arg)*) }
                    }
                )*
            }
        };
    }

    compiled_for_avx512! {
        fn negamax(
            isa,
            worker: &mut Worker<'_>,
            player: u64,
            opponent: u64,
            depth: u32,
            alpha: i32,
            beta: i32,
            passed: bool,
        ) -> i32 {
            worker.negamax_with(isa, player, opponent, depth, alpha, beta, passed)
        }

        fn search(isa, solver: &mut Solver<'_>, player: u64, opponent: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
            solver.search_with(isa, player, opponent, alpha, beta, passed)
        }

        fn shallow_with_parity(
            isa,
            solver: &mut Solver<'_>,
            player: u64,
            opponent: u64,
            alpha: i32,
            beta: i32,
            passed: bool,
            odd: u64,
        ) -> i32 {
            solver.shallow_with_parity_with(isa, player, opponent, alpha, beta, passed, odd)
        }

        fn solve_4(
            isa,
            solver: &mut Solver<'_>,
            player: u64,
            opponent: u64,
            alpha: i32,
            beta: i32,
            squares: [usize; 4],
            passed: bool,
        ) -> i32 {
            solver.solve_4_with(isa, player, opponent, alpha, beta, squares, passed)
        }

        fn shallow_search<const WITH_PATTERNS: bool>(
            isa,
            player: u64,
            opponent: u64,
            depth: u32,
            alpha: i32,
            beta: i32,
        ) -> i32 {
            crate::ordering::shallow_search_with::<_, WITH_PATTERNS>(isa, player, opponent, depth, alpha, beta)
        }

        fn evaluate(_isa, player: u64, opponent: u64) -> i32 {
            crate::eval::evaluate_inlined(player, opponent)
        }

        fn ordering_evaluate(_isa, player: u64, opponent: u64) -> i32 {
            crate::eval::ordering_evaluate_inlined(player, opponent)
        }

        fn stable_discs_for_cut(_isa, player: u64, opponent: u64, needed: u32) -> u64 {
            crate::stability::stable_discs_for_cut_inlined(player, opponent, needed)
        }
    }
}

/// Elsewhere than on x86-64 there is no AVX-512: no token can be made.
#[cfg(not(target_arch = "x86_64"))]
mod avx512 {
    use super::InstructionSet;

    /// Never made on this architecture.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Avx512 {}

    impl Avx512 {
        /// Always `None` here.
        pub fn detect() -> Option<Avx512> {
            None
        }
    }

    impl InstructionSet for Avx512 {}
}
