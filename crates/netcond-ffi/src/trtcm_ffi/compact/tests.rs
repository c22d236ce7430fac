//! The compact states' packet-mode calls against the Rust `Compact` states on
//! packet-mode profiles, packet for packet on seeded random streams.

use netcond_core::SplitMix64;
use trtcm::{Counters, Mode, ThreeColorMarker, TwoBucket};

use super::super::counted::*;
use super::*;
use crate::errors::{NETCOND_E_COMPACT_TOO_LARGE, NETCOND_E_NULL, NETCOND_OK};

type Cfg<S, P> = unsafe extern "C" fn(*mut S, *const P, u64) -> c_int;
type Blind<S, P> = unsafe extern "C" fn(*mut S, *const P, u64) -> netcond_color;
type Aware<S, P> = unsafe extern "C" fn(*mut S, *const P, u64, c_int) -> netcond_color;
type BlindLen<S, P> = unsafe extern "C" fn(*mut S, *const P, u64, u32) -> netcond_color;
type AwareLen<S, P> = unsafe extern "C" fn(*mut S, *const P, u64, u32, c_int) -> netcond_color;
type BlindCounted<S, P> =
    unsafe extern "C" fn(*mut S, *const P, u64, u32, *mut netcond_counters) -> netcond_color;
type AwareCounted<S, P> =
    unsafe extern "C" fn(*mut S, *const P, u64, u32, c_int, *mut netcond_counters) -> netcond_color;
type Read<S> = unsafe extern "C" fn(*const S, *mut netcond_tcm_tokens) -> c_int;

/// One compact state's C calls.
struct Calls<S, P> {
    config: Cfg<S, P>,
    blind_packet: Blind<S, P>,
    aware_packet: Aware<S, P>,
    blind_check: BlindLen<S, P>,
    aware_check: AwareLen<S, P>,
    blind_packet_counted: BlindCounted<S, P>,
    aware_packet_counted: AwareCounted<S, P>,
    read: Read<S>,
}

/// A configured C profile `p` and zeroed state `s` against the Rust
/// `Compact<M>` on `rp`: 200 000 packets, 0 to 40 us apart (a step back now
/// and then), each through one of the six calls chosen at random; the same
/// color, the same counts (`parts` of the Rust state) and at the end the same
/// counters. Returns the colors seen.
fn packet_for_packet<S, P, M: TwoBucket>(
    seed: u64,
    calls: &Calls<S, P>,
    p: &P,
    mut s: S,
    rp: &CompactProfile<M::Profile>,
    parts: impl Fn(&M) -> [u64; 3],
) -> [u64; 3]
where
    Compact<M>: ThreeColorMarker<Profile = CompactProfile<M::Profile>>,
{
    let mut rs = Compact::<M>::new(rp, Instant::from_ticks(1000));
    // SAFETY: valid pointers.
    assert_eq!(unsafe { (calls.config)(&mut s, p, 1000) }, NETCOND_OK);
    let mut g = SplitMix64::new(seed);
    let (mut ck, mut rk) = (netcond_counters::default(), Counters::default());
    let mut seen = [0u64; 3];
    let mut now = 1000u64;
    for i in 0..200_000 {
        let r = g.next_u64();
        now = if r % 1000 == 0 {
            now.saturating_sub(50_000)
        } else {
            now + (r >> 10) % 40_000
        };
        let t = Instant::from_ticks(now);
        let len = ((r >> 30) % 1519) as u32;
        let pc = ((r >> 45) % 4) as c_int;
        let input = crate::color_in(pc);
        // SAFETY: valid pointers, used by this thread only.
        let (got, want) = unsafe {
            match (r >> 50) % 6 {
                0 => (
                    (calls.blind_packet)(&mut s, p, now),
                    rs.color_blind_packet(rp, t),
                ),
                1 => (
                    (calls.aware_packet)(&mut s, p, now, pc),
                    rs.color_aware_packet(rp, t, input),
                ),
                // A packet-mode profile charges one token whatever the length.
                2 => (
                    (calls.blind_check)(&mut s, p, now, len),
                    rs.color_blind(rp, t, len),
                ),
                3 => (
                    (calls.aware_check)(&mut s, p, now, len, pc),
                    rs.color_aware(rp, t, len, input),
                ),
                4 => {
                    let c = rs.color_blind_packet(rp, t);
                    rk.record(c, len);
                    (
                        (calls.blind_packet_counted)(&mut s, p, now, len, &mut ck),
                        c,
                    )
                }
                _ => {
                    let c = rs.color_aware_packet(rp, t, input);
                    rk.record(c, len);
                    let got = (calls.aware_packet_counted)(&mut s, p, now, len, pc, &mut ck);
                    (got, c)
                }
            }
        };
        assert_eq!(got, netcond_color::from(want), "packet {i}");
        seen[want.index()] += 1;
        let mut tokens = netcond_tcm_tokens::default();
        // SAFETY: valid pointers.
        assert_eq!(unsafe { (calls.read)(&s, &mut tokens) }, NETCOND_OK);
        let w = parts(&rs.to_state());
        assert_eq!([tokens.tc, tokens.te, tokens.last], w, "packet {i}");
    }
    assert_eq!(Counters::from(ck), rk);
    // The same calls on a NULL state or profile answer red and count nothing.
    let before = ck;
    // SAFETY: NULL is allowed.
    unsafe {
        let red = netcond_color::NETCOND_RED;
        assert_eq!((calls.blind_packet)(core::ptr::null_mut(), p, now), red);
        assert_eq!((calls.aware_packet)(&mut s, core::ptr::null(), now, 0), red);
        let null = core::ptr::null_mut();
        assert_eq!((calls.blind_packet_counted)(null, p, now, 1, &mut ck), red);
        let q = core::ptr::null();
        assert_eq!(
            (calls.aware_packet_counted)(&mut s, q, now, 1, 0, &mut ck),
            red
        );
        assert_eq!((calls.config)(&mut s, core::ptr::null(), 0), NETCOND_E_NULL);
    }
    assert_eq!(ck, before);
    seen
}

