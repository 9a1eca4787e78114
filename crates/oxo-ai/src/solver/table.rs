//! A fixed-size transposition table.
//!
//! Entries hold the whole (canonical) position, not just a hash, so a hit
//! is never a different position: the solver's answers do not depend on
//! luck with hash collisions. When the table is full, entries for smaller
//! subtrees give way to larger ones.

/// What an entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// Win/draw/loss: `a` is the value + 1, `b` the bound.
    Value = 1,
    /// "Side to move wins within d plies": `a` is the largest d known
    /// false, `b` the smallest d known true (255 = unknown).
    Attack = 2,
    /// "Side to move loses within d plies", as `Attack`.
    Defend = 3,
}

/// Bounds for `Kind::Value` entries.
pub(crate) const EXACT: u8 = 0;
pub(crate) const LOWER: u8 = 1;
pub(crate) const UPPER: u8 = 2;

/// One stored result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub me: u64,
    pub opp: u64,
    pub kind: u8,
    pub a: u8,
    pub b: u8,
    /// Best move as a bit of the canonical orientation, or 255.
    pub best: u8,
    /// Empty cells when stored: the size of the subtree, for replacement.
    pub empties: u8,
}

/// A table of `2^n` entries in buckets of two.
#[derive(Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    /// A table using at most `bytes` of memory (at least two entries), or
    /// `None` if that much memory cannot be had.
    pub fn with_bytes(bytes: usize) -> Option<Table> {
        let wanted = (bytes / size_of::<Entry>()).max(2);
        let len = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        let mut entries = Vec::new();
        entries.try_reserve_exact(len).ok()?;
        entries.resize(len, Entry::default());
        Some(Table {
            entries,
            mask: len - 2,
        })
    }

    /// Bytes in use.
    pub fn bytes(&self) -> usize {
        self.entries.len() * size_of::<Entry>()
    }

    fn bucket(&self, me: u64, opp: u64, kind: Kind) -> usize {
        let mut h = me.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ opp.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(29)
            ^ (kind as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
        h ^= h >> 32;
        h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 32;
        (h as usize) & self.mask
    }

    /// The entry for this position and kind, if stored.
    pub fn get(&self, me: u64, opp: u64, kind: Kind) -> Option<Entry> {
        let i = self.bucket(me, opp, kind);
        self.entries[i..i + 2]
            .iter()
            .find(|e| e.kind == kind as u8 && e.me == me && e.opp == opp)
            .copied()
    }

    /// Store `entry`, replacing its old version or the bucket's entry with
    /// the smaller subtree.
    pub fn put(&mut self, entry: Entry) {
        let kind = match entry.kind {
            1 => Kind::Value,
            2 => Kind::Attack,
            _ => Kind::Defend,
        };
        let i = self.bucket(entry.me, entry.opp, kind);
        let bucket = &mut self.entries[i..i + 2];
        let slot = bucket
            .iter()
            .position(|e| e.kind == entry.kind && e.me == entry.me && e.opp == entry.opp)
            .or_else(|| bucket.iter().position(|e| e.kind == 0))
            .unwrap_or(if bucket[0].empties <= bucket[1].empties {
                0
            } else {
                1
            });
        bucket[slot] = entry;
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }
}
