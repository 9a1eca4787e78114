//! Room ids and seat tokens: random strings from the operating system (a
//! joiner may also choose its seat's token, [`Token::chosen`]). The server
//! keeps only the tokens' hashes.

use std::fmt;

use sha2::{Digest, Sha256};

/// Letters that cannot be mistaken for one another when a link is read
/// aloud or typed from a phone screen (no 0/o, 1/l/i).
const ALPHABET: &[u8; 32] = b"abcdefghjkmnpqrstuvwxyz23456789-";

/// `len` characters of [`ALPHABET`], 5 random bits each.
fn random_string(len: usize) -> Result<String, getrandom::Error> {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes)?;
    Ok(bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
        .collect())
}

/// A room's id: 12 characters (60 random bits), safe in a URL path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// A fresh random id.
    ///
    /// # Errors
    /// The operating system's random source failed.
    pub fn random() -> Result<GameId, getrandom::Error> {
        random_string(12).map(GameId)
    }

    /// An id taken from a request path, if it could be one: ids are short,
    /// lowercase letters, digits and `-` (ids made by a schema migration are
    /// hexadecimal), so anything else is an unknown game without a lookup.
    #[must_use]
    pub fn parse(text: &str) -> Option<GameId> {
        let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
        (!text.is_empty() && text.len() <= 32 && text.bytes().all(allowed))
            .then(|| GameId(text.to_owned()))
    }

    /// A fresh random watch id: 16 characters (80 random bits), longer than
    /// a room id so the two can never be confused.
    ///
    /// # Errors
    /// The operating system's random source failed.
    pub fn random_watch() -> Result<GameId, getrandom::Error> {
        random_string(16).map(GameId)
    }

    /// An id from a trusted source (the store, tests).
    #[must_use]
    pub fn from_trusted(text: &str) -> GameId {
        GameId(text.to_owned())
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What logs show for this id: `#` and six hex digits of its SHA-256,
    /// enough to follow one game through a log without giving its id away.
    #[must_use]
    pub fn for_log(&self) -> String {
        log_hash(&self.0)
    }
}

/// `#` and the first six hex digits of `text`'s SHA-256.
pub(crate) fn log_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    Sha256::digest(text.as_bytes())[..3]
        .iter()
        .fold(String::from("#"), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A client's name for one request (`Idempotency-Key`), so that sending it
/// again (after a lost answer or a 503) is safe: the room remembers the keys
/// of the changes it made and answers a repeat with the game as it stands.
/// 1 to [`IdempotencyKey::MAX_LEN`] printable ASCII characters, no spaces
/// (a UUID fits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The longest key accepted.
    pub const MAX_LEN: usize = 64;

    /// `text` as a key, if it is one.
    ///
    /// # Errors
    /// Empty, longer than [`IdempotencyKey::MAX_LEN`], or a character
    /// outside `!` to `~`.
    pub fn parse(text: &str) -> Result<IdempotencyKey, BadKey> {
        if text.is_empty() {
            return Err(BadKey::Empty);
        }
        if text.len() > Self::MAX_LEN {
            return Err(BadKey::TooLong(text.len()));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(BadKey::NotPrintable);
        }
        Ok(IdempotencyKey(text.to_owned()))
    }

    /// The key as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a text is not an [`IdempotencyKey`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadKey {
    /// No characters.
    #[error("an Idempotency-Key cannot be empty")]
    Empty,
    /// More than [`IdempotencyKey::MAX_LEN`] bytes (this many).
    #[error("an Idempotency-Key has at most {max} characters; this one has {0}", max = IdempotencyKey::MAX_LEN)]
    TooLong(usize),
    /// A space, a control character or one outside ASCII.
    #[error("an Idempotency-Key is printable ASCII without spaces (such as a UUID)")]
    NotPrintable,
}

/// Why a text is not a seat token a joiner may choose ([`Token::chosen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadToken {
    /// Too short or too long: its length.
    #[error(
        "a seat token a joiner chooses is {min} to {max} printable ASCII characters without spaces, \
         and random (such as 32 random letters and digits); this one has {0} characters",
        min = Token::CHOSEN_MIN_LEN,
        max = Token::CHOSEN_MAX_LEN
    )]
    Length(usize),
    /// A space, a control character or one outside ASCII.
    #[error(
        "a seat token a joiner chooses is printable ASCII characters without spaces, and random \
         (such as 32 random letters and digits); this one has a space or another character \
         outside `!` to `~`"
    )]
    NotPrintable,
}

