//! The fallback freezer where no freezer cgroup can be had (a plain user on a cgroup-v1 desktop,
//! or no writable cgroup at all): the runner's init (PID 1 of the runner's PID namespace) is
//! queued a real-time signal whose value says stop (`SIGSTOP`) or continue (`SIGCONT`) every other
//! process of its namespace — all the bot started, `setsid` ones included, since `kill(-1, …)`
//! inside a PID namespace reaches all of it at once (see `othello_runner::sandbox::stop_signal`).
//! Queued signals of one number arrive in order, so the last request always decides.
//!
//! The init is found once, as the keeper's only child, and held as a pidfd: a signal never
//! reaches another process that reused its id. Without a PID namespace the runner's init ignores
//! the signals (stopping "every process" would then mean every process of the user).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub(crate) struct NamespaceStopper {
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
    pub(crate) fn started(&mut self, keeper: u32) {
        self.keeper = Some(keeper);
    }

    /// Stops or continues the namespace's processes (the init does it as the signal arrives).
    pub(crate) fn set_stopped(&self, stopped: bool) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.stopped == Some(stopped) {
            return;
        }
        if state.init.is_none() {
            state.init = self.keeper.and_then(find_init);
        }
        let Some(init) = &state.init else { return };
        use othello_runner::sandbox::{CONTINUE_VALUE, STOP_VALUE, stop_signal};
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
        let signal = othello_runner::sandbox::stop_signal();
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
