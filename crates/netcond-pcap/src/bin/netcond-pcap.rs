//! `netcond-pcap`: runs a netcond chain over a pcap/pcapng capture.

use netcond_pcap::chain::{parse_chain, parse_toml};
use netcond_pcap::flows::Classify;
use netcond_pcap::{run, summary, Options};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: netcond-pcap [options] IN [OUT]
       netcond-pcap [options] -r IN [-w OUT]

Runs a chain of netcond conditioners over the IP packets of a pcap or pcapng
capture, in capture time order with the capture's timestamps as the clock,
and writes the conditioned packets (OUT ending in .pcapng: pcapng, else pcap).

  -c, --chain CHAIN      the chain, e.g.
                           'trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13'
  -f, --chain-file FILE  the chain from a TOML file: chain = \"...\" (or a list of
                         stages), classify = \"...\"
      --classify MODE    aggregate (default), five-tuple, dscp
      --max-flows N      five-tuple table entries (default 65536; LRU per set of 4)
      --dropped FILE     write dropped packets to FILE
      --csv FILE         per-interval counts as CSV
      --interval DUR     CSV interval (default 100ms; units ns, us, ms, s)
      --allow-backwards  take a packet older than the one before at that one's time
      --strict           refuse IPv4 options, fragments, unreadable IP headers
      --no-sync          rename the output into place without syncing it to disk
                         first (faster; a crash of the machine may then lose it)
  -q, --quiet            no progress display
  -h, --help             this text

stages: trtcm, srtcm, rfc4115 (meters, colors=rfc2597|dscp:..|pcp:.. for
color-aware, mode=packets to meter packets); dscp G,Y,R, drop-red,
drop-yellow; pcn-ingress, pcn-node, rfc6660; red (-> ecn-or-drop); trras,
srras; tbf; codel, fq_codel, pie, fq_pie, dualpi2 (AQMs on a link of rate=).
Rates and sizes take tc's units (10mbit, 800kbps, 32k, 1m). In mode=packets a
meter's rates are packets per second and its bursts packets, without units:
tc police's pkt_rate 1000 pkt_burst 16 is
  'srtcm mode=packets cir=1000 cbs=16 ebs=0 -> drop-red'.
Exit status 2 on any error, with one line naming the problem.";

fn duration_ns(s: &str) -> Option<u64> {
    let (num, mul) = if let Some(n) = s.strip_suffix("ns") {
        (n, 1)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1_000)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1_000_000)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1_000_000_000)
    } else {
        (s, 1_000_000_000)
    };
    let v: u64 = num.parse().ok()?;
    v.checked_mul(mul).filter(|&x| x > 0)
}

fn parse_args(args: Vec<String>) -> Result<Option<Options>, String> {
    let mut input = None;
    let mut output = None;
    let mut chain_text = None;
    let mut chain_file = None;
    let mut classify = None;
    let mut opts = Options {
        input: PathBuf::new(),
        output: None,
        dropped: None,
        chain: Vec::new(),
        classify: Classify::Aggregate,
        max_flows: 65536,
        csv: None,
        interval_ns: 100_000_000,
        allow_backwards: false,
        strict: false,
        progress: true,
        sync: true,
    };
    let mut positional = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "-r" => input = Some(val("-r")?),
            "-w" => output = Some(val("-w")?),
            "-c" | "--chain" => chain_text = Some(val("--chain")?),
            "-f" | "--chain-file" => chain_file = Some(val("--chain-file")?),
            "--classify" => classify = Some(val("--classify")?),
            "--max-flows" => {
                let v = val("--max-flows")?;
                opts.max_flows = v
                    .parse()
                    .ok()
                    .filter(|&n: &usize| n > 0 && n <= 1 << 26)
                    .ok_or_else(|| format!("--max-flows {v}: expected 1 to 67108864"))?;
            }
            "--dropped" => opts.dropped = Some(val("--dropped")?.into()),
            "--csv" => opts.csv = Some(val("--csv")?.into()),
            "--interval" => {
                let v = val("--interval")?;
                opts.interval_ns = duration_ns(&v)
                    .ok_or_else(|| format!("--interval {v}: expected e.g. 100ms, 1s, 500us"))?;
            }
            "--allow-backwards" => opts.allow_backwards = true,
            "--strict" => opts.strict = true,
            "-q" | "--quiet" => opts.progress = false,
            "--no-sync" => opts.sync = false,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s} (see --help)"))
            }
            _ => positional.push(a),
        }
    }
    let mut pos = positional.into_iter();
    if input.is_none() {
        input = pos.next();
    }
    if output.is_none() {
        output = pos.next();
    }
    if let Some(extra) = pos.next() {
        return Err(format!("unexpected argument '{extra}' (see --help)"));
    }
    opts.input = input.ok_or("no input capture given (see --help)")?.into();
    opts.output = output.map(PathBuf::from);
    let mut file_classify = None;
    opts.chain = match (chain_text, chain_file) {
        (Some(_), Some(_)) => return Err("give --chain or --chain-file, not both".into()),
        (None, None) => return Err("no chain given: use --chain '...' or --chain-file FILE".into()),
        (Some(t), None) => parse_chain(&t).map_err(|e| format!("bad chain: {e}"))?,
        (None, Some(f)) => {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| format!("cannot read chain file {f}: {e}"))?;
            let (c, cl) = parse_toml(&text).map_err(|e| format!("{f}: {e}"))?;
            file_classify = cl;
            c
        }
    };
    if let Some(c) = classify.or(file_classify) {
        opts.classify = c.parse()?;
    }
    if opts.output.is_some() && opts.output == opts.dropped {
        return Err("--dropped must name another file than the output".into());
    }
    Ok(Some(opts))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("netcond-pcap: error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok((engine, info)) => {
            print!("{}", summary(&opts, &engine, &info));
            ExitCode::SUCCESS
        }
        Err(fatal) => {
            eprintln!("netcond-pcap: error: {fatal}");
            ExitCode::from(2)
        }
    }
}
