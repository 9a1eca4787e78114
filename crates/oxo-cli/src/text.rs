//! Small text helpers shared by the front ends.

use std::fmt;

/// An integer as written in untrusted text: an optional sign and decimal
/// digits, of any length.
///
/// Coordinates and square numbers may be absurdly large; they are kept as
/// text so nothing overflows, and saturate to `i64` only for comparison
/// (every value beyond `i64` is off every board anyway).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Integer<'a> {
    negative: bool,
    /// Digits without leading zeros; `"0"` for zero.
    digits: &'a str,
}

impl<'a> Integer<'a> {
    /// Read `text` (no surrounding whitespace): `[+-]?[0-9]+`.
    #[must_use]
    pub fn parse(text: &'a str) -> Option<Integer<'a>> {
        let (negative, digits) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        let digits = if trimmed.is_empty() { "0" } else { trimmed };
        Some(Integer {
            negative: negative && digits != "0",
            digits,
        })
    }

    /// The value, clamped to the `i64` range.
    #[must_use]
    pub fn saturating_i64(&self) -> i64 {
        // At most 19 digits fit; parse() only fails beyond that.
        match self.digits.parse::<i64>() {
            Ok(v) if self.negative => -v,
            Ok(v) => v,
            Err(_) if self.negative => i64::MIN,
            Err(_) => i64::MAX,
        }
    }
}

/// The canonical spelling: no `+`, no leading zeros, no `-0`.
impl fmt::Display for Integer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        f.write_str(self.digits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_size() {
        let i = |s| Integer::parse(s).map(|n| (n.saturating_i64(), n.to_string()));
        assert_eq!(i("7"), Some((7, "7".into())));
        assert_eq!(i("+007"), Some((7, "7".into())));
        assert_eq!(i("-0"), Some((0, "0".into())));
        assert_eq!(i("-12"), Some((-12, "-12".into())));
        assert_eq!(
            i("99999999999999999999999"),
            Some((i64::MAX, "99999999999999999999999".into()))
        );
        assert_eq!(i("-99999999999999999999999").map(|p| p.0), Some(i64::MIN));
        assert_eq!(i("-9223372036854775807").map(|p| p.0), Some(i64::MIN + 1));
        for bad in ["", "-", "+", "1.0", "1e3", "0x10", " 1", "١"] {
            assert_eq!(Integer::parse(bad), None, "{bad:?}");
        }
    }
}
