//! The runner child on Windows: the channel moved to private, non-inheritable handles, crash
//! dialogs off, and the sandbox's entry. Every `unsafe` block of the Windows runner is here.
//!
//! The host puts each runner in a Job Object of its own before the runner runs a single
//! instruction (it starts it suspended): the job holds the memory limit, the process limit, the
//! UI restrictions, and kills everything in it when the host closes it or dies. What the runner
//! itself does is keep the channel out of the bot's reach: the inherited stdin and stdout (the
//! channel's pipe ends) are copied to handles the bot's own children cannot inherit and then
//! closed; the standard input becomes `NUL` and the standard output the error pipe, so whatever
//! the bot prints or reads never touches the channel.

use std::fs::File;
use std::os::windows::io::{FromRawHandle, RawHandle};
use std::time::Duration;

use windows_sys::Win32::Foundation::{
    CloseHandle, DUPLICATE_SAME_ACCESS, DuplicateHandle, GENERIC_READ, HANDLE, INVALID_HANDLE_VALUE,
};
use windows_sys::Win32::Storage::FileSystem::{CreateFileW, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING};
use windows_sys::Win32::System::Console::{
    GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
};
use windows_sys::Win32::System::Diagnostics::Debug::{
    EXCEPTION_EXECUTE_HANDLER, EXCEPTION_POINTERS, SEM_FAILCRITICALERRORS, SEM_NOGPFAULTERRORBOX,
    SEM_NOOPENFILEERRORBOX, SetErrorMode, SetUnhandledExceptionFilter,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Memory::{MEM_COMMIT, MEM_PRIVATE, MEMORY_BASIC_INFORMATION, VirtualQuery};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, TerminateProcess};

use othello_sandbox::{ServeArgs, job, layer};

/// The exit code of a runner that went over its memory limit where the Job Object's limit does not
/// hold (Wine): the host reads it as `out-of-memory`.
pub const MEMORY_LIMIT_EXIT_CODE: u32 = 0xE0DE_0001;
/// How often the memory guard under Wine looks at the runner's size.
const WINE_MEMORY_CHECK_INTERVAL: Duration = Duration::from_millis(10);
/// Stack of the memory guard thread (it only adds numbers).
const WINE_GUARD_STACK: usize = 64 * 1024;

/// The runner's set-up before the bot's library is loaded: a crash ends the process at once with
/// its exception code as exit code (no error dialog, no debugger), and the memory limit, which on
/// Windows is the host's Job Object (under Wine, which does not enforce it, a guard thread).
pub(crate) fn limit_resources(memory_limit_mb: u64) -> Result<(), String> {
    // SAFETY: SetErrorMode only changes this process's error mode flags; the filter is a plain
    // function that runs once, on the crashing thread.
    unsafe {
        SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
        SetUnhandledExceptionFilter(Some(exit_with_exception_code));
    }
    if memory_limit_mb > 0 && running_under_wine() {
        guard_memory_under_wine(memory_limit_mb.saturating_mul(1024 * 1024))?;
    }
    Ok(())
}

/// Ends the process with the code of an exception nobody handled (an access violation ends it
/// with 0xC0000005), before anything else can run: no dialog, no debugger, whatever the system's
/// settings, and the same under Wine as on Windows.
unsafe extern "system" fn exit_with_exception_code(info: *const EXCEPTION_POINTERS) -> i32 {
    // SAFETY: the system passes valid exception pointers to the filter; the process ends here.
    unsafe {
        let code = (*(*info).ExceptionRecord).ExceptionCode as u32;
        TerminateProcess(GetCurrentProcess(), code);
    }
    EXCEPTION_EXECUTE_HANDLER
}

