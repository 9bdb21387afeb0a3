//! The AVX-512 copy of the searches' hot code: each hot function's body
//! compiled once more, with AVX-512 enabled, for the [`Avx512`] token.
//!
//! Each search file defines the trait of its own hot functions, with the
//! build's own code as the provided methods ([`Baseline`](crate::instruction_set::Baseline)
//! implements them next to that code): `EvalInstructions` (`eval`),
//! `StabilityInstructions` (`stability`), `OrderingInstructions`
//! (`ordering`), `SolverInstructions` (`endgame`) and `SearchInstructions`
//! (`search`). This file implements them all for [`Avx512`], so it stands
//! above every file it dispatches to and none of them imports it; the tokens
//! themselves live below them all, in [`crate::instruction_set`]. See that
//! module for how the copies are chosen and why they are sound.

use crate::endgame::SolverInstructions;
use crate::eval::EvalInstructions;
use crate::instruction_set::Avx512;
use crate::ordering::OrderingInstructions;
use crate::search::SearchInstructions;
use crate::stability::StabilityInstructions;

#[cfg(target_arch = "x86_64")]
mod compiled {
    use super::{
        Avx512, EvalInstructions, OrderingInstructions, SearchInstructions, SolverInstructions, StabilityInstructions,
    };
    use crate::endgame::Solver;
    use crate::search::Worker;

    /// For each trait, each method: a function compiled with the
    /// instructions [`Avx512::detect`] checks, which runs the body (the
    /// token named by the first parameter), and the trait method of
    /// [`Avx512`] that calls it.
    macro_rules! compiled_for_avx512 {
        ($(
            impl $trait:ident {
                $(
                    fn $name:ident $(<const $flag:ident: bool>)? ($isa:ident $(, $arg:ident: $type:ty)* $(,)?) -> $result:ty
                        $body:block
                )*
            }
        )*) => {
            $(
                $(
                    #[allow(clippy::too_many_arguments)]
                    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512vpopcntdq")]
                    fn $name $(<const $flag: bool>)? ($isa: Avx512 $(, $arg: $type)*) -> $result $body
                )*

                impl $trait for Avx512 {
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
            )*
        };
    }

    compiled_for_avx512! {
        impl EvalInstructions {
            fn evaluate(_isa, player: u64, opponent: u64) -> i32 {
                crate::eval::evaluate_inlined(player, opponent)
            }

            fn ordering_evaluate(_isa, player: u64, opponent: u64) -> i32 {
                crate::eval::ordering_evaluate_inlined(player, opponent)
            }
        }

        impl StabilityInstructions {
            fn stable_discs_for_cut(_isa, player: u64, opponent: u64, needed: u32) -> u64 {
                crate::stability::stable_discs_for_cut_inlined(player, opponent, needed)
            }
        }

        impl OrderingInstructions {
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
        }

        impl SolverInstructions {
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
        }

        impl SearchInstructions {
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
        }
    }
}

/// Elsewhere than on x86-64 no [`Avx512`] token is ever made: the build's
/// own code stands in, never run.
#[cfg(not(target_arch = "x86_64"))]
mod compiled {
    use super::{
        Avx512, EvalInstructions, OrderingInstructions, SearchInstructions, SolverInstructions, StabilityInstructions,
    };

    impl EvalInstructions for Avx512 {}
    impl StabilityInstructions for Avx512 {}
    impl OrderingInstructions for Avx512 {}
    impl SolverInstructions for Avx512 {}
    impl SearchInstructions for Avx512 {}
}
