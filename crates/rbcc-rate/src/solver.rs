//! A network-level max-min solver: the allocation the distributed per-interface
//! computation must converge to. For tests and simulators; allocation-free
//! (const-generic capacities) and deliberately plain rather than fast.

use crate::config::AckModel;
use crate::rate::FixedRate;

/// How a flow uses a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LinkUse {
    /// Not at all.
    #[default]
    None,
    /// The flow's data crosses it.
    Data,
    /// The flow's acknowledgements cross it.
    Ack,
}

/// Why a network description was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum NetworkError {
    /// All `L` links are in use.
    TooManyLinks,
    /// All `F` flows are in use.
    TooManyFlows,
    /// A route names a link that was not added.
    NoSuchLink,
}

/// A network of at most `L` directed links and `F` flows, each flow with a
/// requested rate, the links its data crosses and the links its ACKs cross.
#[derive(Clone, Debug)]
pub struct Network<const L: usize, const F: usize> {
    capacity: [u64; L],
    links: usize,
    requested: [u64; F],
    usage: [[LinkUse; L]; F],
    flows: usize,
    k_num: u64,
    k_den: u64,
    model: AckModel,
}

/// Why [`Network::try_solve`] gave no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SolveError<const F: usize> {
    /// The ACK-load iteration did not settle (see [`Network::solve`]); the last
    /// iterate, lowered to stay feasible, which need not be max-min.
    NotConverged([FixedRate; F]),
}

/// Extra fractional bits the ACK-load fixed point is computed with.
pub const EXTRA_BITS: u32 = 16;

/// Plain iterations of the ACK-load fixed point, followed by as many damped
/// ones before the solver gives up.
pub const MAX_ACK_ITERATIONS: usize = 2000;

impl<const L: usize, const F: usize> Network<L, F> {
    /// An empty network whose ACKs are `ack_bytes` per `data_bytes` of data
    /// (`data_bytes` zero is taken as one), counted as `model` says.
    #[must_use]
    pub fn new(ack_bytes: u32, data_bytes: u32, model: AckModel) -> Self {
        let d = u64::from(data_bytes.max(1));
        let a = u64::from(ack_bytes);
        let g = netcond_core::gcd(a, d).max(1);
        Network {
            capacity: [0; L],
            links: 0,
            requested: [0; F],
            usage: [[LinkUse::None; L]; F],
            flows: 0,
            k_num: a / g,
            k_den: d / g,
            model,
        }
    }

    /// Adds a link of capacity `c`; returns its index.
    ///
    /// # Errors
    /// [`NetworkError::TooManyLinks`] when `L` links exist.
    pub fn add_link(&mut self, c: FixedRate) -> Result<usize, NetworkError> {
        if self.links == L {
            return Err(NetworkError::TooManyLinks);
        }
        self.capacity[self.links] = c.raw();
        self.links += 1;
        Ok(self.links - 1)
    }

    /// Adds a flow asking for `requested`, its data crossing `data` and its ACKs
    /// crossing `acks`; returns its index.
    ///
    /// # Errors
    /// [`NetworkError::TooManyFlows`] or [`NetworkError::NoSuchLink`].
    pub fn add_flow(
        &mut self,
        requested: FixedRate,
        data: &[usize],
        acks: &[usize],
    ) -> Result<usize, NetworkError> {
        if self.flows == F {
            return Err(NetworkError::TooManyFlows);
        }
        if data.iter().chain(acks).any(|&l| l >= self.links) {
            return Err(NetworkError::NoSuchLink);
        }
        let f = self.flows;
        self.usage[f] = [LinkUse::None; L];
        for &l in acks {
            self.usage[f][l] = LinkUse::Ack;
        }
        for &l in data {
            self.usage[f][l] = LinkUse::Data;
        }
        self.requested[f] = requested.raw();
        self.flows += 1;
        Ok(f)
    }

    /// Number of flows.
    #[must_use]
    pub fn flows(&self) -> usize {
        self.flows
    }

