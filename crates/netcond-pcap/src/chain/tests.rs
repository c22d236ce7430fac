use super::*;
use netcond::base::Color;
use netcond::base::{LengthAdjust, Rate};
use netcond::trtcm::Mode;
use std::time::Duration;

/// tc's length adjustment on the three meters, and what is refused.
#[test]
fn length_adjustment() {
    let c = parse_chain("srtcm cir=1mbit cbs=8k ebs=8k overhead=10 mpu=64 linklayer=atm").unwrap();
    let want = LengthAdjust::NONE
        .with_overhead(10)
        .with_mpu(64)
        .with_atm(true);
    assert!(matches!(c[0], Stage::SrTcm { adjust, .. } if adjust == want));
    let c = parse_chain("rfc4115 cir=1mbit eir=1mbit cbs=8k ebs=8k overhead=-4").unwrap();
    assert!(
        matches!(c[0], Stage::Rfc4115 { adjust, .. } if adjust == LengthAdjust::NONE.with_overhead(-4))
    );
    let c = parse_chain("trtcm cir=1mbit pir=2mbit cbs=8k pbs=8k linklayer=ethernet").unwrap();
    assert!(matches!(c[0], Stage::TrTcm { adjust, .. } if adjust.is_none()));
    for (chain, msg) in [
        (
            "srtcm cir=1mbit cbs=8k ebs=8k overhead=1.5",
            "overhead=1.5: expected a whole number of bytes",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k overhead=99999999999",
            "expected a whole number of bytes",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k linklayer=x25",
            "linklayer=x25: expected atm or ethernet",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k mpu=8g",
            "mpu=8589934592: at most",
        ),
        (
            "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit overhead=4",
            "unknown parameter 'overhead'",
        ),
    ] {
        let e = parse_chain(chain).unwrap_err().0;
        assert!(e.contains(msg), "{chain}: {e}");
    }
}

#[test]
fn parses_the_examples() {
    let c =
        parse_chain("trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13").unwrap();
    assert_eq!(
        c,
        vec![
            Stage::TrTcm {
                cir: Rate::from_mbps(10),
                pir: Rate::from_mbps(20),
                cbs: 32768,
                pbs: 65536,
                adjust: LengthAdjust::NONE,
                colors: None,
                mode: Mode::Bytes,
            },
            Stage::Dscp([10, 12, 14])
        ]
    );
    let c = parse_chain("red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit -> ecn-or-drop").unwrap();
    assert!(matches!(
        c[0],
        Stage::Red {
            ecn: true,
            limit: 30,
            ..
        }
    ));
    let c = parse_chain("trras cir=2mbit pir=4mbit mir=10mbit").unwrap();
    assert!(matches!(c[0], Stage::TrRas { line, .. } if line == Rate::from_mbps(10)));
    assert!(parse_chain("srras cir=2mbit").is_err());
    let c = parse_chain("pcn-node threshold=8mbit excess=10mbit -> rfc6660").unwrap();
    assert!(matches!(c[0], Stage::PcnNode { dscps, .. } if dscps == 1 << 46));
}

#[test]
fn refuses_bad_chains() {
    for (chain, needle) in [
        (
            "trtcm cir=10mbits pir=20mbit cbs=32k pbs=64k",
            "cir=10mbits",
        ),
        ("policer cir=1mbit", "unknown chain stage 'policer'"),
        ("dscp af11", "needs a color meter"),
        ("srtcm cir=1mbit cbs=1k", "missing ebs"),
        (
            "srtcm cir=1mbit cbs=1k ebs=1k foo=1",
            "unknown parameter 'foo'",
        ),
        (
            "trtcm cir=1mbit pir=2mbit cbs=1k pbs=1k -> dscp af51",
            "bad DSCP",
        ),
        ("ecn-or-drop", "must directly follow a red"),
        ("red min=15 max=5 link=1mbit", "below max"),
        ("", "empty chain"),
    ] {
        let e = parse_chain(chain).unwrap_err();
        assert!(e.0.contains(needle), "{chain}: {e}");
    }
}

