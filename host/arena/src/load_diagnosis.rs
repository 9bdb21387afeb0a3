//! Why a bot library cannot load, in words a bot author can act on.
//!
//! The operating system's loader says little: `LoadLibraryExW failed: Module not found. (os error
//! 126)` for a DLL whose dependency is missing, `%1 is not a valid Win32 application` for a 32-bit
//! DLL, `invalid ELF header` for a Windows DLL given to Linux. When loading fails, the host reads
//! the library's headers and import table (read-only parsing with `object`; the library is never
//! run) and names the cause: the DLLs it needs that are not on the DLL search path, the
//! architecture or platform it was built for, a Visual Studio debug runtime.
//!
//! [`diagnose`] is pure (the bytes of the library, the host, which DLLs are present), so it is
//! tested on any platform with real MinGW-built DLLs; [`explain_load_failure`] applies it to a
//! failed load on this machine.

use std::path::{Path, PathBuf};

use object::{Architecture, BinaryFormat, FileKind, Object, ObjectKind, ReadRef};
use othello_sdk::loader::NOT_LOADABLE;

/// The platform a library is loaded on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    pub os: HostOs,
    /// The architecture of the loading process ([`Architecture::Unknown`]: not checked).
    pub arch: Architecture,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostOs {
    Windows,
    Linux,
    MacOs,
    Other,
}

impl Host {
    /// The platform this program runs on (and so its runner, the same program or one built with it).
    pub fn current() -> Host {
        let os = if cfg!(windows) {
            HostOs::Windows
        } else if cfg!(target_os = "linux") {
            HostOs::Linux
        } else if cfg!(target_os = "macos") {
            HostOs::MacOs
        } else {
            HostOs::Other
        };
        let arch = if cfg!(target_arch = "x86_64") {
            Architecture::X86_64
        } else if cfg!(target_arch = "x86") {
            Architecture::I386
        } else if cfg!(target_arch = "aarch64") {
            Architecture::Aarch64
        } else {
            Architecture::Unknown
        };
        Host { os, arch }
    }
}

/// The reason a failed load gives, with the cause named when the library's headers show one:
/// `not a loadable library: needs libgcc_s_seh-1.dll, which is not on the DLL search path (…); the
/// loader said: LoadLibraryExW failed: …`. Other load errors (a missing export, an unsupported
/// ABI version, a crash) and libraries whose headers show nothing wrong keep their reason as it is.
pub fn explain_load_failure(library: &Path, reason: String) -> String {
    let Some(loader_said) = reason.strip_prefix(NOT_LOADABLE).and_then(|rest| rest.strip_prefix(": ")) else {
        return reason;
    };
    match diagnose_file(library) {
        Some(cause) => format!("{NOT_LOADABLE}: {cause}; the loader said: {loader_said}"),
        None => reason,
    }
}

/// [`diagnose`] for a file on this machine, its imports looked up as the Windows loader would.
pub fn diagnose_file(library: &Path) -> Option<String> {
    let bytes = read_library(library)?;
    let host = Host::current();
    let folders = dll_search_folders(library.parent());
    let system = system_folders();
    diagnose(&bytes, host, &|dll| {
        // The first one found of this host's architecture, else the first one found: whether the
        // loader passes over a DLL of another architecture or stops at it, a DLL of the right one
        // further on is never called missing.
        let mut other_architecture = None;
        for folder in folders.iter().filter(|folder| folder.join(dll).is_file()) {
            // A system DLL's own imports are Windows' too; any other one's are looked up in turn.
            if system.contains(folder) {
                return Found::System;
            }
            let path = folder.join(dll);
            let Some(bytes) = read_library(&path) else { return Found::System };
            let architecture = object::File::parse(&*bytes).map(|file| file.architecture());
            if host.arch == Architecture::Unknown || architecture.is_ok_and(|arch| arch == host.arch) {
                return Found::Shipped { path, bytes };
            }
            other_architecture.get_or_insert(Found::Shipped { path, bytes });
        }
        other_architecture.unwrap_or(Found::Missing)
    })
}

