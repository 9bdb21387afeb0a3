//! Which clock a bot's time per move is counted on, and what a move is held to on it.
//!
//! On the wall clock the machine's load decides games: a bot that honestly uses 60 % of its
//! limit loses on time when other programs share the processors. On the CPU-time clock (the
//! default of the `othello` program) a move is charged the CPU time of the bot's whole process
//! tree (an isolated seat: its cgroup's counter, else the tree's own clocks; in process: the
//! calling thread's clock), so load only makes a move slower, never a loss. A bot that sleeps or
//! blocks uses no CPU: a wall-clock cap ([`wall_cap`]) still ends its move.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The clock a bot's time per move is counted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// The CPU time of the bot's process tree, with `--threads N` giving N× the limit, and a
    /// wall-clock cap of [`WALL_CAP_FACTOR`]× the limit + [`WALL_CAP_EXTRA`] (+ the grace). The
    /// default everywhere: the `othello` program, the app, the ladder, the server and its workers.
    #[default]
    Cpu,
    /// Wall-clock time from the request to the answer (what every seat used before; `--clock
    /// wall`).
    Wall,
    /// A WebAssembly bot's fuel (`othello_wasm::FUEL_PER_MS` a millisecond), whatever the
    /// event's clock: what a game between two modules is recorded with. Not a `--clock` value.
    Fuel,
}

/// The wall-clock cap of a move on the CPU-time clock is this many times the limit …
pub const WALL_CAP_FACTOR: u32 = 3;
/// … plus this (and the seat's grace).
pub const WALL_CAP_EXTRA: Duration = Duration::from_millis(100);

impl Clock {
    /// `cpu` or `wall`, as in `--clock` and the records.
    pub fn as_str(self) -> &'static str {
        match self {
            Clock::Cpu => "cpu",
            Clock::Wall => "wall",
            Clock::Fuel => "fuel",
        }
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Clock {
    type Err = String;

    fn from_str(text: &str) -> Result<Clock, String> {
        match text {
            "cpu" => Ok(Clock::Cpu),
            "wall" => Ok(Clock::Wall),
            other => Err(format!("unknown clock `{other}` (cpu or wall)")),
        }
    }
}

/// The clock a game between the bots at `libraries` (black's, white's) is counted on when the
/// event's is `clock`: fuel when both are WebAssembly modules (whatever `clock` says, their time
/// is their fuel), else `clock`.
pub fn game_clock(clock: Clock, libraries: [&std::path::Path; 2]) -> Clock {
    if libraries.iter().all(|library| super::is_wasm_file(library)) { Clock::Fuel } else { clock }
}

/// The wall-clock time a move on the CPU-time clock may last whatever CPU it used:
/// [`WALL_CAP_FACTOR`] × `limit` + [`WALL_CAP_EXTRA`] + `grace`.
pub fn wall_cap(limit: Duration, grace: Duration) -> Duration {
    limit * WALL_CAP_FACTOR + WALL_CAP_EXTRA + grace
}

/// The CPU time a move on the CPU-time clock may use: `limit` per CPU of its share (`threads`,
/// at least one), plus `grace`.
pub fn cpu_allowance(limit: Duration, grace: Duration, threads: u32) -> Duration {
    limit * threads.max(1) + grace
}

/// What a move with a time limit is held to (the seats' rule, and the server's when it checks a
/// remote worker's games).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveBudget {
    /// CPU time allowed (`None`: the move is on the wall clock).
    pub cpu: Option<Duration>,
    /// Wall-clock time allowed: the limit + grace on the wall clock, the cap on the CPU clock.
    pub wall: Duration,
    limit: Duration,
    grace: Duration,
    threads: u32,
    clock: Clock,
}

impl MoveBudget {
    pub fn new(clock: Clock, limit: Duration, grace: Duration, threads: u32) -> MoveBudget {
        let threads = threads.max(1);
        let (cpu, wall) = match clock {
            Clock::Wall | Clock::Fuel => (None, limit + grace),
            Clock::Cpu => (Some(cpu_allowance(limit, grace, threads)), wall_cap(limit, grace)),
        };
        MoveBudget { cpu, wall, limit, grace, threads, clock }
    }

    /// The wall clock's allowance (limit + grace): what a move is held to where its CPU time
    /// cannot be read.
    pub(crate) fn wall_clock(&self) -> Duration {
        self.limit + self.grace
    }