#[test]
fn tbf_stage() {
    let c = parse_chain("tbf rate=10mbit burst=32k latency=50ms").unwrap();
    assert_eq!(
        c[0],
        Stage::Tbf {
            rate: Rate::from_mbps(10),
            burst: 32768,
            limit: None,
            latency: Some(Duration::from_millis(50)),
            peak: None,
            adjust: LengthAdjust::NONE,
        }
    );
    assert_eq!(tbf_profile(&c[0]).unwrap().unwrap().limit(), 95_268);
    let c = parse_chain(
        "tbf rate=1mbit burst=10k limit=64k peakrate=10mbit mtu=1514 overhead=24 mpu=64 linklayer=atm",
    )
    .unwrap();
    assert!(matches!(
        c[0],
        Stage::Tbf { limit: Some(65536), peak: Some((r, 1514)), adjust, .. }
            if r == Rate::from_mbps(10) && adjust == LengthAdjust { overhead: 24, mpu: 64, atm: true }
    ));
    assert!(c[0].is_queue());
    for (chain, needle) in [
        ("tbf burst=32k limit=10k", "missing rate"),
        ("tbf rate=1mbit limit=10k", "missing burst"),
        (
            "tbf rate=1mbit burst=10k",
            "one of limit (bytes) or latency",
        ),
        (
            "tbf rate=1mbit burst=10k limit=10k latency=5ms",
            "only one of limit and latency",
        ),
        ("tbf rate=1mbit burst=10k latency=5", ""),
        (
            "tbf rate=1mbit burst=10k latency=5parsecs",
            "latency=5parsecs: bad time: unknown unit",
        ),
        (
            "tbf rate=1mbit burst=10k latency=0.5ns",
            "not a whole number of nanoseconds",
        ),
        ("tbf rate=1mbit burst=10k latency=ms", "expected a number"),
        (
            "tbf rate=0 burst=10k limit=1k",
            "rate must be greater than zero",
        ),
        (
            "tbf rate=1mbit burst=0 limit=1k",
            "burst must be greater than zero",
        ),
        ("tbf rate=1mbit burst=8g limit=1k", "burst must be at most"),
        (
            "tbf rate=1mbit burst=10k limit=1k peakrate=2mbit",
            "peakrate needs mtu",
        ),
        (
            "tbf rate=1mbit burst=10k limit=1k mtu=1500",
            "give peakrate",
        ),
        (
            "tbf rate=1mbit burst=10k limit=1k peakrate=1mbit mtu=1500",
            "peakrate must be greater than rate",
        ),
        (
            "tbf rate=1mbit burst=10k limit=1k peakrate=2mbit mtu=0",
            "mtu must be greater",
        ),
        (
            "tbf rate=1mbit burst=10k limit=1k cir=1mbit",
            "unknown parameter 'cir'",
        ),
        (
            "tbf rate=1mbit burst=10k limit=1k linklayer=x25",
            "expected atm or ethernet",
        ),
    ] {
        match parse_chain(chain) {
            Err(e) => assert!(!needle.is_empty() && e.0.contains(needle), "{chain}: {e}"),
            Ok(_) => assert!(needle.is_empty(), "{chain} accepted"),
        }
    }
    assert_eq!(parse_time("1.5s"), Ok(Duration::from_millis(1500)));
    assert_eq!(parse_time("200usec"), Ok(Duration::from_micros(200)));
    assert_eq!(parse_time("7"), Ok(Duration::from_micros(7)));
    assert!(parse_time("99999999999999999999999s").is_err());
}

