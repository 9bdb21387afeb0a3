//! Isolated seats on Windows: the runner child in a Job Object of its own, its channel read by a
//! thread, and stopping through an event. The same interface as the Unix `process` and `stop`
//! modules, so the seat's logic (`isolated/mod.rs`) is shared.

mod event;
mod exception;
pub(crate) mod job;
pub(super) mod process;
mod reader;
pub(super) mod stop;

use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};

/// Whether the process `pid` is still running (for sweeping what killed hosts left behind).
pub(crate) fn process_exists(pid: u32) -> bool {
    // SAFETY: OpenProcess returns a handle we close, or null; the out-pointer is valid.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return false;
        }
        let mut code = 0u32;
        let running = GetExitCodeProcess(process, &mut code) != 0 && code == STILL_ACTIVE as u32;
        CloseHandle(process);
        running
    }
}

/// A job for an NBoard engine the host started: a runner's job without the memory limit, so
/// whatever the engine starts ends with it (the engine runs a moment before it is assigned: what
/// it starts in that moment is outside).
pub(crate) fn engine_job(engine: &std::process::Child) -> std::io::Result<job::Job> {
    use std::os::windows::io::AsRawHandle;
    let job = job::Job::create(0)?;
    job.assign(engine.as_raw_handle() as windows_sys::Win32::Foundation::HANDLE)?;
    Ok(job)
}

/// Whether a child process has ended (without reaping it: Windows has no zombies to reap).
pub(crate) fn has_ended(child: &std::process::Child) -> bool {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::WAIT_OBJECT_0;
    // SAFETY: the child's process handle is open for the call; a zero timeout never blocks.
    unsafe {
        windows_sys::Win32::System::Threading::WaitForSingleObject(child.as_raw_handle() as _, 0) == WAIT_OBJECT_0
    }
}
