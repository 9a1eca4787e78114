//! A fixed-size transposition table.
//!
//! Entries hold the whole (canonical) position, not just a hash, so a hit
//! is never a different position: the solver's answers do not depend on
//! luck with hash collisions. When the table is full, entries for smaller
//! subtrees give way to larger ones.

use crate::buckets::{Buckets, Slot};

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

/// The solver's table: [`Entry`]s in buckets of two ([`Buckets`]).
#[derive(Debug)]
pub(crate) struct Table {
    slots: Buckets<Entry>,
}

/// Entries in use from the start: 384 KiB.
const FIRST_LEN: usize = 1 << 14;

impl Slot for Entry {
    #[inline]
    fn is_used(&self) -> bool {
        self.kind != 0
    }

    #[inline]
    fn home(&self, mask: usize) -> usize {
        home(self.me, self.opp, kind_of(self.kind), mask)
    }
}

/// The first index of the bucket for this position and kind under `mask`.
#[inline]
fn home(me: u64, opp: u64, kind: Kind, mask: usize) -> usize {
    let mut h = me.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ opp.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(29);
    h ^= h >> 32;
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^= h >> 32;
    // A position's entries of every kind lie side by side (the distance
    // search reads its value entry too): the value in one bucket, the
    // distance questions in the next.
    let next = if kind == Kind::Value || mask < 2 {
        0
    } else {
        2
    };
    ((h as usize) & mask) ^ next
}

impl Table {
    /// A table using at most `bytes` of memory (at least two entries), or
    /// `None` if that much memory cannot be had.
    pub fn with_bytes(bytes: usize) -> Option<Table> {
        Some(Table {
            slots: Buckets::with_bytes(bytes, FIRST_LEN)?,
        })
    }

    /// Bytes the table may use (reserved, not all touched yet).
    pub fn bytes(&self) -> usize {
        self.slots.bytes()
    }

    /// The entry for this position and kind, if stored.
    pub fn get(&self, me: u64, opp: u64, kind: Kind) -> Option<Entry> {
        let i = home(me, opp, kind, self.slots.mask());
        self.slots
            .bucket(i)
            .iter()
            .find(|e| e.kind == kind as u8 && e.me == me && e.opp == opp)
            .copied()
    }

    /// Store `entry`, replacing its old version or the bucket's entry with
    /// the smaller subtree.
    pub fn put(&mut self, entry: Entry) {
        let i = entry.home(self.slots.mask());
        self.slots.store(i, |bucket| {
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
        });
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.slots.clear();
    }
}

/// The kind an entry's `kind` byte records.
fn kind_of(byte: u8) -> Kind {
    match byte {
        1 => Kind::Value,
        2 => Kind::Attack,
        _ => Kind::Defend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: u64) -> Entry {
        Entry {
            me: i.wrapping_mul(0x2545_F491_4F6C_DD1D),
            opp: i,
            kind: 1 + (i % 3) as u8,
            a: i as u8,
            b: 1,
            best: 2,
            empties: 3,
        }
    }

    /// How many of `entry(0..n)` the table holds.
    fn held(table: &Table, n: u64) -> u64 {
        (0..n)
            .filter(|&i| {
                let e = entry(i);
                table.get(e.me, e.opp, kind_of(e.kind)) == Some(e)
            })
            .count() as u64
    }

    #[test]
    fn entries_survive_the_prefix_growing() {
        // Through every doubling of the prefix in use, the entries put are
        // found again, but for those a full bucket pushed out.
        let mut table = Table::with_bytes(64 * FIRST_LEN * size_of::<Entry>()).unwrap();
        let n = 8 * FIRST_LEN as u64;
        for i in 0..n {
            table.put(entry(i));
        }
        assert_eq!(table.slots.in_use(), 16 * FIRST_LEN);
        let found = held(&table, n);
        // Half full, two-entry buckets overflow now and then (about one
        // entry in six is pushed out over all the doublings).
        assert!(found > n * 3 / 4, "{found} of {n}");
        // Filled past its end, the table keeps working.
        for i in n..8 * n {
            table.put(entry(i));
        }
        assert_eq!(table.slots.in_use(), table.slots.len());
        let found = held(&table, 8 * n);
        assert!(found > 8 * n * 6 / 10, "{found} of {}", 8 * n);
        // A put that replaces its own entry does not count twice.
        let e = entry(8 * n - 1);
        assert_eq!(table.get(e.me, e.opp, kind_of(e.kind)), Some(e));
        let before = table.slots.stored();
        table.put(e);
        assert_eq!(table.slots.stored(), before);
        table.clear();
        assert_eq!((table.slots.stored(), table.slots.in_use()), (0, FIRST_LEN));
        assert_eq!(table.get(e.me, e.opp, kind_of(e.kind)), None);
    }

    #[test]
    fn a_table_smaller_than_the_first_prefix_works() {
        let mut table = Table::with_bytes(16 * size_of::<Entry>()).unwrap();
        for i in 0..100 {
            table.put(entry(i));
        }
        let e = entry(99);
        assert_eq!(table.get(e.me, e.opp, kind_of(e.kind)), Some(e));
    }
}
