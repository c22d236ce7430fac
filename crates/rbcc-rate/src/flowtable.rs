//! The rows of an RBCC allocated-bandwidth table and the fixed-capacity
//! open-addressing table that stores them, keyed by flow and kind: linear
//! probing from a multiplicative hash, rows stored in place (one cache line
//! touched per lookup at moderate load), backward-shift deletion so that no
//! tombstones accumulate.

use netcond_core::Instant;

use crate::rate::{FixedRate, FlowId};

/// What a table entry stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EntryKind {
    /// A data flow whose packets leave by this interface.
    Data,
    /// The acknowledgements of a flow whose data travels the other way.
    Ack,
}

/// What the table stores per row (32 bytes); the allocation and the bottleneck
/// flag follow from the constraint and the advertised rate, so a recomputation
/// writes nothing per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Row {
    pub(crate) flow: FlowId,
    pub(crate) kind: EntryKind,
    pub(crate) requested: FixedRate,
    pub(crate) elsewhere: FixedRate,
    pub(crate) last_seen: Instant,
}

impl Row {
    #[inline]
    pub(crate) const fn constraint(&self) -> FixedRate {
        self.requested.min(self.elsewhere)
    }
}

/// The key of `flow`'s data row.
#[inline]
pub(crate) const fn data_key(flow: FlowId) -> u64 {
    flow as u64
}

/// The key of `flow`'s ACK row.
#[inline]
pub(crate) const fn ack_key(flow: FlowId) -> u64 {
    (flow as u64) | (1 << 32)
}

/// The key of a row: the flow id in the low 32 bits, bit 32 set for ACK rows.
#[inline]
pub(crate) const fn key_of(e: &Row) -> u64 {
    // The kind's bit or'ed in, rather than a match over `data_key` and
    // `ack_key`: the probe loop evaluates this per row it passes.
    (e.flow as u64)
        | match e.kind {
            EntryKind::Data => 0,
            EntryKind::Ack => 1 << 32,
        }
}

/// Its serde form is read back through [`FlowTableRaw`] and refused unless
/// [`check_slots`](Self::check_slots) accepts it.
#[derive(Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "FlowTableRaw<N>"))]
pub(crate) struct FlowTable<const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "netcond_core::serde_array"))]
    slots: [Option<Row>; N],
    len: usize,
}

/// The fields of a [`FlowTable`] as read, before
/// [`FlowTable::check_slots`] accepts them.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
pub(crate) struct FlowTableRaw<const N: usize> {
    #[serde(with = "netcond_core::serde_array")]
    slots: [Option<Row>; N],
    len: usize,
}

#[cfg(feature = "serde")]
impl<const N: usize> TryFrom<FlowTableRaw<N>> for FlowTable<N> {
    type Error = &'static str;

    fn try_from(raw: FlowTableRaw<N>) -> Result<Self, Self::Error> {
        let t = FlowTable {
            slots: raw.slots,
            len: raw.len,
        };
        t.check_slots()?;
        Ok(t)
    }
}

impl<const N: usize> FlowTable<N> {
    const SHIFT: u32 = {
        assert!(
            N.is_power_of_two() && N >= 2,
            "table capacity N must be a power of two of at least 2"
        );
        64 - N.trailing_zeros()
    };

    pub(crate) const fn new() -> Self {
        let _ = Self::SHIFT;
        FlowTable {
            slots: [None; N],
            len: 0,
        }
    }

