//! The runner serving a WebAssembly bot (`othello-runner [SANDBOX OPTIONS] -- BOT.wasm`): the
//! module is compiled and run by `othello_wasm` inside the runner's sandbox, so a module that
//! escaped wasmtime's own sandbox would still be in the runner's (defence in depth). Once the
//! module is compiled, a sandboxed runner narrows itself to the system calls the runtime needs
//! (Linux: `othello_sandbox::lockdown::confine_wasm_host`).
//!
//! Its calls fail as named losses ([`Response::Failed`]): out of fuel, over the memory limit, a
//! trap; the runner serves on, and the next game gets a fresh instance.

use std::fs::File;
use std::io::{BufReader, Write};
use std::time::Duration;

use othello_sandbox::{Mode, ServeArgs};
use othello_sdk::abi::OthelloBoard;
use othello_wasm::{CallFailure, Loss, WasmModule, WasmPlayer, fuel_for_ms};

use crate::EXIT_CHANNEL_BROKEN;
use crate::protocol::{LOSS_CRASH, LOSS_LOAD_ERROR, LOSS_OUT_OF_MEMORY, LOSS_TIMEOUT, Request, Response};

/// A module's fuel for loading when the host gives none: 5 s on its virtual clock.
const DEFAULT_LOAD_MS: u64 = 5_000;

/// Whether `library` is a WebAssembly module (`.wasm`).
pub(crate) fn is_module(library: &std::path::Path) -> bool {
    library.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("wasm"))
}

/// Serves the module at `options.library` over the channel until the host closes it.
pub(crate) fn serve(options: &ServeArgs, requests: File, mut responses: File) -> Result<(), String> {
    let mut send = |response: Response| {
        if responses.write_all(&response.encode()).is_err() {
            std::process::exit(EXIT_CHANNEL_BROKEN);
        }
    };
    // The host's compiled code when it gave it (no compiling here), else compiled here.
    let module = std::fs::read(&options.library)
        .map_err(|e| format!("cannot read {}: {e}", options.library.display()))
        .and_then(|bytes| {
            let compiled =
                options.wasm_compiled.as_deref().and_then(|path| WasmModule::load_artifact(&bytes, path).ok());
            compiled.map_or_else(|| WasmModule::compile(&bytes).map_err(|e| e.to_string()), Ok)
        });
    let module = match module {
        Ok(module) => module,
        Err(reason) => {
            send(Response::LoadFailed { reason });
            return Ok(());
        }
    };
    if options.sandbox.sandbox != Mode::Off {
        confine(options.sandbox.sandbox)?;
    }
    // The seat's memory limit: the runner's is that plus what the engine needs.
    let memory_limit_mb = options.sandbox.memory_limit_mb.saturating_sub(othello_wasm::RUNNER_OVERHEAD_MB);
    let load_ms = if options.wasm_load_ms == 0 { DEFAULT_LOAD_MS } else { options.wasm_load_ms };
    let mut player = match WasmPlayer::open(module, memory_limit_mb, fuel_for_ms(load_ms), options.wasm_seed) {
        Ok(player) => player,
        Err(failure) => {
            send(Response::LoadFailed { reason: failure.detail });
            return Ok(());
        }
    };
    let probe = player.probe();
    send(Response::Loaded {
        abi_version: probe.abi_version,
        levels: probe.levels,
        search_info: probe.search_info,
        last_error: probe.last_error,
        memory_after_load: 0,
        analysis: probe.analysis,
    });
    let mut requests = BufReader::new(requests);
    let mut body = Vec::with_capacity(64);
    while crate::child::read_frame(&mut requests, &mut body) {
        let response = match Request::decode(&body) {
            Err(_) => std::process::exit(EXIT_CHANNEL_BROKEN),
            Ok(Request::NewGame { level }) => match player.new_game(level) {
                Ok(name) => Response::Started { name, error: None },
                Err(failure) => failed(failure),
            },
            Ok(Request::Think { board }) => match position_of(&board) {
                Err(failure) => failed(failure),
                Ok(position) => match player.think(&position, time_limit(&board)) {
                    Ok(answer) => Response::Moved {
                        byte: answer.byte,
                        info: answer.info,
                        error: answer.error,
                        fuel: Some(answer.fuel),
                    },
                    Err(failure) => failed(failure),
                },
            },
            Ok(Request::Analyze { board }) => match position_of(&board) {
                Err(failure) => failed(failure),
                Ok(position) => match player.analyze(&position, time_limit(&board)) {
                    Ok(Some(answer)) => {
                        Response::Analyzed { returned: answer.returned, values: answer.values, error: answer.error }
                    }
                    Ok(None) => Response::Analyzed {
                        returned: othello_sdk::abi::OTHELLO_ANALYZE_ERROR,
                        values: Vec::new(),
                        error: Some("the bot has no othello_analyze export".to_owned()),
                    },
                    Err(failure) => failed(failure),
                },
            },
        };
        send(response);
    }
    Ok(())
}

/// The allow-list of system calls on top of the sandbox (Linux; elsewhere there is none). In
/// `auto` mode a kernel that refuses it leaves the runner as the sandbox made it.
#[cfg(target_os = "linux")]
fn confine(mode: Mode) -> Result<(), String> {
    match othello_sandbox::lockdown::confine_wasm_host() {
        Ok(_) => Ok(()),
        Err(why) if mode == Mode::Strict => Err(format!("--sandbox strict: {why}")),
        Err(_) => Ok(()),
    }
}

#[cfg(not(target_os = "linux"))]
fn confine(_mode: Mode) -> Result<(), String> {
    Ok(())
}

/// The move's limit as the board carries it (0: none).
fn time_limit(board: &OthelloBoard) -> Option<Duration> {
    (board.time_limit_ms > 0).then(|| Duration::from_millis(u64::from(board.time_limit_ms)))
}

fn position_of(board: &OthelloBoard) -> Result<othello_sdk::Position, CallFailure> {
    board.position().ok_or_else(|| CallFailure {
        loss: Loss::Crash,
        detail: "the host sent a malformed board".to_owned(),
        output: Vec::new(),
    })
}

/// A failed call as the host's named loss.
fn failed(failure: CallFailure) -> Response {
    let loss = match failure.loss {
        Loss::Timeout => LOSS_TIMEOUT,
        Loss::OutOfMemory => LOSS_OUT_OF_MEMORY,
        Loss::Crash => LOSS_CRASH,
        Loss::LoadError => LOSS_LOAD_ERROR,
    };
    Response::Failed { loss, detail: failure.detail, output: failure.output }
}
