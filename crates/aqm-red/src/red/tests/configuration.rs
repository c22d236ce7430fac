//! Configuration: the errors for each broken rule, extreme inputs, and a
//! property test that the checks are exactly the rules.

use super::*;

#[test]
fn configuration_errors() {
    let ok = zheng_kinicki_router();
    assert!(RedProfile::new(&ok).is_ok());
    let with = |f: &dyn Fn(&mut RedConfig)| {
        let mut c = ok;
        f(&mut c);
        RedProfile::new(&c)
    };
    assert_eq!(
        with(&|c| c.min_th = 30).unwrap_err(),
        RedError::ThresholdOrder
    );
    assert_eq!(
        with(&|c| c.min_th = 31).unwrap_err(),
        RedError::ThresholdOrder
    );
    assert_eq!(
        with(&|c| c.max_p = RedConfig::prob(1.0 + 1e-9)).unwrap_err(),
        RedError::MaxPOutOfRange
    );
    assert_eq!(
        with(&|c| c.max_p = RedConfig::prob(-0.1)).unwrap_err(),
        RedError::MaxPOutOfRange
    );
    assert_eq!(
        with(&|c| c.max_p = RedConfig::prob(f64::NAN)).unwrap_err(),
        RedError::MaxPOutOfRange
    );
    assert!(with(&|c| c.max_p = RedConfig::prob(1.0)).is_ok());
    assert!(with(&|c| c.max_p = RedConfig::prob(0.0)).is_ok());
    assert_eq!(
        with(&|c| c.queue.w_q = U32F32::ZERO).unwrap_err(),
        RedError::WeightOutOfRange
    );
    assert_eq!(
        with(&|c| c.queue.w_q = RedConfig::prob(1.5)).unwrap_err(),
        RedError::WeightOutOfRange
    );
    assert_eq!(
        with(&|c| c.queue.w_q = RedConfig::prob(-1.0)).unwrap_err(),
        RedError::WeightOutOfRange
    );
    assert!(with(&|c| c.queue.w_q = U32F32::ONE).is_ok());
    assert!(with(&|c| c.queue.w_q = U32F32::from_bits(1)).is_ok());
    assert_eq!(
        with(&|c| c.queue.limit = 0).unwrap_err(),
        RedError::ZeroLimit
    );
    assert_eq!(
        with(&|c| c.queue.limit = 29).unwrap_err(),
        RedError::ThresholdAboveLimit
    );
    assert!(with(&|c| c.queue.limit = 30).is_ok());
    assert_eq!(
        with(&|c| c.queue.typical_tx = core::time::Duration::from_nanos(0)).unwrap_err(),
        RedError::ZeroTransmissionTime
    );
    assert_eq!(
        with(&|c| c.queue.byte_mode = Some(0)).unwrap_err(),
        RedError::ZeroMaxPacketSize
    );
    assert!(with(&|c| c.queue.limit = u32::MAX).is_ok());
    // RFC 3168 section 7's hard threshold (the AECN router: min_th 10, max_th 30, limit 50).
    let ecn = |th: Option<u32>| {
        with(&|c| {
            c.queue.ecn = true;
            c.queue.ecn_drop_th = th;
        })
    };
    assert!(ecn(None).is_ok());
    assert!(ecn(Some(10)).is_ok());
    assert!(ecn(Some(50)).is_ok());
    assert_eq!(ecn(Some(9)).unwrap_err(), RedError::EcnDropBelowMinTh);
    assert_eq!(ecn(Some(0)).unwrap_err(), RedError::EcnDropBelowMinTh);
    assert_eq!(ecn(Some(51)).unwrap_err(), RedError::EcnDropAboveLimit);
    assert_eq!(
        with(&|c| c.queue.ecn_drop_th = Some(30)).unwrap_err(),
        RedError::EcnDropWithoutEcn
    );
    let mut rc = crate::RioConfig::rfc2963(1000);
    rc.queue.ecn = true;
    rc.queue.ecn_drop_th = Some(399);
    assert_eq!(
        crate::RioProfile::new(&rc).unwrap_err(),
        RedError::EcnDropBelowMinTh
    );
    rc.queue.ecn_drop_th = Some(400);
    assert!(crate::RioProfile::new(&rc).is_ok());
    rc.queue.ecn_drop_th = Some(1001);
    assert_eq!(
        crate::RioProfile::new(&rc).unwrap_err(),
        RedError::EcnDropAboveLimit
    );
    rc.queue.ecn = false;
    rc.queue.ecn_drop_th = Some(800);
    assert_eq!(
        crate::RioProfile::new(&rc).unwrap_err(),
        RedError::EcnDropWithoutEcn
    );
    assert_eq!(
        AdaptiveRedProfile::new(&AdaptiveRedConfig::new(ok, core::time::Duration::ZERO))
            .unwrap_err(),
        RedError::ZeroInterval
    );
    for e in [
        RedError::ThresholdOrder,
        RedError::MaxPOutOfRange,
        RedError::WeightOutOfRange,
    ] {
        assert!(e.message().contains("FJ93"));
    }
    let ns = core::time::Duration::from_nanos;
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_mbps(70), 1500),
        ns(171_428)
    );
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::ZERO, 1500),
        core::time::Duration::MAX
    );
    // Whole seconds and a remainder: 12,000 bits at 7 bit/s.
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(7), 1500),
        core::time::Duration::new(1714, 285_714_285)
    );
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(8), 1),
        core::time::Duration::from_secs(1)
    );
    // Below one nanosecond: one nanosecond.
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(16_000_000_001), 1),
        ns(1)
    );
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(8_000_000_000), 1),
        ns(1)
    );
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(4_000_000_000), 1),
        ns(2)
    );
    assert_eq!(
        RedConfig::typical_tx(netcond_core::Rate::from_bits_per_sec(u64::MAX), 0),
        ns(1)
    );
}

