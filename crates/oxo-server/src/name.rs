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
/// [`NAME_MAX_CHARS`] characters, none of them a control character (C0,
/// DEL, C1) or an invisible direction override (U+202A–U+202E,
/// U+2066–U+2069), which could make a name read as another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerName(String);

/// Why a name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing but white space.
    #[error("a name needs at least one character that is not a space")]
    Empty,
    /// Too long once trimmed.
    #[error("a name is at most {NAME_MAX_CHARS} characters; this one has {0}")]
    TooLong(usize),
    /// A character that cannot be shown as itself.
    #[error("a name cannot hold the control character U+{0:04X}")]
    Control(u32),
}

impl PlayerName {
    /// `text` as a name, trimmed.
    ///
    /// # Errors
    /// [`NameError`] saying which rule it breaks.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if let Some(bad) = name.chars().find(|&c| forbidden(c)) {
            return Err(NameError::Control(u32::from(bad)));
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

/// Control characters, and the direction overrides and isolates.
fn forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
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
            ("a\u{202e}b", 0x202e),
            ("\u{2066}a", 0x2066),
        ] {
            assert_eq!(
                PlayerName::parse(text),
                Err(NameError::Control(code)),
                "{text:?}"
            );
        }
        assert_eq!(
            NameError::TooLong(21).to_string(),
            "a name is at most 20 characters; this one has 21"
        );
    }
}
