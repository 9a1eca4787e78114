//! The storage under both transposition tables, the solver's and the
//! prover's: a fixed number of buckets of two entries, of which only a
//! growing prefix is in use.
//!
//! All the memory is reserved up front, but only a prefix of it is in use
//! (and touched) until it fills up, so a table far larger than the search
//! needs costs only address space; and a search of a few thousand positions
//! then probes a few hundred KiB that stay in cache, rather than spreading
//! its entries over the whole table with a page fault or TLB miss for each
//! probe. The prefix doubles when half full, each entry moving to its
//! bucket under the wider mask.
//!
//! What an entry holds, where it hashes to and which entry a full bucket
//! gives up are each table's own ([`Slot`], and the closure of
//! [`Buckets::store`]).

/// An entry of a table, or an empty slot (its `Default`).
pub(crate) trait Slot: Copy + Default {
    /// Whether the slot holds an entry.
    fn is_used(&self) -> bool;

    /// The first index of the bucket this entry belongs in, under `mask`
    /// (even, at most `mask`).
    fn home(&self, mask: usize) -> usize;
}

/// `2^n` entries in buckets of two, a prefix of them in use.
#[derive(Debug)]
pub(crate) struct Buckets<E> {
    /// The prefix in use; its capacity is the whole table.
    entries: Vec<E>,
    /// Entries in the whole table.
    len: usize,
    /// Bucket mask of the prefix in use (its length − 2).
    mask: usize,
    /// Entries stored in the prefix.
    stored: usize,
    /// Entries in use from the start, and again after `clear`.
    first_len: usize,
}

impl<E: Slot> Buckets<E> {
    /// Buckets taking at most `bytes` of memory (at least one bucket), of
    /// which `first_len` entries (a power of two) are in use from the
    /// start; `None` if that much memory cannot be had.
    pub fn with_bytes(bytes: usize, first_len: usize) -> Option<Buckets<E>> {
        debug_assert!(first_len.is_power_of_two() && first_len >= 2);
        let wanted = (bytes / size_of::<E>()).max(2);
        let len = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        let mut entries = Vec::new();
        entries.try_reserve_exact(len).ok()?;
        entries.resize(len.min(first_len), E::default());
        Some(Buckets {
            entries,
            len,
            mask: len.min(first_len) - 2,
            stored: 0,
            first_len,
        })
    }

    /// Bytes the table may use (reserved, not all touched yet).
    pub fn bytes(&self) -> usize {
        self.len * size_of::<E>()
    }

    /// The mask a bucket's first index is taken under.
    #[inline]
    pub fn mask(&self) -> usize {
        self.mask
    }

    /// The bucket that starts at `i` (an index under [`Buckets::mask`]).
    #[inline]
    pub fn bucket(&self, i: usize) -> &[E] {
        &self.entries[i..i + 2]
    }

    /// Let `place` write into the bucket that starts at `i`, then count the
    /// entries it added and grow the prefix if it is now half full.
    #[inline]
    pub fn store(&mut self, i: usize, place: impl FnOnce(&mut [E])) {
        let bucket = &mut self.entries[i..i + 2];
        let before = used(bucket);
        place(bucket);
        // `stored` counts this bucket's entries too: no underflow.
        self.stored = self.stored - before + used(bucket);
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
        self.entries.resize(2 * len, E::default());
        for i in 0..len {
            let entry = self.entries[i];
            if !entry.is_used() {
                continue;
            }
            let to = entry.home(self.mask);
            if to != i & !1 {
                let slot = to + usize::from(self.entries[to].is_used());
                self.entries[slot] = entry;
                self.entries[i] = E::default();
            }
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.truncate(self.len.min(self.first_len));
        self.entries.fill(E::default());
        self.mask = self.entries.len() - 2;
        self.stored = 0;
    }

    /// Entries stored.
    #[cfg(test)]
    pub fn stored(&self) -> usize {
        self.stored
    }

    /// Entries in the prefix in use.
    #[cfg(test)]
    pub fn in_use(&self) -> usize {
        self.mask + 2
    }

    /// Entries in the whole table.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }
}

/// How many of a bucket's slots hold an entry.
#[inline]
fn used<E: Slot>(bucket: &[E]) -> usize {
    usize::from(bucket[0].is_used()) + usize::from(bucket[1].is_used())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry that is its own key and hash (0: empty).
    impl Slot for u64 {
        fn is_used(&self) -> bool {
            *self != 0
        }

        fn home(&self, mask: usize) -> usize {
            // Mixed, so that neighbouring keys spread over the buckets.
            (self.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as usize & mask & !1
        }
    }

    fn put(buckets: &mut Buckets<u64>, key: u64) {
        let i = key.home(buckets.mask());
        buckets.store(i, |bucket| {
            let slot = bucket.iter().position(|e| !e.is_used()).unwrap_or(1);
            bucket[slot] = key;
        });
    }

    fn find(buckets: &Buckets<u64>, key: u64) -> bool {
        buckets.bucket(key.home(buckets.mask())).contains(&key)
    }

    #[test]
    fn the_count_holds_and_entries_move_with_each_doubling() {
        let mut buckets = Buckets::<u64>::with_bytes(1 << 16, 4).unwrap();
        assert_eq!((buckets.len(), buckets.in_use()), (8192, 4));
        for key in 1..=2000 {
            put(&mut buckets, key);
            // The count is what the buckets hold, through every doubling.
            let held = (0..buckets.in_use())
                .step_by(2)
                .map(|i| used(buckets.bucket(i)))
                .sum::<usize>();
            assert_eq!(buckets.stored(), held, "after {key}");
        }
        // Half full at most, each doubling moved what it held: most keys
        // are found where their hash says (a full bucket drops some).
        assert!(buckets.in_use() >= 4000);
        let found = (1..=2000).filter(|&key| find(&buckets, key)).count();
        assert!(found > 1500, "{found}");
        buckets.clear();
        assert_eq!((buckets.stored(), buckets.in_use()), (0, 4));
        assert!(!(1..=2000).any(|key| find(&buckets, key)));
    }
}
