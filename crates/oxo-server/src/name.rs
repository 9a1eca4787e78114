//! Display names: what a player calls themselves, shown to the opponent
//! and to spectators beside their mark.
//!
//! A name is plain text, checked once where it comes in ([`PlayerName::parse`])
//! and shown as text everywhere (the page sets it as a text node, never as
//! HTML). It proves nothing: anyone may take any name.

use std::fmt;

/// The longest name, in characters (Unicode scalar values).
pub const NAME_MAX_CHARS: usize = 20;

/// A valid display name: after trimming white space at both ends, 1 to
/// [`NAME_MAX_CHARS`] characters, at least one of them visible, none of
/// them a control character (Unicode category Cc), an invisible format
/// character (Cf: zero-width spaces and joiners, direction marks and
/// overrides, the byte order mark...) or a line or paragraph separator
/// (Zl, Zp), which could hide a name or make it read as another; and not
/// starting with "Computer" (in any case, full-width letters and the
/// [`BLANK`] characters, which show nothing, read as what shows), which is
/// how the computer player is called.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerName(String);

/// Why a name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing that shows: only white space or blank fillers.
    #[error("a name needs at least one visible character")]
    Empty,
    /// Too long once trimmed.
    #[error("a name is at most {NAME_MAX_CHARS} characters; this one has {0}")]
    TooLong(usize),
    /// A control character (Cc).
    #[error("a name cannot hold the control character U+{0:04X}")]
    Control(u32),
    /// An invisible format character (Cf) or a line or paragraph
    /// separator (Zl, Zp).
    #[error(
        "a name cannot hold U+{0:04X}, an invisible formatting character (such as a zero-width space, a direction mark or override, or a line separator)"
    )]
    Invisible(u32),
    /// Starts as the computer player's name does.
    #[error("names starting with \"Computer\" are kept for the computer player")]
    Reserved,
}

/// Characters of Unicode categories Cf (format), Zl and Zp (line and
/// paragraph separators), as of Unicode 16, as inclusive ranges: refused
/// in names. Served to the page in `/api/info` so that it checks the same.
pub const INVISIBLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{2028}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Characters that are not white space yet show nothing on their own:
/// Hangul and half-width fillers, the blank Braille pattern, the combining
/// marks of the general blocks (diacritics that sit on the character
/// before them, the combining grapheme joiner, the Khmer inherent vowels)
/// and the variation selectors. Allowed in a name (é may be e and U+0301),
/// but not as all of it.
pub const BLANK: &[(char, char)] = &[
    ('\u{0300}', '\u{036F}'),
    ('\u{0483}', '\u{0489}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180D}'),
    ('\u{180F}', '\u{180F}'),
    ('\u{1AB0}', '\u{1AFF}'),
    ('\u{1DC0}', '\u{1DFF}'),
    ('\u{20D0}', '\u{20FF}'),
    ('\u{2800}', '\u{2800}'),
    ('\u{3099}', '\u{309A}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FE20}', '\u{FE2F}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{E0100}', '\u{E01EF}'),
];

/// The start of a name kept for the computer player, lowercased.
pub const RESERVED_PREFIX: &str = "computer";

