//! Finding bot libraries: the plugin folders, scanning them, probing each
//! library safely (in a runner child, with a timeout), and resolving a bot
//! named on the command line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::seat::{IsolatedSeat, RunnerCommand, Seat, SeatOptions, SeatSpec, WasmSeat, is_wasm_file, library_stem};

/// The plugin folder looked up in the current directory.
pub const LOCAL_PLUGIN_FOLDER: &str = "plugins";

/// The plugin folders, in search order: `./plugins`, each extra folder, then
/// the folder of the running executable. Folders that do not exist are left out.
pub fn plugin_folders(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = vec![PathBuf::from(LOCAL_PLUGIN_FOLDER)];
    folders.extend(extra.iter().cloned());
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)) {
        folders.push(exe_dir);
    }
    let mut seen = Vec::new();
    folders.retain(|folder| {
        let Ok(canonical) = folder.canonicalize().map(|c| readable_path(&c)) else { return false };
        if !canonical.is_dir() || seen.contains(&canonical) {
            return false;
        }
        seen.push(canonical);
        true
    });
    folders
}

/// Every bot file in `folders` (the platform's shared-library extension, or `.wasm`: a
/// WebAssembly bot; not recursive, so build folders' `deps/` are not listed), sorted per
/// folder, as absolute paths.
pub fn scan(folders: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut seen = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else { continue };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.is_file() && (is_library_file(path) || is_wasm_file(path)))
            .collect();
        files.sort();
        for file in files {
            let canonical = file.canonicalize().map_or_else(|_| file.clone(), |c| readable_path(&c));
            if !seen.contains(&canonical) {
                seen.push(canonical.clone());
                found.push(canonical);
            }
        }
    }
    found
}

/// Has the platform's shared-library extension (`.so` on Linux, `.dylib` on macOS, `.dll` on
/// Windows, where file names ignore case: `MyBot.DLL` too).
pub fn is_library_file(path: &Path) -> bool {
    has_library_extension(path, std::env::consts::DLL_EXTENSION, cfg!(windows))
}

fn has_library_extension(path: &Path, extension: &str, ignore_case: bool) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|ext| if ignore_case { ext.eq_ignore_ascii_case(extension) } else { ext == extension })
}

/// `canonicalize` on Windows gives verbatim paths (`\\?\C:\bots\my_bot.dll`): shown to people and
/// passed on as the same path without the prefix where it means the same (drive paths, shares).
fn readable_path(canonical: &Path) -> PathBuf {
    match canonical.to_str().and_then(without_verbatim_prefix) {
        Some(plain) => PathBuf::from(plain),
        None => canonical.to_path_buf(),
    }
}

