//! The process tree and its end (Linux, runner side): the runner started by the host (the
//! *keeper*) forks an init, PID 1 of the new PID namespace, and under it the jailed process that
//! loads the bot. The keeper only waits and ends the way the bot process ended; when the init
//! ends, the kernel kills everything else in its namespace, so nothing a bot started outlives its
//! runner. When the host dies (or closes the pipe it watches), the keeper kills the jail.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

use nix::sys::prctl;
use nix::sys::signal::Signal;
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::{ForkResult, Pid};

use crate::minimal_root::{self, PreparedRoot};
use crate::stop::{reset_stop_handlers, set_stop_handlers};
use crate::{Report, layer};

/// Exit code of a keeper whose jailed process ended in a way it cannot mirror.
const EXIT_UNKNOWN: i32 = 70;

/// What the jailed process tree is given by the namespaces layer.
pub(crate) struct Tree<'a> {
    pub scratch: Option<&'a Path>,
    /// The scratch folder's parent (held from the host's root) and the folder's name.
    pub scratch_parent: Option<(OwnedFd, std::ffi::CString)>,
    pub freezer: Option<&'a Path>,
    pub host_watch: Option<RawFd>,
    /// The minimal root, prepared by the keeper, entered by the init.
    pub root: Option<PreparedRoot>,
}

/// Forks the jailed processes: an init (PID 1 of the new PID namespace) and under it the
/// process that loads the bot. The keeper and the init wait and end as the bot process ended;
/// the bot process returns.
///
/// The bot does not run as PID 1 because the kernel protects a namespace's init from signals
/// sent inside it: an `abort()` of the bot must still end it with SIGABRT.
pub(crate) fn fork_jailed(report: &mut Report, tree: Tree<'_>) -> Result<(), String> {
    let (status_read, status_write) = std::io::pipe().map_err(|e| format!("pipe failed: {e}"))?;
    match fork_guarded()? {
        Some(init) => {
            drop(status_write);
            keep(init, status_read, &tree)
        }
        None => {
            drop(status_read);
            drop(tree.scratch_parent);
            report.record(
                layer::PARENT_DEATH_SIGNAL,
                Ok::<_, String>("killed (with all it started) when the runner's keeper dies".to_owned()),
            );
            if report.is_active(layer::PID_NAMESPACE) && report.is_active(layer::MOUNT_NAMESPACE) {
                use nix::mount::{MsFlags, mount};
                let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
                // In the minimal root's folder while the old root is still there (the kernel
                // mounts a new /proc only where a whole one is visible).
                let target = if tree.root.is_some() { minimal_root::proc_target() } else { "/proc".into() };
                let proc = mount(Some("proc"), &target, Some("proc"), flags, None::<&str>)
                    .map(|()| "/proc shows only the runner's own processes".to_owned())
                    .map_err(|e| format!("mounting a new /proc failed: {e}"));
                report.record(layer::PRIVATE_PROC, proc);
            } else {
                report.record::<&str>(layer::PRIVATE_PROC, Err("needs the PID and mount namespaces"));
            }
            if let Some(root) = &tree.root {
                // Failing half-way leaves no root to load a bot in: the runner ends with the reason.
                minimal_root::enter(root).map_err(|why| format!("entering the minimal root: {why}"))?;
            }
            // Before the bot process exists (the host may signal once the bot has loaded): the
            // init's stop/continue handlers, the fallback freezer where the host has no cgroup.
            let whole_namespace = report.is_active(layer::PID_NAMESPACE);
            set_stop_handlers(whole_namespace);
            match fork_guarded()? {
                Some(bot) => init(bot, status_write),
                None => {
                    drop(status_write);
                    reset_stop_handlers();
                    let freezer = tree.freezer;
                    let frozen_by = match freezer {
                        Some(_) => join_freezer(freezer),
                        None if whole_namespace => Ok("no freezer cgroup here: the host has the runner's init \
                                                       stop every process of its PID namespace (SIGSTOP) while \
                                                       the opponent is on move"
                            .to_owned()),
                        None => Err("the host gave this runner no freezer cgroup, and without a PID namespace \
                                     it cannot be stopped as a whole"
                            .to_owned()),
                    };
                    report.record(layer::FREEZER, frozen_by);
                    Ok(())
                }
            }
        }
    }
}

