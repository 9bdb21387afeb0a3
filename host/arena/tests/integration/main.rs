//! The arena library's integration tests, one binary (each module a former test file).
//! `no_zombies` and `windows` stay binaries of their own: the first reaps every child of its
//! process, the second runs only on Windows.

mod analysis;
mod arena;
mod cpu_clock;
mod failures;
mod large_events;
mod nboard;
mod nboard_sandbox;
mod records;
mod sandbox;
mod wasm;
