//! The layers themselves (Linux). Every `unsafe` block of the sandbox is in this module.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    Scope, path_beneath_rules,
};
use nix::sched::{CloneFlags, unshare};
use nix::sys::prctl;
use nix::sys::signal::Signal;
use nix::unistd::{ForkResult, Gid, Uid};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

use super::{Mode, Report, layer};

/// The unprivileged user a runner started by root becomes (`nobody`).
pub const UNPRIVILEGED_ID: u32 = 65534;
/// Processes and threads one sandboxed runner may have (its own user namespace counts them).
const MAX_PROCESSES: u64 = 256;
/// Folders of system libraries a bot may read (and map).
const SYSTEM_READ_PATHS: &[&str] = &[
    "/lib",
    "/lib32",
    "/lib64",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/usr/share/zoneinfo",
    "/sys/devices/system/cpu",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
];
/// Folders of system programs an engine started through `exec` may run (and read): a shell script
/// engine needs its shell, `env -C DIR engine` needs `env`.
const SYSTEM_PROGRAM_PATHS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/usr/libexec", "/usr/share"];
/// Exit code of a keeper whose jailed process ended in a way it cannot mirror.
const EXIT_UNKNOWN: i32 = 70;

/// What the keeper does after forking: in the jailed process [`enter`] returns; in the keeper
/// it never returns.
///
/// Call it while the process is single-threaded (user namespaces require it).
/// `scratch` is removed by the keeper once the jailed processes ended (the host removes it too;
/// the keeper does it even when the host was killed).
/// `freezer` is the freezer cgroup (v1 or v2) the host made for the bot's processes: the bot
/// process joins it (the keeper and the init stay outside, so that the keeper can always act).
/// `host_watch` is the descriptor whose hang-up means the host is gone or wants the jail ended
/// (stdin, the request pipe, when `None`).
pub fn enter(
    mode: Mode,
    needs: &[&Path],
    scratch: Option<&Path>,
    freezer: Option<&Path>,
    host_watch: Option<RawFd>,
    report: &mut Report,
) -> Result<(), String> {
    debug_assert_ne!(mode, Mode::Off);
    // No core dumps from anything below (the keeper mirrors crash signals).
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    let host_uid = Uid::effective();
    let (uid, gid) = if host_uid.is_root() {
        let dropped = drop_root(needs);
        let ok = report.record(layer::UNPRIVILEGED_USER, dropped);
        if ok { (Uid::from_raw(UNPRIVILEGED_ID), Gid::from_raw(UNPRIVILEGED_ID)) } else { (host_uid, Gid::effective()) }
    } else {
        report.record::<String>(
            layer::UNPRIVILEGED_USER,
            Ok(format!("the host's own user {host_uid} (the host is not root)")),
        );
        (host_uid, Gid::effective())
    };
    let user_ns = unshare(CloneFlags::CLONE_NEWUSER)
        .map_err(|e| format!("unshare(CLONE_NEWUSER) failed: {e} (unprivileged user namespaces disabled?)"))
        .and_then(|()| map_ids(uid, gid))
        .map(|()| format!("uid {uid} and gid {gid} mapped to themselves, nothing else"));
    report.record(layer::USER_NAMESPACE, user_ns);
    let namespace = |flag: CloneFlags, what: &str| {
        unshare(flag).map(|()| what.to_owned()).map_err(|e| format!("unshare failed: {e}"))
    };
    report.record(
        layer::NETWORK_NAMESPACE,
        namespace(CloneFlags::CLONE_NEWNET, "no network: only a loopback that is down"),
    );
    report.record(layer::MOUNT_NAMESPACE, namespace(CloneFlags::CLONE_NEWNS, "mounts are private to the runner"));
    report.record(
        layer::PID_NAMESPACE,
        namespace(CloneFlags::CLONE_NEWPID, "sees and signals only its own processes; all die with it"),
    );
    report.check_strict(mode)?;
    fork_jailed(report, scratch, freezer, host_watch)
}

