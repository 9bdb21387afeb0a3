//! The namespaces layer (Linux, runner side): root gives up its ids for `nobody`, then new user,
//! network, mount, IPC and PID namespaces, the minimal root (`minimal_root`), and the fork into
//! the jailed process tree (`process_tree`).

use std::os::fd::RawFd;
use std::path::Path;

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sched::{CloneFlags, unshare};
use nix::sys::prctl;
use nix::unistd::{Gid, Uid};

use crate::minimal_root::{self, RootPlan};
use crate::process_tree::fork_jailed;
use crate::{Mode, Report, SandboxArgs, layer};

/// The unprivileged user a runner started by root becomes (`nobody`).
pub const UNPRIVILEGED_ID: u32 = 65534;
/// What the keeper does after forking: in the jailed process [`enter`] returns; in the keeper
/// it never returns.
///
/// Call it while the process is single-threaded (user namespaces require it).
/// The scratch folder (`sandbox.scratch`) becomes a private tmpfs of `sandbox.scratch_mb` MiB
/// (without one, `probe_bounded_scratch` says whether it could), and is removed by the keeper
/// once the jailed processes ended (the host removes it too; the keeper does it even when the
/// host was killed).
/// `sandbox.freezer` is the freezer cgroup (v1 or v2) the host made for the bot's processes: the
/// bot process joins it (the keeper and the init stay outside, so that the keeper can always act).
/// `host_watch` is the descriptor whose hang-up means the host is gone or wants the jail ended
/// (stdin, the request pipe, when `None`). `root` is what the jailed processes' minimal root
/// holds besides the system's part (`minimal_root`); the scratch folder and the freezer are added
/// here.
pub fn enter(
    sandbox: &SandboxArgs,
    needs: &[&Path],
    root: &RootPlan,
    host_watch: Option<RawFd>,
    report: &mut Report,
) -> Result<(), String> {
    let mode = sandbox.sandbox;
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
        layer::IPC_NAMESPACE,
        namespace(
            CloneFlags::CLONE_NEWIPC,
            "System V shared memory, semaphores and message queues, and POSIX message queues, are the \
             runner's own and end with it",
        ),
    );
    let bounded = match &sandbox.scratch {
        Some(scratch) => bound_scratch(report, scratch, sandbox.scratch_mb),
        None => probe_bounded_scratch(report, sandbox.scratch_mb),
    };
    report.record(layer::BOUNDED_SCRATCH, bounded);
    // Held before the root changes: the keeper removes the scratch folder through it.
    let scratch_parent = sandbox.scratch.as_deref().and_then(minimal_root::open_parent);
    let prepared = if report.is_active(layer::USER_NAMESPACE) && report.is_active(layer::MOUNT_NAMESPACE) {
        let mut plan = root.clone();
        plan.writable.extend(sandbox.scratch.iter().chain(sandbox.freezer.iter()).cloned());
        match minimal_root::prepare(&plan) {
            Ok((description, prepared)) => {
                report.record::<String>(layer::MINIMAL_ROOT, Ok(description));
                Some(prepared)
            }
            Err(why) => {
                report.record::<String>(layer::MINIMAL_ROOT, Err(why));
                None
            }
        }
    } else {
        report.record::<&str>(layer::MINIMAL_ROOT, Err("needs the user and mount namespaces"));
        None
    };
    report.record(
        layer::PID_NAMESPACE,
        namespace(CloneFlags::CLONE_NEWPID, "sees and signals only its own processes; all die with it"),
    );
    report.check_strict(mode)?;
    let tree = crate::process_tree::Tree {
        scratch: sandbox.scratch.as_deref(),
        scratch_parent,
        freezer: sandbox.freezer.as_deref(),
        host_watch,
        root: prepared,
    };
    fork_jailed(report, tree)
}

/// Mounts a private tmpfs of `megabytes` MiB on the scratch folder, in the runner's own mount
/// namespace: what the bot writes there is bounded, counted in its memory cgroup (tmpfs pages are
/// charged to the writer's), invisible to the host, and gone with the namespace.
fn bound_scratch(report: &Report, scratch: &Path, megabytes: u64) -> Result<String, String> {
    if !report.is_active(layer::MOUNT_NAMESPACE) {
        return Err("needs the mount namespace: the scratch folder is a plain folder of the host's disk, \
                    without bound"
            .to_owned());
    }
    if megabytes == 0 {
        return Err("not asked (--scratch-mb 0): the scratch folder is a plain folder of the host's disk, \
                    without bound"
            .to_owned());
    }
    // An inode per 16 KiB: a bot cannot fill the kernel's memory with empty files either.
    let options = format!("size={megabytes}m,nr_inodes={},mode=0700", megabytes.saturating_mul(64));
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    mount(Some("tmpfs"), scratch, Some("tmpfs"), flags, Some(options.as_str()))
        .map_err(|e| format!("mounting a tmpfs on the scratch folder failed: {e}"))?;
    Ok(format!(
        "the scratch folder is a private tmpfs of {megabytes} MiB (counted in the memory cgroup), gone with the \
         runner"
    ))
}

/// For the report (no scratch folder): whether [`bound_scratch`] works here, tried on `/tmp` in
/// this runner's private mount namespace.
fn probe_bounded_scratch(report: &Report, megabytes: u64) -> Result<String, String> {
    let probe = Path::new("/tmp");
    let bounded = bound_scratch(report, probe, megabytes)?;
    let _ = umount2(probe, MntFlags::MNT_DETACH);
    Ok(bounded)
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