    /// Why a move that used `cpu` (`None`: not measured) and lasted `elapsed` loses on time, if it
    /// does: over its CPU allowance, over the wall-clock cap, or (on the wall clock, or where the
    /// CPU time was not measured) over the limit + grace. On a WebAssembly module's fuel, `cpu` is
    /// its virtual time: over the limit (its fuel) is the only overrun, the wall clock is not its.
    pub fn overrun(&self, cpu: Option<Duration>, elapsed: Duration) -> Option<String> {
        let (limit, grace) = (self.limit.as_millis(), self.grace.as_millis());
        if self.clock == Clock::Fuel {
            return cpu.filter(|&used| used > self.limit).map(|used| {
                format!("used {} µs on its virtual clock (fuel), over the limit {limit} ms", used.as_micros())
            });
        }
        match (self.cpu, cpu) {
            (Some(allowed), Some(cpu)) if cpu > allowed => {
                let per_thread = if self.threads > 1 { format!(" × {} threads", self.threads) } else { String::new() };
                Some(format!(
                    "used {} ms of CPU time (CPU-time clock: limit {limit} ms{per_thread} + grace {grace} ms), in {} ms",
                    cpu.as_millis(),
                    elapsed.as_millis()
                ))
            }
            (Some(_), Some(cpu)) => (elapsed > self.wall).then(|| {
                format!(
                    "no move within the wall-clock cap of {} ms ({WALL_CAP_FACTOR} × the limit {limit} ms + {} ms + grace {grace} ms, for a bot that waits), having used {} ms of CPU time",
                    self.wall.as_millis(),
                    WALL_CAP_EXTRA.as_millis(),
                    cpu.as_millis()
                )
            }),
            (Some(_), None) => (elapsed > self.wall_clock()).then(|| {
                format!(
                    "no move within {} ms (limit {limit} ms + grace {grace} ms; on the wall clock, as this seat \
                     cannot read the bot's CPU time)",
                    elapsed.as_millis()
                )
            }),
            (None, _) => (elapsed > self.wall).then(|| {
                format!("no move within {} ms (limit {limit} ms + grace {grace} ms)", self.wall.as_millis())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_clock_gives_each_thread_the_limit_and_caps_the_wall_time() {
        let (limit, grace) = (Duration::from_millis(100), Duration::from_millis(20));
        let one = MoveBudget::new(Clock::Cpu, limit, grace, 1);
        assert_eq!(one.cpu, Some(Duration::from_millis(120)));
        assert_eq!(one.wall, Duration::from_millis(420));
        assert_eq!(MoveBudget::new(Clock::Cpu, limit, grace, 4).cpu, Some(Duration::from_millis(420)));
        assert_eq!(MoveBudget::new(Clock::Cpu, limit, grace, 0).cpu, Some(Duration::from_millis(120)));
        let wall = MoveBudget::new(Clock::Wall, limit, grace, 4);
        assert_eq!((wall.cpu, wall.wall), (None, Duration::from_millis(120)));
    }

    #[test]
    fn a_move_loses_on_the_clock_it_is_held_to() {
        let ms = Duration::from_millis;
        let cpu = MoveBudget::new(Clock::Cpu, ms(100), ms(20), 1);
        // Slow on a busy machine but within its CPU time: no loss.
        assert_eq!(cpu.overrun(Some(ms(60)), ms(400)), None);
        let over = cpu.overrun(Some(ms(121)), ms(130)).unwrap();
        assert!(over.starts_with("used 121 ms of CPU time (CPU-time clock: limit 100 ms + grace 20 ms)"), "{over}");
        let asleep = cpu.overrun(Some(ms(1)), ms(421)).unwrap();
        assert!(asleep.starts_with("no move within the wall-clock cap of 420 ms"), "{asleep}");
        // Where the CPU time is not measured, the wall clock decides.
        assert_eq!(cpu.overrun(None, ms(119)), None);
        assert!(cpu.overrun(None, ms(121)).unwrap().contains("on the wall clock"));
        let two = MoveBudget::new(Clock::Cpu, ms(100), ms(20), 2);
        assert_eq!(two.overrun(Some(ms(200)), ms(110)), None);
        assert!(two.overrun(Some(ms(221)), ms(110)).unwrap().contains("limit 100 ms × 2 threads"));
        let wall = MoveBudget::new(Clock::Wall, ms(100), ms(20), 1);
        assert_eq!(wall.overrun(Some(ms(1)), ms(121)).unwrap(), "no move within 120 ms (limit 100 ms + grace 20 ms)");
        // A module's virtual time is held to the limit exactly, whatever the wall clock says.
        let fuel = MoveBudget::new(Clock::Fuel, ms(100), ms(20), 1);
        assert_eq!(fuel.overrun(Some(ms(100)), ms(5000)), None);
        assert_eq!(fuel.overrun(None, ms(5000)), None);
        let over = fuel.overrun(Some(ms(100) + Duration::from_micros(1)), ms(1)).unwrap();
        assert_eq!(over, "used 100001 µs on its virtual clock (fuel), over the limit 100 ms");
    }

    #[test]
    fn clocks_read_back_as_written() {
        for clock in [Clock::Cpu, Clock::Wall] {
            assert_eq!(clock.as_str().parse::<Clock>(), Ok(clock));
        }
        for clock in [Clock::Cpu, Clock::Wall, Clock::Fuel] {
            let json = serde_json::to_string(&clock).unwrap();
            assert_eq!(json, format!("\"{clock}\""));
            assert_eq!(serde_json::from_str::<Clock>(&json).unwrap(), clock);
        }
        // Fuel is a module's, not an option of the command line.
        assert!("fuel".parse::<Clock>().is_err());
        assert!("monotonic".parse::<Clock>().unwrap_err().contains("cpu or wall"));
    }
}
