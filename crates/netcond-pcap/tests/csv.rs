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
