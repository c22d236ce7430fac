//! A minimal NFQUEUE client over a netlink socket, with batched verdicts.
//!
//! The `nfq` crate sends one verdict message per packet and keeps its socket
//! to itself; the kernel takes verdicts only from the socket bound to the
//! queue. This client speaks the same protocol (nfnetlink_queue: bind,
//! copy-packet mode, packet messages, `NFQNL_MSG_VERDICT`) and adds
//! `NFQNL_MSG_VERDICT_BATCH`: one message that gives the same verdict to every
//! queued packet up to an id, usable for packets accepted unchanged.

use nix::sys::socket::{
    bind, recv, send, socket, AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol,
    SockType,
};
use std::os::fd::{AsRawFd, OwnedFd};

const NFNL_SUBSYS_QUEUE: u16 = 3;
const NFQNL_MSG_PACKET: u16 = 0;
const NFQNL_MSG_VERDICT: u16 = 1;
const NFQNL_MSG_CONFIG: u16 = 2;
const NFQNL_MSG_VERDICT_BATCH: u16 = 3;
const NFQA_PACKET_HDR: u16 = 1;
const NFQA_VERDICT_HDR: u16 = 2;
const NFQA_PAYLOAD: u16 = 10;
const NFQA_CFG_CMD: u16 = 1;
const NFQA_CFG_PARAMS: u16 = 2;
const NFQA_CFG_QUEUE_MAXLEN: u16 = 3;
const NFQNL_CFG_CMD_BIND: u8 = 1;
const NFQNL_COPY_PACKET: u8 = 2;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

/// A verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// NF_DROP.
    Drop = 0,
    /// NF_ACCEPT.
    Accept = 1,
}

/// A queue bound on its own netlink socket.
pub struct NfQueue {
    fd: OwnedFd,
    queue: u16,
    seq: u32,
    rx: Vec<u8>,
    /// Bytes of `rx` in use since [`NfQueue::clear`].
    fill: usize,
    tx: Vec<u8>,
}

/// One queued packet: its id and where its payload lies in the receive buffer.
#[derive(Debug, Clone, Copy)]
pub struct Queued {
    /// The kernel's packet id.
    pub id: u32,
    /// Payload range in [`NfQueue::buffer`].
    pub start: usize,
    /// End of the payload range.
    pub end: usize,
}

fn io(e: nix::Error) -> std::io::Error {
    std::io::Error::from_raw_os_error(e as i32)
}

fn put_attr(b: &mut Vec<u8>, ty: u16, data: &[u8]) {
    let len = 4 + data.len();
    b.extend_from_slice(&(len as u16).to_ne_bytes());
    b.extend_from_slice(&ty.to_ne_bytes());
    b.extend_from_slice(data);
    while b.len() % 4 != 0 {
        b.push(0);
    }
}

impl NfQueue {
    /// Opens a netlink socket and binds queue `queue` in copy-packet mode.
    pub fn open(queue: u16, max_len: u32) -> std::io::Result<NfQueue> {
        let fd = socket(
            AddressFamily::Netlink,
            SockType::Raw,
            SockFlag::empty(),
            SockProtocol::NetlinkNetFilter,
        )
        .map_err(io)?;
        bind(fd.as_raw_fd(), &NetlinkAddr::new(0, 0)).map_err(io)?;
        // Wake up every 200 ms without traffic, so that a caller can stop.
        nix::sys::socket::setsockopt(
            &fd,
            nix::sys::socket::sockopt::ReceiveTimeout,
            &nix::sys::time::TimeVal::new(0, 200_000),
        )
        .map_err(io)?;
        // Room for bursts; the kernel may cap it at net.core.rmem_max.
        let _ = nix::sys::socket::setsockopt(&fd, nix::sys::socket::sockopt::RcvBuf, &(8 << 20));
        let mut q = NfQueue {
            fd,
            queue,
            seq: 0,
            rx: vec![0; 1 << 20],
            fill: 0,
            tx: Vec::with_capacity(65536 + 64),
        };
        q.config(|b| put_attr(b, NFQA_CFG_CMD, &[NFQNL_CFG_CMD_BIND, 0, 0, 0]))?;
        q.config(|b| {
            let mut p = 0xffffu32.to_be_bytes().to_vec();
            p.push(NFQNL_COPY_PACKET);
            put_attr(b, NFQA_CFG_PARAMS, &p);
        })?;
        q.config(|b| put_attr(b, NFQA_CFG_QUEUE_MAXLEN, &max_len.to_be_bytes()))?;
        Ok(q)
    }

    fn header(&mut self, msg: u16, flags: u16) {
        self.seq = self.seq.wrapping_add(1);
        self.tx.clear();
        self.tx.extend_from_slice(&0u32.to_ne_bytes()); // length, set at the end
        self.tx
            .extend_from_slice(&((NFNL_SUBSYS_QUEUE << 8) | msg).to_ne_bytes());
        self.tx
            .extend_from_slice(&(NLM_F_REQUEST | flags).to_ne_bytes());
        self.tx.extend_from_slice(&self.seq.to_ne_bytes());
        self.tx.extend_from_slice(&0u32.to_ne_bytes());
        // nfgenmsg: family AF_UNSPEC, version 0, queue number big-endian.
        self.tx.extend_from_slice(&[0, 0]);
        self.tx.extend_from_slice(&self.queue.to_be_bytes());
    }

