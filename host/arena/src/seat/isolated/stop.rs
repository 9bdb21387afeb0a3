//! Stopping an isolated seat from another thread: when a think is abandoned (undo, new game, the
//! app closing), its runner must not compute on until the time limit runs out.
//!
//! The thread that owns the seat waits for its runner in `poll`; the handle's pipe is one more
//! descriptor in that wait. Stopping writes a byte to it, which wakes every wait (now and later,
//! since the byte is never read), and the owning thread kills and reaps the runner itself. So the
//! handle never signals a process id that may already have been reaped and reused.

use std::io::{PipeReader, PipeWriter, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stops the runners of the seats opened with it ([`open_seat_stoppable`](crate::seat::open_seat_stoppable)), from any
/// thread. Cloning gives another handle to the same switch; once stopped, it stays stopped.
#[derive(Clone)]
pub struct StopHandle {
    inner: Arc<Switch>,
}

struct Switch {
    stopped: AtomicBool,
    /// Readable once stopped (a byte is written and never read).
    wake_reader: PipeReader,
    wake_writer: PipeWriter,
}

impl StopHandle {
    /// A handle not yet stopped. Fails only when the process is out of file descriptors.
    pub fn new() -> std::io::Result<StopHandle> {
        let (wake_reader, wake_writer) = std::io::pipe()?;
        Ok(StopHandle { inner: Arc::new(Switch { stopped: AtomicBool::new(false), wake_reader, wake_writer }) })
    }

    /// Stops: a runner waiting for its bot is killed and reaped by its seat's thread at once, and
    /// the seat starts no new runner. Returns at once; calling it again does nothing.
    pub fn stop(&self) {
        if !self.inner.stopped.swap(true, Ordering::SeqCst) {
            // The pipe is empty, so one byte always fits; `&PipeWriter` writes without `mut`.
            let _ = (&self.inner.wake_writer).write_all(&[1]);
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// The descriptor that becomes readable when the handle is stopped, for `poll`.
    pub(super) fn wake_fd(&self) -> RawFd {
        self.inner.wake_reader.as_raw_fd()
    }
}

impl std::fmt::Debug for StopHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopHandle").field("stopped", &self.is_stopped()).finish()
    }
}