impl PlayerName {
    /// `text` as a name, trimmed.
    ///
    /// # Errors
    /// [`NameError`] saying which rule it breaks.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let name = text.trim();
        if let Some(bad) = name.chars().find(|&c| c.is_control()) {
            return Err(NameError::Control(u32::from(bad)));
        }
        if let Some(bad) = name.chars().find(|&c| within(INVISIBLE, c)) {
            return Err(NameError::Invisible(u32::from(bad)));
        }
        if !name
            .chars()
            .any(|c| !c.is_whitespace() && !within(BLANK, c))
        {
            return Err(NameError::Empty);
        }
        // Read as it shows: blank characters (a combining grapheme joiner
        // before the C, a variation selector inside the word) hide nothing.
        // (Trimmed again: a blank character before a space hid it too.)
        let shown: String = name.chars().filter(|&c| !within(BLANK, c)).collect();
        if narrow(shown.trim_start())
            .to_lowercase()
            .starts_with(RESERVED_PREFIX)
        {
            return Err(NameError::Reserved);
        }
        let chars = name.chars().count();
        if chars > NAME_MAX_CHARS {
            return Err(NameError::TooLong(chars));
        }
        Ok(PlayerName(name.to_owned()))
    }

    /// A name the store kept: it was checked when it came in, and the
    /// room's digest vouches that it is unchanged.
    #[must_use]
    pub fn from_stored(text: &str) -> PlayerName {
        PlayerName(text.to_owned())
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `text` with full-width Latin letters and signs (U+FF01 to U+FF5E) as
/// their ASCII selves, so that "Ｃomputer" is the reserved name too.
fn narrow(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Whether `c` is in one of `ranges`.
fn within(ranges: &[(char, char)], c: char) -> bool {
    ranges.iter().any(|&(low, high)| (low..=high).contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_checked() {
        assert_eq!(PlayerName::parse("  Ada ").unwrap().as_str(), "Ada");
        assert_eq!(PlayerName::parse("é").unwrap().as_str(), "é");
        assert_eq!(
            PlayerName::parse("<b>Zoë</b> & co").unwrap().as_str(),
            "<b>Zoë</b> & co",
            "markup is text: escaped where shown"
        );
        let twenty = "ñ".repeat(20);
        assert_eq!(PlayerName::parse(&twenty).unwrap().as_str(), twenty);
        assert_eq!(
            PlayerName::parse(&"x".repeat(21)),
            Err(NameError::TooLong(21))
        );
        for empty in ["", "   ", "\u{3000}"] {
            assert_eq!(PlayerName::parse(empty), Err(NameError::Empty), "{empty:?}");
        }
        for (text, code) in [
            ("a\nb", 0x0a),
            ("a\tb", 0x09),
            ("a\u{7f}", 0x7f),
            ("a\u{85}b", 0x85),
        ] {
            assert_eq!(
                PlayerName::parse(text),
                Err(NameError::Control(code)),
                "{text:?}"
            );
        }
        for (text, code) in [
            ("a\u{202e}b", 0x202e),
            ("\u{2066}a", 0x2066),
            ("\u{200B}", 0x200b),
            ("a\u{200D}b", 0x200d),
            ("a\u{200F}", 0x200f),
            ("a\u{2060}", 0x2060),
            ("\u{FEFF}a", 0xfeff),
            ("a\u{061C}", 0x061c),
            ("a\u{2028}b", 0x2028),
            ("a\u{2029}b", 0x2029),
            ("a\u{E0041}", 0xe0041),
        ] {
            assert_eq!(
                PlayerName::parse(text),
                Err(NameError::Invisible(code)),
                "{text:?}"
            );
        }
        for blank in [
            "\u{3164}",
            "\u{2800} \u{2800}",
            "\u{115F}",
            "\u{034F}",
            "\u{FE0F}",
            "\u{17B4}",
            "\u{E0100}",
            "\u{0301}",
            "\u{0301}\u{20DD} \u{FE0F}",
        ] {
            assert_eq!(PlayerName::parse(blank), Err(NameError::Empty), "{blank:?}");
        }
        assert_eq!(
            PlayerName::parse("a\u{3164}b").unwrap().as_str(),
            "a\u{3164}b"
        );
        assert_eq!(
            PlayerName::parse("e\u{0301}").unwrap().as_str(),
            "e\u{0301}"
        );
        assert!(
            PlayerName::parse("\u{2764}\u{FE0F}").is_ok(),
            "a heart shows"
        );
        for reserved in [
            "Computer (strong)",
            "computer",
            "COMPUTERS",
            "  Computer",
            "\u{FF23}omputer",
            "\u{FF43}\u{FF4F}\u{FF4D}puter",
            // Blank characters before or inside the word show nothing.
            "\u{034F}Computer (strong)",
            "\u{FE0F}Computer",
            "\u{E0100}Computer",
            "\u{3164}Computer",
            "\u{115F}Computer",
            "\u{2800}Computer",
            "\u{0301}Computer",
            "C\u{034F}omputer",
            "Comp\u{FE0F}uter",
            "\u{034F} Computer",
            "\u{3164} Computer",
        ] {
            assert_eq!(
                PlayerName::parse(reserved),
                Err(NameError::Reserved),
                "{reserved:?}"
            );
        }
        assert!(PlayerName::parse("My computer").is_ok());
        assert_eq!(
            NameError::Invisible(0x202e).to_string(),
            "a name cannot hold U+202E, an invisible formatting character (such as a zero-width space, a direction mark or override, or a line separator)"
        );
        assert_eq!(
            NameError::TooLong(21).to_string(),
            "a name is at most 20 characters; this one has 21"
        );
    }
}
