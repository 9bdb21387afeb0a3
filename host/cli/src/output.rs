//! Standard output that a reader may close early (`othello list | head -3`): the program then ends
//! quietly, as `grep` or `ls` do, instead of panicking in `println!`.

use std::io::Write;

/// Writes `text` to standard output; a closed pipe ends the program with success, other errors
/// are ignored (there is no one to tell).
pub fn write(text: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `print!` that ends the program quietly when the reader went away.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write(format_args!($($arg)*)) };
}

/// `println!` that ends the program quietly when the reader went away.
macro_rules! outln {
    () => { $crate::output::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}
