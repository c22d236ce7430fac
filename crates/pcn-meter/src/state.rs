//! Every state of this crate as a [`State`](netcond_core::State): started by its `new(&profile,
//! now)`, so that generic code and [`WithProfile`] start any of them the same
//! way.

use netcond_core::{impl_state, Instant, WithProfile};

use crate::edge::{
    CleAdmission, CleAdmissionProfile, DecisionPoint, DecisionProfile, Egress3sm, EgressMeter,
    EgressMeterProfile, StopBlockingProfile, StopBlockingTimer,
};
use crate::{
    AsMarker, AsMarkerProfile, EtMarker, EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Profile,
    ExcessTrafficMeter, ExcessTrafficMeterProfile, NodeMarker, NodeProfile, PcnMark, PcnMeter,
    ThresholdMeter, ThresholdMeterProfile,
};

impl_state!(ThresholdMeter, ThresholdMeterProfile);
impl_state!(ExcessTrafficMeter, ExcessTrafficMeterProfile);
impl_state!(EtMarker, EtMarkerProfile);
impl_state!(EtMarkerSim48, EtMarkerSim48Profile);
impl_state!(AsMarker, AsMarkerProfile);
impl_state!({F: Copy + Eq, const M: usize} EgressMeter<F, M>, EgressMeterProfile);
impl_state!(CleAdmission, CleAdmissionProfile);
impl_state!(StopBlockingTimer, StopBlockingProfile);
impl_state!({K: Copy + Eq, const N: usize} Egress3sm<K, N>, StopBlockingProfile);
impl_state!(DecisionPoint, DecisionProfile);

impl_state!({E: PcnMeter, T: PcnMeter} NodeMarker<E, T>, NodeProfile<E::Profile, T::Profile>);

/// A PCN meter's profile paired with one state, for single-instance users: a
/// [`WithProfile`], metered through [`PcnPair`].
pub type Metered<M> = WithProfile<M>;

/// The per-packet method of a PCN meter paired with its profile
/// ([`Metered`]).
pub trait PcnPair {
    /// Meters one packet; see [`PcnMeter::mark`].
    fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark;
}

impl<M> PcnPair for WithProfile<M>
where
    M: PcnMeter,
{
    #[inline]
    fn mark(&mut self, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        self.state.mark(&self.profile, now, len, mark)
    }
}
