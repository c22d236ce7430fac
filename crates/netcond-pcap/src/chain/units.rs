//! tc-style quantities in stage parameters: times and queue limits.

use super::QueueLimit;
use netcond::base::ByteSize;
use std::time::Duration;

/// A time as tc writes it: a decimal number and a unit, `s`/`sec`/`secs`,
/// `ms`/`msec`/`msecs`, `us`/`usec`/`usecs`, `ns`/`nsec`/`nsecs`; a bare
/// number is microseconds, as in tc. Exact: a value that is not a whole
/// number of nanoseconds is refused.
pub fn parse_time(text: &str) -> Result<Duration, String> {
    let t = text.trim().to_ascii_lowercase();
    let n = t
        .bytes()
        .position(|b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(n);
    let ns_per: u128 = match unit.trim() {
        "s" | "sec" | "secs" => 1_000_000_000,
        "ms" | "msec" | "msecs" => 1_000_000,
        "" | "us" | "usec" | "usecs" => 1_000,
        "ns" | "nsec" | "nsecs" => 1,
        u => return Err(format!("unknown unit '{u}' (expected s, ms, us or ns)")),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err("expected a number with a unit, e.g. 50ms".into());
    }
    let frac = frac.trim_end_matches('0');
    let mut digits: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        digits = digits
            .checked_mul(10)
            .and_then(|d| d.checked_add(u128::from(b - b'0')))
            .ok_or("too large")?;
    }
    let den = u32::try_from(frac.len())
        .ok()
        .and_then(|k| 10u128.checked_pow(k))
        .ok_or("too many decimals")?;
    let num = digits.checked_mul(ns_per).ok_or("too large")?;
    if num % den != 0 {
        return Err("not a whole number of nanoseconds".into());
    }
    let ns = u64::try_from(num / den).map_err(|_| "too large")?;
    Ok(Duration::from_nanos(ns))
}

/// A queue limit: a bare number or `Np` is packets, a size with a byte
/// unit (`64k`, `1500b`, `1mb`) is bytes.
pub(super) fn parse_limit(v: &str) -> Result<QueueLimit, String> {
    let n = v.strip_suffix('p').unwrap_or(v);
    if let Ok(x) = n.parse::<u32>() {
        if x == 0 {
            return Err("the limit must be at least one packet".into());
        }
        return Ok(QueueLimit::Packets(x));
    }
    match v.parse::<ByteSize>() {
        Ok(b) if b.bytes() > 0 => Ok(QueueLimit::Bytes(b.bytes())),
        Ok(_) => Err("the limit must be at least one byte".into()),
        Err(e) => Err(format!(
            "expected packets (1000 or 1000p) or bytes (64k, 1500b): {e}"
        )),
    }
}