#[test]
fn typical_tx_is_converted_once_with_the_tick() {
    let ms = TickRate::MILLIS;
    let mut c = zheng_kinicki_router().with_tick(ms);
    assert_eq!(c.tick, ms);
    // Below one tick of the configuration's clock: zero ticks, refused.
    c.queue.typical_tx = core::time::Duration::from_micros(999);
    assert_eq!(
        RedProfile::new(&c).unwrap_err(),
        RedError::ZeroTransmissionTime
    );
    c.queue.typical_tx = core::time::Duration::from_micros(1999);
    let one_ms = RedProfile::new(&c).unwrap();
    // 1999 us is one whole millisecond tick, as 1 ms is, and as one
    // nanosecond tick is on a nanosecond clock.
    c.queue.typical_tx = core::time::Duration::from_millis(1);
    assert_eq!(RedProfile::new(&c).unwrap(), one_ms);
    let mut n = c.with_tick(TickRate::NANOS);
    n.queue.typical_tx = core::time::Duration::from_nanos(1);
    assert_eq!(RedProfile::new(&n).unwrap(), one_ms);
    n.queue.typical_tx = core::time::Duration::from_nanos(2);
    assert_ne!(RedProfile::new(&n).unwrap(), one_ms);
    // RIO and AECN convert with their own tick the same way.
    let mut r = crate::RioConfig::rfc2963(1000).with_tick(ms);
    assert_eq!(r.tick, ms);
    r.queue.typical_tx = core::time::Duration::from_micros(999);
    assert_eq!(
        crate::RioProfile::new(&r).unwrap_err(),
        RedError::ZeroTransmissionTime
    );
    r.queue.typical_tx = core::time::Duration::from_millis(1);
    assert!(crate::RioProfile::new(&r).is_ok());
    let a = crate::AecnConfig::zheng_kinicki(RedConfig::prob(0.5))
        .with_tick(ms)
        .with_typical_tx(core::time::Duration::from_micros(999));
    assert_eq!(
        (a.tick, a.typical_tx),
        (ms, core::time::Duration::from_micros(999))
    );
    assert_eq!(
        crate::AecnProfile::new(&a).unwrap_err(),
        RedError::ZeroTransmissionTime
    );
    assert!(
        crate::AecnProfile::new(&a.with_typical_tx(core::time::Duration::from_millis(1))).is_ok()
    );
}

#[test]
fn extreme_inputs_do_not_panic() {
    let mut c = cfg(1, 2, 1.0, 1.0, u32::MAX);
    c.queue.byte_mode = Some(u32::MAX);
    c.queue.gentle = true;
    c.queue.typical_tx = core::time::Duration::from_nanos(1);
    let p = RedProfile::new(&c).unwrap();
    let mut red = Red::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(0);
    for (now, q, len) in [
        (u64::MAX, u32::MAX, u32::MAX),
        (0, 0, 0),
        (u64::MAX, 0, 1),
        (1, u32::MAX - 1, 0),
        (u64::MAX / 2, 1, u32::MAX),
    ] {
        let _ = red.on_arrival(&p, t(now), q, Packet::not_ect(len), &mut rng);
        red.on_queue_empty(&p, t(now));
    }
    let mut red = settle(&p, u32::MAX, 10);
    assert_eq!(red.avg(&p), u32::MAX);
    let _ = red.on_arrival(&p, t(0), 5, Packet::not_ect(5), &mut Supplied(u32::MAX));
}

proptest! {
    // 400 cases natively; under Miri, which interprets every instruction, the
    // default configuration, which honours PROPTEST_CASES.
    #![proptest_config(if cfg!(miri) { ProptestConfig::default() } else { ProptestConfig::with_cases(400) })]

    #[test]
    fn config_checks_are_exactly_the_rules(c in arb_config(), raw_w in any::<u64>(), raw_p in any::<u64>(), lim in any::<u32>()) {
        let mut c = c;
        c.queue.w_q = U32F32::from_bits(raw_w);
        c.max_p = U32F32::from_bits(raw_p);
        c.queue.limit = lim;
        let r = RedProfile::new(&c);
        let valid = raw_w > 0 && raw_w <= 1 << 32 && raw_p <= 1 << 32 && lim > 0 && c.max_th <= lim
            && c.queue.ecn_drop_th.is_none_or(|h| h <= lim);
        prop_assert_eq!(r.is_ok(), valid);
    }
}
