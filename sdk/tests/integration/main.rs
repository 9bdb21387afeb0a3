//! The rules against published facts, one binary (each module a former test file).
//! `abi` and `analysis` stay binaries of their own: they compile C bots and load example
//! libraries, which the Windows run under Wine does not do.

mod ffo;
mod perft;
mod rules;
mod search_info;
