//! Reads a runner's channel on a thread of its own. Windows cannot wait on an anonymous pipe
//! together with other handles, so the thread reads whatever arrives into a buffer and signals an
//! event, and the seat waits on that event and the stop handle's.

use std::io::Read;
use std::process::ChildStdout;
use std::sync::{Arc, Mutex};

use othello_runner::protocol::{HEADER, MAX_FRAME};
use windows_sys::Win32::Foundation::HANDLE;

use super::event::Event;

/// Read size of the channel: answers are small.
const CHANNEL_READ_CHUNK: usize = 512;
/// Bytes held unread before the reader stops: more than one largest frame means the runner sends
/// what no one asked for (a garbled channel), and the host's memory is not the bot's to fill.
const MAX_UNREAD: usize = 2 * (HEADER + MAX_FRAME);
/// Stack of the reader thread (it only copies small chunks).
const READER_STACK: usize = 64 * 1024;

/// What the reader thread has seen so far.
#[derive(Default)]
struct Unread {
    bytes: Vec<u8>,
    /// The runner's end of the channel is closed (it died, or closed it).
    closed: bool,
    /// More than [`MAX_UNREAD`] bytes arrived unasked.
    overflowed: bool,
}

/// What [`ChannelReader::take`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// New bytes were appended.
    Bytes,
    /// Nothing new yet.
    Nothing,
    /// Nothing new, and nothing more will come.
    Closed,
    /// The runner sent more than any answer can be.
    Overflowed,
}

/// The reading side of one runner's channel.
pub struct ChannelReader {
    unread: Arc<Mutex<Unread>>,
    /// Signalled whenever the thread appended bytes or saw the end.
    ready: Arc<Event>,
}

impl ChannelReader {
    /// Starts the thread; it ends when the channel closes (the runner's job is ended with it).
    pub fn start(mut pipe: ChildStdout) -> std::io::Result<ChannelReader> {
        let unread = Arc::new(Mutex::new(Unread::default()));
        let ready = Arc::new(Event::new(false)?);
        let (shared, signal) = (Arc::clone(&unread), Arc::clone(&ready));
        std::thread::Builder::new().name("runner-channel".into()).stack_size(READER_STACK).spawn(move || {
            let mut chunk = [0u8; CHANNEL_READ_CHUNK];
            loop {
                let read = pipe.read(&mut chunk);
                let mut unread = shared.lock().unwrap_or_else(|p| p.into_inner());
                match read {
                    Ok(0) | Err(_) => unread.closed = true,
                    Ok(n) => unread.bytes.extend_from_slice(&chunk[..n]),
                }
                if unread.bytes.len() > MAX_UNREAD {
                    unread.overflowed = true;
                }
                let done = unread.closed || unread.overflowed;
                drop(unread);
                signal.set();
                if done {
                    return;
                }
            }
        })?;
        Ok(ChannelReader { unread, ready })
    }

    /// Moves what arrived onto the end of `buffer`.
    pub fn take(&self, buffer: &mut Vec<u8>) -> Taken {
        let mut unread = self.unread.lock().unwrap_or_else(|p| p.into_inner());
        if !unread.bytes.is_empty() {
            buffer.append(&mut unread.bytes);
            return Taken::Bytes;
        }
        if unread.overflowed {
            Taken::Overflowed
        } else if unread.closed {
            Taken::Closed
        } else {
            Taken::Nothing
        }
    }

    /// The event to wait on for [`take`](Self::take) to have something.
    pub fn ready_handle(&self) -> HANDLE {
        self.ready.raw()
    }
}