/// Root gives up its groups and ids for `nobody`. A library (or an engine's file) that `nobody`
/// cannot read stays with root (in `auto` mode), or the bot could not load.
fn drop_root(needs: &[&Path]) -> Result<String, String> {
    if let Some(unreadable) = needs.iter().find(|path| !world_readable(path)) {
        return Err(format!(
            "{} is not readable by other users (uid {UNPRIVILEGED_ID} could not load it): stays root without capabilities",
            unreadable.display()
        ));
    }
    let (uid, gid) = (Uid::from_raw(UNPRIVILEGED_ID), Gid::from_raw(UNPRIVILEGED_ID));
    nix::unistd::setgroups(&[]).map_err(|e| format!("setgroups failed: {e}"))?;
    nix::unistd::setresgid(gid, gid, gid).map_err(|e| format!("setresgid failed: {e}"))?;
    nix::unistd::setresuid(uid, uid, uid).map_err(|e| format!("setresuid failed: {e}"))?;
    // Changing ids makes the process undumpable, which hides /proc/self/uid_map from itself.
    prctl::set_dumpable(true).map_err(|e| format!("PR_SET_DUMPABLE failed: {e}"))?;
    Ok(format!("root dropped for uid/gid {UNPRIVILEGED_ID} (nobody), no supplementary groups"))
}

/// Every folder on the way is searchable by others and the file readable by others.
fn world_readable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(path) = path.canonicalize() else { return true }; // the load reports a missing file
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode()).unwrap_or(0);
    // A folder must be listable and searchable too.
    let wanted = if path.is_dir() { 0o005 } else { 0o004 };
    mode(&path) & wanted == wanted && path.ancestors().skip(1).all(|dir| mode(dir) & 0o001 != 0)
}

