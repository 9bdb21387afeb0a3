//! Text that a bot (or an engine, or a remote worker speaking for one) wrote, made harmless
//! before anyone sees it: every name, stderr line, `othello_last_error` text and engine message
//! passes [`one_line`] (or [`quoted_lines`]) before it is stored or shown, and bots are told
//! apart by their names' [`skeleton`].
//!
//! What is removed is what could act on a reader instead of being read:
//! - C0 and C1 control characters and DEL: ESC starts terminal escapes (window titles, clearing
//!   the screen), CR rewrites a line, BEL rings; line breaks and tabs become spaces, so one text
//!   is one line and cannot forge a line of the host's own output;
//! - bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C): a
//!   right-to-left override (U+202E) shows `evil` + U+202E + `txt.exe` as `evilexe.txt`;
//! - every other default-ignorable code point (zero-width spaces and joiners, soft hyphens,
//!   variation selectors, tags): invisible, they make two names that look the same differ;
//! - non-characters (U+FDD0–U+FDEF and every U+xFFFE, U+xFFFF), invalid in XML and so in SVG.
//!
//! What is left is valid in a terminal, a GGF field (brackets are the GGF writer's to escape),
//! JSON, HTML and XML/SVG text.

use unicode_normalization::UnicodeNormalization;

/// What stands for the part of a text cut at its bound.
pub const ELLIPSIS: char = '…';
/// What starts each quoted line of a child's output ([`quoted_lines`]): no line a bot writes can
/// look like one of the host's own.
pub const QUOTE: &str = "  | ";

/// True for the characters [`one_line`] removes (line breaks and tabs it turns into spaces).
pub fn is_hidden_or_control(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_default_ignorable(c) || is_noncharacter(c)
}

/// Bidirectional formatting characters: embeddings, overrides, isolates and marks.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters that render
/// as nothing where a font has no glyph for them.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Unicode's non-characters: U+FDD0–U+FDEF and the last two code points of every plane.
pub fn is_noncharacter(c: char) -> bool {
    let code = c as u32;
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// `raw` as one harmless line of at most `max_chars` characters: line breaks, tabs and the
/// Unicode line and paragraph separators become spaces, every other control, bidi control,
/// invisible character and non-character is removed, runs of spaces become one, and a text
/// over the bound ends in [`ELLIPSIS`] (within the bound). Empty when nothing visible is left.
pub fn one_line(raw: &str, max_chars: usize) -> String {
    let spaced = raw.chars().filter_map(|c| match c {
        '\n' | '\r' | '\t' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => Some(' '),
        c if is_hidden_or_control(c) => None,
        c => Some(c),
    });
    let mut line = String::with_capacity(raw.len().min(max_chars.saturating_mul(4)));
    let mut chars = 0;
    let mut pending_space = false;
    for c in spaced {
        if c.is_whitespace() {
            pending_space = chars > 0;
            continue;
        }
        let needed = 1 + usize::from(pending_space);
        if chars + needed > max_chars {
            // Cut: the last character kept makes room for the mark.
            if max_chars > 0 {
                if chars == max_chars {
                    line.pop();
                }
                line.push(ELLIPSIS);
            }
            return line;
        }
        if pending_space {
            line.push(' ');
        }
        line.push(c);
        chars += needed;
        pending_space = false;
    }
    line
}

/// Lines a child wrote (its stderr tail, an engine's messages) for a report that quotes them:
/// each through [`one_line`], empty ones dropped, each started with [`QUOTE`].
pub fn quoted_lines<'a>(raw: impl IntoIterator<Item = &'a str>, max_chars: usize) -> Vec<String> {
    raw.into_iter()
        .map(|line| one_line(line, max_chars))
        .filter(|line| !line.is_empty())
        .map(|line| format!("{QUOTE}{line}"))
        .collect()
}

/// The form two names that look alike share (UTS #39's confusable skeleton of the name's NFKC
/// form, case folded, with the characters [`one_line`] removes left out and spaces collapsed):
/// `Alpha`, `ALPHA`, `Αlpha` (a Greek capital alpha), `Al\u{200B}pha` and `Ａｌｐｈａ` (full
/// width) have one skeleton. Names are told apart by it.
pub fn skeleton(name: &str) -> String {
    let visible = one_line(name, usize::MAX);
    let folded: String = visible.nfkc().flat_map(char::to_lowercase).collect();
    // Case folding may produce a character whose prototype differs, and the prototype may be
    // an upper-case letter (`l` → `I`): skeleton, fold, skeleton until it no longer changes.
    let mut current = folded;
    for _ in 0..4 {
        let next: String =
            unicode_security::skeleton(&current).collect::<String>().nfkc().flat_map(char::to_lowercase).collect();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_and_line_breaks_are_gone() {
        let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31mRed\rFORGED\nResult: 64-0\u{9b}31m";
        let line = one_line(hostile, 200);
        assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
        assert_eq!(line, "]0;pwned[2J[31mRed FORGED Result: 64-031m");
    }

    #[test]
    fn bidi_controls_zero_width_characters_and_noncharacters_are_gone() {
        assert_eq!(one_line("evil\u{202E}txt.exe", 40), "eviltxt.exe");
        assert_eq!(one_line("Al\u{200B}pha\u{2066}\u{FEFF}", 40), "Alpha");
        assert_eq!(one_line("bad\u{FFFE}\u{FFFF}\u{FDD0}\u{10FFFF} name", 40), "bad name");
        assert_eq!(one_line("\u{E0041}\u{E0042}", 40), "");
        // Ordinary non-ASCII text stays.
        assert_eq!(one_line("Ωthello 日本 café", 40), "Ωthello 日本 café");
    }

    #[test]
    fn a_long_text_is_cut_within_its_bound_with_a_mark() {
        let cut = one_line(&"x".repeat(100), 10);
        assert_eq!(cut.chars().count(), 10);
        assert!(cut.ends_with(ELLIPSIS));
        assert_eq!(one_line("exactly ten", 11), "exactly ten");
        assert_eq!(one_line("  spaced \t\t out  ", 40), "spaced out");
    }

    #[test]
    fn quoted_lines_cannot_start_a_line_of_the_host() {
        let lines = quoted_lines(["fine", "", "\rResult: 64-0 for me", "\u{1b}[2J"], 80);
        assert_eq!(lines, ["  | fine", "  | Result: 64-0 for me", "  | [2J"]);
    }

    #[test]
    fn look_alike_names_share_a_skeleton() {
        let real = skeleton("Alpha");
        for fake in ["ALPHA", "alpha", "\u{391}lpha", "Al\u{200B}pha", "Ａｌｐｈａ", "A\u{202E}lpha", "Alpha "] {
            assert_eq!(skeleton(fake), real, "{fake:?}");
        }
        // Cyrillic look-alikes of a Latin name.
        assert_eq!(skeleton("Greedy"), skeleton("Grееdy"));
        assert_eq!(skeleton("paypal"), skeleton("раураl"));
        // Different names stay different.
        assert_ne!(skeleton("Alpha"), skeleton("Alpine"));
        assert_ne!(skeleton("Greedy"), skeleton("Greedy 2"));
    }
}