/// The bot process moves itself into the freezer cgroup the host made, before any bot code runs
/// (all it starts inherits it). The keeper and the init stay outside: the keeper must act when
/// the host dies, and a frozen init would be woken twice per move for nothing.
fn join_freezer(freezer: Option<&Path>) -> Result<String, String> {
    let folder = freezer.ok_or("the host gave this runner no freezer cgroup")?;
    std::fs::write(folder.join("cgroup.procs"), "0")
        .map_err(|e| format!("cannot join the freezer cgroup {}: {e}", folder.display()))?;
    Ok("the host freezes the bot's whole tree while the opponent is on move".to_owned())
}

/// Forks; the child is killed when its parent dies (checked once armed). Returns the child's id
/// in the parent, `None` in the child.
fn fork_guarded() -> Result<Option<libc::pid_t>, String> {
    // The parent holds the write end: the child sees it hang up if the parent died before the
    // parent-death signal was armed.
    let (alive_read, alive_write) = std::io::pipe().map_err(|e| format!("pipe failed: {e}"))?;
    // SAFETY: the runner is single-threaded here (it has started no thread yet), so the child
    // may run any code after the fork.
    match unsafe { nix::unistd::fork() }.map_err(|e| format!("fork failed: {e}"))? {
        ForkResult::Parent { child } => {
            drop(alive_read);
            // Leaked on purpose: it must stay open as long as this process lives.
            std::mem::forget(alive_write);
            Ok(Some(child.as_raw()))
        }
        ForkResult::Child => {
            drop(alive_write);
            let armed = prctl::set_pdeathsig(Signal::SIGKILL);
            if armed.is_err() || parent_is_gone(&OwnedFd::from(alive_read)) {
                // SAFETY: _exit ends this process at once; nothing of it is shared.
                unsafe { libc::_exit(EXIT_UNKNOWN) };
            }
            Ok(None)
        }
    }
}

/// True when the pipe's write end is closed everywhere (the parent died).
fn parent_is_gone(alive: &OwnedFd) -> bool {
    let mut fd = libc::pollfd { fd: alive.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, no wait.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLERR) != 0
}

/// Points stdin and stdout at /dev/null: the channel belongs to the bot process alone, and the
/// host must see it close when that process dies.
fn let_go_of_channel() {
    // SAFETY: plain fd syscalls on this process's own descriptors.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, libc::STDIN_FILENO);
            libc::dup2(null, libc::STDOUT_FILENO);
            libc::close(null);
        }
    }
}

/// Waits for `pid`, reaping it (its peak memory then counts in this process's children's, which
/// the host reads through wait4). Other children (orphans reparented to an init) are reaped too.
fn wait_for(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        // SAFETY: a valid out-pointer; waiting for any child of this process.
        let reaped = unsafe { libc::waitpid(-1, &mut status, 0) };
        if reaped == pid {
            return status;
        }
        if reaped < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            // SAFETY: _exit has no preconditions.
            unsafe { libc::_exit(EXIT_UNKNOWN) };
        }
    }
}

/// True once `child` has ended (without reaping it); false when the pipe `host` hangs up first.
fn wait_for_exit_or_host_death(child: libc::pid_t, host: RawFd) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, child, 0) } as RawFd;
    loop {
        // Without a pidfd (kernels before 5.3), look at the child every few milliseconds.
        let (child_fd, timeout) = if pidfd >= 0 { (pidfd, -1) } else { (-1, 5) };
        let mut fds = [
            libc::pollfd { fd: child_fd, events: libc::POLLIN, revents: 0 },
            // Events 0: only a hang-up (or error) wakes, never the requests flowing to the bot.
            libc::pollfd { fd: host, events: 0, revents: 0 },
        ];
        // SAFETY: a valid array of two pollfds (negative descriptors are ignored).
        unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout) };
        if fds[1].revents != 0 {
            return false;
        }
        if fds[0].revents != 0 {
            return true;
        }
        if pidfd < 0 {
            // WNOWAIT leaves the child to be reaped by `wait_for`.
            let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
            let ended = !matches!(waitid(Id::Pid(Pid::from_raw(child)), flags), Ok(WaitStatus::StillAlive));
            if ended {
                return true;
            }
        }
    }
}

