//! What starts an NBoard engine: its command line, the folder it runs in, the lines it is sent
//! after `nboard 2`, and the name it plays under — and the engines file that names them.
//!
//! An engine seat is named by a bot name that starts with `nboard:`. After the prefix comes either
//! a plain command line (`nboard:/usr/local/bin/edax -q -nboard`) or, for an engine with a working
//! folder or init lines, the engine as one JSON object in the engines file's form
//! (`nboard:{"name":"Edax","command":"./edax -nboard","workingDirectory":"/opt/edax/bin"}`). Either
//! way the bot name alone is enough to start the engine again, on a resume or on another machine.
//!
//! The engines file follows cutechess's `engines.json`: a JSON array of objects with `name`,
//! `command`, optional `workingDirectory`, `protocol` (only `"nboard"`), `arguments` (words added
//! to the command) and `initStrings` (lines sent after `nboard 2`, such as `set contempt 0`), and
//! two of this project's own for the sandbox: `read` (folders the engine may read besides its
//! own installation) and `env` (names of environment variables it is given).
//!
//! ```
//! use othello_arena::nboard::{EngineSpec, EnginesFile};
//!
//! let file = EnginesFile::parse(r#"[{"name": "Edax", "command": "./edax -nboard",
//!     "workingDirectory": "/opt/edax/bin", "initStrings": ["set contempt 0"]}]"#, None).unwrap();
//! let edax = file.find("edax").unwrap();
//! assert_eq!(edax.program(), std::path::Path::new("/opt/edax/bin/./edax"));
//! let bot_name = edax.bot_name();
//! assert!(bot_name.starts_with("nboard:{"));
//! assert_eq!(EngineSpec::from_bot_name(&bot_name).unwrap().unwrap(), *edax);
//! assert_eq!(EngineSpec::from_bot_name("nboard:edax -q").unwrap().unwrap().display_name(), "edax -q");
//! assert!(EngineSpec::from_bot_name("alphabeta").is_none());
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::protocol::{NBOARD_PREFIX, display_name, split_command};

/// The name of the engines file looked for in the current folder when none is given.
pub const ENGINES_FILE_NAME: &str = "engines.json";
/// The only protocol an entry may name (cutechess's files also have `uci` and `xboard`).
pub const NBOARD_PROTOCOL: &str = "nboard";
/// Most init lines an engine entry may have: they are sent before every game.
pub const MAX_INIT_STRINGS: usize = 64;

/// One engine: how to start it and what to tell it first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineSpec {
    /// The name it plays under (empty: the name the engine gives itself, else its command).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The command line, split like a shell does for simple cases.
    pub command: String,
    /// More words for the command (cutechess keeps them apart from the command).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
    /// The folder the engine runs in (engines find their data files there); a relative program
    /// path is taken from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_directory: Option<PathBuf>,
    /// Only `nboard` is spoken; present in cutechess's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Lines sent after `nboard 2` (and `set depth`) to every new engine process.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init_strings: Vec<String>,
    /// More folders (or files) the engine may read and run in the sandbox, besides its own
    /// installation (as `--read DIR` does for every engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<PathBuf>,
    /// Names of the host's environment variables the engine gets in the sandbox, besides the
    /// minimal set (as `--env NAME` does for every bot and engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

impl EngineSpec {
    /// An engine started by a plain command line.
    pub fn from_command(command: &str) -> Result<EngineSpec, String> {
        let spec = EngineSpec {
            name: String::new(),
            command: command.trim().to_owned(),
            arguments: Vec::new(),
            working_directory: None,
            protocol: None,
            init_strings: Vec::new(),
            read: Vec::new(),
            env: Vec::new(),
        };
        spec.validate()?;
        Ok(spec)
    }

