//! The runner child (`othello-runner [SANDBOX OPTIONS] -- LIBRARY`): loads one bot library and
//! answers the host's requests until its channel closes.
//!
//! Before the bot's code runs, the child moves the channel to private file
//! descriptors and points its stdout at stderr and its stdin at /dev/null, so
//! whatever the bot prints or reads never touches the channel.

use std::fs::File;
use std::io::{BufReader, Read, Write};

use othello_sandbox::{Mode, ServeArgs};
use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR};
use othello_sdk::loader::BotLibrary;

use crate::EXIT_CHANNEL_BROKEN;
use crate::platform::{data_size, enter_sandbox, limit_resources, private_channel, watch_parent};
use crate::protocol::{HEADER, MAX_FRAME, Request, Response, body_length};

/// Runs the child; returns only when the host closes the channel.
pub fn run(options: &ServeArgs) -> Result<(), String> {
    // The library by its canonical path: the sandbox's minimal root holds it there alone.
    let canonical = ServeArgs {
        library: options.library.canonicalize().unwrap_or_else(|_| options.library.clone()),
        ..options.clone()
    };
    let options = &canonical;
    let (requests, responses, statm) = if options.sandbox.sandbox == Mode::Off {
        limit_resources(options.sandbox.memory_limit_mb)?;
        let (requests, responses) = private_channel()?;
        watch_parent();
        (requests, responses, File::open("/proc/self/statm").ok())
    } else {
        enter_sandbox(options)?
    };
    if crate::wasm::is_module(&options.library) {
        return crate::wasm::serve(options, requests, responses);
    }
    let library = options.library.as_path();
    let mut requests = BufReader::new(requests);
    let mut responses = responses;
    let send = |out: &mut File, response: Response| {
        if out.write_all(&response.encode()).is_err() {
            std::process::exit(EXIT_CHANNEL_BROKEN);
        }
    };

    let bot = match BotLibrary::open(library) {
        Ok(bot) => bot,
        Err(error) => {
            send(&mut responses, Response::LoadFailed { reason: error.to_string() });
            return Ok(());
        }
    };
    let features = bot.features();
    send(
        &mut responses,
        Response::Loaded {
            abi_version: bot.abi_version(),
            levels: features.levels,
            search_info: features.search_info,
            last_error: features.last_error,
            memory_after_load: statm.as_ref().map_or(0, data_size),
            analysis: features.analysis,
        },
    );

    let mut body = Vec::with_capacity(64);
    while read_frame(&mut requests, &mut body) {
        let response = match Request::decode(&body) {
            Err(_) => std::process::exit(EXIT_CHANNEL_BROKEN),
            Ok(Request::NewGame { level }) => {
                let name = bot.init();
                let error = if name.is_none() { bot.last_error() } else { None };
                if let (Some(level), None) = (level, &error) {
                    bot.set_level(level);
                }
                Response::Started { name, error }
            }
            Ok(Request::Think { board }) => {
                let byte = bot.think(&board);
                let error = if byte == OTHELLO_MOVE_ERROR { bot.last_error() } else { None };
                let info = if features.search_info && byte != OTHELLO_MOVE_ERROR {
                    bot.search_info().map(Into::into)
                } else {
                    None
                };
                Response::Moved { byte, info, error, fuel: None }
            }
            Ok(Request::Analyze { board }) => match bot.analyze(&board) {
                Some(raw) => {
                    let error = if raw.returned == OTHELLO_ANALYZE_ERROR { bot.last_error() } else { None };
                    Response::Analyzed { returned: raw.returned, values: raw.values, error }
                }
                None => Response::Analyzed {
                    returned: OTHELLO_ANALYZE_ERROR,
                    values: Vec::new(),
                    error: Some("the bot has no othello_analyze export".to_owned()),
                },
            },
        };
        send(&mut responses, response);
    }
    Ok(())
}

/// Reads one frame body into `body`; false when the host closed the channel.
pub(crate) fn read_frame(input: &mut impl Read, body: &mut Vec<u8>) -> bool {
    let mut header = [0; HEADER];
    if input.read_exact(&mut header).is_err() {
        return false;
    }
    let len = body_length(header);
    if len > MAX_FRAME {
        std::process::exit(EXIT_CHANNEL_BROKEN);
    }
    body.resize(len, 0);
    input.read_exact(body).is_ok()
}
