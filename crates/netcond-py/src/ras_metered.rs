//! RFC 2963's plain rate adaptive shaper (srRAS, trRAS) followed by its
//! downstream meter: the shaper does not read the meter, and each released
//! packet is colored by it (color-blind), as ras-shaper's `MeteredRasShaper`.

use crate::bulk;
use crate::bulk::COLORS;
use crate::markers::{SrTcmProfilePy, TrTcmProfilePy};
use crate::ras::RasProfilePy;
use crate::ras_green::{Meter, Shaped};
use crate::shared;
use netcond::base::Instant;
use netcond::ras::{GreenMeter, Ras};
use netcond::trtcm::{SrTcm, TrTcm};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Packets a metered shaper's FIFO holds at most (besides its buffer size).
pub const CAPACITY: usize = 4096;

crate::ras_green::meter_shaper_class!(
/// A plain RAS (srRAS or trRAS, as its `RasProfile`) followed by a meter, an
/// `SrTcm` or `TrTcm` given by its profile, which colors each released packet
/// (color-blind). The shaper does not read the meter: its releases are those
/// of a `Ras` of the same profile.
///
/// `MeteredRas(profile, meter, now=0)`; `enqueue(now, length)` -> accepted
/// (False: the buffer, or 4096 packets, is full); `next_release`;
/// `dequeue(now)` -> `(length, Color)` if the head is due, else None.
/// `shape(now, length)` runs a whole non-decreasing arrival stream through an
/// empty shaper (each head released at its release instant, before an
/// arrival at the same instant), with the GIL released, and gives
/// `(departures, accepted, colors)`: uint64 departures (2**64 - 1 where
/// dropped), bool, and uint8 colors (255 where dropped).
///
/// >>> import netcond
/// >>> p = netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64000)
/// >>> m = netcond.SrTcmProfile(cir="1mbit", cbs=3000, ebs=3000)
/// >>> s = netcond.MeteredRas(p, m)
/// >>> s.enqueue(0, 1500), s.enqueue(0, 1500)
/// (True, True)
/// >>> s.dequeue(0)
/// (1500, <Color.GREEN: 0>)
/// >>> s.dequeue(s.next_release)
/// (1500, <Color.GREEN: 0>)
    name = "MeteredRas",
    MeteredRasPy,
    Ras,
    |r| r.len()
);

impl MeteredRasPy {
    fn enqueue_one(&mut self, now: u64, length: u32) -> bool {
        let p = self.profile.prof();
        self.state
            .enqueue(&p, Instant::from_ticks(now), length)
            .is_ok()
    }

    /// `MeteredRasShaper`'s dequeue: the shaper releases, the meter colors.
    fn dequeue_one(&mut self, now: u64) -> Option<(u32, u8)> {
        let p = self.profile.prof();
        let t = Instant::from_ticks(now);
        let len = self.state.dequeue(&p, t)?;
        let c = match &mut self.meter {
            Meter::Sr(m, st) => st.color(&m.prof, t, len),
            Meter::Tr(m, st) => st.color(&m.prof, t, len),
        };
        Some((len, c.index() as u8))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MeteredRasPy>()
}
