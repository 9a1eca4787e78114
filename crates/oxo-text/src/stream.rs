//! `oxo stream`: the "Design Tic-Tac-Toe" command-stream contract.
//!
//! Input: a line with a count N, then N lines `move R C`. Output: one line
//! per move, exactly one of
//!
//! ```text
//! X placed at (R, C)
//! X wins
//! Draw
//! Invalid move
//! Game already over
//! ```
//!
//! Output is written as input is read, so memory stays constant however
//! many instructions come. Lines after the N-th are not read; a line over
//! [`MAX_LINE`] bytes is malformed, and errors quote at most the first 60
//! characters of a line.

use std::io::{self, BufRead, Write};

use oxo_core::{Coords, Game, Integer, MoveError, MoveResult, Rules};

use crate::input::{LineRead, MAX_LINE, quoted, read_line_bounded};

/// Why a stream could not be replayed to its end.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// No count line at all.
    #[error("line 1: expected the number of instructions, but the input is empty")]
    MissingCount,
    /// The first line is not a count.
    #[error("line 1: expected the number of instructions, found {text:?}")]
    BadCount {
        /// The line as read.
        text: String,
    },
    /// A line that is not `move INT INT`.
    #[error("line {line}: expected `move ROW COL` with integer ROW and COL, found {text:?}")]
    BadInstruction {
        /// 1-based line number.
        line: u64,
        /// The line as read (lossily decoded).
        text: String,
    },
    /// A line longer than any instruction ([`MAX_LINE`] bytes).
    #[error("line {line}: longer than {MAX_LINE} bytes, which no instruction is")]
    LineTooLong {
        /// 1-based line number.
        line: u64,
    },
    /// Fewer instruction lines than the count promised.
    #[error("line {line}: input ended after {found} of {expected} instructions")]
    Truncated {
        /// The line where one was expected.
        line: u64,
        /// The count from line 1, as written (it may exceed any integer type).
        expected: String,
        /// Instructions read.
        found: u64,
    },
    /// Reading the input failed.
    #[error("cannot read the input: {0}")]
    Read(#[source] io::Error),
    /// Writing the output failed (the writer's error says where: the
    /// command line's says "cannot write to standard output").
    #[error("{0}")]
    Write(#[source] io::Error),
}

/// Replay the stream from `input` on a fresh game under `rules`, writing one
/// line per instruction to `output`.
///
/// Lines written before an error stay written (and are flushed).
///
/// # Errors
/// Malformed input ([`StreamError::MissingCount`], [`StreamError::BadCount`],
/// [`StreamError::BadInstruction`], [`StreamError::Truncated`]) or an I/O
/// failure.
pub fn run(rules: Rules, mut input: impl BufRead, output: impl Write) -> Result<(), StreamError> {
    let mut out = Answers {
        text: Vec::with_capacity(FLUSH_AT + 64),
        output,
    };
    let result = replay(rules, &mut input, &mut out);
    // Write what was answered even when the input turned out to be bad.
    let flushed = out.flush();
    result?;
    flushed.map_err(StreamError::Write)
}

/// Answer bytes gathered before they are written.
const FLUSH_AT: usize = 128 * 1024;

/// Answer lines gathered straight into one buffer (no copy through a line
/// buffer or a `BufWriter`) and written out in big pieces.
struct Answers<W> {
    text: Vec<u8>,
    output: W,
}

impl<W: Write> Answers<W> {
    /// Write the buffer out once it is full enough.
    #[inline]
    fn written(&mut self) -> io::Result<()> {
        if self.text.len() >= FLUSH_AT {
            self.output.write_all(&self.text)?;
            self.text.clear();
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.output.write_all(&self.text)?;
        self.text.clear();
        self.output.flush()
    }
}

fn replay<W: Write>(
    rules: Rules,
    input: &mut impl BufRead,
    out: &mut Answers<W>,
) -> Result<(), StreamError> {
    let mut buf = Vec::with_capacity(64);
    match read_line_bounded(input, &mut buf, MAX_LINE).map_err(StreamError::Read)? {
        LineRead::End => return Err(StreamError::MissingCount),
        LineRead::TooLong => return Err(StreamError::LineTooLong { line: 1 }),
        LineRead::Line => {}
    }
    // A byte-order mark, as some editors write, is not part of the count.
    let first = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf);
    let (count, count_text) =
        parse_count(first).ok_or_else(|| StreamError::BadCount { text: quoted(&buf) })?;
    let mut game = Game::new(rules);
    let mut done = 0;
    // Whether the input read so far is used up, so that the next read may
    // wait for more: the answers so far are written out first, so a
    // program (or a person) sending one instruction at a time gets each
    // answer before sending the next. Bulk input refills a buffer of many
    // lines at once, so this writes no more often than once a refill.
    let mut drained = false;
    while done < count {
        if drained {
            out.flush().map_err(StreamError::Write)?;
        }
        // Work on the lines already in the reader's buffer, without copying
        // them; a line cut by the buffer's end is read the slow way below.
        let chunk = input.fill_buf().map_err(StreamError::Read)?;
        let available = chunk.len();
        if chunk.is_empty() {
            return Err(StreamError::Truncated {
                line: done + 2,
                expected: count_text,
                found: done,
            });
        }
        let mut used = 0;
        while done < count {
            let Some(end) = memchr::memchr(b'\n', &chunk[used..]) else {
                break;
            };
            if end >= MAX_LINE {
                return Err(StreamError::LineTooLong { line: done + 2 });
            }
            let line = &chunk[used..used + end + 1];
            used += end + 1;
            let (row, col) = parse_move(line).ok_or_else(|| StreamError::BadInstruction {
                line: done + 2,
                text: quoted(line),
            })?;
            answer(&mut game, row, col, &mut out.text);
            out.written().map_err(StreamError::Write)?;
            done += 1;
        }
        input.consume(used);
        drained = used == available;
        if done < count && used == 0 {
            // No whole line in the buffer: read one across refills (which
            // may wait for the rest of it).
            out.flush().map_err(StreamError::Write)?;
            match read_line_bounded(input, &mut buf, MAX_LINE).map_err(StreamError::Read)? {
                LineRead::End => {
                    return Err(StreamError::Truncated {
                        line: done + 2,
                        expected: count_text,
                        found: done,
                    });
                }
                LineRead::TooLong => return Err(StreamError::LineTooLong { line: done + 2 }),
                LineRead::Line => {}
            }
            let (row, col) = parse_move(&buf).ok_or_else(|| StreamError::BadInstruction {
                line: done + 2,
                text: quoted(&buf),
            })?;
            answer(&mut game, row, col, &mut out.text);
            done += 1;
            // What is left of the buffer is unknown here: flush first.
            drained = true;
        }
    }
    Ok(())
}

/// Play `(row, col)` and append the contract's answer line to `line`.
fn answer(game: &mut Game, row: i64, col: i64, line: &mut Vec<u8>) {
    let mover = game.to_move();
    match game.play_at(row, col) {
        Ok(MoveResult::Placed) => {
            line.push(mover.as_char() as u8);
            line.extend_from_slice(b" placed at (");
            push_decimal(line, row);
            line.extend_from_slice(b", ");
            push_decimal(line, col);
            line.extend_from_slice(b")\n");
        }
        Ok(MoveResult::Won { winner, .. }) => {
            line.push(winner.as_char() as u8);
            line.extend_from_slice(b" wins\n");
        }
        Ok(MoveResult::Draw) => line.extend_from_slice(b"Draw\n"),
        Err(MoveError::GameOver) => line.extend_from_slice(b"Game already over\n"),
        // play_at never names the mover, so NotYourTurn cannot occur.
        Err(
            MoveError::OffBoard { .. } | MoveError::Occupied { .. } | MoveError::NotYourTurn { .. },
        ) => line.extend_from_slice(b"Invalid move\n"),
    }
}

/// Append `n` in decimal (no formatting machinery: this runs once a line).
fn push_decimal(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A non-negative count, with surrounding whitespace allowed, and its
/// canonical spelling. Counts beyond `u64` saturate: no input is that long.
fn parse_count(line: &[u8]) -> Option<(u64, String)> {
    let text = std::str::from_utf8(line).ok()?.trim();
    let n = Integer::parse(text)?;
    let spelled = n.to_string();
    if spelled.starts_with('-') {
        return None;
    }
    Some((spelled.parse().unwrap_or(u64::MAX), spelled))
}

/// `move R C`, tokens separated by any whitespace. Coordinates of any size
/// saturate to `i64`, which is off every board.
fn parse_move(line: &[u8]) -> Option<(i64, i64)> {
    parse_move_fast(line).or_else(|| parse_move_exact(line))
}

/// The common case, on bytes: ASCII whitespace, `move`, two integers that
/// fit an `i64`. `None` for anything else, which [`parse_move_exact`] then
/// judges: the two agree on every line this accepts.
fn parse_move_fast(line: &[u8]) -> Option<(i64, i64)> {
    let space = |b: u8| b.is_ascii_whitespace();
    let mut i = 0;
    while i < line.len() && space(line[i]) {
        i += 1;
    }
    if line.get(i..i + 4)? != b"move" || !space(*line.get(i + 4)?) {
        return None;
    }
    i += 5;
    let mut numbers = [0i64; 2];
    for number in &mut numbers {
        while i < line.len() && space(line[i]) {
            i += 1;
        }
        let negative = match line.get(i)? {
            b'-' => {
                i += 1;
                true
            }
            b'+' => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut value: i64 = 0;
        while let Some(&b) = line.get(i).filter(|b| b.is_ascii_digit()) {
            value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
            i += 1;
        }
        if i == start || line.get(i).is_some_and(|&b| !space(b)) {
            return None;
        }
        *number = if negative { -value } else { value };
    }
    line[i..]
        .iter()
        .all(|&b| space(b))
        .then_some((numbers[0], numbers[1]))
}

/// `move R C` exactly as the contract reads it: UTF-8 text, tokens split on
/// ASCII whitespace, integers of any length saturating to `i64`.
fn parse_move_exact(line: &[u8]) -> Option<(i64, i64)> {
    let text = std::str::from_utf8(line).ok()?;
    let mut tokens = text.split_ascii_whitespace();
    if tokens.next()? != "move" {
        return None;
    }
    let coords = Coords::from_tokens(tokens.next()?, tokens.next()?).ok()?;
    tokens.next().is_none().then_some((coords.row, coords.col))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay_str(rules: Rules, input: &str) -> (String, Result<(), StreamError>) {
        let mut out = Vec::new();
        let result = run(rules, input.as_bytes(), &mut out);
        (String::from_utf8(out).unwrap(), result)
    }

    /// Input that arrives in parts, as from a program that waits for each
    /// answer: asked for more, it checks that every instruction it has
    /// handed over so far has been answered in `written`.
    struct Interactive {
        parts: Vec<&'static [u8]>,
        next: usize,
        at: usize,
        written: std::rc::Rc<std::cell::RefCell<Vec<u8>>>,
    }

    impl io::Read for Interactive {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = io::BufRead::fill_buf(self)?.len().min(buf.len());
            buf[..n].copy_from_slice(&self.parts[self.next][self.at..self.at + n]);
            io::BufRead::consume(self, n);
            Ok(n)
        }
    }

    impl BufRead for Interactive {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.next < self.parts.len() && self.at == self.parts[self.next].len() {
                self.next += 1;
                self.at = 0;
                // A new part: the instructions before it are all answered.
                let asked = self.parts[..self.next]
                    .iter()
                    .map(|p| p.iter().filter(|&&b| b == b'\n').count())
                    .sum::<usize>();
                let answered = self
                    .written
                    .borrow()
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                assert_eq!(
                    answered + 1,
                    asked,
                    "answers written before waiting for more"
                );
            }
            Ok(self.parts.get(self.next).map_or(&[], |p| &p[self.at..]))
        }

        fn consume(&mut self, n: usize) {
            self.at += n;
        }
    }

    /// Output shared with the input above.
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_answer_is_written_before_the_next_instruction_is_waited_for() {
        let written = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        // Whole lines one at a time, then a line that comes in two parts.
        let parts: Vec<&'static [u8]> = vec![
            b"4\nmove 0 0\n",
            b"move 1 1\n",
            b"move 2",
            b" 2\n",
            b"move 0 1\n",
        ];
        let input = Interactive {
            parts,
            next: 0,
            at: 0,
            written: written.clone(),
        };
        run(Rules::default(), input, Shared(written.clone())).unwrap();
        assert_eq!(
            String::from_utf8(written.borrow().clone()).unwrap(),
            "X placed at (0, 0)\nO placed at (1, 1)\nX placed at (2, 2)\nO placed at (0, 1)\n"
        );
    }

    #[test]
    fn an_endless_line_is_refused_without_keeping_it() {
        let huge = format!("2\nmove 0 0\nmove {} 1\n", "1".repeat(1 << 20));
        let (out, result) = replay_str(Rules::default(), &huge);
        assert_eq!(out, "X placed at (0, 0)\n");
        let err = result.unwrap_err();
        assert!(
            matches!(err, StreamError::LineTooLong { line: 3 }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "line 3: longer than 4096 bytes, which no instruction is"
        );
        let (_, result) = replay_str(Rules::default(), &"9".repeat(10_000));
        assert!(matches!(result, Err(StreamError::LineTooLong { line: 1 })));
        // A line that never ends (`/dev/zero`) is refused once it passes
        // the limit, not when its newline never comes.
        let endless = io::Read::chain(&b"2\nmove 0 0\n"[..], io::repeat(b'a'));
        let mut out = Vec::new();
        let result = run(Rules::default(), io::BufReader::new(endless), &mut out);
        assert!(matches!(result, Err(StreamError::LineTooLong { line: 3 })));
        assert_eq!(out, b"X placed at (0, 0)\n");
        // A bad line is quoted in part.
        let (_, result) = replay_str(Rules::default(), &format!("1\nmove {}\n", "x".repeat(500)));
        let message = result.unwrap_err().to_string();
        assert!(message.len() < 160, "{message}");
    }

    #[test]
    fn the_fast_parser_agrees_with_the_exact_one() {
        // Pieces that make every kind of line: good ones, odd spacing,
        // signs, leading zeros, huge numbers, junk and bytes that are not
        // UTF-8.
        let pieces: [&[u8]; 16] = [
            b"move",
            b" ",
            b"\t",
            b"\r",
            b"\x0c",
            b"-",
            b"+",
            b"0",
            b"7",
            b"42",
            b"99999999999999999999",
            b"x",
            b"mov",
            b"\xff",
            b"\n",
            b"-0",
        ];
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut fast_hits = 0;
        for _ in 0..200_000 {
            let mut line = Vec::new();
            if next() % 2 == 0 {
                line.extend_from_slice(b"move ");
            }
            for _ in 0..next() % 8 {
                line.extend_from_slice(pieces[(next() % 16) as usize]);
            }
            if let Some(fast) = parse_move_fast(&line) {
                fast_hits += 1;
                assert_eq!(Some(fast), parse_move_exact(&line), "{line:?}");
            }
        }
        assert!(
            fast_hits > 1000,
            "the fast path was hardly tried: {fast_hits}"
        );
        for (line, expected) in [
            (&b"move 1 2\n"[..], Some((1, 2))),
            (b"  move\t-0 +07 \r\n", Some((0, 7))),
            (
                b"move 99999999999999999999 -99999999999999999999",
                Some((i64::MAX, i64::MIN)),
            ),
            (b"move 1 2 3", None),
            (b"move1 2", None),
            (b"move 1 2x", None),
            (b"move \xff 2", None),
        ] {
            assert_eq!(parse_move(line), expected, "{line:?}");
        }
    }

    #[test]
    fn lines_cut_by_the_read_buffer_read_the_same() {
        let mut input = String::from("40\n");
        for i in 0..40 {
            input.push_str(&format!("  move   {}\t{}  \r\n", i % 7, (i * 3) % 7));
        }
        let rules = Rules::new(7, 7, 4).unwrap();
        let (whole, result) = replay_str(rules, &input);
        result.unwrap();
        for capacity in [1, 2, 3, 5, 8, 13, 64] {
            let reader = io::BufReader::with_capacity(capacity, input.as_bytes());
            let mut out = Vec::new();
            run(rules, reader, &mut out).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                whole,
                "capacity {capacity}"
            );
        }
        // A last line with no newline, cut too.
        let short = "2\nmove 0 0\nmove 1 1";
        let (expected, result) = replay_str(rules, short);
        result.unwrap();
        let reader = io::BufReader::with_capacity(4, short.as_bytes());
        let mut out = Vec::new();
        run(rules, reader, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    fn ok(input: &str) -> String {
        let (out, result) = replay_str(Rules::default(), input);
        result.unwrap();
        out
    }

    #[test]
    fn seed_example_top_row_win() {
        let out = ok("5\nmove 0 0\nmove 1 0\nmove 0 1\nmove 1 1\nmove 0 2\n");
        assert_eq!(
            out,
            "X placed at (0, 0)\nO placed at (1, 0)\nX placed at (0, 1)\nO placed at (1, 1)\nX wins\n"
        );
    }

    #[test]
    fn invalid_moves_keep_the_turn_and_over_beats_invalid() {
        let out = ok(
            "9\nmove 0 0\nmove 0 0\nmove 3 3\nmove -1 0\nmove 1 1\nmove 0 1\nmove 2 2\nmove 0 2\nmove 9 9\n",
        );
        assert_eq!(
            out,
            "X placed at (0, 0)\nInvalid move\nInvalid move\nInvalid move\nO placed at (1, 1)\n\
             X placed at (0, 1)\nO placed at (2, 2)\nX wins\nGame already over\n"
        );
    }

    #[test]
    fn draw_and_after() {
        let out = ok(
            "10\nmove 0 0\nmove 1 1\nmove 2 2\nmove 0 1\nmove 2 1\nmove 2 0\nmove 0 2\nmove 1 2\nmove 1 0\nmove 0 0\n",
        );
        assert!(out.ends_with("X placed at (0, 2)\nO placed at (1, 2)\nDraw\nGame already over\n"));
    }

    #[test]
    fn lenient_whitespace_and_integer_spelling() {
        let out =
            ok(" 2 \r\n  move\t+0   00 \r\nmove 99999999999999999999999 -99999999999999999999\n");
        assert_eq!(out, "X placed at (0, 0)\nInvalid move\n");
    }

    #[test]
    fn lines_after_the_count_are_not_read() {
        assert_eq!(ok("1\nmove 1 1\ngarbage\n"), "X placed at (1, 1)\n");
        assert_eq!(ok("0\n"), "");
        assert_eq!(ok("1\nmove 1 1"), "X placed at (1, 1)\n");
    }

    #[test]
    fn bigger_boards() {
        let rules = Rules::new(4, 4, 3).unwrap();
        let (out, result) = replay_str(
            rules,
            "5\nmove 3 3\nmove 0 0\nmove 2 2\nmove 0 1\nmove 1 1\n",
        );
        result.unwrap();
        assert!(out.ends_with("X wins\n"), "{out}");
    }

    #[test]
    fn malformed_input_is_an_error_after_streamed_output() {
        let (out, result) = replay_str(Rules::default(), "3\nmove 0 0\nmove 1\nmove 2 2\n");
        assert_eq!(out, "X placed at (0, 0)\n");
        let err = result.unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 3: expected `move ROW COL` with integer ROW and COL, found \"move 1\""
        );
        for (input, message) in [
            (
                "",
                "line 1: expected the number of instructions, but the input is empty",
            ),
            (
                "-1\n",
                "line 1: expected the number of instructions, found \"-1\"",
            ),
            (
                "three\n",
                "line 1: expected the number of instructions, found \"three\"",
            ),
            (
                "2\nmove 0 0\n",
                "line 3: input ended after 1 of 2 instructions",
            ),
            (
                "1\nMOVE 0 0\n",
                "line 2: expected `move ROW COL` with integer ROW and COL, found \"MOVE 0 0\"",
            ),
            (
                "1\nmove 0 0 0\n",
                "line 2: expected `move ROW COL` with integer ROW and COL, found \"move 0 0 0\"",
            ),
            (
                "1\n\n",
                "line 2: expected `move ROW COL` with integer ROW and COL, found \"\"",
            ),
            (
                "1\nmove 1.5 0\n",
                "line 2: expected `move ROW COL` with integer ROW and COL, found \"move 1.5 0\"",
            ),
        ] {
            let (_, result) = replay_str(Rules::default(), input);
            assert_eq!(result.unwrap_err().to_string(), message, "{input:?}");
        }
    }

    #[test]
    fn a_bom_and_an_enormous_count() {
        assert_eq!(ok("\u{feff}1\nmove 1 1\n"), "X placed at (1, 1)\n");
        let (_, result) = replay_str(Rules::default(), "18446744073709551616\nmove 0 0\n");
        assert_eq!(
            result.unwrap_err().to_string(),
            "line 3: input ended after 1 of 18446744073709551616 instructions"
        );
    }

    #[test]
    fn non_utf8_is_malformed_not_a_panic() {
        let mut out = Vec::new();
        let err = run(Rules::default(), &b"1\nmove \xff 0\n"[..], &mut out).unwrap_err();
        assert!(matches!(err, StreamError::BadInstruction { line: 2, .. }));
    }
}
