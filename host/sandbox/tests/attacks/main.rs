//! The sandbox's end-to-end tests: hostile bots and engines (C fixtures in
//! `host/testkit/fixtures`) in ordinary matches with the default sandbox. Each attack has no effect
//! beyond its own seat, and the user sees a clean reason. A test whose attack needs a layer this
//! machine lacks says so and passes without attacking.
//!
//! - `first_rounds`: the attacks of the first two rounds (signals, /proc, files, TCP, fork bombs,
//!   the environment, the scratch folder, shared memory, descriptors, the freezer);
//! - `engines`: NBoard engines in the sandbox;
//! - `third_round`: secrets in the environment, Unix sockets, System V IPC, inotify, terminal
//!   escapes, the rival's library, namespaces by `clone`, look-alike names.
// Linux: the sandbox's layers are Linux's (Windows: host/arena/tests/windows.rs).
#![cfg(target_os = "linux")]

mod engines;
mod first_rounds;
mod third_round;