    /// The engine a bot name means, if it is one (`nboard:COMMAND` or `nboard:{JSON}`); an
    /// engine name that cannot be read is an error saying why.
    pub fn from_bot_name(bot: &str) -> Option<Result<EngineSpec, String>> {
        let text = bot.strip_prefix(NBOARD_PREFIX)?.trim();
        Some(if text.starts_with('{') {
            serde_json::from_str::<EngineSpec>(text)
                .map_err(|e| format!("`{bot}`: not an engine description: {e}"))
                .and_then(|spec| spec.validate().map(|()| spec))
        } else if text.is_empty() {
            Err(format!("`{bot}`: the engine command is empty"))
        } else {
            EngineSpec::from_command(text)
        })
    }

    /// The bot name that starts this engine: the plain `nboard:COMMAND` when nothing else is set,
    /// else `nboard:` and the engine as one line of JSON.
    pub fn bot_name(&self) -> String {
        let plain = self.name.is_empty()
            && self.arguments.is_empty()
            && self.working_directory.is_none()
            && self.init_strings.is_empty()
            && self.read.is_empty()
            && self.env.is_empty()
            && !self.command.starts_with('{');
        if plain {
            format!("{NBOARD_PREFIX}{}", self.command)
        } else {
            let json = serde_json::to_string(self).expect("an engine spec is plain data");
            format!("{NBOARD_PREFIX}{json}")
        }
    }

    /// The program and its arguments.
    pub fn words(&self) -> Result<Vec<String>, String> {
        let mut words = split_command(&self.command)?;
        words.extend(self.arguments.iter().cloned());
        Ok(words)
    }

    /// The program to start: a relative path with a folder in it (`./edax`, `bin/edax`) is taken
    /// from the working directory, where the engine will run; a bare name is looked up on `PATH`.
    pub fn program(&self) -> PathBuf {
        let words = self.words().unwrap_or_default();
        let program = PathBuf::from(words.first().map(String::as_str).unwrap_or_default());
        let has_folder = program.components().count() > 1;
        match &self.working_directory {
            Some(folder) if has_folder && program.is_relative() => {
                let joined = folder.join(program);
                std::path::absolute(&joined).unwrap_or(joined)
            }
            _ => program,
        }
    }

    /// The name shown before the engine names itself: the configured name, else the command
    /// with paths cut to file names (`edax -q -nboard`).
    pub fn display_name(&self) -> String {
        if self.name.is_empty() {
            self.words().map(|words| display_name(&words)).unwrap_or_else(|_| self.command.clone())
        } else {
            self.name.clone()
        }
    }

    fn validate(&self) -> Result<(), String> {
        let words = self.words()?;
        if words.is_empty() {
            return Err("the engine command is empty".to_owned());
        }
        if let Some(protocol) = &self.protocol
            && !protocol.eq_ignore_ascii_case(NBOARD_PROTOCOL)
        {
            return Err(format!("protocol `{protocol}` is not spoken here: only `{NBOARD_PROTOCOL}`"));
        }
        if self.init_strings.len() > MAX_INIT_STRINGS {
            return Err(format!("{} init strings: at most {MAX_INIT_STRINGS}", self.init_strings.len()));
        }
        if let Some(line) = self.init_strings.iter().find(|line| line.contains(['\n', '\r'])) {
            return Err(format!("the init string {line:?} has a line break: give one line each"));
        }
        Ok(())
    }
}

/// The engines of an engines file, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnginesFile {
    pub engines: Vec<EngineSpec>,
}