const CIR: u64 = 50_000;

/// Every color occurred (so the comparison means something).
fn all_colors(seen: [u64; 3]) {
    assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
}

#[test]
fn srtcm_compact_packet_calls_are_the_rust_calls() {
    let params = netcond_srtcm_params {
        cir: CIR,
        cbs: 16,
        ebs: 32,
        tick_hz: 1_000_000_000,
    };
    let mut p = netcond_srtcm_compact_profile { opaque: [0; 32] };
    // SAFETY: valid pointers.
    let rc = unsafe { netcond_srtcm_compact_profile_config_packets(&mut p, &params) };
    assert_eq!(rc, NETCOND_OK);
    let rp = CompactProfile::new(SrTcmProfile::new(&SrTcmConfig::packets(CIR, 16, 32)).unwrap())
        .unwrap();
    assert_eq!(rp.inner().mode(), Mode::Packets);
    let calls = Calls {
        config: netcond_srtcm_compact_config,
        blind_packet: netcond_srtcm_compact_color_blind_packet,
        aware_packet: netcond_srtcm_compact_color_aware_packet,
        blind_check: netcond_srtcm_compact_color_blind_check,
        aware_check: netcond_srtcm_compact_color_aware_check,
        blind_packet_counted: netcond_srtcm_compact_color_blind_packet_counted,
        aware_packet_counted: netcond_srtcm_compact_color_aware_packet_counted,
        read: netcond_srtcm_compact_read,
    };
    let s = netcond_srtcm_compact { opaque: [0; 2] };
    for seed in [1, 0xdead_beef] {
        all_colors(packet_for_packet(seed, &calls, &p, s, &rp, |m: &SrTcm| {
            [m.tc(), m.te(), m.last().ticks()]
        }));
    }
}