/// Maps `uid` and `gid` inside the new user namespace to themselves outside, and nothing else.
fn map_ids(uid: Uid, gid: Gid) -> Result<(), String> {
    let write =
        |file: &str, text: String| std::fs::write(file, text).map_err(|e| format!("writing {file} failed: {e}"));
    write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    write("/proc/self/setgroups", "deny\n".to_owned())?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// Forks the jailed processes: an init (PID 1 of the new PID namespace) and under it the
/// process that loads the bot. The keeper and the init wait and end as the bot process ended;
/// the bot process returns.
///
/// The bot does not run as PID 1 because the kernel protects a namespace's init from signals
/// sent inside it: an `abort()` of the bot must still end it with SIGABRT.
fn fork_jailed(
    report: &mut Report,
    scratch: Option<&Path>,
    freezer: Option<&Path>,
    host_watch: Option<RawFd>,
) -> Result<(), String> {
    let (status_read, status_write) = std::io::pipe().map_err(|e| format!("pipe failed: {e}"))?;
    match fork_guarded()? {
        Some(init) => {
            drop(status_write);
            keep(init, status_read, scratch, freezer, host_watch)
        }
        None => {
            drop(status_read);
            report.record(
                layer::PARENT_DEATH_SIGNAL,
                Ok::<_, String>("killed (with all it started) when the runner's keeper dies".to_owned()),
            );
            if report.is_active(layer::PID_NAMESPACE) && report.is_active(layer::MOUNT_NAMESPACE) {
                use nix::mount::{MsFlags, mount};
                let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
                let proc = mount(Some("proc"), "/proc", Some("proc"), flags, None::<&str>)
                    .map(|()| "/proc shows only the runner's own processes".to_owned())
                    .map_err(|e| format!("mounting a new /proc failed: {e}"));
                report.record(layer::PRIVATE_PROC, proc);
            } else {
                report.record::<&str>(layer::PRIVATE_PROC, Err("needs the PID and mount namespaces"));
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

/// Whether the init's stop handler may stop "every process": only inside its own PID namespace,
/// where that means the bot's processes (outside one it would mean every process of the user).
static STOP_WHOLE_NAMESPACE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The real-time signal the host queues to a runner's init (with `sigqueue`'s value
/// [`STOP_VALUE`] or [`CONTINUE_VALUE`]) to stop or continue every other process of its PID
/// namespace, where no freezer cgroup can be had. Queued signals of one number are delivered in
/// the order they were sent, one handler at a time, so the last one sent always decides.
pub fn stop_signal() -> libc::c_int {
    libc::SIGRTMIN() + STOP_SIGNAL_OFFSET
}

/// [`stop_signal`]'s value that stops the namespace.
pub const STOP_VALUE: usize = 1;
/// [`stop_signal`]'s value that continues it.
pub const CONTINUE_VALUE: usize = 0;

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
fn set_stop_handlers(whole_namespace: bool) {
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
fn reset_stop_handlers() {
    // SAFETY: restoring the default action has no preconditions.
    unsafe { libc::signal(stop_signal(), libc::SIG_DFL) };
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
            // SAFETY: an all-zero siginfo_t is a valid value to be overwritten.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: a valid out-pointer; WNOWAIT leaves the child to be reaped by `wait_for`;
            // si_pid is the field waitid fills (0 when no child changed state).
            let ended = unsafe {
                libc::waitid(libc::P_PID, child as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT)
            } == 0
                && unsafe { info.si_pid() } != 0;
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
fn keep(
    init: libc::pid_t,
    status_pipe: std::io::PipeReader,
    scratch: Option<&Path>,
    freezer: Option<&Path>,
    host_watch: Option<RawFd>,
) -> ! {
    use std::io::Read;
    // The host's death (or its wish to end the jail) is seen as the hang-up of the request pipe,
    // or of the pipe it gave for that (the host holds its only write end). A thread polling
    // getppid, as the plain runner has, cannot be started: a process that unshared its PID
    // namespace may not create threads.
    // SAFETY: F_DUPFD_CLOEXEC on stdin, an open descriptor, returns a new one or -1.
    let host = host_watch.unwrap_or_else(|| unsafe { libc::fcntl(libc::STDIN_FILENO, libc::F_DUPFD_CLOEXEC, 3) });
    let_go_of_channel();
    if !wait_for_exit_or_host_death(init, host) {
        // The host is gone: end the jailed processes (the keeper has every capability in the
        // user namespace they live in), wait for them, clean up, and go.
        // A frozen process does not die (cgroup v1): thaw first.
        if let Some(folder) = freezer {
            let _ = std::fs::write(folder.join("freezer.state"), "THAWED");
        }
        // SAFETY: kill has no memory preconditions; `init` is this process's unreaped child.
        unsafe { libc::kill(init, libc::SIGKILL) };
        wait_for(init);
        if let Some(scratch) = scratch {
            let _ = std::fs::remove_dir_all(scratch);
        }
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(EXIT_UNKNOWN) };
    }
    let init_status = wait_for(init);
    if let Some(scratch) = scratch {
        let _ = std::fs::remove_dir_all(scratch);
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

/// What the jailed process may touch.
pub struct Confinement<'a> {
    pub library: Option<&'a Path>,
    /// The private scratch folder (the only place it may write), if the host made one.
    pub scratch: Option<&'a Path>,
    /// The channel's descriptors (kept open; every other one above stderr is closed).
    pub keep_fds: &'a [RawFd],
    pub memory_limit_mb: u64,
    /// The cgroup version the host placed the runner in (`v1`, `v2`), if it did.
    pub cgroup: Option<&'a str>,
    /// More folders (or files) it may read, run and map: an engine's own folder.
    pub extra_read: &'a [PathBuf],
    /// It is a program started through `exec` (an NBoard engine): it keeps stdin and stdout, may
    /// run the system's programs, and stays in the working folder it was given.
    pub program: bool,
}

/// Locks the jailed process down before the bot loads: resource limits, closed descriptors,
/// no capabilities, no-new-privs, Landlock and seccomp.
pub fn lock_down(mode: Mode, confinement: &Confinement<'_>, report: &mut Report) -> Result<(), String> {
    report.record(layer::RESOURCE_LIMITS, resource_limits(confinement.memory_limit_mb, report));
    report.record(layer::CLOSED_DESCRIPTORS, close_others(confinement.keep_fds, confinement.program));
    report.record(layer::NO_CAPABILITIES, drop_capabilities());
    report.record(
        layer::NO_NEW_PRIVS,
        prctl::set_no_new_privs()
            .map(|()| "set-user-id programs and file capabilities grant nothing".to_owned())
            .map_err(|e| format!("PR_SET_NO_NEW_PRIVS failed: {e}")),
    );
    if let Some(scratch) = confinement.scratch.filter(|_| !confinement.program) {
        // The bot's working folder: relative paths land in the only place it may write.
        // (Only strict mode insists: a runner that stayed root without capabilities cannot enter
        // a folder made for `nobody`, and the bot may not need it.)
        if let Err(e) = std::env::set_current_dir(scratch)
            && mode == Mode::Strict
        {
            return Err(format!("cannot enter the scratch folder {}: {e}", scratch.display()));
        }
    }
    report.record(layer::LANDLOCK, landlock(confinement));
    report.record(layer::SECCOMP, seccomp());
    let cgroup = match confinement.cgroup {
        Some(version) => {
            Ok(format!("cgroup {version} made by the host: memory and processes counted over the whole tree"))
        }
        None => Err("the host did not place this runner in a cgroup (no writable cgroup hierarchy, or \
                     not asked): memory is limited per process only"
            .to_owned()),
    };
    report.record(layer::CGROUP, cgroup);
    report.check_strict(mode)
}

fn resource_limits(memory_limit_mb: u64, report: &Report) -> Result<String, String> {
    use nix::sys::resource::{Resource, setrlimit};
    let set = |resource, value: u64, what: &str| {
        setrlimit(resource, value as _, value as _).map_err(|e| format!("setrlimit({what}) failed: {e}"))
    };
    set(Resource::RLIMIT_CORE, 0, "CORE")?;
    let mut detail = "no core dumps".to_owned();
    if memory_limit_mb > 0 {
        set(Resource::RLIMIT_DATA, memory_limit_mb.saturating_mul(1024 * 1024), "DATA")?;
        detail.push_str(&format!(", data {memory_limit_mb} MiB per process"));
    }
    // Without its own user namespace the count would be shared with every process of the user.
    if report.is_active(layer::USER_NAMESPACE) {
        set(Resource::RLIMIT_NPROC, MAX_PROCESSES, "NPROC")?;
        detail.push_str(&format!(", at most {MAX_PROCESSES} processes and threads"));
    }
    Ok(detail)
}

/// Closes every descriptor above stderr except `keep`.
fn close_others(keep: &[RawFd], program: bool) -> Result<String, String> {
    let mut keep: Vec<u32> = keep.iter().map(|&fd| fd as u32).filter(|&fd| fd > 2).collect();
    keep.sort_unstable();
    let mut first = 3u32;
    for fd in keep.iter().copied().chain([u32::MAX]) {
        if fd > first {
            let last = if fd == u32::MAX { u32::MAX } else { fd - 1 };
            // SAFETY: close_range only closes descriptors; the ones Rust objects own here
            // (the channel) are outside the ranges.
            if unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) } != 0 {
                return Err(format!("close_range failed: {}", std::io::Error::last_os_error()));
            }
        }
        first = fd.saturating_add(1);
    }
    Ok(if program {
        "only stdin, stdout and stderr (the host's pipes) are open".to_owned()
    } else {
        "only stdin (/dev/null), stderr and the channel are open".to_owned()
    })
}

/// Empties the permitted, effective and inheritable capability sets.
fn drop_capabilities() -> Result<String, String> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    // The bounding set first (dropping from it needs CAP_SETPCAP, gone after the capset below):
    // a program the jailed process executes gains nothing from it, not even as root in the user
    // namespace. The securebits make root's special case void too, and lock it so.
    for cap in 0..=63 {
        // SAFETY: PR_CAPBSET_DROP only lowers the bounding set; it fails harmlessly without
        // CAP_SETPCAP (or for capability numbers this kernel does not know).
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
    }
    const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
    const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
    const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 1 << 2;
    const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 1 << 3;
    const SECBIT_NO_CAP_AMBIENT_RAISE: libc::c_ulong = 1 << 6;
    const SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED: libc::c_ulong = 1 << 7;
    let bits = SECBIT_NOROOT
        | SECBIT_NOROOT_LOCKED
        | SECBIT_NO_SETUID_FIXUP
        | SECBIT_NO_SETUID_FIXUP_LOCKED
        | SECBIT_NO_CAP_AMBIENT_RAISE
        | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    // SAFETY: PR_SET_SECUREBITS takes one integer; it needs CAP_SETPCAP and fails harmlessly
    // without it (the empty bounding set already keeps executed programs from capabilities).
    unsafe { libc::prctl(libc::PR_SET_SECUREBITS, bits, 0, 0, 0) };
    let mut header = Header { version: VERSION_3, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset reads a valid header and two data structs (version 3 layout); it only
    // lowers this thread's capabilities. No Rust wrapper crate is a dependency for this one call.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) } != 0 {
        return Err(format!("capset failed: {}", std::io::Error::last_os_error()));
    }
    Ok("no capabilities, in any namespace".to_owned())
}

/// Reads only of system libraries and the bot's folder, writes only in the scratch folder, no
/// TCP, no signals to or abstract sockets of processes outside the sandbox.
fn landlock(confinement: &Confinement<'_>) -> Result<String, String> {
    let abi = ABI::V6;
    let mut read: Vec<PathBuf> = SYSTEM_READ_PATHS.iter().map(PathBuf::from).collect();
    if confinement.program {
        read.extend(SYSTEM_PROGRAM_PATHS.iter().map(PathBuf::from).filter(|p| p.exists()));
    }
    read.extend(confinement.extra_read.iter().filter(|p| p.exists()).cloned());
    if let Some(library) = confinement.library {
        let library = library.canonicalize().unwrap_or_else(|_| library.to_path_buf());
        read.push(library.parent().map_or(library.clone(), Path::to_path_buf));
        read.push(library);
    }
    let error = |e: landlock::RulesetError| format!("landlock: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(error)?
        .handle_access(AccessNet::from_all(abi))
        .map_err(error)?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)
        .map_err(error)?
        .create()
        .map_err(error)?
        .add_rules(path_beneath_rules(&read, AccessFs::from_read(abi)))
        .map_err(error)?
        .add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_read(abi) | AccessFs::WriteFile))
        .map_err(error)?;
    if let Some(scratch) = confinement.scratch {
        ruleset = ruleset.add_rules(path_beneath_rules([scratch], AccessFs::from_all(abi))).map_err(error)?;
    }
    let status = ruleset.restrict_self().map_err(error)?;
    let how = match status.ruleset {
        RulesetStatus::FullyEnforced => "fully enforced",
        RulesetStatus::PartiallyEnforced => "partly enforced (older kernel)",
        RulesetStatus::NotEnforced => return Err("not supported by this kernel".to_owned()),
    };
    let reads = if confinement.program {
        "system libraries and programs and the engine's folder"
    } else {
        "system libraries and the bot's folder"
    };
    Ok(format!("{how}: reads only {reads}, writes only its scratch folder, no TCP, no signals outside the sandbox"))
}

/// Denies the system calls a bot never needs and that reach other processes or the kernel's
/// global state; sockets other than Unix ones; `prlimit` of other processes.
fn seccomp() -> Result<String, String> {
    let error = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let denied = [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_kcmp,
        libc::SYS_pidfd_getfd,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_io_uring_setup,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
    ];
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        denied.iter().map(|&call| (call, Vec::new())).collect();
    let condition = |arg, op, value| SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(error);
    let rule = |conditions| SeccompRule::new(conditions).map_err(error);
    rules.insert(libc::SYS_socket, vec![rule(vec![condition(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?])?]);
    rules.insert(libc::SYS_prlimit64, vec![rule(vec![condition(0, SeccompCmpOp::Ne, 0)?])?]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        std::env::consts::ARCH.try_into().map_err(error)?,
    )
    .map_err(error)?;
    let program: BpfProgram = filter.try_into().map_err(error)?;
    let speculation = install_filter(&program)?;
    Ok(format!(
        "ptrace, process_vm_*, kcmp, mount, namespaces, keyrings, bpf, perf and io_uring denied; only \
         Unix sockets; prlimit only of itself{speculation}"
    ))
}

/// Installs the filter with `SECCOMP_FILTER_FLAG_SPEC_ALLOW` (Linux 4.17+), as container runtimes
/// do: by default a seccomp filter also forces the speculative-execution mitigations (SSBD, and
/// STIBP where `spectre_v2_user` is `seccomp`) on the process, which protect the bot's own secrets
/// from other processes, not anything of the host, and cost on every context switch (two per
/// move). Older kernels get the filter without the flag. seccompiler has no call taking flags.
fn install_filter(program: &BpfProgram) -> Result<&'static str, String> {
    #[repr(C)]
    struct SockFprog {
        len: libc::c_ushort,
        filter: *const seccompiler::sock_filter,
    }
    let len = libc::c_ushort::try_from(program.len()).map_err(|_| "seccomp: the filter is too long".to_owned())?;
    let fprog = SockFprog { len, filter: program.as_ptr() };
    let install = |flags: libc::c_ulong| {
        // SAFETY: the kernel copies the program from a valid sock_fprog pointing at `program`,
        // which outlives the call; no-new-privs is set (lock_down does it first).
        unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, &fprog as *const SockFprog) }
    };
    if install(libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW) == 0 {
        return Ok("");
    }
    if install(0) == 0 {
        return Ok(" (this kernel forces the speculation mitigations on it)");
    }
    Err(format!("seccomp: installing the filter failed: {}", std::io::Error::last_os_error()))
}
