//! Freezing an idle seat's bot a moment after it answered, not at once.
//!
//! A seat not on move is frozen so that it cannot compute while its opponent thinks. Freezing and
//! thawing a process costs two wake-ups of it per move, which for fast bots (a few microseconds a
//! move) is most of a move's cost. Where no clock is at stake — games without a time limit, and a
//! seat waiting for its next game — the freeze is done [`FREEZE_DELAY`] after the answer by one
//! thread of the host; a seat asked to move again before then is never frozen at all. Such a bot
//! can compute at most [`FREEZE_DELAY`] (plus the host thread's scheduling delay) after each of
//! its answers. In timed games the seat is frozen at once.
//!
//! The thread does not get a task per move: a seat registers once when it turns idle, and the
//! thread looks at it when its delay is up. A seat that was asked again meanwhile (the usual case
//! in a fast game) is then dropped from the list, or looked at again after its newest answer's
//! delay. So the thread wakes at most about once per [`FREEZE_DELAY`], however many moves are
//! played, and a move costs the host one uncontended lock.

use std::sync::{Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// How long after its answer an idle seat's bot is frozen (at most).
pub const FREEZE_DELAY: Duration = Duration::from_millis(1);
/// Freezes falling due this soon are done together, early: the thread wakes at most once per
/// batch (freezing early is allowed: the seat is idle).
pub(crate) const BATCH: Duration = Duration::from_micros(500);

/// Something the thread freezes once it has been idle for [`FREEZE_DELAY`].
pub(crate) trait Freezable: Send + Sync {
    /// Looks at the seat at `now`: freezes it when it has been idle long enough. Returns when to
    /// look again (idle, not yet due), or `None` to drop it from the list (frozen, or on move:
    /// it registers again when it next turns idle).
    fn look(&self, now: Instant) -> Option<Instant>;
}

struct Registered {
    target: Weak<dyn Freezable>,
    due: Instant,
}

/// The seats to look at and the thread doing it (started at the first one).
struct Scheduler {
    list: Mutex<List>,
    wake: Condvar,
}

#[derive(Default)]
struct List {
    registered: Vec<Registered>,
    /// The thread waits with no deadline (it had nothing to do): only then does a new seat need
    /// to wake it; otherwise its next wake-up comes no later than the new seat's due time.
    idle: bool,
}

fn scheduler() -> &'static Scheduler {
    static SCHEDULER: OnceLock<Scheduler> = OnceLock::new();
    static STARTED: std::sync::Once = std::sync::Once::new();
    let scheduler = SCHEDULER.get_or_init(|| Scheduler { list: Mutex::new(List::default()), wake: Condvar::new() });
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("idle-freezer".to_owned()).spawn(move || scheduler.run());
        if spawned.is_err() {
            // Without the thread, freezes are done at once (see `register`).
            RUNNING.store(false, std::sync::atomic::Ordering::SeqCst);
        }
    });
    scheduler
}

static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

impl Scheduler {
    fn run(&self) {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let Some(next) = list.registered.iter().map(|r| r.due).min() else {
                list.idle = true;
                list = self.wake.wait(list).unwrap_or_else(|p| p.into_inner());
                continue;
            };
            let now = Instant::now();
            if next > now + BATCH {
                list = self.wake.wait_timeout(list, next - now - BATCH).unwrap_or_else(|p| p.into_inner()).0;
                continue;
            }
            // Looked at without the list's lock (a freeze writes a file): seats turning idle
            // meanwhile are added to the emptied list and kept.
            let due: Vec<Registered> = std::mem::take(&mut list.registered);
            drop(list);
            let mut kept = Vec::with_capacity(due.len());
            for entry in due {
                if entry.due > now + BATCH {
                    kept.push(entry);
                    continue;
                }
                let Some(target) = entry.target.upgrade() else { continue };
                if let Some(due) = target.look(now) {
                    kept.push(Registered { target: entry.target, due });
                }
            }
            list = self.list.lock().unwrap_or_else(|p| p.into_inner());
            list.registered.append(&mut kept);
        }
    }
}

/// Puts `target` on the thread's list (it just turned idle; the caller keeps it from being
/// registered twice). Returns false when no thread can do it (the caller then freezes at once).
pub(crate) fn register(target: Weak<dyn Freezable>) -> bool {
    let scheduler = scheduler();
    if !RUNNING.load(std::sync::atomic::Ordering::SeqCst) {
        return false;
    }
    let mut list = scheduler.list.lock().unwrap_or_else(|p| p.into_inner());
    list.registered.push(Registered { target, due: Instant::now() + FREEZE_DELAY });
    let wake = std::mem::take(&mut list.idle);
    drop(list);
    if wake {
        scheduler.wake.notify_one();
    }
    true
}
