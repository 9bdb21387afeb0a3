//! The last lines a child process (a bot's runner, an NBoard engine) wrote to stderr, kept by a
//! reader thread of their own for failure reports: a flood is read through and thrown away, never
//! held in memory, and never blocks the child.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Lines of a child's stderr kept for failure reports.
pub const STDERR_TAIL_LINES: usize = 12;
/// Longest line kept (the rest of the line is dropped).
const MAX_LINE_CHARS: usize = 400;
/// Bytes kept of one line before it is cut (a UTF-8 character is at most 4 bytes).
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4;
/// Read size: stderr may come in floods.
const READ_CHUNK: usize = 4096;
/// How long to wait for the last lines of a child that ended.
const DRAIN_WAIT: Duration = Duration::from_millis(300);

/// The tail of one child's stderr, filled by a reader thread.
#[derive(Default)]
pub(crate) struct StderrTail {
    state: Mutex<TailState>,
    closed: Condvar,
}

#[derive(Default)]
struct TailState {
    lines: VecDeque<String>,
    closed: bool,
}

impl StderrTail {
    /// Starts a thread called `thread_name` that reads `pipe` to its end.
    pub(crate) fn collect(pipe: impl Read + Send + 'static, thread_name: &str) -> std::io::Result<Arc<StderrTail>> {
        let tail = Arc::new(StderrTail::default());
        let filled = Arc::clone(&tail);
        std::thread::Builder::new().name(thread_name.into()).spawn(move || filled.read_all(pipe))?;
        Ok(tail)
    }

    /// The lines kept, oldest first. With `drain`, for a child that ended, first waits briefly
    /// for the pipe to close so that its last lines are in.
    pub(crate) fn lines(&self, drain: bool) -> Vec<String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if drain && !state.closed {
            state =
                self.closed.wait_timeout_while(state, DRAIN_WAIT, |s| !s.closed).unwrap_or_else(|p| p.into_inner()).0;
        }
        state.lines.iter().cloned().collect()
    }

    fn read_all(&self, mut pipe: impl Read) {
        let mut line: Vec<u8> = Vec::new();
        let mut chunk = [0u8; READ_CHUNK];
        let push = |line: &mut Vec<u8>| {
            let text = crate::text::one_line(&String::from_utf8_lossy(line), MAX_LINE_CHARS);
            line.clear();
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if state.lines.len() == STDERR_TAIL_LINES {
                state.lines.pop_front();
            }
            state.lines.push_back(text);
        };
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    for &byte in &chunk[..n] {
                        if byte == b'\n' {
                            push(&mut line);
                        } else if line.len() < MAX_LINE_BYTES {
                            line.push(byte);
                        }
                    }
                }
            }
        }
        if !line.is_empty() {
            push(&mut line);
        }
        self.state.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.closed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_cut_to_length_and_the_unfinished_last_one() {
        let mut text = String::new();
        for i in 0..20 {
            text += &format!("line {i}\n");
        }
        text += &"x".repeat(5000);
        text += "\nno newline at the end";
        let tail = StderrTail::collect(std::io::Cursor::new(text.into_bytes()), "test-stderr").unwrap();
        let lines = tail.lines(true);
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines[0], "line 10");
        // Cut within the bound, with a mark that it was.
        assert_eq!(lines[STDERR_TAIL_LINES - 2].chars().count(), MAX_LINE_CHARS);
        assert!(lines[STDERR_TAIL_LINES - 2].ends_with(crate::text::ELLIPSIS));
        assert_eq!(lines[STDERR_TAIL_LINES - 1], "no newline at the end");
    }

    #[test]
    fn escapes_and_carriage_returns_are_kept_out() {
        let text = "\x1b]0;title\x07\x1b[2Jok\rforged line\n";
        let tail = StderrTail::collect(std::io::Cursor::new(text.as_bytes().to_vec()), "test-stderr").unwrap();
        assert_eq!(tail.lines(true), ["]0;title[2Jok forged line"]);
    }
}
