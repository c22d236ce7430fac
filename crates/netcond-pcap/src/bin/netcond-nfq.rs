//! `netcond-nfq`: a netcond chain on live packets through Linux NFQUEUE.
//!
//! Every packet the kernel queues (IPv4 or IPv6, from an nftables `queue`
//! rule) is metered and marked by the chain with the monotonic clock at its
//! arrival in this process, and handed back with the verdict: accepted (with
//! its DSCP/ECN rewritten in place and the IPv4 checksum recomputed) or
//! dropped. A packet a queue stage (`red`, `trras`, `srras`, `tbf`, `codel`,
//! `fq_codel`, `pie`, `fq_pie`, `dualpi2`) takes stays in the kernel's queue, without a verdict,
//! until its departure time: the queue stages pace what the router forwards.

#[cfg(target_os = "linux")]
mod live {
    use netcond_pcap::chain::{parse_chain, parse_toml};
    use netcond_pcap::engine::{Engine, PushError, Sink};
    use netcond_pcap::flows::Classify;
    use netcond_pcap::packet::Link;
    use std::collections::HashMap;
    use std::process::ExitCode;
    use std::time::{Duration, Instant};

    const USAGE: &str = "\
usage: netcond-nfq --queue N (--chain CHAIN | --chain-file FILE) [options]

Runs a netcond chain on the packets of NFQUEUE queue N, e.g. in a router:
  nft add table inet nc
  nft add chain inet nc forward_q '{ type filter hook forward priority 0; }'
  nft add rule inet nc forward_q queue num 0
  netcond-nfq --queue 0 --chain 'trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13'

The meters (trtcm, srtcm, rfc4115) meter packets with mode=packets: rates in
packets/s and bursts in packets, without units, e.g. tc police's pkt_rate 1000
pkt_burst 16 is 'srtcm mode=packets cir=1000 cbs=16 ebs=0 -> drop-red'.

  --classify MODE    aggregate (default), five-tuple, dscp
  --max-flows N      five-tuple table entries (default 65536)
  --count N          stop after N packets
  --duration SECS    stop after SECS seconds
  --fail-open        let the kernel accept packets when the queue is full
  --queue-len N      kernel queue length (default 4096)
  --own-client       use netcond-pcap's own netlink client instead of the nfq crate
  --batch-verdicts   own client, and one NFQNL_MSG_VERDICT_BATCH for each run of
                     packets accepted unchanged among those waiting (up to 64)
Queue stages (red, trras, srras, tbf, codel, fq_codel, pie, fq_pie, dualpi2) hold a packet in the
kernel's queue until its
departure time (the default client only; --queue-len must exceed what they hold).
Prints its summary when --count or --duration ends the run (a signal ends it
without one); packets still held then leave at once. The queue is polled: it
waits 200 us when empty, less when a departure is due sooner.";

    struct Verdict {
        dropped: bool,
    }

    /// The IP header as a packet leaves the chain (the only part it changes).
    const HDR: usize = 64;

    /// Packets leaving the chain, for their verdicts: the engine's number,
    /// dropped or not, the first bytes of the frame.
    struct Live {
        ready: Vec<(u32, bool, [u8; HDR], usize)>,
    }

    impl Sink for Live {
        fn emit(
            &mut self,
            _: u64,
            frame: &[u8],
            _: u32,
            id: u32,
            dropped: bool,
        ) -> std::io::Result<()> {
            let n = frame.len().min(HDR);
            let mut h = [0u8; HDR];
            h[..n].copy_from_slice(&frame[..n]);
            self.ready.push((id, dropped, h, n));
            Ok(())
        }
    }

    /// Gives the verdicts of the packets that left the chain: accepted with
    /// the header as the chain left it, or dropped.
    fn release(
        q: &mut nfq::Queue,
        held: &mut HashMap<u32, nfq::Message>,
        ready: &mut Vec<(u32, bool, [u8; HDR], usize)>,
    ) -> std::io::Result<()> {
        for (id, dropped, h, n) in ready.drain(..) {
            let Some(mut msg) = held.remove(&id) else {
                continue;
            };
            if dropped {
                msg.set_verdict(nfq::Verdict::Drop);
            } else {
                let n = n.min(msg.get_payload().len());
                if msg.get_payload()[..n] != h[..n] {
                    msg.get_payload_mut()[..n].copy_from_slice(&h[..n]);
                }
                msg.set_verdict(nfq::Verdict::Accept);
            }
            q.verdict(msg)?;
        }
        Ok(())
    }