/// Whether this is Wine (its ntdll exports `wine_get_version`).
fn running_under_wine() -> bool {
    let ntdll: Vec<u16> = "ntdll.dll".encode_utf16().chain([0]).collect();
    // SAFETY: ntdll is loaded in every process; both names are NUL-terminated and outlive the calls.
    unsafe {
        let module = GetModuleHandleW(ntdll.as_ptr());
        !module.is_null() && GetProcAddress(module, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// Wine accepts a Job Object's memory limit but does not enforce it (Wine 8), and its memory
/// counters do not follow what a process allocates. What it does keep exact is the state of every
/// page: a thread adds up the runner's committed private memory (`VirtualQuery`) and ends the
/// runner with [`MEMORY_LIMIT_EXIT_CODE`] once it is over the limit.
fn guard_memory_under_wine(limit_bytes: u64) -> Result<(), String> {
    std::thread::Builder::new()
        .name("memory-guard".into())
        .stack_size(WINE_GUARD_STACK)
        .spawn(move || {
            loop {
                if committed_private_bytes() > limit_bytes {
                    // SAFETY: ends this process at once; the bot may be in any state.
                    unsafe { TerminateProcess(GetCurrentProcess(), MEMORY_LIMIT_EXIT_CODE) };
                }
                std::thread::sleep(WINE_MEMORY_CHECK_INTERVAL);
            }
        })
        .map(|_| ())
        .map_err(|e| format!("starting the memory guard: {e}"))
}

/// The process's committed private memory, region by region.
fn committed_private_bytes() -> u64 {
    let mut total = 0u64;
    let mut address: usize = 0;
    let mut region = MEMORY_BASIC_INFORMATION::default();
    let size = size_of::<MEMORY_BASIC_INFORMATION>();
    // SAFETY: VirtualQuery only describes this process's address space into `region`.
    while unsafe { VirtualQuery(address as *const _, &mut region, size) } == size {
        if region.State == MEM_COMMIT && region.Type == MEM_PRIVATE {
            total += region.RegionSize as u64;
        }
        match (region.BaseAddress as usize).checked_add(region.RegionSize) {
            Some(next) if next > address => address = next,
            _ => break,
        }
    }
    total
}

/// Moves the channel off the standard handles: returns (requests, responses).
pub(crate) fn private_channel() -> Result<(File, File), String> {
    let requests = take_private(STD_INPUT_HANDLE, "stdin")?;
    let responses = take_private(STD_OUTPUT_HANDLE, "stdout")?;
    let null = open_null()?;
    // SAFETY: GetStdHandle and SetStdHandle only read and replace this process's standard handle
    // slots; both handles are open and stay owned by the process (the old stdout slot held the
    // channel's inheritable end, now closed by `take_private`).
    unsafe {
        let stderr = GetStdHandle(STD_ERROR_HANDLE);
        if SetStdHandle(STD_INPUT_HANDLE, null) == 0 || SetStdHandle(STD_OUTPUT_HANDLE, stderr) == 0 {
            return Err(format!("redirecting the standard handles: {}", std::io::Error::last_os_error()));
        }
    }
    // SAFETY: both handles were just made by `take_private` and are owned by nobody else.
    Ok(unsafe { (File::from_raw_handle(requests as RawHandle), File::from_raw_handle(responses as RawHandle)) })
}

/// A non-inheritable copy of the standard handle `which`; the inherited original is closed, so
/// neither the bot's C runtime (which copied it at start) nor its children can reach the channel.
fn take_private(which: STD_HANDLE, name: &str) -> Result<HANDLE, String> {
    let mut copy: HANDLE = std::ptr::null_mut();
    // SAFETY: the standard handle is this process's own; DuplicateHandle writes the copy to a
    // valid out-pointer. The original is closed only once the copy exists, so the copy can never
    // reuse its value.
    unsafe {
        let original = GetStdHandle(which);
        if original.is_null() || original == INVALID_HANDLE_VALUE {
            return Err(format!("the runner has no {name} (the channel)"));
        }
        let process = GetCurrentProcess();
        if DuplicateHandle(process, original, process, &mut copy, 0, 0, DUPLICATE_SAME_ACCESS) == 0 {
            return Err(format!("copying {name}: {}", std::io::Error::last_os_error()));
        }
        CloseHandle(original);
    }
    Ok(copy)
}

/// `NUL`, opened for reading with a handle that is not inheritable.
fn open_null() -> Result<HANDLE, String> {
    let name: Vec<u16> = "NUL".encode_utf16().chain([0]).collect();
    // SAFETY: `name` is a NUL-terminated UTF-16 string alive for the call; no security attributes
    // (so the handle is not inheritable) and no template file.
    let null = unsafe {
        CreateFileW(
            name.as_ptr(),
            GENERIC_READ,
            FILE_SHARE_READ | FILE_SHARE_WRITE,
            std::ptr::null(),
            OPEN_EXISTING,
            0,
            std::ptr::null_mut(),
        )
    };
    if null == INVALID_HANDLE_VALUE {
        return Err(format!("opening NUL: {}", std::io::Error::last_os_error()));
    }
    Ok(null)
}

/// Nothing to watch: the host's Job Object kills the runner when the host closes it or dies.
pub(crate) fn watch_parent() {}

/// The data size a Linux runner reads from /proc/self/statm. Windows has none (the argument is
/// never opened there): the Job Object counts the runner's memory on the host's side.
pub(crate) fn data_size(_statm: &File) -> u64 {
    0
}

/// The sandbox layers on Windows (see `othello_sandbox::job::runner_report`): `strict` refuses to run while any is missing.
/// The bot's private folder becomes its working folder and its `TEMP`.
pub(crate) fn enter_sandbox(options: &ServeArgs) -> Result<(File, File, Option<File>), String> {
    let mut layers = job::runner_report();
    layers.layers.retain(|layer| layer.name != layer::JOB_OBJECT); // the host made it, or the runner would not run
    layers.check_strict(options.sandbox.sandbox)?;
    if let Some(scratch) = &options.sandbox.scratch {
        std::env::set_current_dir(scratch).map_err(|e| format!("entering the scratch folder: {e}"))?;
        // SAFETY: set_var: the runner is still single-threaded here.
        unsafe {
            std::env::set_var("TEMP", scratch);
            std::env::set_var("TMP", scratch);
        }
    }
    limit_resources(options.sandbox.memory_limit_mb)?;
    let (requests, responses) = private_channel()?;
    Ok((requests, responses, None))
}
