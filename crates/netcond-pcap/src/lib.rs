//! netcond on real packets: conditioner chains over pcap/pcapng captures
//! (`netcond-pcap`) and on live forwarded packets through Linux NFQUEUE
//! (`netcond-nfq`). See `docs/real-packets.md`.
//!
//! A capture is read frame by frame, in capture time order, with the capture's
//! timestamps (nanoseconds) as the conditioners' clock. Each IP packet goes
//! through the chain ([`chain`]); its DSCP/ECN byte is rewritten in place (the
//! IPv4 header checksum recomputed), dropped packets are left out of the
//! output (or written to a second capture), packets held by a queue stage
//! leave at their departure time. Frames that are not IP pass untouched.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod capture;
pub mod chain;
pub mod engine;
pub mod flows;
#[cfg(target_os = "linux")]
pub mod nfqueue;
pub mod packet;
pub mod stats;
pub mod synth;

use capture::{Format, Input, Output, ReadError, WriteError};
use chain::Stage;
use engine::{Engine, PushError, Sink};
use flows::Classify;
use std::fs::File;
use std::io::{BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Input capture.
    pub input: PathBuf,
    /// Output capture (`.pcapng` for pcapng, anything else pcap).
    pub output: Option<PathBuf>,
    /// Second capture for the dropped packets.
    pub dropped: Option<PathBuf>,
    /// The chain.
    pub chain: Vec<Stage>,
    /// Flow classification.
    pub classify: Classify,
    /// Five-tuple table size.
    pub max_flows: usize,
    /// CSV time series.
    pub csv: Option<PathBuf>,
    /// CSV interval, ns.
    pub interval_ns: u64,
    /// Treat a packet older than the previous one as arriving at the previous one's time.
    pub allow_backwards: bool,
    /// Refuse IP options, fragments and unreadable IP headers.
    pub strict: bool,
    /// Show progress on a terminal.
    pub progress: bool,
    /// Sync the output to disk before renaming it into place.
    pub sync: bool,
}

/// A run that stopped: one line for the user.
#[derive(Debug)]
pub struct Fatal(pub String);

impl std::fmt::Display for Fatal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Counts of what passed.
#[derive(Debug, Default, Clone)]
pub struct RunInfo {
    /// Frames read.
    pub frames: u64,
    /// IP headers that could not be read (passed untouched).
    pub bad_ip: u64,
    /// IPv4 packets with options.
    pub with_options: u64,
    /// Fragments.
    pub fragments: u64,
    /// Packets whose timestamp went back (with `allow_backwards`).
    pub backwards: u64,
    /// Number (1-based) of the first packet of each note: unreadable IP
    /// header, IPv4 options, fragment, timestamp going back; 0 for none.
    pub first: [u64; 4],
}

impl RunInfo {
    fn note(&mut self, kind: usize, packet: u64) {
        if self.first[kind] == 0 {
            self.first[kind] = packet;
        }
    }
}

