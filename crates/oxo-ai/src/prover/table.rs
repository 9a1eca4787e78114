//! The prover's transposition table: proven results with their zones.
//!
//! Entries hold the whole canonical position (both stone sets and who is
//! to move), never just a hash, so a hit is always the same position. A
//! result is final (proofs have no depth), so an entry is never updated,
//! only replaced: each bucket of two keeps the entry with the larger
//! subtree in its first slot and the latest in its second.

/// One stored result, in the canonical orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry {
    pub maker: u128,
    pub breaker: u128,
    /// The cells the result depends on.
    pub zone: u128,
    /// Bit 0: in use; bit 1: the Maker is to move; bit 2: the Maker wins.
    pub flags: u8,
    /// Empty cells when stored: the size of the subtree, for replacement.
    pub empties: u8,
}

pub(super) const USED: u8 = 1;
pub(super) const MAKER_TO_MOVE: u8 = 2;
pub(super) const MAKER_WINS: u8 = 4;

/// A table of `2^n` entries in buckets of two.
///
/// All its memory is reserved up front, but only a prefix is in use (and
/// touched) until it fills up: a search of a few thousand positions then
/// probes a few hundred KiB that stay in cache, rather than taking a page
/// fault for every probe of a large table. The prefix doubles when half
/// full, each entry moving to its bucket under the wider mask.
#[derive(Debug)]
pub(super) struct Table {
    /// The prefix in use, each entry as four words (maker, breaker, zone,
    /// flags and empties); its capacity is the whole table.
    entries: Vec<[u128; 4]>,
    /// Entries in the whole table.
    len: usize,
    /// Bucket mask of the prefix in use (its length − 2).
    mask: usize,
    /// Entries stored in the prefix.
    stored: usize,
}

/// Entries in use from the start: 16 KiB, so that making a prover costs
/// little (`Solver::value` makes one for its first question on boards of
/// over 30 cells, where 128 KiB took 45–95 µs of a 1.1 ms value).
const FIRST_LEN: usize = 1 << 8;

impl Entry {
    #[inline]
    fn pack(self) -> [u128; 4] {
        [
            self.maker,
            self.breaker,
            self.zone,
            u128::from(self.flags) | u128::from(self.empties) << 8,
        ]
    }

    #[inline]
    fn unpack(words: [u128; 4]) -> Entry {
        Entry {
            maker: words[0],
            breaker: words[1],
            zone: words[2],
            flags: words[3] as u8,
            empties: (words[3] >> 8) as u8,
        }
    }
}

impl Table {
    /// A table of at most `bytes` bytes (at least one bucket), or `None`
    /// if that much memory cannot be had.
    pub fn with_bytes(bytes: usize) -> Option<Table> {
        let wanted = (bytes / size_of::<[u128; 4]>()).max(2);
        let len = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        let mut entries = Vec::new();
        entries.try_reserve_exact(len).ok()?;
        entries.resize(len.min(FIRST_LEN), [0; 4]);
        Some(Table {
            entries,
            len,
            mask: len.min(FIRST_LEN) - 2,
            stored: 0,
        })
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.len * size_of::<[u128; 4]>()
    }

    #[inline]
    fn bucket(&self, maker: u128, breaker: u128, turn: u8) -> usize {
        let fold = |x: u128| (x as u64) ^ ((x >> 64) as u64).rotate_left(23);
        let mut h = fold(maker).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ fold(breaker)
                .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                .rotate_left(29)
            ^ u64::from(turn);
        h ^= h >> 32;
        h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 32;
        (h as usize) & self.mask
    }

    /// The entry for this position, if stored. `turn` is `MAKER_TO_MOVE`
    /// or 0.
    #[inline]
    pub fn get(&self, maker: u128, breaker: u128, turn: u8) -> Option<Entry> {
        let i = self.bucket(maker, breaker, turn);
        self.entries[i..i + 2]
            .iter()
            .find(|e| {
                e[3] as u8 & (USED | MAKER_TO_MOVE) == USED | turn
                    && e[0] == maker
                    && e[1] == breaker
            })
            .map(|&e| Entry::unpack(e))
    }

    /// Store `entry` (its flags with `USED`).
    pub fn put(&mut self, entry: Entry) {
        let i = self.bucket(entry.maker, entry.breaker, entry.flags & MAKER_TO_MOVE);
        let bucket = &mut self.entries[i..i + 2];
        let first = Entry::unpack(bucket[0]);
        if first.flags & USED == 0 || entry.empties >= first.empties {
            if Entry::unpack(bucket[1]).flags & USED == 0 {
                self.stored += 1;
            }
            bucket[1] = bucket[0];
            bucket[0] = entry.pack();
        } else {
            if Entry::unpack(bucket[1]).flags & USED == 0 {
                self.stored += 1;
            }
            bucket[1] = entry.pack();
        }
        if self.stored * 2 > self.mask && self.mask + 2 < self.len {
            self.grow();
        }
    }

    /// Double the prefix in use. An entry in bucket `i` belongs, under the
    /// mask with one more bit, in bucket `i` or `i + len`; the upper half
    /// is empty, so there is room for whatever moves.
    fn grow(&mut self) {
        let len = self.mask + 2;
        self.mask = 2 * len - 2;
        // Within the capacity reserved: no reallocation.
        self.entries.resize(2 * len, [0; 4]);
        for i in 0..len {
            let entry = Entry::unpack(self.entries[i]);
            if entry.flags & USED == 0 {
                continue;
            }
            let to = self.bucket(entry.maker, entry.breaker, entry.flags & MAKER_TO_MOVE);
            if to != i & !1 {
                let slot = to + usize::from(self.entries[to][3] as u8 & USED != 0);
                self.entries[slot] = self.entries[i];
                self.entries[i] = [0; 4];
            }
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.truncate(self.len.min(FIRST_LEN));
        self.entries.fill([0; 4]);
        self.mask = self.entries.len() - 2;
        self.stored = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: u64) -> Entry {
        Entry {
            maker: u128::from(i.wrapping_mul(0x2545_F491_4F6C_DD1D)) << 40,
            breaker: u128::from(i),
            zone: u128::from(i) << 7,
            flags: USED
                | if i.is_multiple_of(3) {
                    MAKER_TO_MOVE
                } else {
                    0
                },
            empties: 3,
        }
    }

    fn held(table: &Table, n: u64) -> u64 {
        (0..n)
            .filter(|&i| {
                let e = entry(i);
                table.get(e.maker, e.breaker, e.flags & MAKER_TO_MOVE) == Some(e)
            })
            .count() as u64
    }

    #[test]
    fn entries_survive_the_prefix_growing() {
        let mut table = Table::with_bytes(64 * FIRST_LEN * 64).unwrap();
        let n = 8 * FIRST_LEN as u64;
        for i in 0..n {
            table.put(entry(i));
        }
        assert_eq!(table.mask + 2, 16 * FIRST_LEN);
        let found = held(&table, n);
        assert!(found > n * 3 / 4, "{found} of {n}");
        // Filled past its end, the table keeps working.
        for i in n..8 * n {
            table.put(entry(i));
        }
        assert_eq!(table.mask + 2, table.entries.len());
        assert!(held(&table, 8 * n) > 8 * n / 2);
        table.clear();
        assert_eq!((table.stored, table.mask + 2), (0, FIRST_LEN));
        assert_eq!(held(&table, 8 * n), 0);
    }
}
