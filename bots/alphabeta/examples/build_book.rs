//! Builds the opening book shipped inside the bot (`bots/alphabeta/book/book.bin`)
//! with the bot's own search (see `alphabeta::book`).
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example build_book -- --small   # about a minute: a test book
//! cargo run --release -p bot-alphabeta --example build_book -- --full    # the shipped book (about 10 minutes of CPU)
//! ```
//!
//! Options (after a setting, they override it): `--plies N`, `--full-plies N`,
//! `--margin DISCS`, `--depth D`, `--out FILE` (default: the shipped file for
//! `--full`, `book-small.bin` in the temporary folder for `--small`; rebuild
//! the bot afterwards, the book is compiled in). The file is
//! written after every ply, so an interrupted build leaves a valid, shallower book.

use std::process::ExitCode;
use std::time::Instant;

use alphabeta::book::{self, Book, BuildSettings};

const SMALL: BuildSettings = BuildSettings { plies: 8, full_plies: 2, margin: 1, depth: 6 };
const FULL: BuildSettings = BuildSettings { plies: 11, full_plies: 3, margin: 1, depth: 10 };

fn run() -> Result<(), String> {
    let usage =
        "usage: build_book (--small | --full) [--plies N] [--full-plies N] [--margin DISCS] [--depth D] [--out FILE]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut settings = None;
    let mut out = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut number = |name: &str| -> Result<i64, String> {
            let value = rest.next().ok_or_else(|| format!("{name} needs a number\n{usage}"))?;
            value.parse().map_err(|_| format!("{name} needs a number, got `{value}`\n{usage}"))
        };
        match arg.as_str() {
            "--small" => settings = Some(SMALL),
            "--full" => settings = Some(FULL),
            "--plies" | "--full-plies" | "--margin" | "--depth" => {
                let value = number(arg)?;
                let s = settings.as_mut().ok_or_else(|| format!("give --small or --full before {arg}\n{usage}"))?;
                match arg.as_str() {
                    "--plies" => s.plies = value.clamp(1, 60) as u32,
                    "--full-plies" => s.full_plies = value.clamp(0, 60) as u32,
                    "--margin" => s.margin = value.clamp(0, 128) as i32,
                    _ => s.depth = value.clamp(1, 30) as u32,
                }
            }
            "--out" => out = Some(rest.next().ok_or_else(|| format!("--out needs a file\n{usage}"))?.clone()),
            _ => return Err(format!("unknown option `{arg}`\n{usage}")),
        }
    }
    let settings = settings.ok_or_else(|| usage.to_owned())?;
    // Only the full setting replaces the shipped book unless told otherwise.
    let out = out.unwrap_or_else(|| {
        if args.iter().any(|a| a == "--full") {
            concat!(env!("CARGO_MANIFEST_DIR"), "/book/book.bin").to_owned()
        } else {
            std::env::temp_dir().join("book-small.bin").to_string_lossy().into_owned()
        }
    });
    println!("{settings:?}");
    let start = Instant::now();
    let save = |entries: &[book::BookEntry]| -> Result<usize, String> {
        let bytes = book::encode(entries, settings.depth);
        Book::parse(&bytes).map_err(|e| format!("the built book does not read back: {e}"))?;
        std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
        Ok(bytes.len())
    };
    // Saved after every ply: an interrupted build leaves the book of the plies done.
    let mut saved = Ok(0);
    let entries = book::build(&settings, |ply, count, so_far| {
        println!("ply {ply:>2}: {count:>7} new positions, {:>7.1} s", start.elapsed().as_secs_f64());
        if saved.is_ok() {
            saved = save(so_far);
        }
    });
    saved?;
    let bytes = book::encode(&entries, settings.depth);
    println!(
        "{} positions, {} bytes, {:.1} s: written to {out} (the bot ships bots/alphabeta/book/book.bin: rebuild it after replacing that file)",
        entries.len(),
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
