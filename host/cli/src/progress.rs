//! How a running event shows its progress: a bar with games/s and the time left on a terminal,
//! or a plain line every few seconds in a log (Slurm's output file, a pipe).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use othello_arena::event::{EventProgress, Sprt};

/// How often the bar is moved (moving it for every game of a fast event would cost more than the
/// game).
const BAR_UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// The progress display of one event.
pub enum ProgressDisplay {
    Bar { bar: ProgressBar, last_update: Instant, sprt: Option<Sprt> },
    Lines { every: Duration, last_line: Instant, started: Instant, finished_before: usize, sprt: Option<Sprt> },
    Off,
}

impl ProgressDisplay {
    /// A bar when standard error is a terminal, else a line every `every` (none for zero). With
    /// an SPRT, the game count is only a cap: no ETA, and the LLR is shown.
    pub fn new(progress: &EventProgress, every: Duration, sprt: Option<Sprt>) -> ProgressDisplay {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(progress.scheduled() as u64);
            let template = if sprt.is_some() {
                "{human_pos} games (at most {human_len})  {rate}  {elapsed_precise}  {wide_msg}"
            } else {
                "{bar:30} {human_pos}/{human_len} games  {rate}  ETA {eta:>4}  {elapsed_precise}  {wide_msg}"
            };
            bar.set_style(ProgressStyle::with_template(template).expect("valid template").with_key(
                "rate",
                |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:>13}", rate_text(state.pos() as usize, state.elapsed()));
                },
            ));
            bar.set_position(progress.finished() as u64);
            bar.reset_eta();
            ProgressDisplay::Bar { bar, last_update: Instant::now(), sprt }
        } else if every.is_zero() {
            ProgressDisplay::Off
        } else {
            ProgressDisplay::Lines {
                every,
                last_line: Instant::now(),
                started: Instant::now(),
                finished_before: progress.finished(),
                sprt,
            }
        }
    }

    /// Shows `progress` if it is time to.
    pub fn update(&mut self, progress: &EventProgress) {
        match self {
            ProgressDisplay::Bar { bar, last_update, sprt } => {
                if last_update.elapsed() >= BAR_UPDATE_INTERVAL {
                    *last_update = Instant::now();
                    bar.set_position(progress.finished() as u64);
                    let message = match sprt {
                        Some(sprt) => format!("{}, {}", llr_text(sprt, progress), leader(progress)),
                        None => leader(progress),
                    };
                    bar.set_message(message);
                }
            }
            ProgressDisplay::Lines { every, last_line, started, finished_before, sprt } => {
                if last_line.elapsed() >= *every {
                    *last_line = Instant::now();
                    let finished_now = progress.finished() - *finished_before;
                    let line = progress_line(progress, started.elapsed(), finished_now, sprt.as_ref());
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

/// `LLR 1.23 (-2.94, 2.94)`: the SPRT's log-likelihood ratio now, and its bounds.
fn llr_text(sprt: &Sprt, progress: &EventProgress) -> String {
    let tally = progress.tally();
    let llr = sprt.llr(tally.pair(0, 1).wdl, tally.pentanomial());
    let (lower, upper) = sprt.bounds();
    format!("LLR {llr:.2} ({lower:.2}, {upper:.2})")
}

/// The speed of `games` finished in `elapsed`, never rounded down to nothing: `51234 games/s`,
/// `2.5 games/s`, `3.2 s/game`; `no game finished yet` before the first.
pub fn rate_text(games: usize, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    if games == 0 || seconds <= 0.0 {
        return "no game finished yet".to_owned();
    }
    let per_second = games as f64 / seconds;
    if per_second >= 10.0 {
        format!("{per_second:.0} games/s")
    } else if per_second >= 1.0 {
        format!("{per_second:.1} games/s")
    } else {
        format!("{:.1} s/game", seconds / games as f64)
    }
}

/// `progress: 120000/1000000 games (12.0 %), 51234 games/s, ETA 0:00:17, leader: …`; with an
/// SPRT, `progress: 1200 games (at most 100000), 3.1 games/s, LLR 1.23 (-2.94, 2.94), leader: …`.
pub fn progress_line(progress: &EventProgress, elapsed: Duration, finished_now: usize, sprt: Option<&Sprt>) -> String {
    let (finished, scheduled) = (progress.finished(), progress.scheduled());
    let rate = rate_text(finished_now, elapsed);
    if let Some(sprt) = sprt {
        return format!(
            "progress: {finished} games (at most {scheduled}), {rate}, {}, {}",
            llr_text(sprt, progress),
            leader(progress)
        );
    }
    let per_second = finished_now as f64 / elapsed.as_secs_f64().max(1e-9);
    let left = scheduled.saturating_sub(finished);
    let eta = if finished_now > 0 { clock(Duration::from_secs_f64(left as f64 / per_second)) } else { "?".to_owned() };
    let percent = if scheduled > 0 { 100.0 * finished as f64 / scheduled as f64 } else { 100.0 };
    format!("progress: {finished}/{scheduled} games ({percent:.1} %), {rate}, ETA {eta}, {}", leader(progress))
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
        let line = progress_line(&progress, Duration::from_secs(5), 250, None);
        assert_eq!(line, "progress: 0/1000 games (0.0 %), 50 games/s, ETA 0:00:20, leader: A (0.0 points)");
        assert_eq!(clock(Duration::from_secs(3 * 3600 + 62)), "3:01:02");
        // Slow games are never `0 games/s`.
        let line = progress_line(&progress, Duration::from_secs(30), 0, None);
        assert_eq!(line, "progress: 0/1000 games (0.0 %), no game finished yet, ETA ?, leader: A (0.0 points)");
        assert_eq!(rate_text(3, Duration::from_secs(10)), "3.3 s/game");
        assert_eq!(rate_text(25, Duration::from_secs(10)), "2.5 games/s");
        // With an SPRT the game count is a cap, and the line carries the LLR.
        let sprt = othello_arena::event::Sprt::parse("elo0=0,elo1=5").unwrap();
        let line = progress_line(&progress, Duration::from_secs(10), 3, Some(&sprt));
        assert_eq!(
            line,
            "progress: 0 games (at most 1000), 3.3 s/game, LLR 0.00 (-2.94, 2.94), leader: A (0.0 points)"
        );
    }
}
