//! The `--csv` time series adds up to the summary, interval by interval in time order.

mod common;

use common::*;
use netcond_pcap::synth::{write_pcap, Stream};
use std::io::BufWriter;

#[test]
fn csv_sums_to_the_summary() {
    let d = dir("csv");
    let (inp, out, csv) = (d.join("in.pcap"), d.join("out.pcap"), d.join("s.csv"));
    let s = Stream {
        packets: 3_000,
        payload: 972,
        gap_ns: 533_333, // 15 Mbit/s of 1000-byte IP packets
        tos: 0b10,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--interval",
        "100ms",
        "-c",
        "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit limit=40 -> ecn-or-drop",
    ]);
    assert_eq!(rc, 0, "{se}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(head[0], "time_s");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    // 1.6 s of arrivals and departures until about 1.6 s + the queue: 17 intervals or so.
    assert!((16..=18).contains(&rows.len()), "{} rows", rows.len());
    for w in rows.windows(2) {
        assert!((w[1][0] - w[0][0] - 0.1).abs() < 1e-9);
    }
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let sum = |name: &str| rows.iter().map(|r| r[col(name)] as u64).sum::<u64>();
    assert_eq!(
        sum("1red.ce-marked.packets"),
        stage_row(&so, 1, "ce-marked").0
    );
    assert_eq!(
        sum("1red.forced-drop.bytes"),
        stage_row(&so, 1, "forced-drop").1
    );
    assert_eq!(sum("forwarded.packets"), total_row(&so, "forwarded").0);
    assert_eq!(sum("dropped.bytes"), total_row(&so, "dropped").1);
    // Departures at 10 Mbit/s: no full interval forwards more than 125 kB (plus a packet).
    for r in &rows {
        assert!(r[col("forwarded.bytes")] <= 126_000.0, "{r:?}");
    }
}

/// Progress goes to a terminal only: nothing on a pipe; a line on a pty.
#[test]
fn progress_only_on_a_terminal() {
    let d = dir("progress");
    let inp = d.join("in.pcap");
    let s = Stream {
        packets: 100,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let chain = "srtcm cir=1mbit cbs=2k ebs=4k";
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_netcond-pcap"))
        .args([inp.to_str().unwrap(), "-c", chain])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // `script` (util-linux) runs the tool on a pseudo-terminal.
    let cmd = format!(
        "{} {} -c '{chain}'",
        env!("CARGO_BIN_EXE_netcond-pcap"),
        inp.display()
    );
    match std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
    {
        Ok(o) if o.status.success() => {
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(out.contains("100.0%  100 packets"), "{out}");
        }
        // `script` is util-linux's (Debian's bsdutils, an essential package).
        other => panic!("`script` did not run here: {other:?}"),
    }
}
