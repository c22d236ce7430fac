//! The flow scheduler that FQ-CoDel (RFC 8290 section 4) and FQ-PIE share:
//! deficit round robin over `N` flow queues kept on a list of new flows and a
//! list of old flows, generic over the AQM each flow runs. The scheduler only
//! keeps the lists, the deficits and the packet and byte counts; when each
//! flow's AQM decides (CoDel at dequeue, PIE at enqueue) and how the counts
//! saturate is the queue's own business.

/// The end of a list, and "no flow".
pub(crate) const NIL: u16 = u16::MAX;

/// Which list a flow is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) enum ListId {
    Neither,
    New,
    Old,
}

/// One flow queue: its AQM, DRR deficit, backlog and link on a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct FlowQueue<A> {
    pub(crate) aqm: A,
    pub(crate) deficit: i64,
    pub(crate) bytes: u64,
    pub(crate) packets: u32,
    pub(crate) next: u16,
    pub(crate) list: ListId,
}

/// A singly linked list of flows through [`FlowQueue::next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct List {
    pub(crate) head: u16,
    pub(crate) tail: u16,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };
}

/// DRR over `N` flows (`0 < N < 65535`), each running an `A`.
///
/// Its serde form is read back through [`DrrRaw`] and refused unless
/// [`check_links`](Self::check_links) accepts it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        bound(
            serialize = "A: serde::Serialize",
            deserialize = "A: serde::Deserialize<'de> + Copy"
        ),
        try_from = "DrrRaw<A, N>"
    )
)]
pub(crate) struct Drr<A, const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "netcond_core::serde_array"))]
    pub(crate) flows: [FlowQueue<A>; N],
    pub(crate) new_flows: List,
    pub(crate) old_flows: List,
    /// Packets queued over all flows.
    pub(crate) packets: u32,
    /// Bytes queued over all flows.
    pub(crate) bytes: u64,
}

/// The fields of a [`Drr`] as read, before [`Drr::check_links`] accepts them.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: serde::Deserialize<'de> + Copy"))]
pub(crate) struct DrrRaw<A, const N: usize> {
    #[serde(with = "netcond_core::serde_array")]
    flows: [FlowQueue<A>; N],
    new_flows: List,
    old_flows: List,
    packets: u32,
    bytes: u64,
}

#[cfg(feature = "serde")]
impl<A, const N: usize> TryFrom<DrrRaw<A, N>> for Drr<A, N> {
    type Error = &'static str;

    fn try_from(raw: DrrRaw<A, N>) -> Result<Self, Self::Error> {
        let drr = Drr {
            flows: raw.flows,
            new_flows: raw.new_flows,
            old_flows: raw.old_flows,
            packets: raw.packets,
            bytes: raw.bytes,
        };
        drr.check_links()?;
        Ok(drr)
    }
}

impl<A: Copy, const N: usize> Drr<A, N> {
    /// Every flow empty, on no list, running a copy of `aqm`.
    pub(crate) fn new(aqm: A) -> Drr<A, N> {
        const {
            assert!(
                N > 0 && N < NIL as usize,
                "a flow queue needs 0 < N < 65535 flows"
            )
        };
        let flow = FlowQueue {
            aqm,
            deficit: 0,
            bytes: 0,
            packets: 0,
            next: NIL,
            list: ListId::Neither,
        };
        Drr {
            flows: [flow; N],
            new_flows: List::EMPTY,
            old_flows: List::EMPTY,
            packets: 0,
            bytes: 0,
        }
    }
}

