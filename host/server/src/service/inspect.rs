//! A first look at an uploaded file, before any runner loads it: is it a shared library for the
//! operating system and processor this server runs bots on? Read-only parsing with `object`.

use object::{Architecture, BinaryFormat, Object, ObjectKind};

/// The platform this server accepts bots for, in words ("Linux x86-64 shared library (.so)").
pub fn accepted_platform() -> String {
    format!("{} {} shared library ({})", os_name(), arch_name(host_architecture()), library_extension())
}

fn os_name() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        "windows" => "Windows",
        "macos" => "macOS",
        other => other,
    }
}

fn library_extension() -> &'static str {
    if cfg!(windows) {
        ".dll"
    } else if cfg!(target_os = "macos") {
        ".dylib"
    } else {
        ".so"
    }
}

fn host_format() -> BinaryFormat {
    if cfg!(windows) {
        BinaryFormat::Pe
    } else if cfg!(target_os = "macos") {
        BinaryFormat::MachO
    } else {
        BinaryFormat::Elf
    }
}

fn host_architecture() -> Architecture {
    match std::env::consts::ARCH {
        "x86_64" => Architecture::X86_64,
        "aarch64" => Architecture::Aarch64,
        "x86" => Architecture::I386,
        "riscv64" => Architecture::Riscv64,
        "arm" => Architecture::Arm,
        _ => Architecture::Unknown,
    }
}

fn arch_name(architecture: Architecture) -> String {
    match architecture {
        Architecture::X86_64 => "x86-64".to_owned(),
        Architecture::Aarch64 => "ARM64".to_owned(),
        Architecture::I386 => "32-bit x86".to_owned(),
        Architecture::Arm => "32-bit ARM".to_owned(),
        Architecture::Riscv64 => "RISC-V 64".to_owned(),
        other => format!("{other:?}"),
    }
}

fn format_name(format: BinaryFormat) -> &'static str {
    match format {
        BinaryFormat::Elf => "a Linux/Unix ELF file",
        BinaryFormat::Pe => "a Windows PE file (.exe/.dll)",
        BinaryFormat::MachO => "a macOS Mach-O file",
        BinaryFormat::Coff => "a COFF object file",
        BinaryFormat::Wasm => "a WebAssembly module",
        BinaryFormat::Xcoff => "an AIX XCOFF file",
        _ => "an object file of another kind",
    }
}

/// The command that builds `greedy.c` into a library this server runs (the starter kit's line for
/// the server's platform).
pub fn build_line() -> &'static str {
    if cfg!(windows) {
        BUILD_LINES[1].1
    } else if cfg!(target_os = "macos") {
        "cc -O2 -dynamiclib -I . greedy.c -o libgreedy.dylib"
    } else {
        BUILD_LINES[0].1
    }
}

/// The starter kit's build lines, by compiler (the header beside `greedy.c`).
pub const BUILD_LINES: [(&str, &str); 3] = [
    ("Linux, gcc or clang", "gcc -O2 -shared -fPIC -I . greedy.c -o libgreedy.so"),
    ("Windows, MinGW-w64", "x86_64-w64-mingw32-gcc -O2 -shared -static -I . greedy.c -o greedy.dll"),
    ("Windows, MSVC (Developer Command Prompt)", "cl /O2 /LD /I . greedy.c /Fe:greedy.dll"),
];

/// Source files a student may upload by mistake, by extension.
const SOURCE_EXTENSIONS: [&str; 12] = ["c", "h", "cc", "cpp", "cxx", "hpp", "rs", "py", "java", "cs", "go", "txt"];

/// The first bytes of every WebAssembly module.
const WASM_MAGIC: &[u8] = b"\0asm";

/// Whether `bytes` are a WebAssembly module (by its magic number, whatever the file's name).
pub fn is_wasm(bytes: &[u8]) -> bool {
    bytes.starts_with(WASM_MAGIC)
}

/// `Ok(())` when `bytes` are a WebAssembly bot this server can run (compiled and checked: only
/// the deterministic imports, the ABI's exports); otherwise why not.
pub fn check_wasm(bytes: &[u8]) -> Result<(), String> {
    othello_wasm::WasmModule::load(bytes).map(drop).map_err(|why| format!("not a WebAssembly bot: {why}"))
}

