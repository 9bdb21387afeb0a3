//! Isolated seats on Windows: the runner child in a Job Object of its own, its channel read by a
//! thread, and stopping through an event. The same interface as the Unix `process` and `stop`
//! modules, so the seat's logic (`isolated/mod.rs`) is shared.

mod event;
mod exception;
pub(super) mod process;
mod reader;
pub(super) mod stop;

/// Whether a child process has ended (without reaping it: Windows has no zombies to reap).
pub(crate) fn has_ended(child: &std::process::Child) -> bool {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::WAIT_OBJECT_0;
    // SAFETY: the child's process handle is open for the call; a zero timeout never blocks.
    unsafe {
        windows_sys::Win32::System::Threading::WaitForSingleObject(child.as_raw_handle() as _, 0) == WAIT_OBJECT_0
    }
}
