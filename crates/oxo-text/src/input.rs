//! Reading untrusted text: lines of bounded length and a line quoted in an
//! error message. Shared by the text contracts and by the Gomocup protocol;
//! the integers and cells inside the lines are read by oxo-core's
//! [`Integer`](oxo_core::Integer) and [`Coords`](oxo_core::Coords).

use std::io;

/// The longest input line the text front ends read (`oxo stream`,
/// `oxo solve -`): 4 KiB, far beyond any real instruction or position
/// (a 32×32 position is 1,055 bytes), so memory stays small whatever the
/// input holds.
pub const MAX_LINE: usize = 4096;

/// How [`read_line_bounded`] went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// The input ended before any byte of a line.
    End,
    /// A whole line (with its newline, unless the input ended first).
    Line,
    /// A line longer than the limit: its first bytes are kept, and the
    /// input stands just after them. A reader that goes on to the next line
    /// drops the rest with [`skip_line`]; one that stops stops at once,
    /// even on a line that never ends.
    TooLong,
}

/// What ends a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// A newline (a CR before it stays in the line, for the reader to
    /// trim).
    Newline,
    /// A carriage return or a newline: the Gomocup protocol lets an engine
    /// end its lines with CR LF, LF or CR alone. A CR LF pair reads as a
    /// line and an empty one.
    CrOrNewline,
}

impl LineEnd {
    /// Where the first line end in `bytes` is.
    fn find(self, bytes: &[u8]) -> Option<usize> {
        match self {
            LineEnd::Newline => memchr::memchr(b'\n', bytes),
            LineEnd::CrOrNewline => memchr::memchr2(b'\r', b'\n', bytes),
        }
    }
}

/// Read one line into `buf` (cleared first), keeping at most `max` bytes
/// of it; memory stays bounded however long the line is, and a line over
/// `max` is answered as soon as `max` is passed.
///
/// # Errors
/// Reading failed.
pub fn read_line_bounded(
    input: &mut (impl io::BufRead + ?Sized),
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    read_line_bounded_to(input, buf, max, LineEnd::Newline)
}

/// [`read_line_bounded`] with lines ended by `end`.
///
/// # Errors
/// Reading failed.
pub fn read_line_bounded_to(
    input: &mut (impl io::BufRead + ?Sized),
    buf: &mut Vec<u8>,
    max: usize,
    end: LineEnd,
) -> io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match end.find(chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        if take > room {
            buf.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Ok(LineRead::TooLong);
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take);
        if done {
            break;
        }
    }
    Ok(if any { LineRead::Line } else { LineRead::End })
}

/// Read and drop the rest of the line, up to and with its newline (or to
/// the end of the input), in constant memory: after a [`LineRead::TooLong`],
/// for a reader that goes on to the next line.
///
/// # Errors
/// Reading failed.
pub fn skip_line(input: &mut (impl io::BufRead + ?Sized)) -> io::Result<()> {
    skip_line_to(input, LineEnd::Newline)
}

/// [`skip_line`] with lines ended by `end`.
///
/// # Errors
/// Reading failed.
pub fn skip_line_to(input: &mut (impl io::BufRead + ?Sized), end: LineEnd) -> io::Result<()> {
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(());
        }
        match end.find(chunk) {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = chunk.len();
                input.consume(all);
            }
        }
    }
}

/// A line of input as an error message quotes it: lossily decoded, without
/// its line end, control characters and the marks that reorder text
/// escaped (`\u{1b}`, `\t`, `\u{202e}`: a terminal shows them, never obeys
/// them), and cut to its first 60 characters, the line's length in bytes
/// then said (a line of [`MAX_LINE`] bytes, as long as a bounded read
/// keeps, is said to be as long or longer).
#[must_use]
pub fn quoted(line: &[u8]) -> String {
    quote(line, line.len() >= MAX_LINE)
}

/// [`quoted`] for text given whole (an argument, not a line a bounded read
/// may have cut), whose length is said as it is.
#[must_use]
pub fn quoted_whole(text: &str) -> String {
    quote(text.as_bytes(), false)
}