/// The bytes of a library, unless it is unreadable or larger than any bot (then the loader has
/// said what it could).
fn read_library(path: &Path) -> Option<Vec<u8>> {
    const MAX_READ: u64 = 512 << 20;
    if std::fs::metadata(path).ok()?.len() > MAX_READ {
        return None;
    }
    std::fs::read(path).ok()
}

/// Windows' own folders: `System32`, `System` and the Windows folder.
fn system_folders() -> Vec<PathBuf> {
    match std::env::var_os("SystemRoot").or_else(|| std::env::var_os("windir")) {
        Some(windows) => {
            let windows = PathBuf::from(windows);
            vec![windows.join("System32"), windows.join("System"), windows]
        }
        None => Vec::new(),
    }
}

/// Where Windows looks for the DLLs a bot imports, for the runner that loads it
/// (`LOAD_WITH_ALTERED_SEARCH_PATH`, safe search mode): the bot's folder, the system folders, the
/// Windows folder, `PATH`. The program's own folder and the current folder are added too: an import
/// found there by mistake is not called missing (naming a present DLL as missing would mislead more
/// than saying nothing).
fn dll_search_folders(library_folder: Option<&Path>) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = library_folder.map(Path::to_path_buf).into_iter().collect();
    folders.extend(system_folders());
    if let Some(exe_folder) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)) {
        folders.push(exe_folder);
    }
    folders.extend(std::env::current_dir().ok());
    if let Some(path) = std::env::var_os("PATH") {
        folders.extend(std::env::split_paths(&path));
    }
    folders
}

/// Where a DLL that a library imports is found on the DLL search path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Not on the search path.
    Missing,
    /// Part of Windows (a system folder): what it imports is there too.
    System,
    /// Elsewhere (beside the bot, on `PATH`), with its contents: what it imports must be found too,
    /// and it must be built for this host.
    Shipped { path: PathBuf, bytes: Vec<u8> },
}

/// Why the library in `bytes` cannot load on `host`, or `None` when its headers show no reason
/// (then the loader's own message stands). `find` looks a DLL name up on the DLL search path
/// (case-insensitively, as Windows does); API sets (`api-ms-win-*`, `ext-ms-*`) are part of
/// Windows and never looked up.
pub fn diagnose(bytes: &[u8], host: Host, find: &dyn Fn(&str) -> Found) -> Option<String> {
    let kind = FileKind::parse(bytes).ok()?;
    let format = match kind {
        FileKind::Pe32 | FileKind::Pe64 => BinaryFormat::Pe,
        FileKind::Elf32 | FileKind::Elf64 => BinaryFormat::Elf,
        FileKind::MachO32 | FileKind::MachO64 | FileKind::MachOFat32 | FileKind::MachOFat64 => BinaryFormat::MachO,
        _ => return None,
    };
    if let Some(wrong_platform) = wrong_platform(bytes, format, host) {
        return Some(wrong_platform);
    }
    let file = object::File::parse(bytes).ok()?;
    if format == BinaryFormat::Pe && file.kind() != ObjectKind::Dynamic {
        return Some("is a Windows program (.exe), not a DLL: build it with -shared (MinGW) or /LD (MSVC)".to_owned());
    }
    if host.arch != Architecture::Unknown && file.architecture() != host.arch {
        return Some(wrong_architecture(format, file.architecture(), host.arch));
    }
    if format == BinaryFormat::Pe {
        return missing_imports(&file, host, find);
    }
    None
}