#[test]
fn trtcm_compact_packet_calls_are_the_rust_calls() {
    let params = netcond_trtcm_params {
        cir: CIR,
        pir: 2 * CIR,
        cbs: 16,
        pbs: 32,
        tick_hz: 1_000_000_000,
    };
    let mut p = netcond_trtcm_compact_profile { opaque: [0; 32] };
    // SAFETY: valid pointers.
    let rc = unsafe { netcond_trtcm_compact_profile_config_packets(&mut p, &params) };
    assert_eq!(rc, NETCOND_OK);
    let cfg = TrTcmConfig::packets(CIR, 2 * CIR, 16, 32);
    let rp = CompactProfile::new(TrTcmProfile::new(&cfg).unwrap()).unwrap();
    let calls = Calls {
        config: netcond_trtcm_compact_config,
        blind_packet: netcond_trtcm_compact_color_blind_packet,
        aware_packet: netcond_trtcm_compact_color_aware_packet,
        blind_check: netcond_trtcm_compact_color_blind_check,
        aware_check: netcond_trtcm_compact_color_aware_check,
        blind_packet_counted: netcond_trtcm_compact_color_blind_packet_counted,
        aware_packet_counted: netcond_trtcm_compact_color_aware_packet_counted,
        read: netcond_trtcm_compact_read,
    };
    let s = netcond_trtcm_compact { opaque: [0; 2] };
    for seed in [2, 0xfeed_f00d] {
        let seen = packet_for_packet(seed, &calls, &p, s, &rp, |m: &TrTcm| {
            [m.tc(), m.tp(), m.last().ticks()]
        });
        all_colors(seen);
    }
}

#[test]
fn rfc4115_compact_packet_calls_are_the_rust_calls() {
    for (ties, rust_ties) in [(0, Rfc4115Ties::Figure1), (1, Rfc4115Ties::Text)] {
        let params = netcond_rfc4115_params {
            cir: CIR,
            eir: CIR,
            cbs: 16,
            ebs: 32,
            tick_hz: 1_000_000_000,
            ties,
            reserved: 0,
        };
        let mut p = netcond_rfc4115_compact_profile { opaque: [0; 32] };
        // SAFETY: valid pointers.
        let rc = unsafe { netcond_rfc4115_compact_profile_config_packets(&mut p, &params) };
        assert_eq!(rc, NETCOND_OK);
        let cfg = Rfc4115Config::packets(CIR, CIR, 16, 32);
        let rp = CompactProfile::new(Rfc4115Profile::with_ties(&cfg, rust_ties).unwrap()).unwrap();
        let calls = Calls {
            config: netcond_rfc4115_compact_config,
            blind_packet: netcond_rfc4115_compact_color_blind_packet,
            aware_packet: netcond_rfc4115_compact_color_aware_packet,
            blind_check: netcond_rfc4115_compact_color_blind_check,
            aware_check: netcond_rfc4115_compact_color_aware_check,
            blind_packet_counted: netcond_rfc4115_compact_color_blind_packet_counted,
            aware_packet_counted: netcond_rfc4115_compact_color_aware_packet_counted,
            read: netcond_rfc4115_compact_read,
        };
        let s = netcond_rfc4115_compact { opaque: [0; 2] };
        let seen = packet_for_packet(3, &calls, &p, s, &rp, |m: &Rfc4115| {
            [m.tc(), m.te(), m.last().ticks()]
        });
        all_colors(seen);
    }
}

/// A packet-mode bucket of `cbs` packets holds `cbs x scale` units, `scale`
/// being 10^9 / gcd(rate, 10^9) on a nanosecond clock: at 3 packets/s, 16
/// packets are 1.6 x 10^10 units, too many for 32 bits. The compact
/// packet-mode profile refuses it as the Rust `CompactProfile::new` does;
/// the 24-byte packet-mode profile takes it.
#[test]
fn packet_mode_buckets_beyond_32_bits_are_refused() {
    let params = netcond_srtcm_params {
        cir: 3,
        cbs: 16,
        ebs: 0,
        tick_hz: 1_000_000_000,
    };
    let rust = SrTcmProfile::new(&SrTcmConfig::packets(3, 16, 0)).unwrap();
    assert!(CompactProfile::new(rust).is_err());
    let mut p = netcond_srtcm_compact_profile { opaque: [0; 32] };
    let mut wide = netcond_srtcm_profile { opaque: [0; 32] };
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(
            netcond_srtcm_compact_profile_config_packets(&mut p, &params),
            NETCOND_E_COMPACT_TOO_LARGE
        );
        assert_eq!(
            super::super::packets::netcond_srtcm_profile_config_packets(&mut wide, &params),
            NETCOND_OK
        );
        // The refused profile colors nothing green.
        let mut s = netcond_srtcm_compact { opaque: [0; 2] };
        assert_eq!(netcond_srtcm_compact_config(&mut s, &p, 0), NETCOND_E_NULL);
        assert_eq!(
            netcond_srtcm_compact_color_blind_packet(&mut s, &p, 1),
            netcond_color::NETCOND_RED
        );
    }
}
