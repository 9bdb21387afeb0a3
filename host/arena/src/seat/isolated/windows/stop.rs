//! Stopping an isolated seat from another thread (Windows): a manual-reset event that every wait
//! for the seat's runner includes. Stopping sets it, which wakes every wait (now and later), and
//! the owning thread ends the runner's job itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use windows_sys::Win32::Foundation::HANDLE;

use super::event::Event;

/// Stops the runners of the seats opened with it ([`open_seat_stoppable`](crate::seat::open_seat_stoppable)), from any
/// thread. Cloning gives another handle to the same switch; once stopped, it stays stopped.
#[derive(Clone)]
pub struct StopHandle {
    inner: Arc<Switch>,
}

struct Switch {
    stopped: AtomicBool,
    /// Signalled once stopped, for good.
    wake: Event,
}

impl StopHandle {
    /// A handle not yet stopped. Fails only when the process is out of handles.
    pub fn new() -> std::io::Result<StopHandle> {
        Ok(StopHandle { inner: Arc::new(Switch { stopped: AtomicBool::new(false), wake: Event::new(true)? }) })
    }

    /// Stops: a runner waiting for its bot is killed by its seat's thread at once, and the seat
    /// starts no new runner. Returns at once; calling it again does nothing.
    pub fn stop(&self) {
        if !self.inner.stopped.swap(true, Ordering::SeqCst) {
            self.inner.wake.set();
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// The event that is signalled once the handle is stopped.
    pub(in crate::seat) fn wake_handle(&self) -> HANDLE {
        self.inner.wake.raw()
    }
}

impl std::fmt::Debug for StopHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopHandle").field("stopped", &self.is_stopped()).finish()
    }
}
