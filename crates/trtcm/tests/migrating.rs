//! The examples of docs/migrating.md ("Coming from DPDK rte_meter/rte_mtr, tc
//! police, tc tbf, P4 meters"), one test per section, run by `cargo test`.

use netcond_core::{ByteSize, Color, ColorTable, Instant, LengthAdjust, Rate, TickRate};
use trtcm::{
    Counters, Mode, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile,
    Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};

/// DPDK rte_meter: `rte_meter_srtcm_params {cir, cbs, ebs}` (bytes per second,
/// bytes), `rte_meter_srtcm_profile_config`, `rte_meter_srtcm_config`,
/// `rte_meter_srtcm_color_blind_check(m, p, time, pkt_len)`; the same for
/// trTCM `{cir, pir, cbs, pbs}` and RFC 4115 `{cir, eir, cbs, ebs}`.
#[test]
fn dpdk_rte_meter() {
    // The TSC as the clock: rte_get_tsc_hz() ticks per second.
    let tsc = TickRate::from_hz(2_300_000_000).unwrap();
    let sr = SrTcmProfile::new(
        &SrTcmConfig::new(Rate::from_bytes_per_sec(46_000_000), 2048, 4096).with_tick(tsc),
    )
    .unwrap();
    let mut m = SrTcm::new(&sr, Instant::from_ticks(1000));
    assert_eq!(
        m.color_blind(&sr, Instant::from_ticks(1000), 2047),
        Color::Green
    );
    assert_eq!(
        m.color_aware(&sr, Instant::from_ticks(1000), 2049, Color::Yellow),
        Color::Yellow
    );

    let tr = TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(46_000_000),
            Rate::from_bytes_per_sec(69_000_000),
            2048,
            4096,
        )
        .with_tick(tsc),
    )
    .unwrap();
    let mut m = TrTcm::new(&tr, Instant::ZERO);
    assert_eq!(m.color_blind(&tr, Instant::ZERO, 4097), Color::Red);

    let r4 = Rfc4115Profile::new(
        &Rfc4115Config::new(
            Rate::from_bytes_per_sec(46_000_000),
            Rate::from_bytes_per_sec(69_000_000),
            2048,
            4096,
        )
        .with_tick(tsc),
    )
    .unwrap();
    let mut m = Rfc4115::new(&r4, Instant::ZERO);
    assert_eq!(m.color_blind(&r4, Instant::ZERO, 4095), Color::Yellow);
}

/// rte_mtr: `packet_mode`, `dscp_table` / `vlan_table` (input colors),
/// `rte_mtr_meter_profile_update`, `rte_mtr_stats_read`.
#[test]
fn dpdk_rte_mtr() {
    // packet_mode = 1: CIR 1000 packets/s, CBS 16, EBS 32 packets.
    let pkt = SrTcmProfile::new(&SrTcmConfig::packets(1000, 16, 32)).unwrap();
    assert_eq!(pkt.mode(), Mode::Packets);
    let mut m = SrTcm::new(&pkt, Instant::ZERO);
    for _ in 0..16 {
        assert_eq!(m.color_blind_packet(&pkt, Instant::ZERO), Color::Green);
    }
    assert_eq!(m.color_blind_packet(&pkt, Instant::ZERO), Color::Yellow);

    // dscp_table: the input color of a color-aware meter from the DSCP.
    let table = ColorTable::RFC2597;
    let tr = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
    let mut m = TrTcm::new(&tr, Instant::ZERO);
    let dscp = 12; // AF12: medium drop precedence, yellow in
    assert_eq!(
        m.color_aware(&tr, Instant::ZERO, 1500, table.dscp(dscp)),
        Color::Yellow
    );
    // vlan_table: the same from the PCP.
    let vlan = ColorTable::uniform(Color::Green).with_pcp(1, Color::Yellow);
    assert_eq!(vlan.pcp(1), Color::Yellow);

    // rte_mtr_meter_profile_update: the flow keeps its tokens (in bytes).
    let faster = TrTcmProfile::new(&TrTcmConfig::default().with_cbs(8192).with_pbs(16384)).unwrap();
    let t = Instant::from_ticks(1_000);
    m.move_to(&tr, &faster, t);
    assert!(m.tc() / faster.committed().scale() <= 2048);

    // rte_mtr_stats: packets and bytes per color, and drops.
    let mut stats = Counters::default();
    let mut m = TrTcm::new(&tr, Instant::ZERO);
    for i in 0..10 {
        m.color_blind_counted(&tr, Instant::from_ticks(i), 1000, &mut stats);
    }
    assert_eq!(stats.packets, [2, 2, 6]);
    assert_eq!(stats.bytes(Color::Green), 2000);
    assert_eq!(stats.dropped_packets, 0); // markers drop nothing; policers do
}

