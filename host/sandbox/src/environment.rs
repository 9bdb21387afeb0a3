//! The clean-environment layer (host side): a sandboxed runner or engine does not inherit the
//! host's environment, where an API token, a database password or a CI secret may live and from
//! where a bot could copy it into its name, its stderr or its evaluations (and so into game files
//! and ladder pages). It gets a documented minimal set, plus only what the user names:
//!
//! - `PATH` and `LANG` as the host has them (`PATH` defaults to the system folders);
//! - `HOME` and `TMPDIR`: its scratch folder, the only place it may write;
//! - every `OTHELLO_*` variable (the project's own conventions such as `OTHELLO_SEED`, never
//!   secrets);
//! - every variable named with `--env NAME` that the host has.

use std::ffi::OsString;
use std::path::Path;

/// Variables passed on as the host has them.
pub const KEPT: [&str; 2] = ["PATH", "LANG"];
/// Variables with this prefix are passed on.
pub const PASSED_PREFIX: &str = "OTHELLO_";
/// `PATH` when the host has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The whole environment of a sandboxed process whose scratch folder is `scratch`, with the
/// host's variables `named` passed on too.
pub fn clean_environment(scratch: &Path, named: &[String]) -> Vec<(OsString, OsString)> {
    let mut environment: Vec<(OsString, OsString)> = Vec::new();
    let mut set = |name: OsString, value: OsString| {
        environment.retain(|(existing, _)| *existing != name);
        environment.push((name, value));
    };
    set("PATH".into(), DEFAULT_PATH.into());
    for (name, value) in std::env::vars_os() {
        let passed = name.to_str().is_some_and(|text| {
            KEPT.contains(&text) || text.starts_with(PASSED_PREFIX) || named.iter().any(|n| n == text)
        });
        if passed {
            set(name, value);
        }
    }
    set("HOME".into(), scratch.into());
    set("TMPDIR".into(), scratch.into());
    environment
}

/// What the layer report says of it.
pub fn describe() -> String {
    format!(
        "only {}, HOME and TMPDIR (its scratch folder), {PASSED_PREFIX}* and the variables named with --env",
        KEPT.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_minimal_set_and_the_named_variables_pass() {
        // A variable every test run has (cargo or the shell sets PATH), and one it names.
        let host: Vec<String> = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).collect();
        let other = host.iter().find(|name| !KEPT.contains(&name.as_str()) && !name.starts_with(PASSED_PREFIX));
        let scratch = Path::new("/tmp/othello-scratch-test");
        let names = |environment: &[(OsString, OsString)]| -> Vec<String> {
            environment.iter().map(|(name, _)| name.to_string_lossy().into_owned()).collect()
        };
        let clean = clean_environment(scratch, &[]);
        for (name, value) in &clean {
            let name = name.to_str().unwrap();
            assert!(
                ["PATH", "LANG", "HOME", "TMPDIR"].contains(&name) || name.starts_with(PASSED_PREFIX),
                "{name} passed"
            );
            if name == "HOME" || name == "TMPDIR" {
                assert_eq!(value, scratch.as_os_str());
            }
        }
        assert!(names(&clean).contains(&"PATH".to_owned()));
        if let Some(other) = other {
            assert!(!names(&clean).contains(other), "{other} passed without being named");
            let named = clean_environment(scratch, std::slice::from_ref(other));
            let value = named.iter().find(|(name, _)| name == other.as_str()).map(|(_, value)| value);
            assert_eq!(value, std::env::var_os(other).as_ref(), "the named {other} passes as it is");
        }
    }
}