/// Peak resident memory of this process in KiB (Linux: `VmHWM`).
pub fn peak_resident_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// An output file written under a temporary name, renamed when complete.
struct TempOut {
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl TempOut {
    fn create(dest: &Path) -> Result<(TempOut, File), Fatal> {
        let name = dest.file_name().ok_or_else(|| {
            Fatal(format!(
                "cannot write output {}: not a file name",
                dest.display()
            ))
        })?;
        let mut tmpname = std::ffi::OsString::from(".");
        tmpname.push(name);
        tmpname.push(format!(".tmp{}", std::process::id()));
        let tmp = dest.with_file_name(tmpname);
        let f = File::create(&tmp)
            .map_err(|e| Fatal(format!("cannot create output {}: {e}", dest.display())))?;
        Ok((
            TempOut {
                tmp,
                dest: dest.to_path_buf(),
                done: false,
            },
            f,
        ))
    }

    fn commit(mut self) -> Result<(), Fatal> {
        std::fs::rename(&self.tmp, &self.dest)
            .map_err(|e| Fatal(format!("cannot write output {}: {e}", self.dest.display())))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

type Writer = Output<BufWriter<File>>;

struct Writers {
    out: Option<Writer>,
    dropped: Option<Writer>,
    err: Option<WriteError>,
}

impl Sink for Writers {
    #[inline]
    fn emit(
        &mut self,
        ts: u64,
        frame: &[u8],
        orig_len: u32,
        iface: u32,
        dropped: bool,
    ) -> std::io::Result<()> {
        let w = if dropped {
            &mut self.dropped
        } else {
            &mut self.out
        };
        if let Some(w) = w {
            if let Err(e) = w.write(ts, frame, orig_len, iface) {
                let msg = match &e {
                    WriteError::Io(e) => e.to_string(),
                    WriteError::MixedLinks(a, b) => format!("link types {a} and {b}"),
                };
                self.err = Some(e);
                return Err(std::io::Error::other(msg));
            }
        }
        Ok(())
    }
}

impl Writers {
    fn announce(&mut self, ifaces: &[capture::Iface]) -> Result<(), WriteError> {
        for w in [&mut self.out, &mut self.dropped].into_iter().flatten() {
            w.interfaces(ifaces)?;
        }
        Ok(())
    }
}

fn write_fatal(e: WriteError, path: &Option<PathBuf>) -> Fatal {
    let p = path
        .as_ref()
        .map_or(String::from("output"), |p| p.display().to_string());
    match e {
        WriteError::Io(e) => Fatal(format!("cannot write output {p}: {e}")),
        WriteError::MixedLinks(a, b) => Fatal(format!(
            "cannot write {p}: the input mixes link types {a} and {b}, which a pcap file cannot hold; name the output .pcapng"
        )),
    }
}

struct Counting<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Runs a chain over a capture. On success returns the engine (its
/// counters) and the run's counts; a failure is one line. Where the input
/// fails part way (a truncated or corrupt record, a clock going back), the
/// output holds every packet up to the last good one and is complete; where
/// the output cannot be written, no output file is left.
pub fn run(opts: &Options) -> Result<(Engine, RunInfo), Fatal> {
    let inp = &opts.input;
    let file = File::open(inp).map_err(|e| Fatal(format!("cannot open {}: {e}", inp.display())))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let read = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let counting = Counting {
        inner: file,
        read: read.clone(),
    };
    let mut input = Input::open(BufReader::with_capacity(1 << 20, counting))
        .map_err(|e| Fatal(format!("{}: {e}", inp.display())))?;
    let mut engine = Engine::new(&opts.chain, opts.classify, opts.max_flows)
        .map_err(|e| Fatal(format!("bad chain: {}", e.0)))?;
    if let Some(csv) = &opts.csv {
        let f = File::create(csv)
            .map_err(|e| Fatal(format!("cannot create {}: {e}", csv.display())))?;
        engine
            .stats
            .set_csv(&opts.chain, Box::new(BufWriter::new(f)), opts.interval_ns)
            .map_err(|e| Fatal(format!("cannot write {}: {e}", csv.display())))?;
    }
    let mut temps = Vec::new();
    let mut open_out = |p: &Option<PathBuf>| -> Result<Option<Writer>, Fatal> {
        match p {
            None => Ok(None),
            Some(p) => {
                let (t, f) = TempOut::create(p)?;
                temps.push(t);
                Ok(Some(Output::new(
                    BufWriter::with_capacity(1 << 20, f),
                    Format::for_path(p),
                )))
            }
        }
    };
    let out = open_out(&opts.output)?;
    let dropped = open_out(&opts.dropped)?;
    let mut w = Writers {
        out,
        dropped,
        err: None,
    };
    let mut info = RunInfo::default();
    let mut buf = Vec::with_capacity(65536);
    let mut last_ts: Option<u64> = None;
    let progress = opts.progress && std::io::stderr().is_terminal() && size > 0;
    // The first failure of the input: the output is kept up to it.
    let mut input_fail: Option<Fatal> = None;
    let name = inp.display().to_string();
    loop {
        let meta = match input.next(&mut buf) {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(e) => {
                let e = match e {
                    ReadError::Io(e) => {
                        input_fail = Some(Fatal(format!(
                            "{name}: packet {}: read error: {e}",
                            info.frames + 1
                        )));
                        break;
                    }
                    e => e,
                };
                input_fail = Some(Fatal(format!("{name}: packet {}: {e}", info.frames + 1)));
                break;
            }
        };
        info.frames += 1;
        let n = info.frames;
        let new = input.new_ifaces();
        if !new.is_empty() {
            if let Err(e) = w.announce(&new) {
                return Err(write_fatal(e, &opts.output));
            }
        }
        let mut ts = meta.ts_ns;
        if let Some(l) = last_ts {
            if ts < l {
                if opts.allow_backwards {
                    info.backwards += 1;
                    info.note(3, n);
                    ts = l;
                } else {
                    input_fail = Some(Fatal(format!(
                        "{name}: packet {n}: timestamp goes back {} ns before packet {} (non-monotonic capture clock; --allow-backwards treats such a packet as arriving with the one before)",
                        l - ts,
                        n - 1
                    )));
                    break;
                }
            }
        }
        last_ts = Some(ts);
        if opts.strict {
            match packet::parse(meta.link, &buf) {
                Err(_) => {
                    input_fail = Some(Fatal(format!(
                        "{name}: packet {n}: IP header truncated or invalid"
                    )));
                    break;
                }
                Ok(Some(i)) if i.options => {
                    input_fail = Some(Fatal(format!(
                        "{name}: packet {n}: IPv4 header has options (--strict)"
                    )));
                    break;
                }
                Ok(Some(i)) if i.fragment => {
                    input_fail = Some(Fatal(format!("{name}: packet {n}: IP fragment (--strict)")));
                    break;
                }
                _ => {}
            }
        }
        match engine.push(ts, meta.link, &mut buf, meta.orig_len, meta.iface, &mut w) {
            Ok(Some(i)) => {
                info.with_options += u64::from(i.options);
                info.fragments += u64::from(i.fragment);
                if i.options {
                    info.note(1, n);
                }
                if i.fragment {
                    info.note(2, n);
                }
            }
            Ok(None) => {}
            Err(PushError::BadIp) => {
                info.bad_ip += 1;
                info.note(0, n);
                if let Err(e) = w.emit(ts, &buf, meta.orig_len, meta.iface, false) {
                    return Err(write_io(e, &mut w, opts));
                }
            }
            Err(PushError::Io(e)) => return Err(write_io(e, &mut w, opts)),
        }
        if progress && n % 65536 == 0 {
            let pct = read.get() as f64 * 100.0 / size as f64;
            eprint!("\r{name}: {pct:5.1}%  {n} packets");
        }
    }
    if progress {
        eprintln!("\r{name}: 100.0%  {} packets", info.frames);
    }
    if let Some(f) = input_fail.take_if(|_| info.frames == 0) {
        // Nothing good was read: no output is left (the temporary files go).
        return Err(f);
    }
    if let Err(e) = engine.finish(&mut w) {
        return Err(write_io(e, &mut w, opts));
    }
    engine
        .stats
        .finish_csv()
        .map_err(|e| Fatal(format!("cannot write CSV: {e}")))?;
    for (wr, path) in [
        (w.out.take(), &opts.output),
        (w.dropped.take(), &opts.dropped),
    ] {
        if let Some(wr) = wr {
            let mut bw = wr.into_inner().map_err(|e| write_fatal(e, path))?;
            bw.flush()
                .map_err(|e| write_fatal(WriteError::Io(e), path))?;
            let f = bw
                .into_inner()
                .map_err(|e| write_fatal(WriteError::Io(e.into_error()), path))?;
            if opts.sync {
                f.sync_all()
                    .map_err(|e| write_fatal(WriteError::Io(e), path))?;
            }
        }
    }
    for t in temps {
        t.commit()?;
    }
    match input_fail {
        Some(f) => Err(f),
        None => Ok((engine, info)),
    }
}

fn write_io(e: std::io::Error, w: &mut Writers, opts: &Options) -> Fatal {
    match w.err.take() {
        Some(we) => write_fatal(we, &opts.output),
        None => write_fatal(WriteError::Io(e), &opts.output),
    }
}

fn rate_text(bytes: u64, ns: u64) -> String {
    if ns == 0 {
        return "-".into();
    }
    let bps = bytes as f64 * 8.0 * 1e9 / ns as f64;
    if bps >= 1e9 {
        format!("{:.3} Gbit/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mbit/s", bps / 1e6)
    } else if bps >= 1e3 {
        format!("{:.3} kbit/s", bps / 1e3)
    } else {
        format!("{bps:.0} bit/s")
    }
}

/// The summary table.
pub fn summary(opts: &Options, engine: &Engine, info: &RunInfo) -> String {
    use std::fmt::Write as _;
    let s = &engine.stats;
    let dur = s.duration_ns();
    let mut o = String::new();
    let (seen, evicted, cap) = engine.flow_counts();
    let _ = writeln!(
        o,
        "{}: {} frames, {} IP packets ({} bytes), {} other frames, {:.6} s",
        opts.input.display(),
        info.frames,
        s.input.packets,
        s.input.bytes,
        s.non_ip.packets,
        dur as f64 / 1e9
    );
    let _ = writeln!(
        o,
        "flows: {} ({:?}), table {} entries, {} evicted",
        seen, opts.classify, cap, evicted
    );
    if let Some(kib) = peak_resident_kib() {
        let _ = writeln!(
            o,
            "memory: peak resident {:.1} MB",
            kib as f64 * 1024.0 / 1e6
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:<4} {:<12} {:>12} {:>14} {:>16}",
        "#", "decision", "packets", "bytes", "rate"
    );
    for (i, name) in engine.names.iter().enumerate() {
        let _ = writeln!(o, "{:<4} {name}", i + 1);
        for (c, cat) in stats::categories(&opts.chain[i]).iter().enumerate() {
            let k = s.stage[i][c];
            let _ = writeln!(
                o,
                "{:<4} {:<12} {:>12} {:>14} {:>16}",
                "",
                cat,
                k.packets,
                k.bytes,
                rate_text(k.bytes, dur)
            );
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:<17} {:>12} {:>14} {:>16}",
        "forwarded",
        s.forwarded.packets,
        s.forwarded.bytes,
        rate_text(s.forwarded.bytes, dur)
    );
    let _ = writeln!(
        o,
        "{:<17} {:>12} {:>14} {:>16}",
        "dropped",
        s.dropped.packets,
        s.dropped.bytes,
        rate_text(s.dropped.bytes, dur)
    );
    if s.has_queues {
        let first = s.first.unwrap_or(0);
        let _ = writeln!(
            o,
            "last departure {:.6} s after the first arrival",
            s.last_out.saturating_sub(first) as f64 / 1e9
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "forwarded IP packets by DSCP and ECN:");
    let _ = writeln!(
        o,
        "{:<5} {:<5} {:>12} {:>14}",
        "dscp", "ecn", "packets", "bytes"
    );
    for (tos, k) in s.by_tos.iter().enumerate() {
        if k.packets > 0 {
            let _ = writeln!(
                o,
                "{:<5} {:<5} {:>12} {:>14}",
                tos >> 2,
                tos & 3,
                k.packets,
                k.bytes
            );
        }
    }
    let mut notes = Vec::new();
    if info.bad_ip > 0 {
        notes.push(format!(
            "{} frames with an unreadable IP header passed untouched (first: packet {})",
            info.bad_ip, info.first[0]
        ));
    }
    if info.with_options > 0 {
        notes.push(format!(
            "{} IPv4 packets with options (first: packet {})",
            info.with_options, info.first[1]
        ));
    }
    if info.fragments > 0 {
        notes.push(format!(
            "{} fragments (classified without ports; first: packet {})",
            info.fragments, info.first[2]
        ));
    }
    if info.backwards > 0 {
        notes.push(format!(
            "{} packets with a timestamp older than the one before (taken at that time; first: packet {})",
            info.backwards, info.first[3]
        ));
    }
    for n in notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}