impl EnginesFile {
    /// Reads an engines file. Relative working directories are taken from the file's folder.
    pub fn load(path: &Path) -> Result<EnginesFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        EnginesFile::parse(&text, path.parent()).map_err(|why| format!("{}: {why}", path.display()))
    }

    /// Reads the text of an engines file; relative working directories are taken from `folder`.
    pub fn parse(text: &str, folder: Option<&Path>) -> Result<EnginesFile, String> {
        let mut engines: Vec<EngineSpec> = serde_json::from_str(text)
            .map_err(|e| format!("not an engines file (a JSON array of engines with `name` and `command`): {e}"))?;
        for (index, engine) in engines.iter_mut().enumerate() {
            let label = format!("engine {} (`{}`)", index + 1, engine.name);
            if engine.name.trim().is_empty() {
                return Err(format!("engine {} has no `name`", index + 1));
            }
            engine.validate().map_err(|why| format!("{label}: {why}"))?;
            if let (Some(base), Some(dir)) = (folder, &engine.working_directory)
                && dir.is_relative()
            {
                engine.working_directory = Some(base.join(dir));
            }
        }
        for (index, engine) in engines.iter().enumerate() {
            if engines[..index].iter().any(|other| other.name.eq_ignore_ascii_case(&engine.name)) {
                return Err(format!("two engines are named `{}`", engine.name));
            }
        }
        Ok(EnginesFile { engines })
    }

    /// The engine named `name` (case-insensitive).
    pub fn find(&self, name: &str) -> Option<&EngineSpec> {
        self.engines.iter().find(|engine| engine.name.eq_ignore_ascii_case(name))
    }

    /// The engine a bot name means: `nboard:…` as it says (an error when it cannot be read), or
    /// an engine of this file by name; `None` for a bot library.
    pub fn resolve(&self, bot: &str) -> Option<Result<EngineSpec, String>> {
        EngineSpec::from_bot_name(bot).or_else(|| self.find(bot).cloned().map(Ok))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_commands_stay_plain_bot_names() {
        let spec = EngineSpec::from_bot_name("nboard:  /usr/bin/edax -q -nboard ").unwrap().unwrap();
        assert_eq!(spec.bot_name(), "nboard:/usr/bin/edax -q -nboard");
        assert_eq!(spec.display_name(), "edax -q -nboard");
        assert_eq!(spec.program(), Path::new("/usr/bin/edax"));
    }

    #[test]
    fn an_engine_with_a_folder_and_init_lines_round_trips_through_its_bot_name() {
        let file = EnginesFile::parse(
            r#"[{"name": "Edax 4.6", "command": "./edax", "arguments": ["-nboard", "-n", "1"],
                 "workingDirectory": "bin", "protocol": "NBoard", "initStrings": ["set contempt 0"]}]"#,
            Some(Path::new("/opt/edax")),
        )
        .unwrap();
        let edax = file.find("EDAX 4.6").unwrap();
        assert_eq!(edax.working_directory.as_deref(), Some(Path::new("/opt/edax/bin")));
        assert_eq!(edax.words().unwrap(), ["./edax", "-nboard", "-n", "1"]);
        assert_eq!(edax.program(), Path::new("/opt/edax/bin/./edax"));
        assert_eq!(edax.display_name(), "Edax 4.6");
        let again = EngineSpec::from_bot_name(&edax.bot_name()).unwrap().unwrap();
        assert_eq!(&again, edax);
    }

    #[test]
    fn bad_engines_files_are_refused_with_the_reason() {
        let refused = |text: &str| EnginesFile::parse(text, None).unwrap_err();
        assert!(refused("{").contains("not an engines file"), "{}", refused("{"));
        assert!(refused(r#"[{"command": "edax"}]"#).contains("engine 1 has no `name`"));
        assert!(refused(r#"[{"name": " ", "command": "edax"}]"#).contains("has no `name`"));
        assert!(refused(r#"[{"name": "a", "command": "  "}]"#).contains("command is empty"));
        assert!(refused(r#"[{"name": "a", "command": "'edax"}]"#).contains("unclosed"));
        assert!(refused(r#"[{"name": "a", "command": "x", "protocol": "uci"}]"#).contains("only `nboard`"));
        assert!(refused(r#"[{"name": "a", "command": "x", "initStrings": ["go\nquit"]}]"#).contains("line break"));
        assert!(refused(r#"[{"name": "a", "command": "x", "colour": 1}]"#).contains("unknown field `colour`"));
        assert!(refused(r#"[{"name": "A", "command": "x"}, {"name": "a", "command": "y"}]"#).contains("two engines"));
        assert!(EngineSpec::from_bot_name("nboard:{\"name\":").unwrap().is_err());
        assert!(EngineSpec::from_bot_name("nboard:").unwrap().is_err());
    }
}
