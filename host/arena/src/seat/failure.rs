//! How a game ends and how a side fails: the named losses every seat kind reports.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How a game ended, or how a side failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// Played to the end: neither side could move.
    Normal,
    /// A side gave up. Not a failure: only a game's end is `resigned`.
    Resigned,
    /// The bot answered a move that is not legal (or a byte that is no move).
    IllegalMove,
    /// The bot did not answer within the time limit plus the grace margin.
    Timeout,
    /// The bot's process died (signal, exit code) or the bot reported an internal failure (panic).
    Crash,
    /// The bot went over the memory limit.
    OutOfMemory,
    /// The library could not be loaded or started (`init` failed).
    LoadError,
}

impl Termination {
    /// The kebab-case name used in JSON and on screen (`illegal-move`).
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Resigned => "resigned",
            Termination::IllegalMove => "illegal-move",
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
            Termination::OutOfMemory => "out-of-memory",
            Termination::LoadError => "load-error",
        }
    }
}

impl Termination {
    /// A side failed (a named loss), as opposed to a normal end or a resignation.
    pub fn is_failure(self) -> bool {
        !matches!(self, Termination::Normal | Termination::Resigned)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Longest failure detail kept, in characters (a load error's diagnosis is a few sentences).
pub const MAX_DETAIL_CHARS: usize = 1200;
/// Longest line of a bot's output kept, in characters.
pub const MAX_OUTPUT_LINE_CHARS: usize = 400;

/// Why a seat could not give a move: the game is lost for that side.
///
/// Its texts come from the bot (its `othello_last_error`, its stderr, a library's strings in a
/// load error) or from whoever reports it (a remote worker): every way of making one
/// ([`Failure::new`], [`Failure::with_detail`], [`Failure::with_output`], deserialising) passes
/// them through [`crate::text`], so none can reach a terminal, a page or a file raw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "UncheckedFailure")]
pub struct Failure {
    pub termination: Termination,
    /// What happened, for people: "killed by signal SIGSEGV (segmentation fault) during think".
    pub detail: String,
    /// The last lines the bot wrote to stderr (and stdout), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

/// A failure as read from JSON, before its texts are made harmless.
#[derive(Deserialize)]
struct UncheckedFailure {
    termination: Termination,
    detail: String,
    #[serde(default)]
    stderr_tail: Vec<String>,
}

impl From<UncheckedFailure> for Failure {
    fn from(raw: UncheckedFailure) -> Failure {
        Failure::new(raw.termination, raw.detail).with_output(raw.stderr_tail)
    }
}

impl Failure {
    pub fn new(termination: Termination, detail: impl Into<String>) -> Failure {
        Failure { termination, detail: Failure::clean_detail(&detail.into()), stderr_tail: Vec::new() }
    }

    /// The same failure with another detail.
    pub fn with_detail(self, detail: impl Into<String>) -> Failure {
        Failure { detail: Failure::clean_detail(&detail.into()), ..self }
    }

    /// The same failure with the last lines the bot wrote (each one harmless line; empty ones
    /// dropped).
    pub fn with_output<S: AsRef<str>>(self, lines: impl IntoIterator<Item = S>) -> Failure {
        let stderr_tail = lines
            .into_iter()
            .map(|line| crate::text::one_line(line.as_ref(), MAX_OUTPUT_LINE_CHARS))
            .filter(|line| !line.is_empty())
            .collect();
        Failure { stderr_tail, ..self }
    }

    fn clean_detail(detail: &str) -> String {
        crate::text::one_line(detail, MAX_DETAIL_CHARS)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.termination, self.detail)?;
        if !self.stderr_tail.is_empty() {
            write!(f, "\n  last stderr lines:")?;
            // Quoted: no line a bot wrote can pass for one of the host's.
            for line in &self.stderr_tail {
                write!(f, "\n{}{line}", crate::text::QUOTE)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// Turns the answer of a bot that returned `OTHELLO_MOVE_ERROR` into a crash.
pub(crate) fn move_error_failure(last_error: Option<String>) -> Failure {
    Failure::new(
        Termination::Crash,
        match last_error {
            Some(why) => format!("think failed: {why}"),
            None => "think returned OTHELLO_MOVE_ERROR (0xfe) without saying why".to_owned(),
        },
    )
}

/// The time-limit check for seats that can only measure after the fact.
pub(crate) fn overran(elapsed: Duration, time_limit: Option<Duration>, grace: Duration) -> Option<Failure> {
    let limit = time_limit?;
    (elapsed > limit + grace).then(|| {
        Failure::new(
            Termination::Timeout,
            format!(
                "answered after {} ms (limit {} ms + grace {} ms)",
                elapsed.as_millis(),
                limit.as_millis(),
                grace.as_millis()
            ),
        )
    })
}