/// What a contest that takes WebAssembly bots only (`othello serve --require-wasm`) says to
/// any other file.
pub fn wasm_required() -> String {
    format!(
        "this contest takes WebAssembly bots only (a .wasm module, whose games are the same on every machine): \
         build it from the same C source with `clang {} -I . bot.c -o bot.wasm` (Debian: clang-14 lld-14 \
         wasi-libc) and upload bot.wasm",
        othello_wasm::C_BUILD_FLAGS.join(" ")
    )
}

/// The name an upload is stored under: [`safe_file_name`], with `.wasm` for a module (so that it
/// is run as one whatever name it came with).
pub fn stored_file_name(raw: &str, bytes: &[u8]) -> String {
    let name = safe_file_name(raw);
    if is_wasm(bytes) && !name.to_ascii_lowercase().ends_with(".wasm") {
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(stem, _)| stem);
        format!("{stem}.wasm")
    } else {
        name
    }
}

/// [`check_library`] with the file's name: a source file (`greedy.c`) is told to compile first,
/// with the build line, instead of "not a shared library". A WebAssembly module is checked as one.
pub fn check_upload(file_name: &str, bytes: &[u8]) -> Result<(), String> {
    if is_wasm(bytes) {
        return check_wasm(bytes);
    }
    let extension = file_name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let looks_like_text = std::str::from_utf8(&bytes[..bytes.len().min(4096)]).is_ok_and(|text| {
        let text = text.trim_start();
        ["#include", "//", "/*", "#define", "int ", "use ", "import "].iter().any(|start| text.starts_with(start))
    });
    if object::File::parse(bytes).is_err() && (SOURCE_EXTENSIONS.contains(&extension.as_str()) || looks_like_text) {
        return Err(format!(
            "this is source code, not a compiled bot: the server runs compiled libraries only. Compile it first, \
             then upload the file the compiler makes: {} (the starter kit at /starter has the header and the \
             lines for other compilers)",
            build_line()
        ));
    }
    check_library(bytes)
}

/// `Ok(())` when `bytes` are a shared library this server can run; otherwise why not, for the
/// entrant ("a Windows PE file (.exe/.dll); this server runs Linux x86-64 shared library (.so)").
pub fn check_library(bytes: &[u8]) -> Result<(), String> {
    let wanted = accepted_platform();
    let file = object::File::parse(bytes).map_err(|_| {
        let start: String = bytes.iter().take(8).map(|b| if b.is_ascii_graphic() { *b as char } else { '.' }).collect();
        format!("not a shared library: the file is not an executable format at all (it begins `{start}`); this server runs bots built as a {wanted}")
    })?;
    if file.format() != host_format() {
        return Err(format!("{}, but this server runs bots built as a {wanted}", format_name(file.format())));
    }
    if file.architecture() != host_architecture() {
        return Err(format!(
            "a library for {} processors, but this server runs bots built as a {wanted}",
            arch_name(file.architecture())
        ));
    }
    let is_executable = file.kind() == ObjectKind::Executable
        // A position-independent executable is a "dynamic" ELF too; its interpreter gives it away.
        || (file.format() == BinaryFormat::Elf && file.section_by_name(".interp").is_some())
        || (file.format() == BinaryFormat::Pe && !pe_is_dll(bytes));
    if is_executable {
        return Err(format!("a program (an executable), not a library: build it as a {wanted} (gcc -shared -fPIC …)"));
    }
    if file.kind() != ObjectKind::Dynamic {
        return Err(format!(
            "an object file (what the compiler makes before linking), not a shared library: build it with \
             -shared into a {wanted}: {}",
            build_line()
        ));
    }
    Ok(())
}

/// The names a library exports (its dynamic symbols), read without loading it: what a remote
/// worker's report of a check is held against. Mach-O names lose their leading underscore.
pub fn exports(bytes: &[u8]) -> Result<std::collections::HashSet<String>, String> {
    if is_wasm(bytes) {
        let module = othello_wasm::WasmModule::load(bytes).map_err(|why| format!("not a WebAssembly bot: {why}"))?;
        return Ok(module.export_names().into_iter().collect());
    }
    let file = object::File::parse(bytes).map_err(|e| format!("not a library: {e}"))?;
    let mut names = std::collections::HashSet::new();
    for export in file.exports().map_err(|e| format!("its exports cannot be read: {e}"))? {
        let export = export.map_err(|e| format!("its exports cannot be read: {e}"))?;
        let Some(name) = export.name().into_name() else { continue }; // an export by number only
        let name = String::from_utf8_lossy(name);
        let name = if file.format() == BinaryFormat::MachO { name.strip_prefix('_').unwrap_or(&name) } else { &name };
        names.insert(name.to_owned());
    }
    Ok(names)
}

