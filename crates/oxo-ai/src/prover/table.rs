//! The prover's transposition table: proven results with their zones.
//!
//! Entries hold the whole canonical position (both stone sets and who is
//! to move), never just a hash, so a hit is always the same position. A
//! result is final (proofs have no depth), so an entry is never updated,
//! only replaced: each bucket of two keeps the entry with the larger
//! subtree in its first slot and the latest in its second.

use crate::buckets::{Buckets, Slot};

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

/// The prover's table: [`Entry`]s packed as four words ([`Packed`]) in
/// buckets of two ([`Buckets`]).
#[derive(Debug)]
pub(super) struct Table {
    slots: Buckets<Packed>,
}

/// Entries in use from the start: 16 KiB, so that making a prover costs
/// little (`Solver::value` makes one for its first question on boards of
/// over 30 cells, where 128 KiB took 45–95 µs of a 1.1 ms value).
const FIRST_LEN: usize = 1 << 8;

/// An entry as the table holds it: maker, breaker, zone, then the flags
/// and empties in the last word's low bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Packed([u128; 4]);

impl Entry {
    #[inline]
    fn pack(self) -> Packed {
        Packed([
            self.maker,
            self.breaker,
            self.zone,
            u128::from(self.flags) | u128::from(self.empties) << 8,
        ])
    }
}

impl Packed {
    #[inline]
    fn unpack(self) -> Entry {
        let [maker, breaker, zone, rest] = self.0;
        Entry {
            maker,
            breaker,
            zone,
            flags: rest as u8,
            empties: (rest >> 8) as u8,
        }
    }

    #[inline]
    fn flags(self) -> u8 {
        self.0[3] as u8
    }
}

impl Slot for Packed {
    #[inline]
    fn is_used(&self) -> bool {
        self.flags() & USED != 0
    }

    #[inline]
    fn home(&self, mask: usize) -> usize {
        home(self.0[0], self.0[1], self.flags() & MAKER_TO_MOVE, mask)
    }
}

/// The first index of the bucket for this position under `mask`.
#[inline]
fn home(maker: u128, breaker: u128, turn: u8, mask: usize) -> usize {
    let fold = |x: u128| (x as u64) ^ ((x >> 64) as u64).rotate_left(23);
    let mut h = fold(maker).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ fold(breaker)
            .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            .rotate_left(29)
        ^ u64::from(turn);
    h ^= h >> 32;
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^= h >> 32;
    (h as usize) & mask
}

impl Table {
    /// A table of at most `bytes` bytes (at least one bucket), or `None`
    /// if that much memory cannot be had.
    pub fn with_bytes(bytes: usize) -> Option<Table> {
        Some(Table {
            slots: Buckets::with_bytes(bytes, FIRST_LEN)?,
        })
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.slots.bytes()
    }

    /// The entry for this position, if stored. `turn` is `MAKER_TO_MOVE`
    /// or 0.
    #[inline]
    pub fn get(&self, maker: u128, breaker: u128, turn: u8) -> Option<Entry> {
        let i = home(maker, breaker, turn, self.slots.mask());
        self.slots
            .bucket(i)
            .iter()
            .find(|e| {
                e.flags() & (USED | MAKER_TO_MOVE) == USED | turn
                    && e.0[0] == maker
                    && e.0[1] == breaker
            })
            .map(|e| e.unpack())
    }

    /// Store `entry` (its flags with `USED`): first in its bucket if its
    /// subtree is at least as large as the first's, which moves to second;
    /// else second.
    pub fn put(&mut self, entry: Entry) {
        let packed = entry.pack();
        let i = packed.home(self.slots.mask());
        self.slots.store(i, |bucket| {
            // A doubling can leave the second slot used and the first
            // empty: fill the first, keeping the second.
            if !bucket[0].is_used() {
                bucket[0] = packed;
            } else if entry.empties >= bucket[0].unpack().empties {
                bucket[1] = bucket[0];
                bucket[0] = packed;
            } else {
                bucket[1] = packed;
            }
        });
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.slots.clear();
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
        assert_eq!(table.slots.in_use(), 16 * FIRST_LEN);
        let found = held(&table, n);
        assert!(found > n * 3 / 4, "{found} of {n}");
        // Filled past its end, the table keeps working.
        for i in n..8 * n {
            table.put(entry(i));
        }
        assert_eq!(table.slots.in_use(), table.slots.len());
        assert!(held(&table, 8 * n) > 8 * n / 2);
        table.clear();
        assert_eq!((table.slots.stored(), table.slots.in_use()), (0, FIRST_LEN));
        assert_eq!(held(&table, 8 * n), 0);
    }
}
