//! A Windows event object: what the host's waits for a runner wait on (the channel has data,
//! the seat was stopped).

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};

use windows_sys::Win32::Foundation::{HANDLE, WAIT_OBJECT_0, WAIT_TIMEOUT};
use windows_sys::Win32::System::Threading::{CreateEventW, SetEvent, WaitForMultipleObjects};

/// An event, auto-reset (one wait consumes a signal) or manual-reset (stays signalled).
#[derive(Debug)]
pub struct Event(OwnedHandle);

impl Event {
    pub fn new(manual_reset: bool) -> std::io::Result<Event> {
        // SAFETY: no security attributes (not inheritable), no name: a new event, initially unset.
        let handle = unsafe { CreateEventW(std::ptr::null(), i32::from(manual_reset), 0, std::ptr::null()) };
        if handle.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a fresh handle, owned by nobody else.
        Ok(Event(unsafe { OwnedHandle::from_raw_handle(handle as _) }))
    }

    pub fn set(&self) {
        // SAFETY: the handle is an open event.
        unsafe { SetEvent(self.raw()) };
    }

    pub fn raw(&self) -> HANDLE {
        self.0.as_raw_handle() as HANDLE
    }
}

/// What a wait on several handles ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The handle at this index was signalled (the lowest one, if several were).
    Signalled(usize),
    TimedOut,
    Failed,
}

/// Waits until one of `handles` is signalled, at most `timeout_ms` milliseconds.
pub fn wait_any(handles: &[HANDLE], timeout_ms: u32) -> Woken {
    // SAFETY: the slice holds open handles (at most 64, the system's limit: callers pass two).
    let result = unsafe { WaitForMultipleObjects(handles.len() as u32, handles.as_ptr(), 0, timeout_ms) };
    match result {
        WAIT_TIMEOUT => Woken::TimedOut,
        r if (r.wrapping_sub(WAIT_OBJECT_0) as usize) < handles.len() => Woken::Signalled((r - WAIT_OBJECT_0) as usize),
        _ => Woken::Failed,
    }
}
