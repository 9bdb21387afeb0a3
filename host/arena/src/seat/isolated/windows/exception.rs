//! Names of the exception codes a crashed Windows process ends with (its exit code).

/// "0xC0000005 (access violation)"; codes that are no exception: `None`.
pub fn exception_name(code: u32) -> Option<String> {
    // NTSTATUS errors and warnings (severity bits 11 or 10) are what unhandled exceptions end with.
    if code < 0x8000_0000 {
        return None;
    }
    let meaning = match code {
        0xC000_0005 => "access violation",
        0xC000_0006 => "in-page error",
        0xC000_0017 => "out of memory",
        0xC000_001D => "illegal instruction",
        0xC000_0025 => "noncontinuable exception",
        0xC000_008C => "array bounds exceeded",
        0xC000_008E => "floating-point division by zero",
        0xC000_0094 => "integer division by zero",
        0xC000_0095 => "integer overflow",
        0xC000_0096 => "privileged instruction",
        0xC000_00FD => "stack overflow",
        0xC000_0135 => "a DLL was not found",
        0xC000_0139 => "an entry point was not found",
        0xC000_0142 => "a DLL failed to initialise",
        0xC000_0374 => "heap corruption",
        0xC000_0409 => "fail-fast: stack buffer overrun or abort",
        0xC000_0602 => "fail-fast exception",
        0x8000_0003 => "breakpoint",
        0xE06D_7363 => "uncaught C++ exception",
        _ => "exception",
    };
    Some(format!("{code:#010X} ({meaning})").replacen("0X", "0x", 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_usual_crashes() {
        assert_eq!(exception_name(0xC000_0005).as_deref(), Some("0xC0000005 (access violation)"));
        assert_eq!(exception_name(0xC000_00FD).as_deref(), Some("0xC00000FD (stack overflow)"));
        assert_eq!(exception_name(0xC123_4567).as_deref(), Some("0xC1234567 (exception)"));
        assert_eq!(exception_name(3), None);
    }
}