/// The namespace's init: waits for the bot process, tells the keeper how it ended, and exits,
/// which kills everything left in the namespace.
fn init(bot: libc::pid_t, status_pipe: std::io::PipeWriter) -> ! {
    use std::io::Write;
    let_go_of_channel();
    let status = wait_for(bot);
    let _ = (&status_pipe).write_all(&status.to_le_bytes());
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(0) }
}

/// The keeper: kills the jailed processes if the host dies, waits for them and ends the way the
/// bot process ended.
fn keep(init: libc::pid_t, status_pipe: std::io::PipeReader, tree: &Tree<'_>) -> ! {
    use std::io::Read;
    // The host's death (or its wish to end the jail) is seen as the hang-up of the request pipe,
    // or of the pipe it gave for that (the host holds its only write end). A thread polling
    // getppid, as the plain runner has, cannot be started: a process that unshared its PID
    // namespace may not create threads.
    let (scratch, freezer) = (tree.scratch, tree.freezer);
    // SAFETY: F_DUPFD_CLOEXEC on stdin, an open descriptor, returns a new one or -1.
    let host = tree.host_watch.unwrap_or_else(|| unsafe { libc::fcntl(libc::STDIN_FILENO, libc::F_DUPFD_CLOEXEC, 3) });
    let_go_of_channel();
    if !wait_for_exit_or_host_death(init, host) {
        // The host is gone: end the jailed processes (the keeper has every capability in the
        // user namespace they live in), wait for them, clean up, and go.
        // A frozen process does not die (cgroup v1): thaw first.
        if let Some(folder) = freezer {
            let _ = std::fs::write(folder.join("freezer.state"), "THAWED");
        }
        // `init` is this process's unreaped child: its pid cannot have been reused.
        let _ = nix::sys::signal::kill(Pid::from_raw(init), Signal::SIGKILL);
        wait_for(init);
        if let Some(scratch) = scratch {
            remove_scratch(scratch, tree.scratch_parent.as_ref());
        }
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(EXIT_UNKNOWN) };
    }
    let init_status = wait_for(init);
    if let Some(scratch) = scratch {
        remove_scratch(scratch, tree.scratch_parent.as_ref());
    }
    let mut bytes = [0u8; 4];
    let status = match (&status_pipe).read_exact(&mut bytes) {
        Ok(()) => libc::c_int::from_le_bytes(bytes),
        Err(_) => init_status,
    };
    if libc::WIFEXITED(status) {
        // SAFETY: _exit has no preconditions; nothing of the keeper needs flushing.
        unsafe { libc::_exit(libc::WEXITSTATUS(status)) };
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: restoring the default action and raising the signal that ended the bot process
        // ends the keeper with it (no core: RLIMIT_CORE is 0); the signal is unblocked first.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(signal);
            libc::_exit(128 + signal);
        }
    }
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(EXIT_UNKNOWN) }
}

/// Removes the scratch folder: what the bot wrote, its tmpfs (this process's mount namespace
/// still has it), then the folder on the host's disk, through its parent held from the host's
/// root where the keeper's view is the minimal root.
fn remove_scratch(scratch: &Path, parent: Option<&(OwnedFd, std::ffi::CString)>) {
    let _ = std::fs::remove_dir_all(scratch);
    let _ = nix::mount::umount2(scratch, nix::mount::MntFlags::MNT_DETACH);
    let _ = std::fs::remove_dir_all(scratch);
    if let Some((parent, name)) = parent {
        // SAFETY: unlinkat takes an open directory descriptor and a valid C string.
        unsafe { libc::unlinkat(parent.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) };
    }
}