    /// The home slot of `key` (Fibonacci hashing: the top bits of one multiply).
    #[inline]
    fn home(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> Self::SHIFT) as usize
    }

    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let mut i = Self::home(key);
        // At most N probes: the table can be full.
        for _ in 0..N {
            match &self.slots[i] {
                Some(e) if key_of(e) == key => return Some(i),
                Some(_) => i = (i + 1) & (N - 1),
                None => return None,
            }
        }
        None
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<&Row> {
        self.find(key).and_then(|i| self.slots[i].as_ref())
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, key: u64) -> Option<&mut Row> {
        match self.find(key) {
            Some(i) => self.slots[i].as_mut(),
            None => None,
        }
    }

    /// Inserts a row whose key is not present; hands it back when full.
    pub(crate) fn insert(&mut self, e: Row) -> Result<(), Row> {
        if self.len == N {
            return Err(e);
        }
        let mut i = Self::home(key_of(&e));
        while self.slots[i].is_some() {
            i = (i + 1) & (N - 1);
        }
        self.slots[i] = Some(e);
        self.len += 1;
        Ok(())
    }

    /// Empties slot `i` and shifts later rows of the probe run back into the gap
    /// when that does not move them before their home slot.
    fn remove_at(&mut self, mut i: usize) {
        self.slots[i] = None;
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & (N - 1);
            let Some(e) = self.slots[j] else { break };
            let home = Self::home(key_of(&e));
            // Distance of j from the row's home, and from the gap.
            if (j.wrapping_sub(home) & (N - 1)) >= (j.wrapping_sub(i) & (N - 1)) {
                self.slots[i] = Some(e);
                self.slots[j] = None;
                i = j;
            }
        }
    }

    pub(crate) fn remove(&mut self, key: u64) -> Option<Row> {
        let i = self.find(key)?;
        let e = self.slots[i];
        self.remove_at(i);
        e
    }

    /// Keeps the rows for which `keep` is true.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Row) -> bool) {
        // A removal can shift a row from the start of the array into a slot
        // already passed (probe runs wrap around), so sweep until a sweep
        // removes nothing.
        loop {
            let mut removed = false;
            let mut i = 0;
            while i < N {
                match &self.slots[i] {
                    Some(e) if !keep(e) => {
                        self.remove_at(i);
                        removed = true;
                    }
                    _ => i += 1,
                }
            }
            if !removed {
                break;
            }
        }
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &Row> + '_ {
        self.slots.iter().flatten()
    }

    /// The table's own rules, which every state reached by the methods keeps
    /// and on which they rely not to loop or underflow: the count is the
    /// number of rows, and every row is the one found from its key (its probe
    /// run from its home slot has no gap, and no key is stored twice).
    /// Returns the first rule broken.
    #[cfg(any(test, feature = "serde"))]
    pub(crate) fn check_slots(&self) -> Result<(), &'static str> {
        if self.values().count() != self.len {
            return Err("the row count is not the number of rows");
        }
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(e) = slot else { continue };
            match self.find(key_of(e)) {
                Some(j) if j == i => {}
                Some(_) => return Err("a key is stored twice"),
                None => return Err("a row is cut off from its home slot by an empty slot"),
            }
        }
        Ok(())
    }

    /// True when every row is found from its key (the probe runs are intact).
    #[cfg(test)]
    pub(crate) fn consistent(&self) -> bool {
        self.check_slots().is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcond_core::{RandomSource, SplitMix64};

    fn row(flow: u32, ack: bool) -> Row {
        Row {
            flow,
            kind: if ack { EntryKind::Ack } else { EntryKind::Data },
            requested: FixedRate::from_bps(u64::from(flow)),
            elsewhere: FixedRate::UNLIMITED,
            last_seen: Instant::ZERO,
        }
    }

    #[test]
    fn a_slot_is_32_bytes() {
        assert_eq!(core::mem::size_of::<Option<Row>>(), 32);
    }

    #[test]
    fn matches_a_reference_map_under_random_operations() {
        let mut r = SplitMix64::new(1);
        // Miri interprets every instruction: fewer and shorter runs there.
        let (runs, ops) = if cfg!(miri) { (2, 40) } else { (200, 300) };
        for _ in 0..runs {
            let mut t: FlowTable<16> = FlowTable::new();
            let mut model = std::collections::BTreeMap::new();
            let keys = 1 + r.below(40);
            for _ in 0..ops {
                let e = row(r.below(keys), r.chance(1 << 30));
                let k = key_of(&e);
                match r.below(4) {
                    0 | 1 => {
                        if model.contains_key(&k) {
                            continue;
                        }
                        let full = model.len() == 16;
                        assert_eq!(t.insert(e).is_err(), full);
                        if !full {
                            model.insert(k, e);
                        }
                    }
                    2 => assert_eq!(t.remove(k), model.remove(&k)),
                    _ => {
                        let cut = r.below(keys);
                        t.retain(|e| e.flow >= cut);
                        model.retain(|_, e| e.flow >= cut);
                    }
                }
                assert!(t.consistent());
                assert_eq!(t.len(), model.len());
                for (k, e) in &model {
                    assert_eq!(t.get(*k), Some(e));
                }
            }
        }
    }
}
