//! Stopping a seat's bot while its opponent is on move where no freezer cgroup can be had (a
//! plain user on a cgroup-v1 desktop, or no writable cgroup at all): both halves.
//!
//! The host ([`NamespaceStopper`]) queues the runner's init (PID 1 of the runner's PID namespace)
//! a real-time signal (`stop_signal`) whose value says stop (`SIGSTOP`) or continue (`SIGCONT`)
//! every other process of its namespace; the init's handler does it with `kill(-1, …)`, which
//! inside a PID namespace reaches all the bot started, `setsid` ones included. Queued signals of
//! one number arrive in order, so the last request always decides.
//!
//! The init is found once, as the keeper's only child, and held as a pidfd: a signal never
//! reaches another process that reused its id. Without a PID namespace the runner's init ignores
//! the signals (stopping "every process" would then mean every process of the user).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

// The runner's half: the init's handler.

/// Whether the init's stop handler may stop "every process": only inside its own PID namespace,
/// where that means the bot's processes (outside one it would mean every process of the user).
static STOP_WHOLE_NAMESPACE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The real-time signal the host queues to a runner's init (with `sigqueue`'s value
/// [`STOP_VALUE`] or [`CONTINUE_VALUE`]) to stop or continue every other process of its PID
/// namespace, where no freezer cgroup can be had. Queued signals of one number are delivered in
/// the order they were sent, one handler at a time, so the last one sent always decides.
pub(crate) fn stop_signal() -> libc::c_int {
    libc::SIGRTMIN() + STOP_SIGNAL_OFFSET
}

/// [`stop_signal`]'s value that stops the namespace.
pub(crate) const STOP_VALUE: usize = 1;
/// [`stop_signal`]'s value that continues it.
pub(crate) const CONTINUE_VALUE: usize = 0;

/// Above the real-time signals glibc and common runtimes use for themselves.
const STOP_SIGNAL_OFFSET: libc::c_int = 4;

extern "C" fn on_stop_signal(_signal: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
    if !STOP_WHOLE_NAMESPACE.load(std::sync::atomic::Ordering::Relaxed) || info.is_null() {
        return;
    }
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler; a queued signal's
    // value is its `si_value`.
    let value = unsafe { (*info).si_value() }.sival_ptr as usize;
    let action = if value == STOP_VALUE { libc::SIGSTOP } else { libc::SIGCONT };
    // SAFETY: kill is async-signal-safe; -1 reaches every process of this PID namespace but its
    // init (the caller), which is all the bot started.
    unsafe { libc::kill(-1, action) };
}

/// The init's handler (installed even without a PID namespace, where it does nothing: a
/// real-time signal's default action would end the process). The signal is blocked while its
/// handler runs (the default), so queued ones are handled one after the other, in order.
pub(crate) fn set_stop_handlers(whole_namespace: bool) {
    STOP_WHOLE_NAMESPACE.store(whole_namespace, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: an all-zero sigaction is a valid value; its mask is emptied before sigaction reads
    // it; the handler only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction =
            on_stop_signal as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(stop_signal(), &action, std::ptr::null_mut());
    }
}

/// The bot process does not inherit the init's handler.
pub(crate) fn reset_stop_handlers() {
    // SAFETY: restoring the default action has no preconditions.
    unsafe { libc::signal(stop_signal(), libc::SIG_DFL) };
}

// The host's half: the stopper.

#[derive(Debug, Default)]
pub struct NamespaceStopper {
    keeper: Option<u32>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The init's pidfd, once found (looked for again until then: right after the start the
    /// keeper may not have forked it yet, and a process not yet started needs no stopping).
    init: Option<OwnedFd>,
    /// What was last asked, so a seat that stays stopped (or running) sends nothing.
    stopped: Option<bool>,
}

impl NamespaceStopper {
    pub fn started(&mut self, keeper: u32) {
        self.keeper = Some(keeper);
    }

    /// Stops or continues the namespace's processes (the init does it as the signal arrives).
    pub fn set_stopped(&self, stopped: bool) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.stopped == Some(stopped) {
            return;
        }
        if state.init.is_none() {
            state.init = self.keeper.and_then(find_init);
        }
        let Some(init) = &state.init else { return };
        let info = QueuedSignal::new(stop_signal(), if stopped { STOP_VALUE } else { CONTINUE_VALUE });
        // SAFETY: pidfd_send_signal takes a pidfd this object owns, a signal number, a valid
        // siginfo (laid out as the kernel's, see `QueuedSignal`) and no flags.
        let sent = unsafe {
            libc::syscall(libc::SYS_pidfd_send_signal, init.as_raw_fd(), info.signal, &info as *const QueuedSignal, 0)
        };
        // Unknown after a failed send (the init is gone, or the kernel lacks pidfds): send again.
        state.stopped = (sent == 0).then_some(stopped);
    }
}

/// The kernel's `siginfo_t` of a signal queued with a value (`si_code` `SI_QUEUE`), as
/// `sigqueue` fills it: signal, error and code, then (after padding to the union's 8-byte
/// alignment) the sender's pid and uid and the value; 128 bytes in all.
#[repr(C)]
struct QueuedSignal {
    signal: libc::c_int,
    errno: libc::c_int,
    code: libc::c_int,
    _pad: libc::c_int,
    pid: libc::pid_t,
    uid: libc::uid_t,
    value: usize,
    _rest: [u8; 128 - 32],
}

impl QueuedSignal {
    fn new(signal: libc::c_int, value: usize) -> QueuedSignal {
        // SAFETY: getpid and getuid have no preconditions.
        let (pid, uid) = unsafe { (libc::getpid(), libc::getuid()) };
        QueuedSignal { signal, errno: 0, code: libc::SI_QUEUE, _pad: 0, pid, uid, value, _rest: [0; 128 - 32] }
    }
}

/// The keeper's only child, as a pidfd.
fn find_init(keeper: u32) -> Option<OwnedFd> {
    let children = std::fs::read_to_string(format!("/proc/{keeper}/task/{keeper}/children")).ok()?;
    let init: libc::pid_t = children.split_whitespace().next()?.parse().ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, init, 0) } as libc::c_int;
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

const _: () = assert!(std::mem::size_of::<QueuedSignal>() == std::mem::size_of::<libc::siginfo_t>());

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-made siginfo carries its value as the kernel's layout says: queued to this
    /// process (blocked, then taken with sigtimedwait), the value comes back.
    #[test]
    fn a_queued_signal_carries_its_value() {
        let signal = stop_signal();
        // SAFETY: plain signal-mask and signal calls on this thread; the signal stays blocked in
        // this thread only and is taken before the test ends.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            // To this thread (the one that blocks it), with the same siginfo the stopper sends.
            let info = QueuedSignal::new(signal, 7);
            let sent = libc::syscall(
                libc::SYS_rt_tgsigqueueinfo,
                libc::getpid(),
                libc::gettid(),
                signal,
                &info as *const QueuedSignal,
            );
            assert_eq!(sent, 0, "{}", std::io::Error::last_os_error());
            let mut got: libc::siginfo_t = std::mem::zeroed();
            let timeout = libc::timespec { tv_sec: 10, tv_nsec: 0 };
            assert_eq!(libc::sigtimedwait(&set, &mut got, &timeout), signal);
            assert_eq!(got.si_value().sival_ptr as usize, 7);
            assert_eq!(got.si_code, libc::SI_QUEUE);
        }
    }
}
