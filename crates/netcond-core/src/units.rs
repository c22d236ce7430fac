//! Rates and byte sizes written the way Linux `tc` writes them.
//!
//! [`Rate`] and [`ByteSize`] implement [`FromStr`] with the
//! unit suffixes of tc(8), case-insensitively, so that a command line or a
//! configuration file can say `cir=10mbit cbs=32k` as a tc user would:
//!
//! | rate suffix | unit | | size suffix | unit |
//! |---|---|---|---|---|
//! | none, `bit`, `bit/s` | bit/s | | none, `b`, `B` | byte |
//! | `kbit`, `mbit`, `gbit`, `tbit` | 10^3, 10^6, 10^9, 10^12 bit/s | | `k`/`kb`, `m`/`mb`, `g`/`gb` | 2^10, 2^20, 2^30 bytes |
//! | `kibit`, `mibit`, `gibit`, `tibit` | 2^10 ... 2^40 bit/s | | `kbit`, `mbit`, `gbit` | 2^10, 2^20, 2^30 bits |
//! | `bps`, `kbps`, `mbps`, `gbps`, `tbps` | 1, 10^3 ... 10^12 **bytes**/s | | | |
//! | `kibps`, `mibps`, `gibps`, `tibps` | 2^10 ... 2^40 bytes/s | | | |
//!
//! As in tc, `bps` means bytes per second and the size prefixes are binary. The
//! number may have a decimal fraction (`1.5gbit`), and the result is exact: it is
//! computed in integers, and a value that is not a whole number of bits per second
//! (rates) or of bytes (sizes) is an error rather than rounded. So are negative
//! values, values past `u64::MAX`, and unknown suffixes (`10mbits`).
//!
//! `Display` writes a form that parses back to the same value (`"10000000 bit/s"`,
//! `"32768 B"`).
//!
//! ```
//! use netcond_core::{ByteSize, Rate};
//!
//! let cir: Rate = "1.5gbit".parse().unwrap();
//! assert_eq!(cir.bits_per_sec(), 1_500_000_000);
//! let pir: Rate = "800kbps".parse().unwrap(); // tc: kilobytes per second
//! assert_eq!(pir.bytes_per_sec(), 800_000);
//! let cbs: ByteSize = "32k".parse().unwrap();
//! assert_eq!(cbs.bytes(), 32 * 1024);
//! assert_eq!(cir.to_string().parse::<Rate>(), Ok(cir));
//! assert!("10mbits".parse::<Rate>().is_err());
//! assert!("0.5".parse::<ByteSize>().is_err());
//! ```

use crate::Rate;
use core::str::FromStr;

crate::config_error! {
    /// Why a rate or byte size could not be parsed.
    pub enum ParseUnitError {
        /// Nothing but white space was given.
        Empty => "empty value: expected a number with an optional unit, e.g. 10mbit or 32k",
        /// The text does not start with a decimal number.
        InvalidNumber => "not a number: expected digits with an optional decimal fraction, e.g. 1.5gbit",
        /// A minus sign.
        Negative => "negative values are not allowed",
        /// The suffix is not one of tc's units.
        UnknownUnit => "unknown unit: rates take bit, kbit, mbit, gbit, tbit, kibit..tibit, bps, kbps..tbps, kibps..tibps; sizes take b, k/kb, m/mb, g/gb, kbit, mbit, gbit",
        /// The value is not a whole number of bits per second, or of bytes.
        Fractional => "not a whole number of bits per second (rates) or of bytes (sizes)",
        /// The value exceeds `u64::MAX` bits per second, or bytes.
        Overflow => "value too large: at most 18446744073709551615 bits per second or bytes",
    }
}

/// A number of bytes: a buffer, a bucket depth, a packet size.
///
/// Parses tc's size units (see the [module docs](self)); `Display` writes
/// `"<n> B"`, which parses back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// The size in bytes.
    #[inline]
    #[must_use]
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

impl core::fmt::Display for ByteSize {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} B", self.0)
    }
}

/// A unit as a rational multiplier `num / den` of the base unit (bit/s or byte).
type Unit = (u128, u128);

const K: u128 = 1000;
const KI: u128 = 1024;