/// A library of another platform's format: what it is and what this one needs.
fn wrong_platform(bytes: &[u8], format: BinaryFormat, host: Host) -> Option<String> {
    // The architecture is named when the headers parse (a fat Mach-O has several: not named).
    let arch = object::File::parse(bytes).ok().map(|file| arch_name(file.architecture()));
    let what = |platform_format: &str| match arch {
        Some(arch) => format!("{platform_format}, {arch}"),
        None => platform_format.to_owned(),
    };
    let is_what = match (format, host.os) {
        (BinaryFormat::Pe, HostOs::Windows)
        | (BinaryFormat::Elf, HostOs::Linux | HostOs::Other)
        | (BinaryFormat::MachO, HostOs::MacOs) => return None,
        (BinaryFormat::Pe, _) => format!("is a Windows DLL ({})", what("PE")),
        (BinaryFormat::Elf, _) => format!("is a Linux shared library ({})", what("ELF")),
        (BinaryFormat::MachO, _) => format!("is a macOS library ({})", what("Mach-O")),
        _ => return None,
    };
    let needs = match host.os {
        HostOs::Windows => {
            "Windows loads DLLs (PE): build the bot for Windows (x86_64-w64-mingw32-gcc -shared, or MSVC)"
        }
        HostOs::Linux => "Linux loads ELF shared libraries (.so): build the bot on Linux (gcc -shared -fPIC)",
        HostOs::MacOs => "macOS loads Mach-O libraries (.dylib): build the bot on macOS (cc -dynamiclib)",
        HostOs::Other => "this system loads its own libraries: build the bot on it",
    };
    Some(format!("{is_what}; {needs}"))
}

fn wrong_architecture(format: BinaryFormat, library: Architecture, host: Architecture) -> String {
    let kind = if format == BinaryFormat::Pe { "DLL" } else { "library" };
    let host_bits = match host {
        Architecture::X86_64 | Architecture::Aarch64 => "64-bit",
        Architecture::I386 | Architecture::Arm => "32-bit",
        _ => "",
    };
    let lib_bits = match library {
        Architecture::X86_64 | Architecture::Aarch64 => "64-bit",
        Architecture::I386 | Architecture::Arm => "32-bit",
        _ => "",
    };
    // "this host is 64-bit" says all when the bits differ; otherwise name the instruction set.
    let host_text =
        if lib_bits != host_bits && !host_bits.is_empty() { host_bits.to_owned() } else { arch_name(host).to_owned() };
    let rebuild = match (format, host) {
        (BinaryFormat::Pe, Architecture::X86_64) => {
            "rebuild with x86_64-w64-mingw32-gcc / the x64 MSVC tools".to_owned()
        }
        (BinaryFormat::Pe, Architecture::I386) => "rebuild with i686-w64-mingw32-gcc / the x86 MSVC tools".to_owned(),
        (BinaryFormat::Pe, Architecture::Aarch64) => {
            "rebuild with the ARM64 MSVC tools (or clang for aarch64-windows)".to_owned()
        }
        _ => format!("rebuild it for {}", arch_name(host)),
    };
    format!("is {} {kind}; this host is {host_text}: {rebuild}", with_article(arch_name(library)))
}

fn arch_name(arch: Architecture) -> &'static str {
    match arch {
        Architecture::I386 => "32-bit (x86)",
        Architecture::X86_64 => "x86-64",
        Architecture::Aarch64 => "ARM64",
        Architecture::Arm => "32-bit ARM",
        _ => "other-architecture",
    }
}