/// tc police: `rate`, `burst`, `conform-exceed`; `peakrate` and `mtu`;
/// `overhead`, `mpu`, `linklayer`; `pkt_rate` and `pkt_burst`.
#[test]
fn tc_police() {
    // tc police rate 10mbit burst 32k conform-exceed pass/drop:
    // one bucket, green conforms, red exceeds (EBS 0).
    let rate: Rate = "10mbit".parse().unwrap();
    let burst: ByteSize = "32k".parse().unwrap();
    let p = SrTcmProfile::new(&SrTcmConfig::new(rate, burst.bytes(), 0)).unwrap();
    let mut m = SrTcm::new(&p, Instant::ZERO);
    let mut passed = 0;
    for i in 0..100u64 {
        // 1500-byte packets every 100 us: 120 Mbit/s offered.
        if m.color_blind(&p, Instant::from_ticks(i * 100_000), 1500) == Color::Green {
            passed += 1;
        } // else: the exceed action (drop)
    }
    // 32 KiB plus 10 Mbit/s x 9.9 ms, in 1500-byte packets.
    assert_eq!(passed, (32 * 1024 + 12_375) / 1500);

    // overhead 24 mpu 64 linklayer ethernet: the caller charges the adjusted
    // length; linklayer atm is `with_atm(true)`.
    let adjust = LengthAdjust::NONE.with_overhead(24).with_mpu(64);
    assert_eq!(
        m.color_blind(&p, Instant::from_ticks(1 << 40), adjust.apply(40)),
        Color::Green
    );

    // peakrate 20mbit mtu 2k: a second bucket (PIR, PBS = mtu); conform is
    // green, exceed is yellow or red. (tc takes no token from either bucket
    // on exceed; RFC 2698's yellow takes from P.)
    let p = TrTcmProfile::new(&TrTcmConfig::new(
        rate,
        "20mbit".parse().unwrap(),
        burst.bytes(),
        "2k".parse::<ByteSize>().unwrap().bytes(),
    ))
    .unwrap();
    let mut m = TrTcm::new(&p, Instant::ZERO);
    assert_eq!(m.color_blind(&p, Instant::ZERO, 1500), Color::Green);
    assert_ne!(m.color_blind(&p, Instant::ZERO, 1500), Color::Green); // peak bucket

    // pkt_rate 1000 pkt_burst 10: packet mode.
    let p = SrTcmProfile::new(&SrTcmConfig::packets(1000, 10, 0)).unwrap();
    let mut m = SrTcm::new(&p, Instant::ZERO);
    let green = (0..20)
        .filter(|_| m.color_blind_packet(&p, Instant::ZERO) == Color::Green)
        .count();
    assert_eq!(green, 10);
}

/// The premium policer: a token bucket in front of a buffer, with drops.
#[test]
fn policer_with_drops() {
    let p = PremiumPolicerProfile::new(&PremiumPolicerConfig::default()).unwrap();
    let mut s = PremiumPolicer::new(&p, Instant::ZERO);
    let mut stats = Counters::default();
    for _ in 0..10 {
        s.offer_counted(&p, Instant::ZERO, 1500, &mut stats);
    }
    // TBs 11,000 bytes: 7 packets conform (green) and fit PBs 13,000; 3 are
    // policed (red, dropped).
    assert_eq!(stats.packets(Color::Green), 7);
    assert_eq!(stats.packets(Color::Red), 3);
    assert_eq!(stats.dropped_packets, 3);
    assert_eq!(
        s.offer(&p, Instant::ZERO, 1500),
        PolicerVerdict::PolicerDrop
    );
}

/// P4 PSA `Meter(n, PSA_MeterType_t.BYTES | PACKETS)` and v1model `meter`:
/// an array of RFC 2698 trTCMs sharing one profile, `execute(index)`
/// color-blind and `execute(index, color)` color-aware.
#[test]
fn p4_meters() {
    // PSA_MeterType_t.BYTES
    let bytes = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
    let mut meters = vec![TrTcm::new(&bytes, Instant::ZERO); 1024];
    let now = Instant::from_ticks(10);
    assert_eq!(meters[7].color_blind(&bytes, now, 1500), Color::Green); // execute(7)
    assert_eq!(
        meters[7].color_aware(&bytes, now, 1500, Color::Yellow),
        Color::Yellow
    ); // execute(7, YELLOW)

    // PSA_MeterType_t.PACKETS
    let packets = TrTcmProfile::new(&TrTcmConfig::packets(100, 200, 1, 2)).unwrap();
    let mut meters = vec![TrTcm::new(&packets, Instant::ZERO); 16];
    let colors: Vec<Color> = (0..3)
        .map(|_| meters[3].color_blind_packet(&packets, now))
        .collect();
    assert_eq!(colors, [Color::Green, Color::Yellow, Color::Red]);
}
