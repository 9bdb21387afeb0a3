//! What the runner child does differently per platform (Linux and other Unix systems: in
//! `child` and `sandbox`).

#[cfg(windows)]
pub(crate) mod windows;