fn rate_unit(suffix: &str) -> Option<Unit> {
    let u = match suffix {
        "" | "bit" | "bit/s" => (1, 1),
        "kbit" => (K, 1),
        "mbit" => (K * K, 1),
        "gbit" => (K * K * K, 1),
        "tbit" => (K * K * K * K, 1),
        "kibit" => (KI, 1),
        "mibit" => (KI * KI, 1),
        "gibit" => (KI * KI * KI, 1),
        "tibit" => (KI * KI * KI * KI, 1),
        "bps" => (8, 1),
        "kbps" => (8 * K, 1),
        "mbps" => (8 * K * K, 1),
        "gbps" => (8 * K * K * K, 1),
        "tbps" => (8 * K * K * K * K, 1),
        "kibps" => (8 * KI, 1),
        "mibps" => (8 * KI * KI, 1),
        "gibps" => (8 * KI * KI * KI, 1),
        "tibps" => (8 * KI * KI * KI * KI, 1),
        _ => return None,
    };
    Some(u)
}

fn size_unit(suffix: &str) -> Option<Unit> {
    let u = match suffix {
        "" | "b" => (1, 1),
        "k" | "kb" => (KI, 1),
        "m" | "mb" => (KI * KI, 1),
        "g" | "gb" => (KI * KI * KI, 1),
        "kbit" => (KI, 8),
        "mbit" => (KI * KI, 8),
        "gbit" => (KI * KI * KI, 8),
        _ => return None,
    };
    Some(u)
}

/// Longest suffix either table knows, in bytes; anything longer is unknown.
const MAX_SUFFIX: usize = 8;

/// Parses `<decimal>[ ]<suffix>` exactly, with `unit` mapping the lower-cased
/// suffix to its multiplier.
fn parse_with(s: &str, unit: fn(&str) -> Option<Unit>) -> Result<u64, ParseUnitError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(ParseUnitError::Empty);
    }
    if s.starts_with('-') {
        return Err(ParseUnitError::Negative);
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    let num_len = s
        .bytes()
        .position(|b| !(b.is_ascii_digit() || b == b'.'))
        .unwrap_or(s.len());
    let (number, rest) = s.split_at(num_len);
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if (int_part.is_empty() && frac_part.is_empty()) || frac_part.contains('.') {
        return Err(ParseUnitError::InvalidNumber);
    }

    let suffix = rest.trim_start();
    if suffix.len() > MAX_SUFFIX {
        return Err(ParseUnitError::UnknownUnit);
    }
    let mut lower = [0u8; MAX_SUFFIX];
    for (d, b) in lower.iter_mut().zip(suffix.bytes()) {
        *d = b.to_ascii_lowercase();
    }
    let lower =
        core::str::from_utf8(&lower[..suffix.len()]).map_err(|_| ParseUnitError::UnknownUnit)?;
    let (num, den) = unit(lower).ok_or(ParseUnitError::UnknownUnit)?;

    // value = digits / 10^frac_digits * num / den, all in integers. Trailing
    // zeros of the fraction change nothing and are dropped first.
    let frac_part = frac_part.trim_end_matches('0');
    let mut digits: u128 = 0;
    for b in int_part.bytes().chain(frac_part.bytes()) {
        digits = digits
            .checked_mul(10)
            .and_then(|d| d.checked_add(u128::from(b - b'0')))
            .ok_or(ParseUnitError::Overflow)?;
    }
    let numerator = digits.checked_mul(num).ok_or(ParseUnitError::Overflow)?;
    let scale = u32::try_from(frac_part.len())
        .ok()
        .and_then(|n| 10u128.checked_pow(n))
        .and_then(|p| p.checked_mul(den));
    let Some(denominator) = scale else {
        // 10^n past u128 with a non-zero last fraction digit: the value has
        // more than 38 decimals, so it cannot be whole.
        return Err(if digits == 0 {
            ParseUnitError::InvalidNumber
        } else {
            ParseUnitError::Fractional
        });
    };
    if numerator % denominator != 0 {
        return Err(ParseUnitError::Fractional);
    }
    u64::try_from(numerator / denominator).map_err(|_| ParseUnitError::Overflow)
}

impl FromStr for Rate {
    type Err = ParseUnitError;

    /// Parses a rate with tc's units; see the [module docs](crate::units).
    fn from_str(s: &str) -> Result<Rate, ParseUnitError> {
        parse_with(s, rate_unit).map(Rate::from_bits_per_sec)
    }
}

impl FromStr for ByteSize {
    type Err = ParseUnitError;

