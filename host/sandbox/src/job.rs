//! The Windows layers. The host puts each runner in a Job Object of its own: the memory limit,
//! the number of processes, UI restrictions, and every process in it killed when the job is
//! closed (its owner dropped it, or the host died: the system closes the host's handles).
//! Memory-limit hits are posted to a completion port. [`runner_report`] lists what stands on
//! Windows for each layer of the Linux sandbox.

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};

use crate::{Report, layer};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, STILL_ACTIVE};
use windows_sys::Win32::System::IO::{CreateIoCompletionPort, GetQueuedCompletionStatus, OVERLAPPED};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
    JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION, JOB_OBJECT_LIMIT_JOB_MEMORY, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOB_OBJECT_LIMIT_PROCESS_MEMORY, JOB_OBJECT_UILIMIT_DESKTOP, JOB_OBJECT_UILIMIT_DISPLAYSETTINGS,
    JOB_OBJECT_UILIMIT_EXITWINDOWS, JOB_OBJECT_UILIMIT_GLOBALATOMS, JOB_OBJECT_UILIMIT_HANDLES,
    JOB_OBJECT_UILIMIT_READCLIPBOARD, JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS, JOB_OBJECT_UILIMIT_WRITECLIPBOARD,
    JOBOBJECT_ASSOCIATE_COMPLETION_PORT, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_BASIC_UI_RESTRICTIONS,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOBOBJECTINFOCLASS, JobObjectAssociateCompletionPortInformation,
    JobObjectBasicAccountingInformation, JobObjectBasicUIRestrictions, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};

/// Processes one runner may have at once: the runner and a few the bot starts (a bot needs none;
/// the limit stops fork bombs).
pub const MAX_ACTIVE_PROCESSES: u32 = 16;
/// Job notifications (winnt.h): a process, or the whole job, was refused memory by the limit.
const JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT: u32 = 9;
const JOB_OBJECT_MSG_JOB_MEMORY_LIMIT: u32 = 10;
/// The exit code of the processes of a job the host ended (time out, stop, drop).
pub const KILLED_EXIT_CODE: u32 = 0xDEAD_0001;

/// One runner's job (closed, and so emptied, when dropped).
pub struct Job {
    handle: OwnedHandle,
    /// Receives the job's notifications (a memory limit hit).
    port: OwnedHandle,
    memory_limit_hit: bool,
}

impl Job {
    /// A job with the limits (`memory_limit_mb` 0: no memory limit).
    pub fn create(memory_limit_mb: u64) -> std::io::Result<Job> {
        // SAFETY: no security attributes and no name: a new anonymous job, not inheritable.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        let handle = owned(handle)?;
        // SAFETY: creates a new completion port (no file handle, no existing port).
        let port = owned(unsafe { CreateIoCompletionPort(invalid_handle(), std::ptr::null_mut(), 0, 1) })?;
        let job = Job { handle, port, memory_limit_hit: false };

        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        let basic = &mut limits.BasicLimitInformation;
        basic.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
            | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
            | JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
        basic.ActiveProcessLimit = MAX_ACTIVE_PROCESSES;
        if memory_limit_mb > 0 {
            let bytes = usize::try_from(memory_limit_mb.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX);
            basic.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY | JOB_OBJECT_LIMIT_JOB_MEMORY;
            limits.ProcessMemoryLimit = bytes;
            limits.JobMemoryLimit = bytes;
        }
        job.set(JobObjectExtendedLimitInformation, &limits)?;
        let ui = JOBOBJECT_BASIC_UI_RESTRICTIONS {
            UIRestrictionsClass: JOB_OBJECT_UILIMIT_DESKTOP
                | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS
                | JOB_OBJECT_UILIMIT_EXITWINDOWS
                | JOB_OBJECT_UILIMIT_GLOBALATOMS
                | JOB_OBJECT_UILIMIT_HANDLES
                | JOB_OBJECT_UILIMIT_READCLIPBOARD
                | JOB_OBJECT_UILIMIT_WRITECLIPBOARD
                | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS,
        };
        job.set(JobObjectBasicUIRestrictions, &ui)?;
        let port = JOBOBJECT_ASSOCIATE_COMPLETION_PORT {
            CompletionKey: std::ptr::null_mut(),
            CompletionPort: job.port.as_raw_handle() as HANDLE,
        };
        job.set(JobObjectAssociateCompletionPortInformation, &port)?;
        Ok(job)
    }

    fn set<T>(&self, class: JOBOBJECTINFOCLASS, value: &T) -> std::io::Result<()> {
        // SAFETY: `value` is the structure `class` names, alive and of its size for the call.
        let ok =
            unsafe { SetInformationJobObject(self.raw(), class, (value as *const T).cast(), size_of::<T>() as u32) };
        if ok == 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
    }

