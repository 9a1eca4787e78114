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
///
/// All the memory is reserved up front, but only a prefix of it is in use
/// (and touched) until it fills up, so a table far larger than the search
/// needs costs only address space; and a search of a few thousand positions then
/// probes a few hundred KiB that stay in cache, rather than spreading its
/// entries over the whole table with a cache and TLB miss for each probe.
/// The prefix doubles when half full, each entry moving to its bucket under
/// the wider mask.
#[derive(Debug)]
pub(crate) struct Table {
    /// The prefix in use; its capacity is the whole table.
    entries: Vec<Entry>,
    /// Entries in the whole table.
    len: usize,
    /// Bucket mask of the prefix in use (its length − 2).
    mask: usize,
    /// Entries stored in the prefix.
    stored: usize,
}

/// Entries in use from the start: 384 KiB.
const FIRST_LEN: usize = 1 << 14;

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
        entries.resize(len.min(FIRST_LEN), Entry::default());
        Some(Table {
            entries,
            len,
            mask: len.min(FIRST_LEN) - 2,
            stored: 0,
        })
    }

    /// Bytes the table may use (reserved, not all touched yet).
    pub fn bytes(&self) -> usize {
        self.len * size_of::<Entry>()
    }

    fn bucket(&self, me: u64, opp: u64, kind: Kind) -> usize {
        let mut h = me.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ opp.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(29);
        h ^= h >> 32;
        h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 32;
        // A position's entries of every kind lie side by side (the distance
        // search reads its value entry too): the value in one bucket, the
        // distance questions in the next.
        let next = if kind == Kind::Value || self.mask < 2 {
            0
        } else {
            2
        };
        ((h as usize) & self.mask) ^ next
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
        let kind = kind_of(entry.kind);
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
        if bucket[slot].kind == 0 {
            self.stored += 1;
        }
        bucket[slot] = entry;
        if self.stored * 2 > self.mask && self.mask + 2 < self.len {
            self.grow();
        }
    }

    /// Double the prefix in use. An entry in bucket `i` belongs, under the
    /// mask with one more bit, in bucket `i` or `i + len`; the upper half is
    /// empty, so there is room for whatever moves.
    fn grow(&mut self) {
        let len = self.mask + 2;
        self.mask = 2 * len - 2;
        // Within the capacity reserved: no reallocation.
        self.entries.resize(2 * len, Entry::default());
        for i in 0..len {
            let entry = self.entries[i];
            if entry.kind == 0 {
                continue;
            }
            let kind = kind_of(entry.kind);
            let to = self.bucket(entry.me, entry.opp, kind);
            if to != i & !1 {
                let slot = to + usize::from(self.entries[to].kind != 0);
                self.entries[slot] = entry;
                self.entries[i] = Entry::default();
            }
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.truncate(self.len.min(FIRST_LEN));
        self.entries.fill(Entry::default());
        self.mask = self.entries.len() - 2;
        self.stored = 0;
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
        assert_eq!(table.mask + 2, 16 * FIRST_LEN);
        let found = held(&table, n);
        // Half full, two-entry buckets overflow now and then (about one
        // entry in six is pushed out over all the doublings).
        assert!(found > n * 3 / 4, "{found} of {n}");
        // Filled past its end, the table keeps working.
        for i in n..8 * n {
            table.put(entry(i));
        }
        assert_eq!(table.mask + 2, table.entries.len());
        let found = held(&table, 8 * n);
        assert!(found > 8 * n * 6 / 10, "{found} of {}", 8 * n);
        // A put that replaces its own entry does not count twice.
        let e = entry(8 * n - 1);
        assert_eq!(table.get(e.me, e.opp, kind_of(e.kind)), Some(e));
        let before = table.stored;
        table.put(e);
        assert_eq!(table.stored, before);
        table.clear();
        assert_eq!((table.stored, table.mask + 2), (0, FIRST_LEN));
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