    /// Parses a byte size with tc's units; see the [module docs](crate::units).
    fn from_str(s: &str) -> Result<ByteSize, ParseUnitError> {
        parse_with(s, size_unit).map(ByteSize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rate(s: &str) -> Result<u64, ParseUnitError> {
        s.parse::<Rate>().map(Rate::bits_per_sec)
    }
    fn size(s: &str) -> Result<u64, ParseUnitError> {
        s.parse::<ByteSize>().map(ByteSize::bytes)
    }

    #[test]
    fn rates_in_tc_units() {
        assert_eq!(rate("9000"), Ok(9000));
        assert_eq!(rate("10mbit"), Ok(10_000_000));
        assert_eq!(rate("10Mbit"), Ok(10_000_000));
        assert_eq!(rate("1.5gbit"), Ok(1_500_000_000));
        assert_eq!(rate("800kbps"), Ok(6_400_000));
        assert_eq!(rate("1bps"), Ok(8));
        assert_eq!(rate("2kibit"), Ok(2048));
        assert_eq!(rate("1tibps"), Ok(8 << 40));
        assert_eq!(rate(" 64 kbit "), Ok(64_000));
        assert_eq!(rate("12 bit/s"), Ok(12));
        assert_eq!(rate(".5kbit"), Ok(500));
        assert_eq!(
            rate("1.000000000000000000000000000000000000000000kbit"),
            Ok(1000)
        );
        assert_eq!(rate("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn sizes_in_tc_units() {
        assert_eq!(size("9000"), Ok(9000));
        assert_eq!(size("32k"), Ok(32 * 1024));
        assert_eq!(size("64kb"), Ok(64 * 1024));
        assert_eq!(size("1m"), Ok(1 << 20));
        assert_eq!(size("1.5k"), Ok(1536));
        assert_eq!(size("2gb"), Ok(2 << 30));
        assert_eq!(size("1kbit"), Ok(128));
        assert_eq!(size("1500b"), Ok(1500));
        assert_eq!(size("1500 B"), Ok(1500));
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(rate(""), Err(ParseUnitError::Empty));
        assert_eq!(rate("   "), Err(ParseUnitError::Empty));
        assert_eq!(rate("mbit"), Err(ParseUnitError::InvalidNumber));
        assert_eq!(rate("."), Err(ParseUnitError::InvalidNumber));
        assert_eq!(rate("1.2.3kbit"), Err(ParseUnitError::InvalidNumber));
        assert_eq!(rate("-5mbit"), Err(ParseUnitError::Negative));
        assert_eq!(rate("10mbits"), Err(ParseUnitError::UnknownUnit));
        assert_eq!(
            rate("10 parsecs/fortnight"),
            Err(ParseUnitError::UnknownUnit)
        );
        assert_eq!(rate("10k"), Err(ParseUnitError::UnknownUnit));
        assert_eq!(size("10kbps"), Err(ParseUnitError::UnknownUnit));
        assert_eq!(rate("0.5"), Err(ParseUnitError::Fractional));
        assert_eq!(rate("1.0001kbit"), Err(ParseUnitError::Fractional));
        assert_eq!(size("0.5"), Err(ParseUnitError::Fractional));
        assert_eq!(size("1kbit1"), Err(ParseUnitError::UnknownUnit));
        assert_eq!(rate("18446744073709551616"), Err(ParseUnitError::Overflow));
        assert_eq!(rate("20000000tbit"), Err(ParseUnitError::Overflow));
        assert_eq!(
            size("99999999999999999999999999999999999999999"),
            Err(ParseUnitError::Overflow)
        );
        assert_eq!(rate("1é"), Err(ParseUnitError::UnknownUnit));
    }

    proptest! {
        #[test]
        fn display_round_trips(bits in any::<u64>(), bytes in any::<u64>()) {
            let r = Rate::from_bits_per_sec(bits);
            prop_assert_eq!(r.to_string().parse::<Rate>(), Ok(r));
            let b = ByteSize(bytes);
            prop_assert_eq!(b.to_string().parse::<ByteSize>(), Ok(b));
        }

        #[test]
        fn every_suffix_scales_exactly(n in 0u64..1_000_000, i in 0usize..18) {
            const SUFFIXES: [(&str, u64); 18] = [
                ("", 1), ("kbit", 1_000), ("mbit", 1_000_000), ("gbit", 1_000_000_000),
                ("tbit", 1_000_000_000_000), ("kibit", 1 << 10), ("mibit", 1 << 20),
                ("gibit", 1 << 30), ("tibit", 1 << 40), ("bps", 8), ("kbps", 8_000),
                ("mbps", 8_000_000), ("gbps", 8_000_000_000), ("tbps", 8_000_000_000_000),
                ("kibps", 8 << 10), ("mibps", 8 << 20), ("gibps", 8 << 30), ("tibps", 8 << 40),
            ];
            let (suffix, mult) = SUFFIXES[i];
            let text = std::format!("{n}{suffix}");
            prop_assert_eq!(rate(&text), Ok(n * mult));
        }

        #[test]
        fn never_panics(s in "\\PC{0,24}") {
            let _ = s.parse::<Rate>();
            let _ = s.parse::<ByteSize>();
        }
    }
}
