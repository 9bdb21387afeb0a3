//! The lock-down layers (Linux, runner side), applied in the jailed process just before the bot
//! loads: resource limits (`limits`), no capabilities, no-new-privs, Landlock and
//! seccomp.

use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    Scope, path_beneath_rules,
};
use nix::sys::prctl;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

use crate::limits::{close_others, resource_limits};
use crate::minimal_root::{SYSTEM_PROGRAM_PATHS, SYSTEM_READ_PATHS};
use crate::{Mode, Report, layer};

/// Device files a bot may read (and /dev/null write).
const DEVICE_PATHS: &[&str] = &["/dev/urandom", "/dev/random", "/dev/zero", "/dev/full"];

/// What the jailed process may touch.
pub struct Confinement<'a> {
    pub library: Option<&'a Path>,
    /// The private scratch folder (the only place it may write), if the host made one.
    pub scratch: Option<&'a Path>,
    /// The channel's descriptors (kept open; every other one above stderr is closed).
    pub keep_fds: &'a [RawFd],
    pub memory_limit_mb: u64,
    /// The cgroup version (1, 2) whose limits the host placed the runner under, if it did.
    pub cgroup: Option<u8>,
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
    report.record(layer::SECCOMP, seccomp(confinement.program));
    let cgroup = match confinement.cgroup {
        Some(version) => {
            Ok(format!("cgroup v{version} made by the host: memory and processes counted over the whole tree"))
        }
        None => Err("the host did not place this runner in a cgroup (no writable cgroup hierarchy, or \
                     not asked): memory is limited per process only"
            .to_owned()),
    };
    report.record(layer::CGROUP, cgroup);
    report.check_strict(mode)
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
    let mut read: Vec<PathBuf> = SYSTEM_READ_PATHS.iter().chain(DEVICE_PATHS).map(PathBuf::from).collect();
    if confinement.program {
        read.extend(SYSTEM_PROGRAM_PATHS.iter().map(PathBuf::from).filter(|p| p.exists()));
    }
    read.extend(confinement.extra_read.iter().filter(|p| p.exists()).cloned());
    if let Some(library) = confinement.library {
        let library = library.canonicalize().unwrap_or_else(|_| library.to_path_buf());
        // An engine's program reads its own folder; a bot's library is read alone (another
        // entrant's library may lie beside it).
        if confinement.program {
            read.push(library.parent().map_or(library.clone(), Path::to_path_buf));
        }
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
        "system libraries and the bot's own library file"
    };
    Ok(format!("{how}: reads only {reads}, writes only its scratch folder, no TCP, no signals outside the sandbox"))
}

/// The namespace flags of `clone` (its low byte is the exit signal, so `CLONE_NEWTIME`, 0x80,
/// can only be asked through `clone3` and `unshare`, both denied).
const CLONE_NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
];

