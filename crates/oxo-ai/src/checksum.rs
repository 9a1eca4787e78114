//! The checksum oxo's own files end with (learned models, opening tables,
//! strong-solution tables): the 64-bit FNV-1a of every byte before it, so
//! that a damaged file is refused as damage rather than misread. It finds
//! accidents (a flipped bit, a cut or an edited byte), not forgeries.

/// FNV-1a's offset basis and prime, 64-bit.
const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The checksum of bytes given in pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(BASIS)
    }
}

impl Fnv1a {
    /// Add `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }

    /// The checksum of the bytes so far.
    #[must_use]
    pub const fn finish(self) -> u64 {
        self.0
    }
}

/// The checksum of `bytes`.
#[must_use]
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = Fnv1a::default();
    hash.update(bytes);
    hash.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_is_fnv1a_whether_given_whole_or_in_pieces() {
        // FNV-1a's published test values.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut pieces = Fnv1a::default();
        pieces.update(b"foo");
        pieces.update(b"bar");
        assert_eq!(pieces.finish(), fnv1a(b"foobar"));
    }
}
