//! What the runner child does differently per platform: the memory limit, the private channel,
//! the watchdog and the sandbox's entry.

#[cfg(unix)]
mod unix;
#[cfg(windows)]
pub(crate) mod windows;

#[cfg(unix)]
pub(crate) use unix::{data_size, enter_sandbox, limit_resources, private_channel, watch_parent};
#[cfg(windows)]
pub(crate) use windows::{data_size, enter_sandbox, limit_resources, private_channel, watch_parent};