    /// Number of links.
    #[must_use]
    pub fn links(&self) -> usize {
        self.links
    }

    /// The capacity of link `l` (zero if absent).
    #[must_use]
    pub fn capacity(&self, l: usize) -> FixedRate {
        FixedRate::from_raw(if l < self.links { self.capacity[l] } else { 0 })
    }

    /// How flow `f` uses link `l`.
    #[must_use]
    pub fn usage(&self, f: usize, l: usize) -> LinkUse {
        if f < self.flows && l < self.links {
            self.usage[f][l]
        } else {
            LinkUse::None
        }
    }

    /// The requested rate of flow `f`.
    #[must_use]
    pub fn requested(&self, f: usize) -> FixedRate {
        FixedRate::from_raw(if f < self.flows { self.requested[f] } else { 0 })
    }

    /// The ACK/data ratio `(num, den)`, reduced.
    #[must_use]
    pub fn ack_ratio(&self) -> (u64, u64) {
        (self.k_num, self.k_den)
    }

    /// The ACK model.
    #[must_use]
    pub fn ack_model(&self) -> AckModel {
        self.model
    }

    fn weight(&self, u: LinkUse, coupled: bool) -> u128 {
        match u {
            LinkUse::None => 0,
            LinkUse::Data => u128::from(self.k_den),
            LinkUse::Ack if coupled => u128::from(self.k_num),
            LinkUse::Ack => 0,
        }
    }

    /// Outside load of link `l` (scaled by the ratio's denominator) for rates `x`.
    fn outside(&self, l: usize, x: &[u128; F]) -> u128 {
        if self.model != AckModel::OutsideLoad {
            return 0;
        }
        (0..self.flows)
            .filter(|&f| self.usage[f][l] == LinkUse::Ack)
            .map(|f| u128::from(self.k_num) * x[f])
            .sum()
    }

    /// Progressive filling with the given outside loads (scaled by `k_den`):
    /// raise every unfrozen flow together; freeze flows at their requested rate
    /// or when a link they use is full. Levels round down.
    /// `shift` extra fractional bits are carried (rates in units of
    /// 2^-(16 + shift) bit/s); the result is in those units.
    fn fill(&self, outside: &[u128; L], shift: u32) -> [u128; F] {
        let coupled = self.model == AckModel::Coupled;
        let den = u128::from(self.k_den);
        let mut x = [0u128; F];
        let req = |f: usize| u128::from(self.requested[f]) << shift;
        let mut frozen = [false; F];
        let mut left = self.flows;
        while left > 0 {
            let mut level = [u128::MAX; L];
            let mut best = u128::MAX;
            for (l, lv) in level.iter_mut().enumerate().take(self.links) {
                let mut w = 0u128;
                let mut used = outside[l];
                for f in 0..self.flows {
                    let wf = self.weight(self.usage[f][l], coupled);
                    if frozen[f] {
                        used += wf * x[f];
                    } else {
                        w += wf;
                    }
                }
                if let Some(v) = ((u128::from(self.capacity[l]) << shift) * den)
                    .saturating_sub(used)
                    .checked_div(w)
                {
                    *lv = v;
                    best = best.min(v);
                }
            }
            let min_req = (0..self.flows)
                .filter(|&f| !frozen[f])
                .map(req)
                .min()
                .unwrap_or(u128::MAX);
            if min_req < best || best == u128::MAX {
                // Demand-limited flows first; links are revisited afterwards.
                for f in 0..self.flows {
                    if !frozen[f] && req(f) <= min_req {
                        x[f] = req(f);
                        frozen[f] = true;
                        left -= 1;
                    }
                }
                continue;
            }
            for f in 0..self.flows {
                if frozen[f] {
                    continue;
                }
                let held = (0..self.links)
                    .any(|l| level[l] == best && self.weight(self.usage[f][l], coupled) > 0);
                if held || req(f) <= best {
                    x[f] = best.min(req(f));
                    frozen[f] = true;
                    left -= 1;
                }
            }
        }
        x
    }