    fn send_tx(&mut self) -> std::io::Result<()> {
        let len = self.tx.len() as u32;
        self.tx[..4].copy_from_slice(&len.to_ne_bytes());
        send(self.fd.as_raw_fd(), &self.tx, MsgFlags::empty()).map_err(io)?;
        Ok(())
    }

    fn config(&mut self, attrs: impl FnOnce(&mut Vec<u8>)) -> std::io::Result<()> {
        self.header(NFQNL_MSG_CONFIG, NLM_F_ACK);
        attrs(&mut self.tx);
        self.send_tx()?;
        // The acknowledgement: an NLMSG_ERROR with error 0.
        let n = recv(self.fd.as_raw_fd(), &mut self.rx, MsgFlags::empty()).map_err(io)?;
        let b = &self.rx[..n];
        if b.len() >= 20 && u16::from_ne_bytes([b[4], b[5]]) == NLMSG_ERROR {
            let e = i32::from_ne_bytes([b[16], b[17], b[18], b[19]]);
            if e != 0 {
                return Err(std::io::Error::from_raw_os_error(-e));
            }
        }
        Ok(())
    }

    /// The receive buffer that [`Queued`] ranges index.
    pub fn buffer(&self) -> &[u8] {
        &self.rx
    }

    /// Forgets the packets received so far (their ranges become invalid).
    pub fn clear(&mut self) {
        self.fill = 0;
    }

    /// Receives one datagram (one queued packet) after those already held,
    /// and appends its packets to `out`. With `wait` false it returns
    /// `Ok(false)` at once when nothing is waiting or the buffer is full.
    pub fn recv_batch(&mut self, out: &mut Vec<Queued>, wait: bool) -> std::io::Result<bool> {
        if self.rx.len() - self.fill < 65536 + 4096 {
            return Ok(false);
        }
        let flags = if wait {
            MsgFlags::empty()
        } else {
            MsgFlags::MSG_DONTWAIT
        };
        let base = self.fill;
        let n = match recv(self.fd.as_raw_fd(), &mut self.rx[base..], flags) {
            Ok(n) => n,
            Err(nix::Error::EAGAIN) if !wait => return Ok(false),
            Err(e) => return Err(io(e)),
        };
        self.fill = base + ((n + 3) & !3);
        let end = base + n;
        let mut off = base;
        while off + 16 <= end {
            let b = &self.rx[off..end];
            let len = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize;
            if len < 16 || len > b.len() {
                break;
            }
            let ty = u16::from_ne_bytes([b[4], b[5]]);
            if ty == NLMSG_ERROR && len >= 20 {
                let e = i32::from_ne_bytes([b[16], b[17], b[18], b[19]]);
                if e != 0 {
                    return Err(std::io::Error::from_raw_os_error(-e));
                }
            } else if ty == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET {
                let mut id = None;
                let mut payload = None;
                let mut a = 20; // nlmsghdr 16 + nfgenmsg 4
                while a + 4 <= len {
                    let alen = usize::from(u16::from_ne_bytes([b[a], b[a + 1]]));
                    let aty = u16::from_ne_bytes([b[a + 2], b[a + 3]]) & 0x3fff;
                    if alen < 4 || a + alen > len {
                        break;
                    }
                    match aty {
                        NFQA_PACKET_HDR if alen >= 8 => {
                            id = Some(u32::from_be_bytes([b[a + 4], b[a + 5], b[a + 6], b[a + 7]]))
                        }
                        NFQA_PAYLOAD => payload = Some((off + a + 4, off + a + alen)),
                        _ => {}
                    }
                    a += (alen + 3) & !3;
                }
                if let (Some(id), Some((start, end))) = (id, payload) {
                    out.push(Queued { id, start, end });
                }
            } else if ty == NLMSG_DONE {
                break;
            }
            off += (len + 3) & !3;
        }
        Ok(true)
    }

    /// A verdict for one packet, with a new payload if it changed.
    pub fn verdict(&mut self, id: u32, v: Verdict, payload: Option<&[u8]>) -> std::io::Result<()> {
        self.header(NFQNL_MSG_VERDICT, 0);
        let mut h = (v as u32).to_be_bytes().to_vec();
        h.extend_from_slice(&id.to_be_bytes());
        put_attr(&mut self.tx, NFQA_VERDICT_HDR, &h);
        if let Some(p) = payload {
            put_attr(&mut self.tx, NFQA_PAYLOAD, p);
        }
        self.send_tx()
    }

    /// One verdict for every queued packet with an id up to `id`.
    pub fn verdict_batch(&mut self, id: u32, v: Verdict) -> std::io::Result<()> {
        self.header(NFQNL_MSG_VERDICT_BATCH, 0);
        let mut h = (v as u32).to_be_bytes().to_vec();
        h.extend_from_slice(&id.to_be_bytes());
        put_attr(&mut self.tx, NFQA_VERDICT_HDR, &h);
        self.send_tx()
    }
}
