//! How a running event shows its progress: a bar with games/s and the time left on a terminal,
//! or a plain line every few seconds in a log (Slurm's output file, a pipe).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use othello_arena::event::EventProgress;

/// How often the bar is moved (moving it for every game of a fast event would cost more than the
/// game).
const BAR_UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// The progress display of one event.
pub enum ProgressDisplay {
    Bar { bar: ProgressBar, last_update: Instant },
    Lines { every: Duration, last_line: Instant, started: Instant, finished_before: usize },
    Off,
}

impl ProgressDisplay {
    /// A bar when standard error is a terminal, else a line every `every` (none for zero).
    pub fn new(progress: &EventProgress, every: Duration) -> ProgressDisplay {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(progress.scheduled() as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {human_pos}/{human_len} games  {rate}  ETA {eta:>4}  {elapsed_precise}  {wide_msg}",
                )
                .expect("valid template")
                .with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:>7.0} games/s", state.per_sec());
                }),
            );
            bar.set_position(progress.finished() as u64);
            bar.reset_eta();
            ProgressDisplay::Bar { bar, last_update: Instant::now() }
        } else if every.is_zero() {
            ProgressDisplay::Off
        } else {
            ProgressDisplay::Lines {
                every,
                last_line: Instant::now(),
                started: Instant::now(),
                finished_before: progress.finished(),
            }
        }
    }

    /// Shows `progress` if it is time to.
    pub fn update(&mut self, progress: &EventProgress) {
        match self {
            ProgressDisplay::Bar { bar, last_update } => {
                if last_update.elapsed() >= BAR_UPDATE_INTERVAL {
                    *last_update = Instant::now();
                    bar.set_position(progress.finished() as u64);
                    bar.set_message(leader(progress));
                }
            }
            ProgressDisplay::Lines { every, last_line, started, finished_before } => {
                if last_line.elapsed() >= *every {
                    *last_line = Instant::now();
                    let line = progress_line(progress, started.elapsed(), progress.finished() - *finished_before);
                    // A log that went away is not worth stopping the event for.
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            }
            ProgressDisplay::Off => {}
        }
    }

    /// Removes the bar before the results are printed.
    pub fn finish(&mut self) {
        if let ProgressDisplay::Bar { bar, .. } = self {
            bar.finish_and_clear();
        }
    }
}

/// `leader: Alpha-beta (12.5 points)`.
fn leader(progress: &EventProgress) -> String {
    let standings = progress.standings();
    standings.rows.first().map_or(String::new(), |r| format!("leader: {} ({:.1} points)", r.name, r.points))
}

/// `progress: 120000/1000000 games (12.0 %), 51234 games/s, ETA 0:00:17, leader: …`.
pub fn progress_line(progress: &EventProgress, elapsed: Duration, finished_now: usize) -> String {
    let (finished, scheduled) = (progress.finished(), progress.scheduled());
    let rate = finished_now as f64 / elapsed.as_secs_f64().max(1e-9);
    let left = scheduled.saturating_sub(finished);
    let eta = if rate > 0.0 { clock(Duration::from_secs_f64(left as f64 / rate)) } else { "?".to_owned() };
    let percent = if scheduled > 0 { 100.0 * finished as f64 / scheduled as f64 } else { 100.0 };
    format!(
        "progress: {finished}/{scheduled} games ({percent:.1} %), {rate:.0} games/s, ETA {eta}, {}",
        leader(progress)
    )
}

/// `H:MM:SS`.
fn clock(duration: Duration) -> String {
    let seconds = duration.as_secs();
    format!("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_arena::event::{EventSpec, Format, OpeningSource, Participant, Plan};

    #[test]
    fn a_progress_line_says_how_far_how_fast_and_how_long_still() {
        let participant = |name: &str| Participant { name: name.to_owned(), library: "x.so".into(), level: None };
        let spec = EventSpec {
            participants: vec![participant("A"), participant("B")],
            format: Format::Match { games: 1000 },
            openings: OpeningSource::None,
            seed: 1,
            time_limit_ms: None,
            sprt: None,
        };
        let progress = EventProgress::of_plan(&Plan::new(&spec, None));
        // 250 games in 5 s: 50 games/s, 1000 left take 20 s.
        let line = progress_line(&progress, Duration::from_secs(5), 250);
        assert_eq!(line, "progress: 0/1000 games (0.0 %), 50 games/s, ETA 0:00:20, leader: A (0.0 points)");
        assert_eq!(clock(Duration::from_secs(3 * 3600 + 62)), "3:01:02");
    }
}