/// The DLLs the library needs (load-time imports, and theirs in turn: delay-loaded ones do not stop
/// it loading) that are missing, or found but built for another architecture; a Visual Studio
/// debug runtime is named as such.
fn missing_imports<'data, R: ReadRef<'data>>(
    file: &object::File<'data, R>,
    host: Host,
    find: &dyn Fn(&str) -> Found,
) -> Option<String> {
    // Each DLL is looked up once, breadth first: (name, the shipped DLL that needs it).
    let mut seen: Vec<String> = Vec::new();
    let mut to_find: Vec<(String, Option<String>)> = load_time_imports(file)?.into_iter().map(|n| (n, None)).collect();
    let mut missing: Vec<(String, Option<String>)> = Vec::new();
    let mut wrong_architecture: Vec<String> = Vec::new();
    while !to_find.is_empty() {
        let mut next = Vec::new();
        for (name, needed_by) in to_find {
            if seen.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
                continue;
            }
            seen.push(name.clone());
            match find(&name) {
                Found::Missing => missing.push((name, needed_by)),
                Found::System => {}
                Found::Shipped { path, bytes } => {
                    let Ok(shipped) = object::File::parse(&*bytes) else { continue };
                    if host.arch != Architecture::Unknown && shipped.architecture() != host.arch {
                        wrong_architecture.push(format!(
                            "the {name} it finds ({}) is {} DLL, and this host is {}: put the {} one beside the bot",
                            path.display(),
                            with_article(arch_name(shipped.architecture())),
                            arch_name(host.arch),
                            arch_name(host.arch),
                        ));
                        continue;
                    }
                    let imports = load_time_imports(&shipped).unwrap_or_default();
                    next.extend(imports.into_iter().map(|import| (import, Some(name.clone()))));
                }
            }
        }
        to_find = next;
    }
    let described = |(name, needed_by): &(String, Option<String>)| match needed_by {
        Some(by) => format!("{name} (for {by})"),
        None => name.clone(),
    };
    let (debug_runtimes, others): (Vec<_>, Vec<_>) = missing.iter().partition(|(name, _)| is_debug_runtime(name));
    let mut causes = Vec::new();
    if !debug_runtimes.is_empty() {
        causes.push(format!(
            "was built in Debug: it needs {}, Visual Studio's debug runtime, which only machines with \
             Visual Studio have; rebuild in Release",
            join_names(&debug_runtimes.iter().map(|m| described(m)).collect::<Vec<_>>())
        ));
    }
    if !others.is_empty() {
        let (which, them) = if others.len() == 1 { ("which is", "it") } else { ("which are", "them") };
        let remedy = if others.iter().all(|(name, _)| name.to_ascii_lowercase().starts_with("libgcc_s_")) {
            format!("rebuild with -static-libgcc or put {them} beside the bot")
        } else if others.iter().all(|(name, _)| is_mingw_runtime(name)) {
            format!("rebuild with -static or put {them} beside the bot")
        } else {
            format!("put {them} beside the bot, or link {them} statically")
        };
        let names = join_names(&others.iter().map(|m| described(m)).collect::<Vec<_>>());
        causes.push(format!("needs {names}, {which} not on the DLL search path ({remedy})"));
    }
    causes.extend(wrong_architecture);
    (!causes.is_empty()).then(|| causes.join("; "))
}

/// The DLLs a PE file imports at load time, API sets left out (part of Windows).
fn load_time_imports<'data, R: ReadRef<'data>>(file: &object::File<'data, R>) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for import in file.import_libraries().ok()?.flatten() {
        if matches!(import.flags(), object::ImportLibraryFlags::Pe { delay: true }) {
            continue;
        }
        let name = String::from_utf8_lossy(import.name()).into_owned();
        let lower = name.to_ascii_lowercase();
        if !lower.starts_with("api-ms-win-") && !lower.starts_with("ext-ms-") {
            names.push(name);
        }
    }
    Some(names)
}

fn with_article(arch: &str) -> String {
    let article = if arch.starts_with(['x', 'A']) { "an" } else { "a" };
    format!("{article} {arch}")
}

/// Visual Studio's debug runtime (`MSVCR120D.dll`, `MSVCP140D.dll`, `VCRUNTIME140D.dll`,
/// `VCRUNTIME140_1D.dll`, `ucrtbased.dll`): only installed with Visual Studio itself.
fn is_debug_runtime(dll: &str) -> bool {
    let lower = dll.to_ascii_lowercase();
    let Some(stem) = lower.strip_suffix(".dll") else { return false };
    if stem == "ucrtbased" {
        return true;
    }
    ["msvcr", "msvcp", "vcruntime"].iter().any(|prefix| {
        stem.strip_prefix(prefix)
            .and_then(|version| version.strip_suffix('d'))
            .is_some_and(|version| !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit() || b == b'_'))
    })
}