/// `\\?\C:\x` → `C:\x`, `\\?\UNC\server\share\x` → `\\server\share\x`; `None` for anything else (kept
/// verbatim: longer than the classic path limit, or not a drive or share path).
fn without_verbatim_prefix(path: &str) -> Option<String> {
    /// Longest path Windows programs accept without the verbatim prefix (MAX_PATH, less the NUL).
    const CLASSIC_PATH_LIMIT: usize = 259;
    let rest = path.strip_prefix(r"\\?\")?;
    let plain = if let Some(share) = rest.strip_prefix(r"UNC\") {
        format!(r"\\{share}")
    } else {
        let drive = rest.as_bytes();
        (drive.len() >= 3 && drive[0].is_ascii_alphabetic() && &drive[1..3] == br":\").then(|| rest.to_owned())?
    };
    (plain.len() <= CLASSIC_PATH_LIMIT).then_some(plain)
}

/// Whether a library is a usable bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "error", rename_all = "lowercase")]
pub enum PluginStatus {
    Ok,
    /// Why it is not: "missing symbol `think`", "crashed while loading …".
    Error(String),
}

/// What `othello list` shows about a library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginInfo {
    pub path: PathBuf,
    /// The name `init` returned (the file stem when it returned none or failed).
    pub name: String,
    pub abi_version: Option<u32>,
    /// Strength levels (0 = none).
    pub levels: u32,
    pub search_info: bool,
    pub last_error: bool,
    /// The optional analysis export (the value of every legal move).
    #[serde(default)]
    pub analysis: bool,
    #[serde(flatten)]
    pub status: PluginStatus,
}

impl PluginInfo {
    pub fn is_ok(&self) -> bool {
        self.status == PluginStatus::Ok
    }

    /// The optional features as a short list ("levels 1-5, search info").
    pub fn features_text(&self) -> String {
        let mut features = Vec::new();
        if self.levels > 0 {
            features.push(format!("levels 1-{}", self.levels));
        }
        if self.search_info {
            features.push("search info".to_owned());
        }
        if self.last_error {
            features.push("error text".to_owned());
        }
        if self.analysis {
            features.push("analysis".to_owned());
        }
        features.join(", ")
    }
}

/// Loads `path` in a runner child and calls `init`; never crashes or hangs the
/// host (a library that does gets an error status).
pub fn probe(path: &Path, runner: &RunnerCommand, options: &SeatOptions) -> PluginInfo {
    let spec = SeatSpec::isolated(path, runner.clone()).with_options(*options);
    let mut info = PluginInfo {
        path: path.to_path_buf(),
        name: library_stem(path),
        abi_version: None,
        levels: 0,
        search_info: false,
        last_error: false,
        analysis: false,
        status: PluginStatus::Ok,
    };
    if is_wasm_file(path) {
        // A module cannot crash or hang the host: probed in process (and compiled once).
        match WasmSeat::open(&spec).and_then(|mut seat| seat.new_game().map(|()| seat)) {
            Ok(seat) => {
                info.name = seat.name().to_owned();
                info.abi_version = Some(othello_sdk::abi::OTHELLO_ABI_VERSION);
                info.levels = seat.levels();
                info.analysis = seat.analyzes();
            }
            Err(failure) => info.status = PluginStatus::Error(failure.detail),
        }
        return info;
    }
    match IsolatedSeat::open(&spec, runner).and_then(|mut seat| seat.new_game().map(|()| seat)) {
        Ok(seat) => {
            let loaded = seat.loaded();
            info.name = seat.name().to_owned();
            info.abi_version = Some(loaded.abi_version);
            info.levels = loaded.levels;
            info.search_info = loaded.search_info;
            info.last_error = loaded.last_error;
            info.analysis = loaded.analysis;
        }
        Err(failure) => info.status = PluginStatus::Error(failure.detail),
    }
    info
}

/// Probes many libraries at once (each in its own child). Different libraries whose bots give
/// the same name are told apart by their file ([`tell_apart`]).
pub fn probe_all(paths: &[PathBuf], runner: &RunnerCommand, options: &SeatOptions) -> Vec<PluginInfo> {
    let mut infos = probe_each(paths, runner, options);
    let named: Vec<(String, PathBuf)> = infos.iter().map(|i| (i.name.clone(), i.path.clone())).collect();
    for (info, name) in infos.iter_mut().zip(tell_apart(&named)) {
        info.name = name;
    }
    infos
}

/// Probes many libraries at once, each with the name its bot gives.
fn probe_each(paths: &[PathBuf], runner: &RunnerCommand, options: &SeatOptions) -> Vec<PluginInfo> {
    std::thread::scope(|scope| {
        let probes: Vec<_> = paths.iter().map(|path| scope.spawn(move || probe(path, runner, options))).collect();
        probes.into_iter().map(|probe| probe.join().expect("probing never panics")).collect()
    })
}

/// The names of `(name, library)` pairs with different libraries of names that look alike
/// (one [`skeleton`](crate::text::skeleton): `Alpha-beta`, `ALPHA-BETA`, a Cyrillic `Аlpha-beta`)
/// told apart: `Alpha-beta (libfake.so)`, or by the whole path when the file names are the same
/// too. A library listed twice keeps its name (an event numbers its second seat).
pub fn tell_apart(named: &[(String, PathBuf)]) -> Vec<String> {
    let skeletons: Vec<String> = named.iter().map(|(name, _)| crate::text::skeleton(name)).collect();
    let others = |name: &str, library: &Path| -> Vec<&PathBuf> {
        let skeleton = crate::text::skeleton(name);
        named
            .iter()
            .zip(&skeletons)
            .filter(|((_, l), s)| **s == skeleton && l != library)
            .map(|((_, l), _)| l)
            .collect()
    };
    named
        .iter()
        .map(|(name, library)| {
            if others(name, library).is_empty() {
                return name.clone();
            }
            let file = library.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            if others(name, library).iter().any(|l| l.file_name().is_some_and(|f| f.to_string_lossy() == file)) {
                format!("{name} ({})", library.display())
            } else {
                format!("{name} ({file})")
            }
        })
        .collect()
}

/// Finds the library a command-line name means (as an absolute path, so it
/// stays valid from any folder): an existing path, else a file
/// stem in the plugin folders (`alphabeta` for `libalphabeta.so`), else the
/// name a bot gives itself (case-insensitive). An NBoard engine (`nboard:COMMAND`) is returned as
/// it is: its seat starts the command.
pub fn resolve(
    name: &str,
    folders: &[PathBuf],
    runner: &RunnerCommand,
    options: &SeatOptions,
) -> Result<PathBuf, String> {
    if crate::nboard::protocol::engine_command(name).is_some() {
        return Ok(PathBuf::from(name)); // an NBoard engine: opened by its command, not found on disk
    }
    let as_path = Path::new(name);
    if as_path.is_file() {
        return Ok(as_path.canonicalize().map_or_else(|_| as_path.to_path_buf(), |c| readable_path(&c)));
    }
    let files = scan(folders);
    if let Some(file) = files.iter().find(|f| library_stem(f) == name || f.file_name().is_some_and(|n| n == name)) {
        return Ok(file.clone());
    }
    if let Some(file) = files.iter().find(|f| library_stem(f).eq_ignore_ascii_case(name)) {
        return Ok(file.clone());
    }
    let infos = probe_each(&files, runner, options);
    // By the name a bot gives itself: one that looks like it, or the user is asked for the file.
    let skeleton = crate::text::skeleton(name);
    let looking_alike: Vec<&PluginInfo> =
        infos.iter().filter(|i| i.is_ok() && crate::text::skeleton(&i.name) == skeleton).collect();
    match looking_alike.as_slice() {
        [info] => return Ok(info.path.clone()),
        [] => {}
        several => {
            let files: Vec<String> = several.iter().map(|i| format!("{} ({})", i.path.display(), i.name)).collect();
            return Err(format!(
                "several bots look like `{name}`: {}; name the one you mean by its file",
                files.join(", ")
            ));
        }
    }
    let folder_list: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    let known: Vec<String> =
        infos.iter().filter(|i| i.is_ok()).map(|i| format!("{} ({})", library_stem(&i.path), i.name)).collect();
    Err(format!(
        "no bot `{name}`: not a file, and no library of that name in the plugin folders ({}); {}",
        if folder_list.is_empty() { "none found".to_owned() } else { folder_list.join(", ") },
        if known.is_empty() {
            "no usable bot was found there".to_owned()
        } else {
            format!("known bots: {}", known.join(", "))
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_found_by_the_platform_extension() {
        assert!(has_library_extension(Path::new("plugins/librandom.so"), "so", false));
        assert!(!has_library_extension(Path::new("plugins/random.so.1"), "so", false));
        assert!(!has_library_extension(Path::new("plugins/notes.txt"), "so", false));
        // Windows: no `lib` prefix, and the extension in any case.
        assert!(has_library_extension(Path::new(r"plugins\MyBot.DLL"), "dll", true));
        assert!(has_library_extension(Path::new(r"plugins\my_bot.dll"), "dll", true));
        assert!(!has_library_extension(Path::new(r"plugins\my_bot.exe"), "dll", true));
        assert!(is_library_file(Path::new(&format!("x.{}", std::env::consts::DLL_EXTENSION))));
    }

    #[test]
    fn windows_verbatim_paths_are_shown_plain_where_they_mean_the_same() {
        assert_eq!(without_verbatim_prefix(r"\\?\C:\bots\my_bot.dll").as_deref(), Some(r"C:\bots\my_bot.dll"));
        assert_eq!(
            without_verbatim_prefix(r"\\?\UNC\server\share\bot.dll").as_deref(),
            Some(r"\\server\share\bot.dll")
        );
        assert_eq!(without_verbatim_prefix(r"\\?\Volume{1234}\bot.dll"), None);
        assert_eq!(without_verbatim_prefix(&format!(r"\\?\C:\{}", "x".repeat(300))), None);
        assert_eq!(without_verbatim_prefix("/usr/lib/othello/librandom.so"), None);
    }

    #[test]
    fn different_libraries_with_one_name_are_told_apart_by_their_file() {
        let named = |pairs: &[(&str, &str)]| -> Vec<(String, PathBuf)> {
            pairs.iter().map(|(n, l)| (n.to_string(), PathBuf::from(l))).collect()
        };
        let names = tell_apart(&named(&[
            ("Alpha-beta", "/bots/libalphabeta.so"),
            ("alpha-beta", "/tmp/libfake.so"),
            ("Random", "/bots/librandom.so"),
            ("Random", "/bots/librandom.so"),
        ]));
        assert_eq!(names, ["Alpha-beta (libalphabeta.so)", "alpha-beta (libfake.so)", "Random", "Random"]);
        let same_file = tell_apart(&named(&[("X", "/a/libx.so"), ("X", "/b/libx.so")]));
        assert_eq!(same_file, ["X (/a/libx.so)", "X (/b/libx.so)"]);
        // Names that only look alike: a Cyrillic А, a full-width name.
        let look_alikes = tell_apart(&named(&[
            ("Alpha-beta", "/bots/libalphabeta.so"),
            ("\u{410}lpha-beta", "/tmp/libcyrillic.so"),
            ("Ａｌｐｈａ-ｂｅｔａ", "/tmp/libwide.so"),
            ("Alpine", "/bots/libalpine.so"),
        ]));
        assert_eq!(
            look_alikes,
            [
                "Alpha-beta (libalphabeta.so)",
                "\u{410}lpha-beta (libcyrillic.so)",
                "Ａｌｐｈａ-ｂｅｔａ (libwide.so)",
                "Alpine"
            ]
        );
    }
}
