//! The PCN control loop of seed 000 (sections 2.2 and 2.3): interior nodes mark
//! packets, the egress reads the marks, and its signals reach the ingress (the
//! traffic sources) one RTT later.
//!
//! - [`NodeMeter`]: what the simulator asks of a PCN node's marker: a packet's
//!   new state. Implemented by the pcn-meter crate's markers (through
//!   [`Meter`]).
//! - [`Termination`]: "a flow termination signal will be sent to the traffic
//!   source model for each ET-marked packet"; the flow stops RTT later. A flow
//!   marked again while its signal is on the way is not signalled twice.
//! - [`BlockTimer`]: the egress's admission control of one aggregate (seed 000
//!   section 2.3): the first AS mark blocks the aggregate and starts the
//!   stop-blocking timer; at each timeout the timer restarts if another AS mark
//!   was seen meanwhile, else admission resumes. Block and start signals reach
//!   the ingress RTT later.

use crate::engine::Time;

/// A packet's three-state PCN marking (seed 000 section 1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// Not marked.
    Np,
    /// Admission-stop.
    As,
    /// Excess-traffic.
    Et,
}

/// A PCN node's meter/marker as the simulator drives it.
pub trait NodeMeter {
    /// Meters a packet of `len` bytes arriving at `now` with state `mark`;
    /// returns its new state.
    fn mark(&mut self, now: Time, len: u32, mark: Mark) -> Mark;
}

pub use meter::Meter;

mod meter {
    //! Adapter from the pcn-meter crate's markers to [`NodeMeter`].
    use super::{Mark, NodeMeter};
    use crate::engine::Time;

    /// Which marker a node runs.
    #[derive(Clone, Copy, Debug)]
    pub enum Meter {
        /// Stand-in until the pcn-meter crate lands: the 3sM ET-marker of seed
        /// 000 section 1.2 (fill < size: mark, fill += s).
        Et3sm {
            /// Bucket fill, bytes x 1e9 (exact in ns ticks).
            fill: u128,
            /// Size, same units.
            size: u128,
            /// Rate in bytes per second x 1e9 / 1e9 = bits/8 per ns, scaled.
            rate_bits: u128,
            /// s, same units as fill.
            s: u128,
            /// Last update.
            last: Time,
        },
    }

    impl Meter {
        /// A 3sM ET-marker with `rate_bps`, `size` bytes, slow-down `s` bytes.
        #[must_use]
        pub fn et_3sm(rate_bps: u64, size: u64, s: u64) -> Meter {
            let k: u128 = 8_000_000_000;
            Meter::Et3sm {
                fill: u128::from(size) * k,
                size: u128::from(size) * k,
                rate_bits: u128::from(rate_bps),
                s: u128::from(s) * k,
                last: 0,
            }
        }
    }

    impl NodeMeter for Meter {
        fn mark(&mut self, now: Time, len: u32, mark: Mark) -> Mark {
            match self {
                Meter::Et3sm {
                    fill,
                    size,
                    rate_bits,
                    s,
                    last,
                } => {
                    let k: u128 = 8_000_000_000;
                    let dt = now.saturating_sub(*last);
                    *last = now.max(*last);
                    *fill = (*fill + u128::from(dt) * *rate_bits).min(*size);
                    if mark == Mark::Et {
                        *fill = (*fill + *s).min(*size);
                        return Mark::Et;
                    }
                    let need = u128::from(len) * k;
                    if *fill < need {
                        *fill = (*fill + *s).min(*size);
                        Mark::Et
                    } else {
                        *fill -= need;
                        mark
                    }
                }
            }
        }
    }
}

/// Per-flow termination signalling: one signal per flow, RTT after the mark is
/// seen at the egress.
#[derive(Clone, Debug, Default)]
pub struct Termination {
    /// Signalling delay.
    pub rtt: Time,
    pending: Vec<bool>,
    /// Termination signals sent.
    pub signals: u64,
}

impl Termination {
    /// For `flows` flows (grown on demand) and signalling delay `rtt`.
    #[must_use]
    pub fn new(flows: usize, rtt: Time) -> Termination {
        Termination {
            rtt,
            pending: vec![false; flows],
            signals: 0,
        }
    }

    /// An ET-marked packet of `flow` leaves the network at `now`: returns when the
    /// flow stops, unless a signal for it is already on the way.
    pub fn on_et(&mut self, flow: usize, now: Time) -> Option<Time> {
        if flow >= self.pending.len() {
            self.pending.resize(flow + 1, false);
        }
        if self.pending[flow] {
            return None;
        }
        self.pending[flow] = true;
        self.signals += 1;
        Some(now + self.rtt)
    }
}

/// What the egress's block timer asks the simulator to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockAction {
    /// Nothing.
    None,
    /// The aggregate just became blocked: deliver "block" at the ingress RTT from
    /// now and call [`BlockTimer::on_timeout`] at the given time.
    Block {
        /// When the stop-blocking timer fires.
        timer: Time,
    },
    /// Restart: call [`BlockTimer::on_timeout`] again at the given time.
    Restart {
        /// When the stop-blocking timer fires next.
        timer: Time,
    },
    /// Admission resumes: deliver "start admission" at the ingress RTT from now.
    Admit,
}

/// The egress's stop-blocking timer for one aggregate (seed 000 section 2.3).
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockTimer {
    /// Timeout (seed: 1 s).
    pub timeout: Time,
    blocked: bool,
    seen: bool,
}

impl BlockTimer {
    /// A timer with `timeout`, not blocking.
    #[must_use]
    pub fn new(timeout: Time) -> BlockTimer {
        BlockTimer {
            timeout,
            blocked: false,
            seen: false,
        }
    }

    /// An AS-marked packet of the aggregate reaches the egress at `now`.
    pub fn on_as(&mut self, now: Time) -> BlockAction {
        if self.blocked {
            self.seen = true;
            BlockAction::None
        } else {
            self.blocked = true;
            self.seen = false;
            BlockAction::Block {
                timer: now + self.timeout,
            }
        }
    }

    /// The stop-blocking timer fires at `now`.
    pub fn on_timeout(&mut self, now: Time) -> BlockAction {
        if !self.blocked {
            return BlockAction::None;
        }
        if self.seen {
            self.seen = false;
            BlockAction::Restart {
                timer: now + self.timeout,
            }
        } else {
            self.blocked = false;
            BlockAction::Admit
        }
    }

    /// True while the egress considers the aggregate blocked.
    #[must_use]
    pub fn is_blocked(&self) -> bool {
        self.blocked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};

    #[test]
    fn one_termination_per_flow() {
        let mut t = Termination::new(2, 50 * MS);
        assert_eq!(t.on_et(1, 10), Some(10 + 50 * MS));
        assert_eq!(t.on_et(1, 20), None);
        assert_eq!(t.on_et(5, 30), Some(30 + 50 * MS));
        assert_eq!(t.signals, 2);
    }

    #[test]
    fn block_timer_restarts_while_marks_arrive() {
        let mut b = BlockTimer::new(SEC);
        assert_eq!(b.on_as(0), BlockAction::Block { timer: SEC });
        assert_eq!(b.on_as(SEC / 2), BlockAction::None);
        assert_eq!(b.on_timeout(SEC), BlockAction::Restart { timer: 2 * SEC });
        assert!(b.is_blocked());
        assert_eq!(b.on_timeout(2 * SEC), BlockAction::Admit);
        assert!(!b.is_blocked());
        assert_eq!(b.on_timeout(3 * SEC), BlockAction::None);
    }
}
