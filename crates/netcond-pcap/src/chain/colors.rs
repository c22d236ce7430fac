//! Input colors for the color-aware meter stages (`colors=`), and DSCPs by
//! name.

use super::{err, ChainError};
use netcond::base::{Color, ColorTable};

/// Which header field gives a packet's input color.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorBy {
    /// The DSCP of the IPv4 TOS / IPv6 Traffic Class byte.
    Dscp,
    /// The PCP of the outermost VLAN tag (an untagged frame reads as PCP 0).
    Pcp,
}

/// A color-aware meter's input colors (`colors=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Colors {
    /// The field read.
    pub by: ColorBy,
    /// The table.
    pub table: ColorTable,
}

impl Colors {
    /// `colors=rfc2597`.
    pub const RFC2597: Colors = Colors {
        by: ColorBy::Dscp,
        table: ColorTable::RFC2597,
    };
}

/// A color name: `green`/`g`, `yellow`/`y`, `red`/`r`.
fn parse_color(s: &str) -> Option<Color> {
    match s.to_ascii_lowercase().as_str() {
        "green" | "g" => Some(Color::Green),
        "yellow" | "y" => Some(Color::Yellow),
        "red" | "r" => Some(Color::Red),
        _ => None,
    }
}

/// `colors=rfc2597`, `colors=dscp:af11=green,12=yellow,...` or
/// `colors=pcp:1=yellow,...`; unlisted code points are green.
pub fn parse_colors(stage: &str, v: &str) -> Result<Colors, ChainError> {
    let l = v.to_ascii_lowercase();
    if l == "rfc2597" {
        return Ok(Colors::RFC2597);
    }
    let (by, list) = if let Some(r) = l.strip_prefix("dscp:") {
        (ColorBy::Dscp, r)
    } else if let Some(r) = l.strip_prefix("pcp:") {
        (ColorBy::Pcp, r)
    } else {
        return err(format!(
            "{stage} colors={v}: expected rfc2597, dscp:<dscp>=<color>,... or pcp:<0-7>=<color>,..."
        ));
    };
    let mut table = ColorTable::uniform(Color::Green);
    let mut seen = 0u64;
    for item in list.split(',').filter(|x| !x.is_empty()) {
        let Some((k, c)) = item.split_once('=') else {
            return err(format!(
                "{stage} colors={v}: '{item}' is not <code>=<color> (green, yellow or red)"
            ));
        };
        let Some(color) = parse_color(c) else {
            return err(format!(
                "{stage} colors={v}: unknown color '{c}' (expected green, yellow or red)"
            ));
        };
        let code = match by {
            ColorBy::Dscp => {
                parse_dscp(k).map_err(|e| ChainError(format!("{stage} colors={v}: {e}")))?
            }
            ColorBy::Pcp => match k.parse::<u8>() {
                Ok(n) if n < 8 => n,
                _ => return err(format!("{stage} colors={v}: bad PCP '{k}': expected 0-7")),
            },
        };
        if seen >> code & 1 == 1 {
            return err(format!("{stage} colors={v}: code point {code} given twice"));
        }
        seen |= 1 << code;
        table = match by {
            ColorBy::Dscp => table.with_dscp(code, color),
            ColorBy::Pcp => table.with_pcp(code, color),
        };
    }
    if seen == 0 {
        return err(format!("{stage} colors={v}: the list is empty"));
    }
    Ok(Colors { by, table })
}

/// A DSCP by name (`ef`, `af11`..`af43`, `cs0`..`cs7`, `be`/`default`, `va`,
/// `le`) or number (0-63).
pub fn parse_dscp(s: &str) -> Result<u8, ChainError> {
    let l = s.to_ascii_lowercase();
    let v = match l.as_str() {
        "be" | "default" | "df" => Some(0),
        "ef" => Some(46),
        "va" | "voice-admit" => Some(44),
        "le" => Some(1),
        _ => None,
    };
    if let Some(v) = v {
        return Ok(v);
    }
    if let Some(rest) = l.strip_prefix("af") {
        let b = rest.as_bytes();
        if b.len() == 2 && (b'1'..=b'4').contains(&b[0]) && (b'1'..=b'3').contains(&b[1]) {
            // RFC 2597 section 6: AFxy = 8x + 2y.
            return Ok(8 * (b[0] - b'0') + 2 * (b[1] - b'0'));
        }
    }
    if let Some(rest) = l.strip_prefix("cs") {
        if let Ok(n) = rest.parse::<u8>() {
            if n <= 7 {
                return Ok(n * 8);
            }
        }
    }
    match l.parse::<u8>() {
        Ok(n) if n < 64 => Ok(n),
        _ => err(format!(
            "bad DSCP '{s}': expected 0-63, ef, va, le, be, af11..af43 or cs0..cs7"
        )),
    }
}
