//! `othello list` and `othello match` end every process they start, their runners' helper
//! processes included: once the command has exited, nothing it started is left, not even a
//! zombie. The test process is made the reaper of orphans, so a process abandoned by its parent
//! would be re-parented here (instead of to PID 1) and found.
//!
//! One test in its own binary: other tests' processes would be this process's children too.
// Linux: the subreaper and /proc.
#![cfg(target_os = "linux")]

use std::process::{Command, Stdio};

use othello_testkit::{adopted_children, become_subreaper, fixture, install_plugins, random_bot};

#[test]
fn list_and_a_short_match_leave_no_process_behind() {
    let dir = tempfile::tempdir().unwrap();
    install_plugins(dir.path(), [random_bot(), fixture("first_legal"), fixture("segfault")]);
    become_subreaper();
    let runs: [&[&str]; 4] = [
        &["list"],
        &["match", "Random (C)", "first_legal", "--games", "4", "--concurrency", "2"],
        &["match", "segfault", "first_legal", "--games", "2"],
        &["match", "Random (C)", "first_legal", "--games", "2", "--sandbox", "off"],
    ];
    for args in runs {
        let output = Command::new(env!("CARGO_BIN_EXE_othello"))
            .current_dir(dir.path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(adopted_children(), [], "left behind by `othello {}`", args.join(" "));
    }
}