impl<A, const N: usize> Drr<A, N> {
    /// The scheduler's own rules, which every state reached by the methods
    /// keeps and on which they rely not to index out of range or loop: both
    /// lists well formed (every link in range, no cycle, the tail the last
    /// flow, no flow twice, each flow marked as on the list it is on), every
    /// flow marked as on a list on it, every flow holding packets on a list,
    /// a flow on no list linked to nothing, and the totals the sums over the
    /// flows. Returns the first rule broken.
    #[cfg(any(test, feature = "serde", feature = "invariants"))]
    pub(crate) fn check_links(&self) -> Result<(), &'static str> {
        let mut seen = [false; N];
        for (list, id) in [(self.new_flows, ListId::New), (self.old_flows, ListId::Old)] {
            let mut cur = list.head;
            let mut last = NIL;
            while cur != NIL {
                let Some(fl) = self.flows.get(usize::from(cur)) else {
                    return Err("a list names a flow out of range");
                };
                let f = usize::from(cur);
                if seen[f] {
                    return Err("a flow appears twice on the lists, or a list has a cycle");
                }
                seen[f] = true;
                if fl.list != id {
                    return Err("a flow is on a list it is not marked as on");
                }
                last = cur;
                cur = fl.next;
            }
            if list.tail != last {
                return Err("a list's tail is not its last flow");
            }
        }
        let (mut packets, mut bytes) = (0u64, 0u128);
        for (fl, on_list) in self.flows.iter().zip(seen) {
            if (fl.list != ListId::Neither) != on_list {
                return Err("a flow is marked as on a list it is not on");
            }
            if fl.list == ListId::Neither && fl.next != NIL {
                return Err("a flow on no list links to another");
            }
            if fl.packets > 0 && fl.list == ListId::Neither {
                return Err("a flow holding packets is on no list");
            }
            packets += u64::from(fl.packets);
            bytes += u128::from(fl.bytes);
        }
        if packets != u64::from(self.packets) || bytes != u128::from(self.bytes) {
            return Err("the totals are not the sums over the flows");
        }
        Ok(())
    }

    /// Flow `f` received a packet: a flow on neither list joins the tail of
    /// the new flows with a quantum of credit (RFC 8290 section 4.1).
    pub(crate) fn activate(&mut self, f: usize, quantum: u32) {
        if self.flows[f].list == ListId::Neither {
            self.push_tail(ListId::New, f);
            self.flows[f].deficit = i64::from(quantum);
        }
    }

    /// The flow whose head packet to take next, or `None` when every listed
    /// flow is empty (RFC 8290 section 4.2, as Linux's `fq_codel_dequeue` and
    /// `fq_pie_qdisc_dequeue` run it): new flows first; a flow out of credit
    /// (deficit at zero or below, RFC 8290 section 3 and Linux; section 4.2's
    /// wording is "negative") gets a quantum and goes to the tail of the old
    /// flows; an empty flow is handed to `on_empty` and then retired (see
    /// [`retire`](Self::retire)).
    pub(crate) fn next_flow<E>(&mut self, quantum: u32, mut on_empty: E) -> Option<usize>
    where
        E: FnMut(&mut A),
    {
        let mut refills = 0usize;
        loop {
            let head = if self.new_flows.head != NIL {
                self.new_flows.head
            } else if self.old_flows.head != NIL {
                self.old_flows.head
            } else {
                return None;
            };
            let f = usize::from(head);
            let fl = &mut self.flows[f];
            if fl.deficit <= 0 {
                fl.deficit = fl.deficit.saturating_add(i64::from(quantum));
                self.unlink(f);
                self.push_tail(ListId::Old, f);
                refills += 1;
                if refills >= N {
                    refills = 0;
                    self.skip_rounds(quantum);
                }
                continue;
            }
            if fl.packets == 0 {
                on_empty(&mut fl.aqm);
                self.retire(f);
                continue;
            }
            return Some(f);
        }
    }

    /// After a full round in which every flow was only refilled (deficits far
    /// below zero after huge packets and a small quantum), adds the rounds
    /// that would refill every flow again before any turns positive, all at
    /// once: the same deficits and order as one refill at a time, in O(N).
    fn skip_rounds(&mut self, quantum: u32) {
        if self.new_flows.head != NIL {
            return;
        }
        let q = i128::from(quantum);
        let mut rounds = i128::MAX;
        let mut cur = self.old_flows.head;
        // At most N flows are listed; a flow with credit gives at most 0
        // rounds, which ends the skip below.
        for _ in 0..N {
            let Some(fl) = self.flows.get(usize::from(cur)) else {
                break;
            };
            // Refills until positive: ceil((1 - d) / q).
            rounds = rounds.min((1 - i128::from(fl.deficit) + q - 1) / q);
            cur = fl.next;
        }
        if rounds < 2 || rounds == i128::MAX {
            return;
        }
        let add = i64::try_from((rounds - 1) * q).unwrap_or(i64::MAX);
        let mut cur = self.old_flows.head;
        for _ in 0..N {
            let Some(fl) = self.flows.get_mut(usize::from(cur)) else {
                break;
            };
            fl.deficit = fl.deficit.saturating_add(add);
            cur = fl.next;
        }
    }

    /// An empty flow found by the scheduler: Linux moves it from the new flows
    /// to the old ones if there are old flows, and otherwise takes it off its
    /// list. (RFC 8290 section 4.2 moves an empty new flow to the old list
    /// whether or not old flows exist.)
    pub(crate) fn retire(&mut self, f: usize) {
        let was_new = self.flows[f].list == ListId::New;
        self.unlink(f);
        if was_new && self.old_flows.head != NIL {
            self.push_tail(ListId::Old, f);
        }
    }

    fn list_mut(&mut self, id: ListId) -> Option<&mut List> {
        match id {
            ListId::Neither => None,
            ListId::New => Some(&mut self.new_flows),
            ListId::Old => Some(&mut self.old_flows),
        }
    }

    fn push_tail(&mut self, id: ListId, f: usize) {
        let idx = f as u16;
        self.flows[f].next = NIL;
        self.flows[f].list = id;
        let Some(list) = self.list_mut(id) else {
            return;
        };
        let tail = core::mem::replace(&mut list.tail, idx);
        if tail == NIL {
            list.head = idx;
        } else if let Some(t) = self.flows.get_mut(usize::from(tail)) {
            t.next = idx;
        }
    }

    /// Takes flow `f` off its list (O(1) at the head, where the scheduler
    /// always finds it).
    fn unlink(&mut self, f: usize) {
        let idx = f as u16;
        let id = self.flows[f].list;
        let next = self.flows[f].next;
        self.flows[f].list = ListId::Neither;
        self.flows[f].next = NIL;
        let Some(list) = self.list_mut(id) else {
            return;
        };
        let (head, tail) = (list.head, list.tail);
        if head == idx {
            list.head = next;
            if tail == idx {
                list.tail = NIL;
            }
            return;
        }
        // Not at the head: walk to the predecessor.
        let mut prev = head;
        let mut steps = 0;
        while prev != NIL && steps < N {
            let p = usize::from(prev);
            if self.flows[p].next == idx {
                self.flows[p].next = next;
                if tail == idx {
                    if let Some(list) = self.list_mut(id) {
                        list.tail = prev;
                    }
                }
                return;
            }
            prev = self.flows[p].next;
            steps += 1;
        }
    }
}
