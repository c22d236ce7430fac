//! Conversions of Python arguments: rates, sizes, durations, tick rates,
//! modes and colors, with netcond's own messages in the `ValueError`s.

use core::time::Duration;
use netcond::base::{ByteSize, Color, Rate, TickRate};
use netcond::trtcm::Mode;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyString};

/// A `ValueError` carrying `err`'s `Display` (netcond's message, with its rule).
pub fn value_error(err: impl core::fmt::Display) -> PyErr {
    PyValueError::new_err(err.to_string())
}

fn no_bool(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected an int or a string, not a bool"
        )));
    }
    Ok(())
}

/// An integer argument, also from a float with an integral value (`1e9`).
fn whole(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    no_bool(obj, what)?;
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let v = f.value();
        #[allow(clippy::float_cmp)]
        if v >= 0.0 && v.fract() == 0.0 && v < 18_446_744_073_709_551_616.0 {
            return Ok(v as u64);
        }
        return Err(PyValueError::new_err(format!(
            "{what}: {v} is not a whole non-negative number"
        )));
    }
    obj.extract::<u64>().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: expected a non-negative integer below 2**64 or a string with a unit, got {}",
            obj.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// A rate: an int (bits per second; packets per second in packet mode) or a
/// tc-style string (`"10mbit"`, `"800kbps"`; bytes-mode only).
pub fn rate(obj: &Bound<'_, PyAny>, what: &str, mode: Mode) -> PyResult<Rate> {
    if let Ok(s) = obj.downcast::<PyString>() {
        if mode.is_packets() {
            return Err(PyValueError::new_err(format!(
                "{what}: in packet mode a rate is a number of packets per second, not {:?}",
                s.to_cow()?
            )));
        }
        return s
            .to_cow()?
            .parse::<Rate>()
            .map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    let n = whole(obj, what)?;
    Ok(if mode.is_packets() {
        Rate::from_bytes_per_sec(n)
    } else {
        Rate::from_bits_per_sec(n)
    })
}

/// The number a rate was given as: bits per second, or packets per second in
/// packet mode.
pub fn rate_number(r: Rate, mode: Mode) -> u64 {
    if mode.is_packets() {
        r.bytes_per_sec()
    } else {
        r.bits_per_sec()
    }
}

/// A size: an int (bytes, or packets in packet mode) or a tc-style string
/// (`"10kb"`, `"1500b"`).
pub fn size(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if let Ok(s) = obj.downcast::<PyString>() {
        return s
            .to_cow()?
            .parse::<ByteSize>()
            .map(ByteSize::bytes)
            .map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    whole(obj, what)
}

/// A size that must fit 32 bits (a packet length).
pub fn size_u32(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    let n = size(obj, what)?;
    u32::try_from(n).map_err(|_| PyValueError::new_err(format!("{what}: {n} exceeds 2**32 - 1")))
}

/// A duration: an int (nanoseconds), a `datetime.timedelta`, or a tc-style
/// string (`"5ms"`, `"100us"`, `"1.5s"`; a bare number is microseconds, as in tc).
pub fn duration(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Duration> {
    if let Ok(s) = obj.downcast::<PyString>() {
        return parse_time(&s.to_cow()?).map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    let timedelta = obj.py().import("datetime")?.getattr("timedelta")?;
    if obj.is_instance(&timedelta)? {
        let days: i64 = obj.getattr("days")?.extract()?;
        let secs: i64 = obj.getattr("seconds")?.extract()?;
        let us: i64 = obj.getattr("microseconds")?.extract()?;
        if days < 0 {
            return Err(PyValueError::new_err(format!(
                "{what}: a negative duration"
            )));
        }
        let total = u64::try_from(days).unwrap_or(0) * 86_400 + u64::try_from(secs).unwrap_or(0);
        return Ok(Duration::new(total, 0) + Duration::from_micros(u64::try_from(us).unwrap_or(0)));
    }
    Ok(Duration::from_nanos(whole(obj, what)?))
}

/// tc's time syntax: a decimal number and `s`, `ms`, `us` or `ns` (and their
/// long forms); a bare number is microseconds. A value that is not a whole
/// number of nanoseconds is refused rather than rounded.
pub fn parse_time(text: &str) -> Result<Duration, String> {
    let t = text.trim().to_ascii_lowercase();
    let split = t
        .bytes()
        .position(|b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let ns_per: u128 = match unit.trim() {
        "s" | "sec" | "secs" => 1_000_000_000,
        "ms" | "msec" | "msecs" => 1_000_000,
        "" | "us" | "usec" | "usecs" => 1_000,
        "ns" | "nsec" | "nsecs" => 1,
        u => {
            return Err(format!(
                "unknown time unit {u:?} (expected s, ms, us or ns)"
            ))
        }
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(format!(
            "{text:?} is not a time: expected a number and a unit, e.g. 5ms"
        ));
    }
    let frac = frac.trim_end_matches('0');
    let mut digits: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        digits = digits
            .checked_mul(10)
            .and_then(|d| d.checked_add(u128::from(b - b'0')))
            .ok_or("time too large")?;
    }
    let den = u32::try_from(frac.len())
        .ok()
        .and_then(|k| 10u128.checked_pow(k))
        .ok_or("too many decimals")?;
    let n = digits.checked_mul(ns_per).ok_or("time too large")?;
    if n % den != 0 {
        return Err(format!("{text:?} is not a whole number of nanoseconds"));
    }
    let ns = u64::try_from(n / den).map_err(|_| "time too large")?;
    Ok(Duration::from_nanos(ns))
}

/// The clock: ticks per second (default 10**9, nanoseconds).
pub fn tick(hz: &Bound<'_, PyAny>) -> PyResult<TickRate> {
    let n = whole(hz, "tick_hz")?;
    TickRate::from_hz(n).ok_or_else(|| PyValueError::new_err("tick_hz: the tick rate must be > 0"))
}

/// `"bytes"` or `"packets"`.
pub fn mode(s: &str) -> PyResult<Mode> {
    match s {
        "bytes" | "byte" => Ok(Mode::Bytes),
        "packets" | "packet" => Ok(Mode::Packets),
        _ => Err(PyValueError::new_err(format!(
            "mode: expected 'bytes' or 'packets', got {s:?}"
        ))),
    }
}

/// The name of a mode, as [`mode`] takes it.
pub fn mode_name(m: Mode) -> &'static str {
    if m.is_packets() {
        "packets"
    } else {
        "bytes"
    }
}

/// A color: 0 green, 1 yellow, 2 red (or a `netcond.Color`).
pub fn color(c: u8) -> PyResult<Color> {
    match c {
        0 => Ok(Color::Green),
        1 => Ok(Color::Yellow),
        2 => Ok(Color::Red),
        _ => Err(PyValueError::new_err(format!(
            "color: expected 0 (green), 1 (yellow) or 2 (red), got {c}"
        ))),
    }
}
