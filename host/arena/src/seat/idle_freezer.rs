//! Freezing an idle seat's bot a moment after it answered, not at once.
//!
//! A seat not on move is frozen so that it cannot compute while its opponent thinks. Freezing and
//! thawing a process costs two wake-ups of it per move, which for fast bots (a few microseconds a
//! move) is most of a move's cost. Where no clock is at stake — games without a time limit, and a
//! seat waiting for its next game — the freeze is scheduled [`FREEZE_DELAY`] after the answer and
//! done by one thread of the host; a seat asked to move again before then is never frozen at all.
//! Such a bot can compute at most [`FREEZE_DELAY`] (plus the host thread's scheduling delay) after
//! each of its answers. In timed games the seat is frozen at once.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// How long after its answer an idle seat's bot is frozen (at most).
pub const FREEZE_DELAY: Duration = Duration::from_millis(1);
/// Freezes falling due this soon are done together, early: the thread wakes at most once per
/// batch, not once per move of a fast game.
const BATCH: Duration = Duration::from_micros(500);

/// Something that can be frozen when a scheduled freeze falls due: it freezes only if it was not
/// thawed since (`generation` unchanged).
pub(crate) trait Freezable: Send + Sync {
    fn freeze_if_still(&self, generation: u64);
}

struct Pending {
    due: Instant,
    target: Weak<dyn Freezable>,
    generation: u64,
}

/// The queue of freezes to do and the thread doing them (started at the first one).
struct Scheduler {
    queue: Mutex<Queue>,
    wake: Condvar,
}

#[derive(Default)]
struct Queue {
    pending: VecDeque<Pending>,
    /// The thread waits with no deadline (it had nothing to do): only then does a new freeze
    /// need to wake it; otherwise it finds the freeze when it wakes for an earlier one.
    idle: bool,
}

fn scheduler() -> &'static Scheduler {
    static SCHEDULER: OnceLock<Scheduler> = OnceLock::new();
    static STARTED: std::sync::Once = std::sync::Once::new();
    let scheduler = SCHEDULER.get_or_init(|| Scheduler { queue: Mutex::new(Queue::default()), wake: Condvar::new() });
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("idle-freezer".to_owned()).spawn(move || scheduler.run());
        if spawned.is_err() {
            // Without the thread, freezes are done at once (see `freeze_after_delay`).
            RUNNING.store(false, std::sync::atomic::Ordering::SeqCst);
        }
    });
    scheduler
}

static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

impl Scheduler {
    fn run(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            // Freezes due within the batch are done now (early is allowed: the seat is idle).
            let now = Instant::now() + BATCH;
            match queue.pending.front() {
                None => {
                    queue.idle = true;
                    queue = self.wake.wait(queue).unwrap_or_else(|p| p.into_inner());
                }
                Some(next) if next.due > now => {
                    let wait = next.due - now;
                    queue = self.wake.wait_timeout(queue, wait).unwrap_or_else(|p| p.into_inner()).0;
                }
                Some(_) => {
                    let due = queue.pending.pop_front().expect("a pending freeze");
                    drop(queue);
                    if let Some(target) = due.target.upgrade() {
                        target.freeze_if_still(due.generation);
                    }
                    queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }
}

/// Freezes `target` [`FREEZE_DELAY`] from now unless it is thawed before (its generation moves
/// on). Returns false when no thread can do it (the caller then freezes at once).
pub(crate) fn freeze_after_delay(target: &Arc<dyn Freezable>, generation: u64) -> bool {
    let scheduler = scheduler();
    if !RUNNING.load(std::sync::atomic::Ordering::SeqCst) {
        return false;
    }
    let pending = Pending { due: Instant::now() + FREEZE_DELAY, target: Arc::downgrade(target), generation };
    let mut queue = scheduler.queue.lock().unwrap_or_else(|p| p.into_inner());
    // Due times only grow (one delay for all), so the queue stays in order; the thread needs a
    // wake-up only when it was waiting for nothing.
    queue.pending.push_back(pending);
    let wake = std::mem::take(&mut queue.idle);
    drop(queue);
    if wake {
        scheduler.wake.notify_one();
    }
    true
}
