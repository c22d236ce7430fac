//! The C test `tests/c/rbcc_test.c`, of RBCC (TRUMP) and RCP: its cases, and
//! its seeded streams against the same streams through the Rust API.

use super::*;
use rbcc_rate::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};

const PACKETS: u32 = 100_000;
const FNV: u64 = 0x0100_0000_01b3;

/// The C side's streams.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for (model, ack_model) in [AckModel::OutsideLoad, AckModel::Coupled]
        .into_iter()
        .enumerate()
    {
        let p = RbccProfile::new(
            &RbccConfig::new(NodeId(7), Rate::from_bits_per_sec(10_000_000), 40, 1500)
                .with_ack_model(ack_model)
                .with_idle_timeout(Duration::from_secs(2))
                .with_tick(HZ),
        )
        .unwrap();
        let mut table = Box::new(RbccInterface::<256>::new(&p, Instant::ZERO));
        let mut rng = Rng(seed);
        let (mut now, mut hash, mut full) = (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64);
        for i in 0..PACKETS {
            let r = rng.next_u64();
            let flow = (r % 160) as u32;
            now += (r >> 10) % 200_000;
            let requested = if flow % 4 == 0 {
                FixedRate::from_raw(u64::MAX)
            } else {
                FixedRate::from_raw((u64::from(flow * 7919 % 3_000_000) + 1000) << 16)
            };
            let mut h = RateHeader::new(requested);
            full += u64::from(table.on_data(&p, t(now), flow, &mut h).is_err());
            hash = (hash ^ h.rate.raw() ^ (u64::from(h.bottleneck.0) << 60)).wrapping_mul(FNV);
            let mut a = AckHeader {
                rate: h.rate,
                bottleneck: h.bottleneck,
            };
            if (r >> 50) & 1 == 1 {
                table.on_return(&p, t(now), flow, &a);
            }
            if (r >> 51) & 3 == 0 {
                full += u64::from(table.on_ack(&p, t(now), flow ^ 1, &mut a).is_err());
                hash = (hash ^ a.rate.raw()).wrapping_mul(FNV);
            }
            if (r >> 53) & 63 == 0 {
                hash = (hash ^ u64::from(table.close(&p, flow))).wrapping_mul(FNV);
            }
            if i % 1000 == 999 {
                hash = (hash ^ table.expire(&p, t(now)) as u64).wrapping_mul(FNV);
            }
            hash = (hash ^ table.advertised().raw()).wrapping_mul(FNV);
        }
        lines.push(format!("rbcc{model} {full} {} {hash:016x}", table.len()));
    }
    lines.push(rcp_stream(seed));
    lines
}

/// The C side's RCP stream.
fn rcp_stream(seed: u64) -> String {
    use rbcc_rate::{Rcp, RcpConfig, RcpProfile};
    let p = RcpProfile::new(
        &RcpConfig::new(
            NodeId(9),
            Rate::from_bits_per_sec(10_000_000),
            Duration::from_millis(100),
        )
        .with_alpha((1, 10))
        .with_beta((1, 1))
        .with_interval(Duration::from_millis(10))
        .with_initial(Rate::from_bits_per_sec(10_000_000))
        .with_min_rate(Rate::from_bits_per_sec(1))
        .with_tick(HZ),
    )
    .unwrap();
    let mut m = Rcp::new(&p, t(0));
    let mut rng = Rng(seed);
    let (mut now, mut hash, mut q, mut updates) = (0u64, 0xcbf2_9ce4_8422_2325u64, 0u64, 0u64);
    for i in 0..PACKETS {
        let r = rng.next_u64();
        let len = 64 + (r % 1455) as u32;
        let bps = 5_000_000 + u64::from(i / 20_000 % 3) * 5_000_000;
        now += u64::from(len) * 8 * 1_000_000_000 / bps;
        q += u64::from(len);
        q = q.saturating_sub(1250);
        let requested = if (r >> 32) % 2 == 1 {
            FixedRate::from_raw(u64::MAX)
        } else {
            FixedRate::from_raw(((r >> 40) % 20_000_000 + 1) << 16)
        };
        let mut h = RateHeader::new(requested);
        m.on_arrival(&p, t(now), len);
        let _ = m.on_data(&p, t(now), 0, &mut h);
        updates += u64::from(m.control(&p, t(now), q));
        hash = (hash ^ h.rate.raw() ^ (u64::from(h.bottleneck.0) << 60)).wrapping_mul(FNV);
    }
    format!("rcp {updates} {} {hash:016x}", m.rate().raw())
}

#[test]
fn rbcc_cases_errors_and_bad_arguments() {
    c_cases("rbcc_test", "all RBCC cases passed");
}

#[test]
fn rbcc_streams_through_c_equal_streams_through_rust() {
    c_streams("rbcc_test", [9u64, 0xabcd_ef01], rust_streams, |_| {});
}
