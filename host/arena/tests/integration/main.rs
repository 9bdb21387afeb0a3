//! The arena library's integration tests, one binary (each module a former test file).
//! The sandbox's attack tests are the sandbox crate's (`host/sandbox/tests/attacks`).
//! `no_zombies` and `windows` stay binaries of their own: the first reaps every child of its
//! process, the second runs only on Windows.

mod analysis;
mod arena;
mod cpu_clock;
mod failures;
mod large_events;
mod nboard;
mod records;
mod wasm;