/// Denies the system calls a bot never needs and that reach other processes, the kernel's global
/// state or the file system's watchers: new namespaces (`clone` with a namespace flag; `clone3`
/// answers ENOSYS so that libc falls back to `clone`, as container runtimes do), System V IPC and
/// POSIX message queues, inotify and fanotify, the new mount API, sockets (a bot's channel is a
/// pair of pipes; an engine may make Unix sockets, which reach nothing outside its namespaces),
/// `prlimit` of other processes, and every x32 system call.
fn seccomp(program: bool) -> Result<String, String> {
    let error = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let mut denied = vec![
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
        // The new mount API.
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        // Watching folders for the names of other files.
        libc::SYS_inotify_init1,
        libc::SYS_inotify_add_watch,
        libc::SYS_fanotify_init,
        libc::SYS_fanotify_mark,
        // System V IPC and POSIX message queues (the IPC namespace makes them private too).
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmctl,
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semtimedop,
        libc::SYS_semctl,
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
    ];
    #[cfg(target_arch = "x86_64")]
    denied.push(libc::SYS_inotify_init);
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        denied.iter().map(|&call| (call, Vec::new())).collect();
    let condition = |arg, len, op, value| SeccompCondition::new(arg, len, op, value).map_err(error);
    let rule = |conditions| SeccompRule::new(conditions).map_err(error);
    let sockets = if program {
        rules.insert(
            libc::SYS_socket,
            vec![rule(vec![condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?])?],
        );
        "only Unix sockets"
    } else {
        rules.insert(libc::SYS_socket, Vec::new());
        "no sockets"
    };
    rules.insert(libc::SYS_prlimit64, vec![rule(vec![condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?])?]);
    let mut clone_rules = Vec::new();
    for flag in CLONE_NAMESPACE_FLAGS {
        let flag = flag as u32 as u64;
        clone_rules.push(rule(vec![condition(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)?])?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        std::env::consts::ARCH.try_into().map_err(error)?,
    )
    .map_err(error)?;
    let program: BpfProgram = filter.try_into().map_err(error)?;
    let speculation = install_filter(&program)?;
    install_filter(&not_implemented_filter())?;
    Ok(format!(
        "ptrace, process_vm_*, kcmp, mount, new namespaces (clone's flags, clone3), keyrings, bpf, perf, io_uring, \
         System V IPC, message queues, inotify and fanotify denied; {sockets}; prlimit only of itself; no x32 \
         calls{speculation}"
    ))
}

/// A second filter, written by hand because seccompiler matches calls by number only: `clone3`
/// (whose flags sit in memory a filter cannot read) and, on x86-64, every x32 system call (numbers
/// from 0x4000_0000: the same calls under other numbers, which the first filter would not know)
/// answer ENOSYS, as if the kernel had none.
fn not_implemented_filter() -> BpfProgram {
    use seccompiler::sock_filter;
    const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_IF_EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JUMP_IF_AT_LEAST: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let statement = |code, k| sock_filter { code, jt: 0, jf: 0, k };
    let jump = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    let mut program = vec![statement(LOAD_WORD, 0)]; // seccomp_data.nr
    if cfg!(target_arch = "x86_64") {
        // Deny when at least the x32 bit (skip to the ENOSYS return, 2 ahead), else go on.
        program.push(jump(JUMP_IF_AT_LEAST, X32_SYSCALL_BIT, 2, 0));
    }
    program.extend([
        jump(JUMP_IF_EQUAL, libc::SYS_clone3 as u32, 1, 0),
        statement(RETURN, SECCOMP_RET_ALLOW),
        statement(RETURN, SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
    ]);
    program
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

/// The system calls a runner that hosts a WebAssembly bot makes once its module is compiled:
/// the channel and stderr (`read`, `write`, `writev`), memory (`mmap`, `mprotect` without
/// `PROT_EXEC`, `munmap`, `mremap`, `madvise`, `brk`: the module's memory grows and is reset by
/// them), the signals wasmtime turns into traps (`rt_sigaction`, `rt_sigprocmask`,
/// `rt_sigreturn`, `sigaltstack`, and `tgkill` for an abort), and what the standard library
/// needs to wait, read a clock and exit. Nothing else: no files opened, no processes or threads
/// made, no executable memory made (the compiled code is mapped before the filter).
const WASM_HOST_CALLS: &[libc::c_long] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_writev,
    libc::SYS_close,
    libc::SYS_lseek,
    libc::SYS_fstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_sigaltstack,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_clock_gettime,
    libc::SYS_clock_nanosleep,
    libc::SYS_nanosleep,
    libc::SYS_restart_syscall,
    libc::SYS_getrandom,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_getppid,
    libc::SYS_tgkill,
    libc::SYS_exit,
    libc::SYS_exit_group,
];

/// Narrows a runner that hosts a WebAssembly bot, once its module is compiled, to the system
/// calls the runtime needs (`WASM_HOST_CALLS`, with `mmap` and `mprotect` only without
/// `PROT_EXEC`): an allow-list on top of [`lock_down`]'s deny-list (seccomp filters stack, the
/// stricter answer wins). Any other call fails with EPERM. Defence in depth: code that escaped
/// wasmtime's sandbox could still make none of the calls a native bot may.
pub fn confine_wasm_host() -> Result<String, String> {
    let error = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        WASM_HOST_CALLS.iter().map(|&call| (call, Vec::new())).collect();
    // PROT_EXEC clear in the protection argument (mmap's and mprotect's third).
    let no_exec = || -> Result<Vec<SeccompRule>, String> {
        let exec = libc::PROT_EXEC as u64;
        let condition =
            SeccompCondition::new(2, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(exec), 0).map_err(error)?;
        Ok(vec![SeccompRule::new(vec![condition]).map_err(error)?])
    };
    rules.insert(libc::SYS_mmap, no_exec()?);
    rules.insert(libc::SYS_mprotect, no_exec()?);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
        std::env::consts::ARCH.try_into().map_err(error)?,
    )
    .map_err(error)?;
    let program: BpfProgram = filter.try_into().map_err(error)?;
    let speculation = install_filter(&program)?;
    Ok(format!(
        "only the {} system calls a WebAssembly runtime needs, and no new executable memory{speculation}",
        WASM_HOST_CALLS.len() + 2
    ))
}