    impl Sink for Verdict {
        fn emit(&mut self, _: u64, _: &[u8], _: u32, _: u32, dropped: bool) -> std::io::Result<()> {
            self.dropped = dropped;
            Ok(())
        }
    }

    fn summary(engine: &Engine, chain: &[netcond_pcap::chain::Stage]) {
        let s = &engine.stats;
        for (i, name) in engine.names.iter().enumerate() {
            println!("{:<4} {name}", i + 1);
            for (c, cat) in netcond_pcap::stats::categories(&chain[i])
                .iter()
                .enumerate()
            {
                let k = s.stage[i][c];
                println!("{:<4} {:<12} {:>12} {:>14}", "", cat, k.packets, k.bytes);
            }
        }
        println!(
            "forwarded {} packets {} bytes",
            s.forwarded.packets, s.forwarded.bytes
        );
        println!(
            "dropped {} packets {} bytes",
            s.dropped.packets, s.dropped.bytes
        );
        println!("forwarded IP packets by DSCP and ECN:");
        println!(
            "{:<5} {:<5} {:>12} {:>14}",
            "dscp", "ecn", "packets", "bytes"
        );
        for (tos, k) in s.by_tos.iter().enumerate() {
            if k.packets > 0 {
                println!(
                    "{:<5} {:<5} {:>12} {:>14}",
                    tos >> 2,
                    tos & 3,
                    k.packets,
                    k.bytes
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run_own(
        qnum: u16,
        queue_len: u32,
        batch: bool,
        count: u64,
        duration: Option<Duration>,
        chain: &[netcond_pcap::chain::Stage],
        engine: &mut Engine,
    ) -> ExitCode {
        use netcond_pcap::nfqueue::{NfQueue, Verdict as V};
        let mut q = match NfQueue::open(qnum, queue_len) {
            Ok(q) => q,
            Err(e) => {
                return fail(format!(
                    "cannot bind queue {qnum}: {e} (needs CAP_NET_ADMIN)"
                ))
            }
        };
        let start = Instant::now();
        let deadline = duration.map(|d| start + d);
        let mut pk = Vec::with_capacity(64);
        let mut buf = Vec::with_capacity(65536);
        let mut v = Verdict { dropped: false };
        let (mut n, mut msgs, mut datagrams, mut overruns) = (0u64, 0u64, 0u64, 0u64);
        let (mut first_at, mut last_at) = (None, None);
        while n < count {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            pk.clear();
            q.clear();
            match q.recv_batch(&mut pk, true) {
                Ok(_) => {
                    // Take what else is waiting, up to 64 packets, before
                    // giving verdicts.
                    while pk.len() < 64 {
                        match q.recv_batch(&mut pk, false) {
                            Ok(true) => datagrams += 1,
                            _ => break,
                        }
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    continue
                }
                // ENOBUFS: the socket overran and the kernel dropped packets
                // (it says so once); carry on, as the nfq crate does.
                Err(e) if e.raw_os_error() == Some(105) => {
                    overruns += 1;
                    continue;
                }
                Err(e) => return fail(format!("queue {qnum}: receive failed: {e}")),
            }
            datagrams += 1;
            let mut pending: Option<u32> = None;
            for p in &pk {
                let now = Instant::now();
                first_at.get_or_insert(now);
                last_at = Some(now);
                let ts = u64::try_from(now.duration_since(start).as_nanos()).unwrap_or(u64::MAX);
                buf.clear();
                buf.extend_from_slice(&q.buffer()[p.start..p.end]);
                let len = buf.len() as u32;
                v.dropped = false;
                let pushed = engine.push(ts, Link::Raw, &mut buf, len, 0, &mut v);
                let changed = buf[..] != q.buffer()[p.start..p.end];
                let r = if pushed.is_ok() && v.dropped {
                    flush(&mut q, &mut pending, &mut msgs)
                        .and_then(|_| q.verdict(p.id, V::Drop, None))
                } else if pushed.is_ok() && changed {
                    flush(&mut q, &mut pending, &mut msgs)
                        .and_then(|_| q.verdict(p.id, V::Accept, Some(&buf)))
                } else if batch {
                    pending = Some(p.id);
                    msgs = msgs.wrapping_sub(1);
                    Ok(())
                } else {
                    q.verdict(p.id, V::Accept, None)
                };
                msgs = msgs.wrapping_add(1);
                if let Err(e) = r {
                    return fail(format!("queue {qnum}: verdict failed: {e}"));
                }
                n += 1;
            }
            if let Err(e) = flush(&mut q, &mut pending, &mut msgs) {
                return fail(format!("queue {qnum}: verdict failed: {e}"));
            }
        }
        let secs = match (first_at, last_at) {
            (Some(f), Some(l)) => l.duration_since(f).as_secs_f64(),
            _ => 0.0,
        };
        println!(
            "netcond-nfq: queue {qnum} (own client{}): {n} packets in {secs:.3} s ({:.0} packets/s from the first packet to the last), {datagrams} datagrams received, {msgs} verdict messages, {overruns} receive overruns",
            if batch { ", batched verdicts" } else { "" },
            if secs > 0.0 { n as f64 / secs } else { 0.0 }
        );
        summary(engine, chain);
        ExitCode::SUCCESS
    }

    fn flush(
        q: &mut netcond_pcap::nfqueue::NfQueue,
        pending: &mut Option<u32>,
        msgs: &mut u64,
    ) -> std::io::Result<()> {
        if let Some(id) = pending.take() {
            *msgs += 1;
            q.verdict_batch(id, netcond_pcap::nfqueue::Verdict::Accept)?;
        }
        Ok(())
    }

    fn fail(msg: impl std::fmt::Display) -> ExitCode {
        eprintln!("netcond-nfq: error: {msg}");
        ExitCode::from(2)
    }

    pub fn main() -> ExitCode {
        let mut args = std::env::args().skip(1);
        let mut queue: Option<u16> = None;
        let mut chain = None;
        let mut classify = Classify::Aggregate;
        let mut file_classify = None;
        let mut max_flows = 65536usize;
        let mut count = u64::MAX;
        let mut duration: Option<Duration> = None;
        let mut fail_open = false;
        let mut queue_len = 4096u32;
        let mut explicit_classify = false;
        let mut own_client = false;
        let mut batch = false;
        while let Some(a) = args.next() {
            let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
            let r: Result<(), String> = (|| {
                match a.as_str() {
                    "-h" | "--help" => {
                        println!("{USAGE}");
                        std::process::exit(0);
                    }
                    "--queue" => queue = Some(val()?.parse().map_err(|_| "--queue: 0-65535")?),
                    "-c" | "--chain" => {
                        chain = Some(parse_chain(&val()?).map_err(|e| format!("bad chain: {e}"))?)
                    }
                    "-f" | "--chain-file" => {
                        let f = val()?;
                        let t = std::fs::read_to_string(&f)
                            .map_err(|e| format!("cannot read chain file {f}: {e}"))?;
                        let (c, cl) = parse_toml(&t).map_err(|e| format!("{f}: {e}"))?;
                        chain = Some(c);
                        file_classify = cl;
                    }
                    "--classify" => {
                        classify = val()?.parse()?;
                        explicit_classify = true;
                    }
                    "--max-flows" => {
                        let v = val()?;
                        max_flows = v
                            .parse()
                            .ok()
                            .filter(|&n: &usize| n > 0 && n <= 1 << 26)
                            .ok_or_else(|| format!("--max-flows {v}: expected 1 to 67108864"))?
                    }
                    "--count" => count = val()?.parse().map_err(|_| "--count: a number")?,
                    "--duration" => {
                        let v = val()?;
                        duration = Some(
                            v.parse::<f64>()
                                .ok()
                                .and_then(|x| Duration::try_from_secs_f64(x).ok())
                                .filter(|d| !d.is_zero())
                                .ok_or_else(|| {
                                    format!("--duration {v}: expected seconds above 0")
                                })?,
                        )
                    }
                    "--fail-open" => fail_open = true,
                    "--own-client" => own_client = true,
                    "--batch-verdicts" => {
                        own_client = true;
                        batch = true;
                    }
                    "--queue-len" => {
                        queue_len = val()?.parse().map_err(|_| "--queue-len: a number")?
                    }
                    other => return Err(format!("unknown argument {other} (see --help)")),
                }
                Ok(())
            })();
            if let Err(e) = r {
                return fail(e);
            }
        }
        let Some(qnum) = queue else {
            return fail("no --queue given (see --help)");
        };
        let Some(chain) = chain else {
            return fail("no chain given: --chain '...' or --chain-file FILE");
        };
        if !explicit_classify {
            if let Some(c) = file_classify {
                match c.parse() {
                    Ok(c) => classify = c,
                    Err(e) => return fail(e),
                }
            }
        }
        if let Some(s) = chain.iter().find(|s| s.is_queue()).filter(|_| own_client) {
            return fail(format!(
                "stage '{}' holds packets in a queue: run it without --own-client/--batch-verdicts",
                s.name()
            ));
        }
        let mut engine = match Engine::new(&chain, classify, max_flows) {
            Ok(e) => e,
            Err(e) => return fail(format!("bad chain: {}", e.0)),
        };
        if own_client {
            return run_own(qnum, queue_len, batch, count, duration, &chain, &mut engine);
        }
        let mut q = match nfq::Queue::open() {
            Ok(q) => q,
            Err(e) => {
                return fail(format!(
                    "cannot open the netfilter queue socket: {e} (needs CAP_NET_ADMIN)"
                ))
            }
        };
        if let Err(e) = q.bind(qnum) {
            return fail(format!("cannot bind queue {qnum}: {e}"));
        }
        let _ = q.set_queue_max_len(qnum, queue_len);
        if fail_open {
            let _ = q.set_fail_open(qnum, true);
        }
        let start = Instant::now();
        let deadline = duration.map(|d| start + d);
        let mut buf = Vec::with_capacity(65536);
        let mut live = Live { ready: Vec::new() };
        // Packets given to the chain and not yet given a verdict, by the
        // number the engine carries for them (in its interface field).
        let mut held: HashMap<u32, nfq::Message> = HashMap::new();
        let mut seq = 0u32;
        let mut n = 0u64;
        let mut first_at: Option<Instant> = None;
        let mut last_at: Option<Instant> = None;
        let clock =
            |t: Instant| u64::try_from(t.duration_since(start).as_nanos()).unwrap_or(u64::MAX);
        q.set_nonblocking(true);
        while n < count {
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                break;
            }
            // Packets whose departure time has come leave their queue stage.
            let _ = engine.advance(clock(now), &mut live);
            if let Err(e) = release(&mut q, &mut held, &mut live.ready) {
                return fail(format!("queue {qnum}: verdict failed: {e}"));
            }
            let mut msg = match q.recv() {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    // Nothing waiting: sleep 200 us, or until the next departure.
                    let mut nap = Duration::from_micros(200);
                    if let Some(at) = engine.next_departure() {
                        nap = nap.min(Duration::from_nanos(at.saturating_sub(clock(now))));
                    }
                    std::thread::sleep(nap);
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return fail(format!("queue {qnum}: receive failed: {e}")),
            };
            let now = Instant::now();
            first_at.get_or_insert(now);
            last_at = Some(now);
            buf.clear();
            buf.extend_from_slice(msg.get_payload());
            let len = buf.len() as u32;
            seq = seq.wrapping_add(1);
            match engine.push(clock(now), Link::Raw, &mut buf, len, seq, &mut live) {
                Ok(_) => {
                    held.insert(seq, msg);
                }
                Err(PushError::BadIp) | Err(PushError::Io(_)) => {
                    msg.set_verdict(nfq::Verdict::Accept);
                    if let Err(e) = q.verdict(msg) {
                        return fail(format!("queue {qnum}: verdict failed: {e}"));
                    }
                }
            }
            if let Err(e) = release(&mut q, &mut held, &mut live.ready) {
                return fail(format!("queue {qnum}: verdict failed: {e}"));
            }
            n += 1;
        }
        // Packets still held by a queue stage leave now.
        let _ = engine.finish(&mut live);
        if let Err(e) = release(&mut q, &mut held, &mut live.ready) {
            return fail(format!("queue {qnum}: verdict failed: {e}"));
        }
        let _ = q.unbind(qnum);
        let secs = match (first_at, last_at) {
            (Some(f), Some(l)) => l.duration_since(f).as_secs_f64(),
            _ => 0.0,
        };
        println!(
            "netcond-nfq: queue {qnum}: {n} packets in {secs:.3} s ({:.0} packets/s from the first packet to the last)",
            if secs > 0.0 { n as f64 / secs } else { 0.0 }
        );
        summary(&engine, &chain);
        ExitCode::SUCCESS
    }
}

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    live::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!("netcond-nfq: error: NFQUEUE exists on Linux only");
    std::process::ExitCode::from(2)
}