    /// The max-min fair allocation of every flow (indices as returned by
    /// [`add_flow`](Self::add_flow); entries past [`flows`](Self::flows) are zero).
    ///
    /// [`AckModel::Coupled`], or no ACK load (`k = 0`): weighted progressive
    /// filling (data weight 1, ACK weight `k`), each level rounded down to
    /// 2^-16 bit/s exactly as the interfaces round, so the distributed
    /// computation reaches these very values.
    ///
    /// [`AckModel::OutsideLoad`] with `k > 0`: progressive filling with each
    /// link's ACK load (`k` times the rates of the flows whose ACKs cross it) as
    /// outside load, iterated from zero ACK load to the fixed point, carried with
    /// [`EXTRA_BITS`] more fractional bits and rounded down at the end. The
    /// iteration contracts by a factor of about `k` per round trip of the
    /// coupling (a flow's ACKs slowing a flow whose ACKs slow the first), so with
    /// `k` near one it is slow, and where the coupling's gain reaches one it
    /// oscillates: the first [`MAX_ACK_ITERATIONS`] rounds are plain, the next
    /// [`MAX_ACK_ITERATIONS`] average each round with the previous one (which
    /// damps the oscillation). The interfaces round at every step, so their
    /// rates may differ from these by a few units of 2^-16 bit/s (at most one
    /// per flow sharing a link; see the tests).
    ///
    /// When the fixed point was not reached this returns the last iterate,
    /// lowered to its image where that is lower: feasible, but not necessarily
    /// max-min; [`try_solve`](Self::try_solve) reports that case.
    #[must_use]
    pub fn solve(&self) -> [FixedRate; F] {
        match self.try_solve() {
            Ok(x) | Err(SolveError::NotConverged(x)) => x,
        }
    }

    /// [`solve`](Self::solve), reporting whether the ACK-load fixed point was
    /// reached.
    ///
    /// # Errors
    /// [`SolveError::NotConverged`] (with the feasible last iterate that
    /// [`solve`](Self::solve) returns) when, under
    /// [`AckModel::OutsideLoad`] with `k > 0`, two successive iterates still
    /// differ by more than one unit of 2^-(16 + [`EXTRA_BITS`]) bit/s after
    /// `2` [`MAX_ACK_ITERATIONS`] rounds.
    pub fn try_solve(&self) -> Result<[FixedRate; F], SolveError<F>> {
        let coupled_or_free = self.model == AckModel::Coupled || self.k_num == 0;
        let shift = if coupled_or_free { 0 } else { EXTRA_BITS };
        let round = |x: [u128; F]| {
            x.map(|v| FixedRate::from_raw(u64::try_from(v >> shift).unwrap_or(u64::MAX)))
        };
        if coupled_or_free {
            let x = self.fill(&[0; L], 0);
            return Ok(round(x));
        }
        let mut x = [0u128; F];
        for i in 0..2 * MAX_ACK_ITERATIONS {
            let mut outside = [0u128; L];
            for (l, o) in outside.iter_mut().enumerate().take(self.links) {
                *o = self.outside(l, &x);
            }
            let mut next = self.fill(&outside, shift);
            if next.iter().zip(&x).all(|(a, b)| a.abs_diff(*b) <= 1) {
                return Ok(round(next));
            }
            if i >= MAX_ACK_ITERATIONS {
                // Damped rounds: the mean of the last iterate and its image.
                for (n, o) in next.iter_mut().zip(&x) {
                    *n = (*n + *o) / 2;
                }
            }
            x = next;
        }
        // Not settled: each rate lowered to its image where that is lower. The
        // image fits the capacity left by the ACK load of `x`, and lower rates
        // carry less ACK load, so this is feasible (though not max-min).
        let mut outside = [0u128; L];
        for (l, o) in outside.iter_mut().enumerate().take(self.links) {
            *o = self.outside(l, &x);
        }
        let image = self.fill(&outside, shift);
        for (v, i) in x.iter_mut().zip(&image) {
            *v = (*v).min(*i);
        }
        Err(SolveError::NotConverged(round(x)))
    }
}