/// GCC's runtime libraries that MinGW links dynamically unless told `-static`.
fn is_mingw_runtime(dll: &str) -> bool {
    let lower = dll.to_ascii_lowercase();
    ["libgcc_s_", "libstdc++-", "libwinpthread-", "libgomp-", "libatomic-", "libquadmath-", "libssp-"]
        .iter()
        .any(|prefix| lower.starts_with(prefix))
}

fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real DLLs built by MinGW-w64 (see tests/data/dlls/README.md for how).
    const X64_NEEDS_LIBGCC: &[u8] = include_bytes!("../tests/data/dlls/popcount-x64.dll");
    const X86_NEEDS_LIBGCC: &[u8] = include_bytes!("../tests/data/dlls/popcount-x86.dll");
    const X64_SELF_CONTAINED: &[u8] = include_bytes!("../tests/data/dlls/popcount-x64-static-libgcc.dll");
    const X64_DEBUG_RUNTIME: &[u8] = include_bytes!("../tests/data/dlls/debug-runtime-x64.dll");
    const X64_PROGRAM: &[u8] = include_bytes!("../tests/data/dlls/program-x64.exe");
    const LINUX_LIBRARY: &[u8] = include_bytes!("../tests/data/dlls/libfirst-legal-x86_64.so");

    const WINDOWS_X64: Host = Host { os: HostOs::Windows, arch: Architecture::X86_64 };
    const LINUX_X64: Host = Host { os: HostOs::Linux, arch: Architecture::X86_64 };

    /// A Windows system whose DLL search path holds `present` (case-insensitive, as on Windows).
    fn with(present: &'static [&'static str]) -> impl Fn(&str) -> Found {
        move |dll| if present.iter().any(|p| p.eq_ignore_ascii_case(dll)) { Found::System } else { Found::Missing }
    }
    const SYSTEM: &[&str] = &["KERNEL32.dll", "msvcrt.dll", "api-ms-win-crt-runtime-l1-1-0.dll"];

    #[test]
    fn a_missing_libgcc_is_named_with_the_fix() {
        assert_eq!(
            diagnose(X64_NEEDS_LIBGCC, WINDOWS_X64, &with(SYSTEM)).as_deref(),
            Some(
                "needs libgcc_s_seh-1.dll, which is not on the DLL search path \
                 (rebuild with -static-libgcc or put it beside the bot)"
            )
        );
        // Found (beside the bot, or on PATH): the headers show nothing wrong.
        assert_eq!(diagnose(X64_NEEDS_LIBGCC, WINDOWS_X64, &with(&["LIBGCC_S_SEH-1.DLL"])), None);
        // Linked with -static-libgcc: nothing to find.
        assert_eq!(diagnose(X64_SELF_CONTAINED, WINDOWS_X64, &with(SYSTEM)), None);
    }

    #[test]
    fn every_missing_dll_is_named_with_its_fix() {
        let nothing = |_: &str| Found::Missing;
        assert_eq!(
            diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &nothing).as_deref(),
            Some(
                "was built in Debug: it needs VCRUNTIME140D.dll and ucrtbased.dll, Visual Studio's debug runtime, \
                 which only machines with Visual Studio have; rebuild in Release; needs KERNEL32.dll, which is not \
                 on the DLL search path (put it beside the bot, or link it statically)"
            )
        );
        let names = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(join_names(&names(&["a.dll", "b.dll", "c.dll"])), "a.dll, b.dll and c.dll");
        assert!(is_mingw_runtime("libstdc++-6.dll") && is_mingw_runtime("LIBWINPTHREAD-1.DLL"));
        assert!(!is_mingw_runtime("libcrypto-3-x64.dll"));
    }

    #[test]
    fn a_32_bit_dll_on_a_64_bit_host_says_so() {
        let expected =
            "is a 32-bit (x86) DLL; this host is 64-bit: rebuild with x86_64-w64-mingw32-gcc / the x64 MSVC tools";
        assert_eq!(diagnose(X86_NEEDS_LIBGCC, WINDOWS_X64, &with(SYSTEM)).as_deref(), Some(expected));
        // On a 32-bit host the same DLL's own problem shows: the 32-bit libgcc.
        let windows_x86 = Host { os: HostOs::Windows, arch: Architecture::I386 };
        let found = diagnose(X86_NEEDS_LIBGCC, windows_x86, &with(SYSTEM)).unwrap();
        assert!(found.starts_with("needs libgcc_s_dw2-1.dll, which is not"), "{found}");
    }

    #[test]
    fn an_arm64_dll_on_an_x64_host_says_so() {
        // The x64 DLL with its COFF header's machine set to ARM64 (0xAA64), as an ARM64 build has.
        let mut arm64 = X64_SELF_CONTAINED.to_vec();
        let pe_header = u32::from_le_bytes(arm64[0x3c..0x40].try_into().unwrap()) as usize;
        arm64[pe_header + 4..pe_header + 6].copy_from_slice(&0xAA64u16.to_le_bytes());
        assert_eq!(
            diagnose(&arm64, WINDOWS_X64, &with(SYSTEM)).as_deref(),
            Some("is an ARM64 DLL; this host is x86-64: rebuild with x86_64-w64-mingw32-gcc / the x64 MSVC tools")
        );
    }

    #[test]
    fn a_debug_runtime_says_rebuild_in_release() {
        let found = diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &with(SYSTEM)).unwrap();
        assert_eq!(
            found,
            "was built in Debug: it needs VCRUNTIME140D.dll and ucrtbased.dll, Visual Studio's debug runtime, \
             which only machines with Visual Studio have; rebuild in Release"
        );
        // A machine with Visual Studio has them: no complaint.
        assert_eq!(
            diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &with(&["kernel32.dll", "vcruntime140d.dll", "ucrtbased.dll"])),
            None
        );
        for debug in ["MSVCR120D.dll", "msvcp140d.dll", "VCRUNTIME140_1D.dll", "ucrtbased.dll", "MSVCR90D.DLL"] {
            assert!(is_debug_runtime(debug), "{debug}");
        }
        for release in ["MSVCR120.dll", "msvcrt.dll", "VCRUNTIME140.dll", "ucrtbase.dll", "msvcrd.dll", "d3d9.dll"] {
            assert!(!is_debug_runtime(release), "{release}");
        }
    }

    #[test]
    fn api_sets_are_never_looked_up() {
        // The debug-runtime DLL imports api-ms-win-crt-runtime-l1-1-0.dll: always present.
        let present = |dll: &str| {
            assert!(!dll.to_ascii_lowercase().starts_with("api-ms-"), "{dll} looked up");
            with(&["kernel32.dll", "vcruntime140d.dll", "ucrtbased.dll"])(dll)
        };
        assert_eq!(diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &present), None);
    }

    #[test]
    fn what_a_shipped_dll_needs_is_found_too() {
        // The debug-runtime bot finds its VCRUNTIME140D.dll beside it, and that one (here the bytes of
        // the popcount DLL) needs libgcc_s_seh-1.dll, which is nowhere.
        let shipped =
            |bytes: &[u8]| Found::Shipped { path: PathBuf::from(r"C:\bots\VCRUNTIME140D.dll"), bytes: bytes.to_vec() };
        let find = |dll: &str| match dll.to_ascii_lowercase().as_str() {
            "vcruntime140d.dll" => shipped(X64_NEEDS_LIBGCC),
            "kernel32.dll" | "ucrtbased.dll" => Found::System,
            _ => Found::Missing,
        };
        assert_eq!(
            diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &find).as_deref(),
            Some(
                "needs libgcc_s_seh-1.dll (for VCRUNTIME140D.dll), which is not on the DLL search path \
                 (rebuild with -static-libgcc or put it beside the bot)"
            )
        );
        // A shipped DLL of another architecture: named, with where it was found.
        let find = |dll: &str| match dll.to_ascii_lowercase().as_str() {
            "vcruntime140d.dll" => shipped(X86_NEEDS_LIBGCC),
            "kernel32.dll" | "ucrtbased.dll" => Found::System,
            _ => Found::Missing,
        };
        assert_eq!(
            diagnose(X64_DEBUG_RUNTIME, WINDOWS_X64, &find).as_deref(),
            Some(
                "the VCRUNTIME140D.dll it finds (C:\\bots\\VCRUNTIME140D.dll) is a 32-bit (x86) DLL, and this \
                 host is x86-64: put the x86-64 one beside the bot"
            )
        );
    }

    #[test]
    fn a_program_is_not_a_dll() {
        assert_eq!(
            diagnose(X64_PROGRAM, WINDOWS_X64, &with(SYSTEM)).as_deref(),
            Some("is a Windows program (.exe), not a DLL: build it with -shared (MinGW) or /LD (MSVC)")
        );
    }

    #[test]
    fn a_library_of_another_platform_says_what_it_is() {
        assert_eq!(
            diagnose(X64_NEEDS_LIBGCC, LINUX_X64, &with(SYSTEM)).as_deref(),
            Some(
                "is a Windows DLL (PE, x86-64); Linux loads ELF shared libraries (.so): \
                 build the bot on Linux (gcc -shared -fPIC)"
            )
        );
        assert_eq!(
            diagnose(LINUX_LIBRARY, WINDOWS_X64, &with(SYSTEM)).as_deref(),
            Some(
                "is a Linux shared library (ELF, x86-64); Windows loads DLLs (PE): \
                 build the bot for Windows (x86_64-w64-mingw32-gcc -shared, or MSVC)"
            )
        );
        // The right platform, nothing wrong in the headers: the loader's message stands.
        assert_eq!(diagnose(LINUX_LIBRARY, LINUX_X64, &with(SYSTEM)), None);
        let linux_arm64 = Host { os: HostOs::Linux, arch: Architecture::Aarch64 };
        assert_eq!(
            diagnose(LINUX_LIBRARY, linux_arm64, &with(SYSTEM)).as_deref(),
            Some("is an x86-64 library; this host is ARM64: rebuild it for ARM64")
        );
    }

    #[test]
    fn text_and_garbage_are_left_to_the_loader() {
        assert_eq!(diagnose(b"these are my notes, not a bot\n", WINDOWS_X64, &with(SYSTEM)), None);
        assert_eq!(diagnose(b"MZ", WINDOWS_X64, &with(SYSTEM)), None);
        assert_eq!(diagnose(&X64_NEEDS_LIBGCC[..600], WINDOWS_X64, &with(SYSTEM)), None);
        assert_eq!(diagnose(&[], LINUX_X64, &with(SYSTEM)), None);
    }

    #[test]
    fn only_unloadable_libraries_get_a_diagnosis() {
        let dir = tempfile::tempdir().unwrap();
        let dll = dir.path().join("popcount.dll");
        std::fs::write(&dll, X64_NEEDS_LIBGCC).unwrap();
        let other = "missing symbol `think`".to_owned();
        assert_eq!(explain_load_failure(&dll, other.clone()), other);
        let reason = format!("{NOT_LOADABLE}: the loader's words");
        let explained = explain_load_failure(&dll, reason.clone());
        if cfg!(windows) {
            assert!(explained.contains("needs libgcc_s_seh-1.dll"), "{explained}");
        } else {
            assert!(explained.starts_with(&format!("{NOT_LOADABLE}: is a Windows DLL (PE, x86-64);")), "{explained}");
        }
        assert!(explained.ends_with("; the loader said: the loader's words"), "{explained}");
        // Unreadable: the reason stands.
        assert_eq!(explain_load_failure(&dir.path().join("gone.dll"), reason.clone()), reason);
    }
}