    /// Puts a (suspended) process in the job: it and everything it starts are under the limits.
    pub fn assign(&self, process: &std::process::Child) -> std::io::Result<()> {
        // SAFETY: both handles are open for the call (the child's while it is borrowed).
        if unsafe { AssignProcessToJobObject(self.raw(), process.as_raw_handle() as HANDLE) } == 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Ends every process in the job with [`KILLED_EXIT_CODE`].
    pub fn terminate(&self) {
        // SAFETY: the job handle is open; terminating an empty job does nothing.
        unsafe { TerminateJobObject(self.raw(), KILLED_EXIT_CODE) };
    }

    /// The CPU time (user and kernel) of every process the job has held, those that ended
    /// included; `None` if the job cannot be asked.
    pub fn cpu_time(&self) -> Option<std::time::Duration> {
        let mut accounting = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: the buffer is the structure the class names, of its size; no length wanted back.
        let ok = unsafe {
            QueryInformationJobObject(
                self.raw(),
                JobObjectBasicAccountingInformation,
                (&mut accounting as *mut JOBOBJECT_BASIC_ACCOUNTING_INFORMATION).cast(),
                size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        // In units of 100 ns.
        let ticks = accounting.TotalUserTime.max(0) as u64 + accounting.TotalKernelTime.max(0) as u64;
        (ok != 0).then(|| std::time::Duration::from_nanos(ticks.saturating_mul(100)))
    }

    /// The most memory (committed, private) a process of the job used, in bytes.
    pub fn peak_process_memory(&self) -> u64 {
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        // SAFETY: the buffer is the structure the class names, of its size; no length wanted back.
        let ok = unsafe {
            QueryInformationJobObject(
                self.raw(),
                JobObjectExtendedLimitInformation,
                (&mut limits as *mut JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 { 0 } else { limits.PeakProcessMemoryUsed.max(limits.PeakJobMemoryUsed) as u64 }
    }

    /// Whether a process of the job was refused memory by the limit (reads the notifications
    /// posted so far; once seen, stays true).
    pub fn hit_memory_limit(&mut self) -> bool {
        loop {
            let (mut message, mut key, mut overlapped) = (0u32, 0usize, std::ptr::null_mut::<OVERLAPPED>());
            // SAFETY: valid out-pointers; a zero timeout never blocks.
            let got = unsafe {
                GetQueuedCompletionStatus(
                    self.port.as_raw_handle() as HANDLE,
                    &mut message,
                    &mut key,
                    &mut overlapped,
                    0,
                )
            };
            if got == 0 {
                return self.memory_limit_hit;
            }
            if message == JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT || message == JOB_OBJECT_MSG_JOB_MEMORY_LIMIT {
                self.memory_limit_hit = true;
            }
        }
    }

    fn raw(&self) -> HANDLE {
        self.handle.as_raw_handle() as HANDLE
    }
}

fn invalid_handle() -> HANDLE {
    windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE
}

/// Takes ownership of a handle a creating call returned (null on failure).
fn owned(handle: HANDLE) -> std::io::Result<OwnedHandle> {
    if handle.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh handle, owned by nobody else.
    Ok(unsafe { OwnedHandle::from_raw_handle(handle as _) })
}

/// Whether this machine can make runners' Job Objects with every limit (for the sandbox report).
pub fn availability(memory_limit_mb: u64) -> Result<String, String> {
    Job::create(memory_limit_mb).map_err(|e| format!("cannot create a Job Object: {e}")).map(|_| {
        format!(
            "one per runner: memory limit, at most {MAX_ACTIVE_PROCESSES} processes, no desktop, clipboard or \
             system settings, everything killed with the runner or the host"
        )
    })
}

/// A job for an NBoard engine the host started: a runner's job without the memory limit, so
/// whatever the engine starts ends with it (the engine runs a moment before it is assigned: what
/// it starts in that moment is outside).
pub fn engine_job(engine: &std::process::Child) -> std::io::Result<Job> {
    let job = Job::create(0)?;
    job.assign(engine)?;
    Ok(job)
}

/// Whether the process `pid` is still running (for sweeping what killed hosts left behind).
pub fn process_exists(pid: u32) -> bool {
    // SAFETY: OpenProcess returns a handle we close, or null; the out-pointer is valid.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return false;
        }
        let mut code = 0u32;
        let running = GetExitCodeProcess(process, &mut code) != 0 && code == STILL_ACTIVE as u32;
        CloseHandle(process);
        running
    }
}

/// Every layer of the Linux sandbox and what stands for it on Windows: the host's Job Object
/// (`job-object`: reported by the host, which makes it; the runner alone cannot tell), what the
/// runner does itself, and what Windows lacks here, each reported missing with the reason.
pub fn runner_report() -> Report {
    let mut report = Report::default();
    let mut active = |name: &str, what: &str| report.record::<String>(name, Ok(what.to_owned()));
    active(layer::PRIVATE_HANDLES, "the channel is held in handles the bot's child processes cannot inherit");
    active(layer::NO_ERROR_DIALOGS, "a crash ends the runner at once with its exception code, no dialog");
    active(layer::PARENT_DEATH_SIGNAL, "the host's Job Object kills the runner when the host ends");
    active(layer::RESOURCE_LIMITS, "memory and process limits of the host's Job Object");
    active(layer::CLOSED_DESCRIPTORS, "the runner inherits its three standard handles and nothing else");
    let missing: [(&str, &str); 12] = [
        (layer::UNPRIVILEGED_USER, "the bot runs with the user's own rights (no restricted token)"),
        (layer::USER_NAMESPACE, "no AppContainer: the bot is not separated from the user's other programs"),
        (layer::NETWORK_NAMESPACE, "the bot may use the network"),
        (layer::MOUNT_NAMESPACE, "the bot sees the user's drives"),
        (layer::PID_NAMESPACE, "the bot may see and open the user's other processes"),
        (layer::PRIVATE_PROC, "the bot may query the user's other processes"),
        (layer::NO_CAPABILITIES, "the bot keeps the privileges of the user's token"),
        (layer::NO_NEW_PRIVS, "no equivalent: nothing stops the bot starting programs with other rights"),
        (layer::LANDLOCK, "no file-system confinement: the bot may read and write what the user can"),
        (layer::SECCOMP, "no system-call filter"),
        (layer::FREEZER, "a seat not on move is not suspended"),
        (layer::BOUNDED_SCRATCH, "the scratch folder is a plain folder of the disk, without bound"),
    ];
    for (name, why) in missing {
        report.record::<String>(name, Err(format!("not on Windows: {why}")));
    }
    report.record::<String>(
        layer::JOB_OBJECT,
        Err("made by the host for each runner (the runner alone cannot tell)".to_owned()),
    );
    report
}