#[test]
fn aqm_stages() {
    let c = parse_chain("codel rate=10mbit").unwrap();
    assert_eq!(
        c[0],
        Stage::Codel {
            rate: Rate::from_mbps(10),
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            limit: QueueLimit::Packets(1000),
            ecn: false,
            linux: true,
        }
    );
    assert!(c[0].is_queue());
    let c =
        parse_chain("codel rate=1mbit target=10ms interval=200ms limit=64k ecn law=exact").unwrap();
    assert!(matches!(
        c[0],
        Stage::Codel { limit: QueueLimit::Bytes(65536), ecn: true, linux: false, target, .. }
            if target == Duration::from_millis(10)
    ));
    assert!(matches!(
        parse_chain("codel rate=1mbit limit=300p").unwrap()[0],
        Stage::Codel {
            limit: QueueLimit::Packets(300),
            ..
        }
    ));
    let c = parse_chain("fq_codel rate=100mbit").unwrap();
    assert_eq!(
        c[0],
        Stage::FqCodel {
            rate: Rate::from_mbps(100),
            flows: 1024,
            quantum: 1514,
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            limit: 10240,
            ecn: true,
        }
    );
    assert!(matches!(
        parse_chain("fq-codel rate=1mbit flows=16 quantum=300 limit=100 noecn").unwrap()[0],
        Stage::FqCodel {
            flows: 16,
            quantum: 300,
            limit: 100,
            ecn: false,
            ..
        }
    ));
    let c = parse_chain("pie rate=20mbit").unwrap();
    assert_eq!(
        c[0],
        Stage::Pie {
            rate: Rate::from_mbps(20),
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(15),
            alpha: 2,
            beta: 20,
            limit: 1000,
            ecn: false,
            bytemode: false,
        }
    );
    assert!(matches!(
        parse_chain(
            "pie rate=1mbit target=20ms tupdate=30ms alpha=4 beta=32 limit=50 ecn bytemode"
        )
        .unwrap()[0],
        Stage::Pie {
            alpha: 4,
            beta: 32,
            limit: 50,
            ecn: true,
            bytemode: true,
            ..
        }
    ));
    let c = parse_chain("fq_pie rate=100mbit").unwrap();
    assert_eq!(
        c[0],
        Stage::FqPie {
            rate: Rate::from_mbps(100),
            flows: 1024,
            quantum: 1514,
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(15),
            alpha: 2,
            beta: 20,
            limit: 10240,
            ecn: false,
            ecn_prob: 10,
            bytemode: false,
        }
    );
    assert!(matches!(
        parse_chain("fq-pie rate=1mbit flows=8 quantum=300 limit=100 alpha=4 beta=30 ecn ecn_prob=50 bytemode").unwrap()[0],
        Stage::FqPie {
            flows: 8,
            quantum: 300,
            limit: 100,
            alpha: 4,
            beta: 30,
            ecn: true,
            ecn_prob: 50,
            bytemode: true,
            ..
        }
    ));
    let c = parse_chain("dualpi2 rate=100mbit").unwrap();
    assert_eq!(
        c[0],
        Stage::DualPi2 {
            rate: Rate::from_mbps(100),
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(16),
            alpha_mhz: 160,
            beta_mhz: 3200,
            k16: 32,
            step: Duration::from_millis(1),
            limit: 15_000_000,
            tshift: Duration::from_millis(40),
        }
    );
    assert_eq!(
        parse_chain(
            "dualpi2 rate=1mbit target=20ms tupdate=10ms alpha=0.3 beta=5 coupling_factor=1.5 step_thresh=2ms limit=64k tshift=10ms"
        )
        .unwrap()[0],
        Stage::DualPi2 {
            rate: Rate::from_mbps(1),
            target: Duration::from_millis(20),
            tupdate: Duration::from_millis(10),
            alpha_mhz: 300,
            beta_mhz: 5000,
            k16: 24,
            step: Duration::from_millis(2),
            limit: 65_536, // tc's k: 1024 bytes
            tshift: Duration::from_millis(10),
        }
    );
    assert!(matches!(
        parse_chain("dualpi2 rate=1mbit limit=100").unwrap()[0],
        Stage::DualPi2 { limit: 150_000, .. }
    ));
    for (chain, needle) in [
        ("fq_pie", "fq_pie: missing rate=<rate>"),
        ("fq_pie rate=1mbit flows=0", "flows=0: expected 1 to 1024"),
        ("fq_pie rate=1mbit flows=1025", "expected 1 to 1024"),
        (
            "fq_pie rate=1mbit quantum=0",
            "quantum must be at least one byte",
        ),
        ("fq_pie rate=1mbit quantum=4g", "below 2^31 bytes"),
        ("fq_pie rate=1mbit alpha=33", "fq_pie alpha=33: at most 32"),
        ("fq_pie rate=1mbit beta=33", "fq_pie beta=33: at most 32"),
        ("fq_pie rate=1mbit ecn_prob=101", "ecn_prob is a percentage"),
        (
            "fq_pie rate=1mbit limit=0",
            "packet limit must be at least one packet",
        ),
        ("fq_pie rate=1mbit gentle", "'gentle' is not a key=value"),
        ("dualpi2", "dualpi2: missing rate=<rate>"),
        ("dualpi2 rate=1mbit ecn", "'ecn' is not a key=value"),
        (
            "dualpi2 rate=1mbit alpha=-1",
            "dualpi2 alpha=-1: expected a gain in Hz",
        ),
        (
            "dualpi2 rate=1mbit beta=1001",
            "dualpi2 beta=1001: expected a gain in Hz",
        ),
        ("dualpi2 rate=1mbit beta=fast", "expected a gain in Hz"),
        (
            "dualpi2 rate=1mbit coupling_factor=17",
            "coupling_factor=17: expected a number from 0 to 16",
        ),
        (
            "dualpi2 rate=1mbit coupling_factor=0",
            "coupling factor k must be positive",
        ),
        (
            "dualpi2 rate=1mbit limit=0",
            "dualpi2 limit=0: the limit must be",
        ),
        (
            "dualpi2 rate=1mbit limit=1kb",
            "limit must hold at least one MTU",
        ),
        (
            "dualpi2 rate=1mbit step_thresh=0ms",
            "ramp must end at least one tick",
        ),
        (
            "dualpi2 rate=1mbit tupdate=0ms",
            "Tupdate must be at least one tick",
        ),
        (
            "dualpi2 rate=1mbit quantum=300",
            "unknown parameter 'quantum'",
        ),
    ] {
        let e = parse_chain(chain).unwrap_err();
        assert!(e.0.contains(needle), "{chain}: {e}");
    }
    for (chain, needle) in [
        ("codel", "codel: missing rate=<rate>"),
        ("codel rate=0", "rate must be above zero"),
        (
            "codel rate=1mbit target=100ms",
            "TARGET must be below INTERVAL (RFC 8289 section 4.5",
        ),
        (
            "codel rate=1mbit target=0ms",
            "TARGET must be at least one unit",
        ),
        ("codel rate=1mbit interval=3h", "bad time"),
        (
            "codel rate=1mbit interval=3000s",
            "INTERVAL must be at most",
        ),
        ("codel rate=1mbit limit=0", "at least one packet"),
        (
            "codel rate=1mbit limit=lots",
            "codel limit=lots: expected packets",
        ),
        (
            "codel rate=1mbit law=ns3",
            "law=ns3: expected linux or exact",
        ),
        ("codel rate=1mbit ecn noecn", "give ecn or noecn, not both"),
        (
            "codel rate=1mbit gentle",
            "'gentle' is not a key=value parameter",
        ),
        (
            "codel rate=1mbit quantum=300",
            "unknown parameter 'quantum'",
        ),
        ("fq_codel rate=1mbit flows=0", "flows=0: expected 1 to 1024"),
        ("fq_codel rate=1mbit flows=65536", "expected 1 to 1024"),
        (
            "fq_codel rate=1mbit quantum=0",
            "quantum must be at least one byte",
        ),
        ("fq_codel rate=1mbit quantum=4g", "below 2^31 bytes"),
        (
            "fq_codel rate=1mbit limit=0",
            "packet limit must be at least one packet",
        ),
        (
            "fq_codel rate=1mbit bytemode",
            "'bytemode' is not a key=value",
        ),
        ("pie rate=1mbit alpha=33", "alpha=33: at most 32"),
        ("pie rate=1mbit beta=-1", "expected a whole number"),
        (
            "pie rate=1mbit limit=0",
            "packet limit must be at least one packet",
        ),
        (
            "pie rate=1mbit tupdate=0ms",
            "T_UPDATE must be at least one tick",
        ),
        ("pie rate=1mbit bytemode nobytemode", "not both"),
        ("pie rate=1mbit target=2000s", "below 2^40"),
    ] {
        let e = parse_chain(chain).unwrap_err();
        assert!(e.0.contains(needle), "{chain}: {e}");
    }
}

