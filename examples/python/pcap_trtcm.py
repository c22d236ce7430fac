"""Replay a capture's timestamps and lengths through an RFC 2698 trTCM with
NumPy, and plot the green, yellow and red rates.

    python examples/python/pcap_trtcm.py [capture.pcap] [--cir 20mbit --pir 40mbit]

Without a capture, a synthetic one is written first (bursty on/off traffic
offered at up to twice PIR) so that the example runs anywhere. The capture is
read with a small pure-Python reader of the classic pcap format (microsecond
or nanosecond timestamps, either byte order); the lengths are the original
wire lengths. The plot is written to $NETCOND_EXAMPLES_OUT (or the current
directory) as pcap_trtcm.png.
"""

import argparse
import os
import struct
import sys

import matplotlib

if "MPLBACKEND" not in os.environ:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import netcond

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D


def read_pcap(path):
    """Timestamps (ns, uint64) and original lengths (uint32) of a pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (MAGIC_US, MAGIC_NS):
        end = "<"
    else:
        end = ">"
        magic = struct.unpack(">I", data[:4])[0]
        if magic not in (MAGIC_US, MAGIC_NS):
            raise ValueError(f"{path}: not a pcap file (pcapng: convert with editcap -F pcap)")
    frac = 1 if magic == MAGIC_NS else 1000
    rec = struct.Struct(end + "IIII")
    times, lens = [], []
    off = 24
    while off + 16 <= len(data):
        sec, sub, incl, orig = rec.unpack_from(data, off)
        times.append(sec * 1_000_000_000 + sub * frac)
        lens.append(orig)
        off += 16 + incl
    return np.array(times, np.uint64), np.array(lens, np.uint32)


def write_synthetic(path, seconds=4.0, seed=1):
    """On/off traffic: 50 ms bursts at 60 Mbit/s, 50 ms pauses at 5 Mbit/s."""
    rng = np.random.default_rng(seed)
    t, out = 0.0, []
    while t < seconds:
        on = int(t / 0.05) % 2 == 0
        rate = 60e6 if on else 5e6
        size = int(rng.choice([64, 576, 1500], p=[0.3, 0.2, 0.5]))
        out.append((t, size))
        t += rng.exponential(size * 8 / rate)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", MAGIC_US, 2, 4, 0, 0, 65535, 1))
        for ts, size in out:
            sec, us = int(ts), int(round((ts - int(ts)) * 1e6)) % 1_000_000
            snap = min(size, 64)
            f.write(struct.pack("<IIII", sec, us, snap, size))
            f.write(bytes(snap))
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pcap", nargs="?")
    ap.add_argument("--cir", default="20mbit")
    ap.add_argument("--pir", default="40mbit")
    ap.add_argument("--cbs", default="64kb")
    ap.add_argument("--pbs", default="128kb")
    ap.add_argument("--bin-ms", type=float, default=20.0)
    a = ap.parse_args(argv)
    out_dir = os.environ.get("NETCOND_EXAMPLES_OUT", ".")
    path = a.pcap or write_synthetic(os.path.join(out_dir, "synthetic.pcap"))

    times, lens = read_pcap(path)
    times = times - times[0]  # the meter's clock starts at the first packet
    meter = netcond.TrTcm(cir=a.cir, pir=a.pir, cbs=a.cbs, pbs=a.pbs)
    colors = meter.color_blind(times, lens)

    bin_ns = int(a.bin_ms * 1e6)
    bins = (times // bin_ns).astype(np.int64)
    nbins = int(bins[-1]) + 1
    x = np.arange(nbins) * a.bin_ms / 1000
    fig, ax = plt.subplots(figsize=(9, 4))
    bottom = np.zeros(nbins)
    for c, col in ((0, "tab:green"), (1, "gold"), (2, "tab:red")):
        sel = colors == c
        rate = np.bincount(bins[sel], weights=lens[sel].astype(float) * 8, minlength=nbins) / (a.bin_ms / 1000) / 1e6
        ax.fill_between(x, bottom, bottom + rate, step="post", color=col, label=netcond.Color(c).name.lower())
        bottom += rate
    prof = meter.profile
    ax.axhline(prof.cir / 1e6, color="k", ls="--", lw=1, label=f"CIR {prof.cir / 1e6:g} Mbit/s")
    ax.axhline(prof.pir / 1e6, color="k", ls=":", lw=1, label=f"PIR {prof.pir / 1e6:g} Mbit/s")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"rate over {a.bin_ms:g} ms (Mbit/s)")
    ax.set_title(f"trTCM on {os.path.basename(path)}: {len(times)} packets")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    png = os.path.join(out_dir, "pcap_trtcm.png")
    fig.savefig(png, dpi=100)

    span = (int(times[-1]) + 1) / 1e9
    byts = np.bincount(colors, weights=lens.astype(float), minlength=3)
    print(f"{len(times)} packets over {span:.3f} s from {path}")
    for c in netcond.Color:
        print(f"  {c.name.lower():6s} {int((colors == c).sum()):8d} packets {byts[c] * 8 / span / 1e6:8.2f} Mbit/s")
    # RFC 2698: green bytes never exceed CBS + CIR x T, green + yellow PBS + PIR x T.
    assert byts[0] <= prof.cbs + prof.cir / 8 * span
    assert byts[0] + byts[1] <= prof.pbs + prof.pir / 8 * span
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
