//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test.
pub fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netcond-pcap-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `netcond-pcap` with `args`: exit code, stdout, stderr.
pub fn tool(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_netcond-pcap"))
        .args(args)
        .arg("-q")
        .output()
        .expect("run netcond-pcap");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Panics unless tshark runs here. The tests that need it are `#[ignore]`d
/// (tshark takes a second or more to start, which would slow every `cargo test
/// --workspace`, and a machine without it must not count them as passed);
/// `bash .ci/pcap.sh` installs tshark and runs them with `--include-ignored`.
pub fn require_tshark() {
    let ok = Command::new("tshark")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "tshark does not run here: install it (Debian's tshark package; bash .ci/pcap.sh does)"
    );
}

/// One packet as tshark decodes it.
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    /// Epoch time, ns.
    pub time_ns: u64,
    /// IPv4 or IPv6 DSCP (None when not IP).
    pub dscp: Option<u8>,
    /// ECN.
    pub ecn: Option<u8>,
    /// IPv4 header checksum status (tshark: 0 bad, 1 good, 2 unverified).
    pub checksum: Option<u8>,
    /// IP length (IPv4 total length, or 40 + IPv6 payload length).
    pub ip_len: Option<u64>,
    /// tshark flagged the frame malformed.
    pub malformed: bool,
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    // Fields repeat with a comma when a frame holds two headers (tunnels): take the first.
    let s = s.split(',').next()?.trim();
    if s.is_empty() {
        None
    } else {
        s.parse().ok()
    }
}

/// Decodes a capture with tshark, IPv4 checksums verified.
pub fn tshark(path: &Path) -> Vec<Decoded> {
    let o = Command::new("tshark")
        .args(["-n", "-o", "ip.check_checksum:TRUE", "-r"])
        .arg(path)
        .args([
            "-T",
            "fields",
            "-E",
            "separator=/t",
            "-e",
            "frame.time_epoch",
            "-e",
            "ip.dsfield.dscp",
            "-e",
            "ip.dsfield.ecn",
            "-e",
            "ip.checksum.status",
            "-e",
            "ip.len",
            "-e",
            "ipv6.tclass.dscp",
            "-e",
            "ipv6.tclass.ecn",
            "-e",
            "ipv6.plen",
            "-e",
            "_ws.malformed",
        ])
        .output()
        .expect("run tshark");
    assert!(
        o.status.success(),
        "tshark failed on {}: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let g = |i: usize| f.get(i).copied().unwrap_or("");
            let t = g(0);
            let (s, frac) = t.split_once('.').unwrap_or((t, "0"));
            let frac = format!("{frac:0<9}");
            let time_ns =
                s.parse::<u64>().unwrap() * 1_000_000_000 + frac[..9].parse::<u64>().unwrap();
            let v6 = g(1).is_empty() && !g(5).is_empty();
            Decoded {
                time_ns,
                dscp: if v6 { num(g(5)) } else { num(g(1)) },
                ecn: if v6 { num(g(6)) } else { num(g(2)) },
                checksum: num(g(3)),
                ip_len: if v6 {
                    num::<u64>(g(7)).map(|p| p + 40)
                } else {
                    num(g(4))
                },
                malformed: !g(8).is_empty(),
            }
        })
        .collect()
}

/// Checks every frame parses and every IPv4 checksum is good.
pub fn assert_clean(d: &[Decoded], what: &str) {
    for (i, p) in d.iter().enumerate() {
        assert!(!p.malformed, "{what}: frame {} malformed", i + 1);
        if let Some(c) = p.checksum {
            assert_eq!(
                c,
                1,
                "{what}: frame {} IPv4 checksum status {c} (1 = good)",
                i + 1
            );
        }
    }
}

/// The tool's table of forwarded packets by (dscp, ecn): packets, bytes.
pub fn summary_by_mark(stdout: &str) -> std::collections::BTreeMap<(u8, u8), (u64, u64)> {
    let mut m = std::collections::BTreeMap::new();
    let mut on = false;
    for l in stdout.lines() {
        if l.starts_with("forwarded IP packets by DSCP and ECN") {
            on = true;
            continue;
        }
        if !on || l.starts_with("dscp") {
            continue;
        }
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() != 4 {
            break;
        }
        m.insert(
            (w[0].parse().unwrap(), w[1].parse().unwrap()),
            (w[2].parse().unwrap(), w[3].parse().unwrap()),
        );
    }
    m
}

/// The same table counted from tshark's decode.
pub fn decoded_by_mark(d: &[Decoded]) -> std::collections::BTreeMap<(u8, u8), (u64, u64)> {
    let mut m = std::collections::BTreeMap::new();
    for p in d {
        if let (Some(ds), Some(e), Some(l)) = (p.dscp, p.ecn, p.ip_len) {
            let x = m.entry((ds, e)).or_insert((0, 0));
            x.0 += 1;
            x.1 += l;
        }
    }
    m
}

/// A row of the summary: packets and bytes of `decision` under stage `stage` (1-based).
pub fn stage_row(stdout: &str, stage: usize, decision: &str) -> (u64, u64) {
    let mut cur = 0;
    for l in stdout.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let Some(n) = w.first().and_then(|x| x.parse::<usize>().ok()) {
            cur = n;
            continue;
        }
        if cur == stage && w.len() >= 3 && w[0] == decision {
            return (w[1].parse().unwrap(), w[2].parse().unwrap());
        }
    }
    panic!("no row {decision} for stage {stage} in\n{stdout}");
}

/// The `forwarded` / `dropped` line: packets, bytes.
pub fn total_row(stdout: &str, what: &str) -> (u64, u64) {
    for l in stdout.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() >= 3 && w[0] == what {
            return (w[1].parse().unwrap(), w[2].parse().unwrap());
        }
    }
    panic!("no {what} row in\n{stdout}");
}

/// Reads a capture back with pcap-file: (timestamp ns, frame) pairs.
pub fn read_pcap(path: &Path) -> Vec<(u64, Vec<u8>)> {
    let f = std::fs::File::open(path).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(f).unwrap();
    let mut v = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        v.push((p.timestamp.as_nanos() as u64, p.data.into_owned()));
    }
    v
}

/// A nanosecond Ethernet pcap being written to `path`.
pub fn pcap_writer(path: &Path) -> pcap_file::pcap::PcapWriter<std::io::BufWriter<std::fs::File>> {
    pcap_file::pcap::PcapWriter::with_header(
        std::io::BufWriter::new(std::fs::File::create(path).unwrap()),
        pcap_file::pcap::PcapHeader {
            ts_resolution: pcap_file::TsResolution::NanoSecond,
            ..pcap_file::pcap::PcapHeader::default()
        },
    )
    .unwrap()
}