#[test]
fn input_colors() {
    let c = parse_chain("srtcm cir=1mbit cbs=8k ebs=8k colors=rfc2597").unwrap();
    assert!(matches!(c[0], Stage::SrTcm { colors: Some(x), .. } if x == Colors::RFC2597));
    let c =
        parse_chain("trtcm cir=1mbit pir=2mbit cbs=8k pbs=8k colors=dscp:af21=yellow,22=red,ef=r")
            .unwrap();
    let Stage::TrTcm {
        colors: Some(x), ..
    } = c[0]
    else {
        panic!("{c:?}")
    };
    assert_eq!(x.by, ColorBy::Dscp);
    assert_eq!(x.table.dscp(18), Color::Yellow);
    assert_eq!(x.table.dscp(22), Color::Red);
    assert_eq!(x.table.dscp(46), Color::Red);
    assert_eq!(x.table.dscp(10), Color::Green);
    let c = parse_chain("rfc4115 cir=1mbit eir=1mbit cbs=8k ebs=8k colors=pcp:1=yellow,7=green")
        .unwrap();
    let Stage::Rfc4115 {
        colors: Some(x), ..
    } = c[0]
    else {
        panic!("{c:?}")
    };
    assert_eq!(x.by, ColorBy::Pcp);
    assert_eq!(x.table.pcp(1), Color::Yellow);
    assert_eq!(x.table.pcp(0), Color::Green);
    for (chain, needle) in [
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=af",
            "expected rfc2597, dscp:",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=dscp:",
            "the list is empty",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=dscp:10",
            "'10' is not <code>=<color>",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=dscp:10=blue",
            "unknown color 'blue'",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=dscp:64=red",
            "bad DSCP '64'",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=dscp:af11=red,10=green",
            "given twice",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k colors=pcp:8=red",
            "bad PCP '8': expected 0-7",
        ),
        (
            "pcn-node threshold=1mbit excess=2mbit colors=rfc2597",
            "unknown parameter 'colors'",
        ),
    ] {
        let e = parse_chain(chain).unwrap_err();
        assert!(e.0.contains(needle), "{chain}: {e}");
    }
}

#[test]
fn toml_chain() {
    let (c, cl) = parse_toml(
        "classify = \"five-tuple\"\nchain = [\"srtcm cir=1mbit cbs=2k ebs=4k\", \"drop-red\"]\n",
    )
    .unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(cl.as_deref(), Some("five-tuple"));
    assert!(parse_toml("chain = 3").is_err());
}

#[test]
fn dscp_names() {
    assert_eq!(parse_dscp("AF41").unwrap(), 34);
    assert_eq!(parse_dscp("cs6").unwrap(), 48);
    assert_eq!(parse_dscp("ef").unwrap(), 46);
    assert_eq!(parse_dscp("63").unwrap(), 63);
    assert!(parse_dscp("64").is_err());
}