/// `line` quoted as [`quoted`] says, its length said to be as long or
/// longer when `cut`.
fn quote(line: &[u8], cut: bool) -> String {
    const SHOWN: usize = 60;
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    let mut shown = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == SHOWN {
            let more = if cut { " or more" } else { "" };
            shown.push_str(&format!("… ({} bytes{more})", line.len()));
            break;
        }
        // Bidirectional marks, embeddings, overrides and isolates, and the
        // line and paragraph separators some terminals break lines on.
        let reorders = matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || reorders {
            shown.extend(c.escape_debug());
        } else {
            shown.push(c);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_lines_show_control_characters_and_count_their_bytes() {
        // A terminal's escape sequences (clear the screen, set the title)
        // are shown, not sent on.
        assert_eq!(
            quoted(b"\x1b[2J\x1b]0;pwned\x07 7,7\r\n"),
            "\\u{1b}[2J\\u{1b}]0;pwned\\u{7} 7,7"
        );
        assert_eq!(quoted(b"a\tb"), "a\\tb");
        // Cut at 60 characters, with the bytes as given (an invalid byte is
        // one byte, though it shows as the three of U+FFFD).
        let long = [0xff_u8; 100];
        let shown = quoted(&long);
        assert_eq!(shown, format!("{}… (100 bytes)", "\u{fffd}".repeat(60)));
        // A line a bounded read cut: as long as what was kept, or longer.
        assert!(quoted(&[b'x'; MAX_LINE]).ends_with("… (4096 bytes or more)"));
        // Text given whole: its length as it is.
        assert!(quoted_whole(&"x".repeat(MAX_LINE)).ends_with("… (4096 bytes)"));
        // Text that would run backwards on the terminal is shown escaped.
        assert_eq!(quoted("a\u{202e}b".as_bytes()), "a\\u{202e}b");
    }

    #[test]
    fn long_lines_are_cut_and_the_rest_skipped_on_request() {
        let long = format!("{}\nnext\n", "x".repeat(10_000));
        let mut input = io::BufReader::with_capacity(16, long.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 100).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(buf.len(), 100);
        skip_line(&mut input).unwrap();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 100).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"next\n");
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 100).unwrap(),
            LineRead::End
        );
        // Exactly at the limit, newline included, is a line.
        let mut input = &b"abc\nabcd"[..];
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 4).unwrap(),
            LineRead::Line
        );
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 4).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"abcd");
    }

    /// With CR as a line end too, CR alone, LF alone and CR LF (a line and
    /// an empty one) all end lines, and the rest of a long line is skipped
    /// to either.
    #[test]
    fn lines_may_end_with_a_carriage_return() {
        let mut input = io::BufReader::with_capacity(4, &b"ok\r7,7\r\n8,8\nxxxxxxxx\ry\r"[..]);
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        loop {
            match read_line_bounded_to(&mut input, &mut buf, 5, LineEnd::CrOrNewline).unwrap() {
                LineRead::End => break,
                LineRead::Line => lines.push(String::from_utf8(buf.clone()).unwrap()),
                LineRead::TooLong => {
                    lines.push(format!("long {}", String::from_utf8(buf.clone()).unwrap()));
                    skip_line_to(&mut input, LineEnd::CrOrNewline).unwrap();
                }
            }
        }
        assert_eq!(lines, ["ok\r", "7,7\r", "\n", "8,8\n", "long xxxxx", "y\r"]);
    }

    /// A line that never ends is answered once the limit is passed, not
    /// when (never) its newline comes.
    #[test]
    fn a_line_that_never_ends_is_too_long_at_the_limit() {
        let mut endless = io::BufReader::with_capacity(64, io::repeat(b'a'));
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut endless, &mut buf, 1000).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(buf, vec![b'a'; 1000]);
    }

    #[test]
    fn quotes_are_short() {
        assert_eq!(quoted(b"move 1 x\r\n"), "move 1 x");
        let long = "é".repeat(1000);
        let q = quoted(long.as_bytes());
        assert!(q.starts_with(&"é".repeat(60)), "{q}");
        assert!(q.ends_with("… (2000 bytes)"), "{q}");
    }
}