/// A seat's secret: 32 random characters (160 bits) made here, or one a
/// joiner chose ([`Token::chosen`]), held by the seat's holder and never
/// kept: the room keeps its [`TokenHash`].
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A fresh random token.
    ///
    /// # Errors
    /// The operating system's random source failed.
    pub fn random() -> Result<Token, getrandom::Error> {
        random_string(32).map(Token)
    }

    /// The shortest token a joiner may choose ([`Token::chosen`]).
    pub const CHOSEN_MIN_LEN: usize = 26;

    /// The longest token a joiner may choose.
    pub const CHOSEN_MAX_LEN: usize = 64;

    /// `text`, a seat token a joiner chose and sends with its join, so that
    /// the same join sent again after a lost answer is recognised by it
    /// (the room keeps only its hash, as of every token): 26 to 64
    /// printable ASCII characters without spaces. It is the seat's secret
    /// from then on, so it must be random (32 random letters and digits,
    /// say).
    ///
    /// # Errors
    /// Too short, too long, or a character outside `!` to `~`.
    pub fn chosen(text: &str) -> Result<Token, BadToken> {
        // Characters first: once they are all ASCII, bytes are characters.
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(BadToken::NotPrintable);
        }
        let len = text.len();
        if !(Self::CHOSEN_MIN_LEN..=Self::CHOSEN_MAX_LEN).contains(&len) {
            return Err(BadToken::Length(len));
        }
        Ok(Token(text.to_owned()))
    }

    /// A token from a trusted source (tests).
    #[must_use]
    pub fn from_trusted(text: &str) -> Token {
        Token(text.to_owned())
    }

    /// The token as text, to hand to its holder.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the room keeps to recognise this token.
    #[must_use]
    pub fn hash(&self) -> TokenHash {
        TokenHash::of(&self.0)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Tokens must not end up in logs.
        f.write_str("Token(…)")
    }
}

/// The SHA-256 of a seat's token, in hex: what the room and the database
/// keep, so that a copy of the database does not hand out the seats.
/// (Tokens are 160 random bits, or at least 26 characters a joiner chose
/// at random, so a fast hash without salt is enough.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenHash(String);

impl TokenHash {
    fn of(token: &str) -> TokenHash {
        TokenHash(
            Sha256::digest(token.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        )
    }

    /// A hash as the store kept it (see [`TokenHash::is_hash`]).
    #[must_use]
    pub fn from_stored(text: &str) -> TokenHash {
        TokenHash(text.to_owned())
    }

    /// Whether `text` looks like a stored hash: 64 lowercase hex digits.
    #[must_use]
    pub fn is_hash(text: &str) -> bool {
        text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    }

    /// The hash as text, for the store.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is the token behind this hash. The comparison
    /// takes the same time wherever the hashes differ, so response times
    /// leak nothing.
    #[must_use]
    pub fn matches(&self, candidate: &str) -> bool {
        let other = TokenHash::of(candidate);
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens_are_random_and_parse_back() {
        let a = GameId::random().unwrap();
        let b = GameId::random().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 12);
        assert_eq!(GameId::parse(a.as_str()), Some(a));
        assert_eq!(GameId::parse(""), None);
        assert_eq!(GameId::parse("../etc"), None);
        assert_eq!(GameId::parse("ABC"), None);
        let t = Token::random().unwrap();
        assert_eq!(t.expose().len(), 32);
        assert_ne!(t, Token::random().unwrap());
    }

    #[test]
    fn tokens_match_only_themselves_and_hide_in_debug() {
        let t = Token::from_trusted("secret");
        let hash = t.hash();
        assert!(hash.matches("secret"));
        assert!(!hash.matches("secreT"));
        assert!(!hash.matches("secret2"));
        assert!(!hash.matches(""));
        assert!(!hash.as_str().contains("secret"));
        assert_eq!(
            hash.as_str(),
            "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
            "SHA-256 of \"secret\""
        );
        assert_eq!(format!("{t:?}"), "Token(…)");
    }

    /// A chosen token is refused for what is wrong with it: a character (a
    /// space, say, or one outside ASCII), else its length.
    #[test]
    fn a_chosen_token_is_refused_for_what_is_wrong_with_it() {
        let good = "a".repeat(32);
        assert_eq!(Token::chosen(&good).unwrap().expose(), good);
        assert!(Token::chosen(&"a".repeat(26)).is_ok());
        assert!(Token::chosen(&"a".repeat(64)).is_ok());
        assert_eq!(Token::chosen(&"a".repeat(25)), Err(BadToken::Length(25)));
        assert_eq!(Token::chosen(&"a".repeat(65)), Err(BadToken::Length(65)));
        let spaced = format!("{} b", "a".repeat(30));
        assert_eq!(Token::chosen(&spaced), Err(BadToken::NotPrintable));
        assert!(
            BadToken::NotPrintable
                .to_string()
                .ends_with("this one has a space or another character outside `!` to `~`")
        );
        for bad in ["é".repeat(16), "é".repeat(40), "a b".to_owned()] {
            assert_eq!(Token::chosen(&bad), Err(BadToken::NotPrintable), "{bad}");
        }
    }

    #[test]
    fn idempotency_keys_are_short_printable_ascii() {
        let uuid = "0b6f1d7e-8c1a-4a43-9d55-0c2b1f3e6a77";
        assert_eq!(IdempotencyKey::parse(uuid).unwrap().as_str(), uuid);
        assert!(IdempotencyKey::parse(&"k".repeat(64)).is_ok());
        for bad in ["", "a b", "tab\there", "é", &"k".repeat(65)] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
    }
}
