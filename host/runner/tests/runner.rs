//! The standalone `othello-runner` binary as the arena starts it: its answers on the channel
//! (stdin / stdout) and its exit codes.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use othello_runner::protocol::{HEADER, Request, Response, body_length};

fn runner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_othello-runner"))
}

/// Reads one frame from `input`.
fn read_response(input: &mut impl Read) -> Response {
    let mut header = [0u8; HEADER];
    input.read_exact(&mut header).expect("a frame header");
    let mut body = vec![0u8; body_length(header)];
    input.read_exact(&mut body).expect("a frame body");
    Response::decode(&body).expect("a well-formed answer")
}

#[test]
fn a_file_that_is_no_library_is_reported_on_the_channel() {
    let dir = std::env::temp_dir().join(format!("othello-runner-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let notes = dir.join("libnotes.so");
    std::fs::write(&notes, "not a bot\n").unwrap();
    let mut child = runner()
        .args(["--memory-mb", "256"])
        .arg(&notes)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut responses = child.stdout.take().unwrap();
    match read_response(&mut responses) {
        Response::LoadFailed { reason } => assert!(reason.starts_with("not a loadable library"), "{reason}"),
        other => panic!("expected a load failure, got {other:?}"),
    }
    // The host closes the channel: the runner ends cleanly.
    let mut requests = child.stdin.take().unwrap();
    let _ = requests.write_all(&Request::NewGame { level: None }.encode());
    drop(requests);
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_a_usage_error() {
    let output = runner().stdin(Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Usage: othello-runner"));
}