/// Whether what a probe of the library says it offers is what it exports: a library without
/// `init` and `think` does not load, whatever a worker says, and a feature needs its export.
pub fn probe_matches_exports(probe: &othello_arena::plugins::PluginInfo, bytes: &[u8]) -> Result<(), String> {
    let exports = exports(bytes)?;
    let has = |name: &str| exports.contains(name);
    let missing: Vec<&str> = [
        ("init", probe.is_ok()),
        ("think", probe.is_ok()),
        ("othello_levels", probe.levels > 0),
        ("othello_search_info", probe.search_info),
        ("othello_last_error", probe.last_error),
        ("othello_analyze", probe.analysis),
    ]
    .into_iter()
    .filter(|&(name, claimed)| claimed && !has(name))
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("the report says the library loads with what it offers, but it exports no {}", missing.join(", ")))
    }
}

/// What to do about a library that does not load, read from its exports (without loading it):
/// C++ names (`extern "C"` missing), or `init`/`think` not exported at all. `None` when both are
/// there (the reason is elsewhere: `init` failed, a library it needs is missing …).
pub fn load_hint(bytes: &[u8]) -> Option<String> {
    let exports = exports(bytes).ok()?;
    let missing: Vec<&str> = ["init", "think"].into_iter().filter(|name| !exports.contains(*name)).collect();
    if missing.is_empty() {
        return None;
    }
    // A C++ compiler mangles `think` into `_Z5thinkPK12OthelloBoard` unless it is declared
    // extern "C" (the header does that for files that include it).
    let mangled: Vec<&String> = exports
        .iter()
        .filter(|name| name.starts_with("_Z") && missing.iter().any(|m| name.contains(&format!("{}{m}", m.len()))))
        .collect();
    if let Some(name) = mangled.first() {
        return Some(format!(
            "your library exports `{name}`: that is a C++ name. Declare the functions extern \"C\" so that \
             they keep their plain names — #include \"othello_bot.h\" before defining init and think does it \
             (or write extern \"C\" before each) — then build and upload it again"
        ));
    }
    Some(format!(
        "your library does not export {}. Define them exactly as the starter kit's greedy.c does \
         (OTHELLO_EXPORT const char *init(void) and OTHELLO_EXPORT uint8_t think(const OthelloBoard *board), \
         after #include \"othello_bot.h\"), spelled the same, not static, then build it again: {}",
        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" or "),
        build_line()
    ))
}

/// The PE header's `IMAGE_FILE_DLL` flag.
fn pe_is_dll(bytes: &[u8]) -> bool {
    const IMAGE_FILE_DLL: u16 = 0x2000;
    let Some(offset) = bytes.get(0x3c..0x40).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize) else {
        return false;
    };
    // Signature (4 bytes), then the COFF header: machine, sections, time, symbols, count, optional size, flags.
    let flags_at = offset + 4 + 18;
    bytes.get(flags_at..flags_at + 2).is_some_and(|b| u16::from_le_bytes([b[0], b[1]]) & IMAGE_FILE_DLL != 0)
}

/// The file's name without any folder (`../../etc/passwd` → `passwd`, `C:\x\bot.dll` →
/// `bot.dll`) and with only plain characters; `bot` plus the platform's extension when nothing
/// is left.
pub fn safe_file_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .take(100)
        .collect();
    let cleaned = cleaned.trim_start_matches('.').to_owned();
    if cleaned.is_empty() { format!("bot{}", library_extension()) } else { cleaned }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_in_file_names_are_dropped() {
        assert_eq!(safe_file_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_file_name("C:\\Users\\x\\bot.dll"), "bot.dll");
        assert_eq!(safe_file_name(".."), format!("bot{}", library_extension()));
        assert_eq!(safe_file_name("my bot<script>.so"), "my_bot_script_.so");
    }

    #[test]
    fn source_code_is_told_to_compile_first_with_the_build_line() {
        let source = b"#include \"othello_bot.h\"\nOTHELLO_EXPORT const char *init(void) { return \"G\"; }\n";
        for name in ["greedy.c", "bot.so"] {
            let why = check_upload(name, source).unwrap_err();
            assert!(why.contains("source code") && why.contains("Compile it first"), "{name}: {why}");
            assert!(why.contains(build_line()), "{why}");
        }
    }

    #[test]
    fn text_is_not_a_library() {
        let why = check_library(b"#!/bin/sh\necho hello\n").unwrap_err();
        assert!(why.contains("not a shared library"), "{why}");
    }
}
