//! Scenario parameters: `key=value` pairs with defaults, validation and listing.

use crate::SimError;
use std::collections::BTreeMap;

/// The type and range of one parameter.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// An unsigned integer in `min..=max`.
    U64 {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A real number in `min..=max`.
    F64 {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
}

/// One parameter: its key, default (the document's value), kind and help text.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key used in `--set key=value`.
    pub key: &'static str,
    /// The default, as text (validated like any other value).
    pub default: &'static str,
    /// Type and range.
    pub kind: ParamKind,
    /// What it is and where the default comes from.
    pub help: &'static str,
}

/// The unit a parameter's key names by its suffix (`_s`, `_ms`, `_bytes`,
/// `_kb`, `_kbps`, `_mbps`, `_pct`), and how a value with a tc-style unit is
/// converted to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Millis,
    /// Bytes; accepts tc sizes (`32k`, `64kb`, `1m`).
    Bytes,
    /// Kilobytes of 1000 bytes, as the documents count them; accepts tc sizes
    /// (`32k` = 32768 bytes = 32.768 KB).
    KiloBytes,
    /// kbit/s; accepts tc rates (`64kbit`, `8kbps` = 8 kilobytes/s).
    Kbps,
    /// Mbit/s; accepts tc rates (`10mbit`, `1.5gbit`).
    Mbps,
    /// Percent.
    Percent,
}

impl Unit {
    /// The unit of `key`, from its suffix.
    #[must_use]
    pub fn of_key(key: &str) -> Option<Unit> {
        let (_, suffix) = key.rsplit_once('_')?;
        Some(match suffix {
            "s" => Unit::Seconds,
            "ms" => Unit::Millis,
            "bytes" => Unit::Bytes,
            "kb" => Unit::KiloBytes,
            "kbps" => Unit::Kbps,
            "mbps" => Unit::Mbps,
            "pct" => Unit::Percent,
            _ => return None,
        })
    }

    /// The unit as printed in help.
    #[must_use]
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Millis => "ms",
            Unit::Bytes => "bytes",
            Unit::KiloBytes => "KB (1000 bytes)",
            Unit::Kbps => "kbit/s",
            Unit::Mbps => "Mbit/s",
            Unit::Percent => "%",
        }
    }

    /// `value` with a tc unit (`10mbit`, `32k`) converted to a plain number in
    /// this unit; `None` when the value is a plain number or the unit takes none.
    fn convert(self, value: &str) -> Option<Result<String, String>> {
        if value.parse::<f64>().is_ok() {
            return None;
        }
        let exact = |num: u128, den: u128| -> String {
            // num / den as a decimal without float noise (den is a power of 10).
            let int = num / den;
            let mut frac = num % den;
            if frac == 0 {
                return int.to_string();
            }
            let mut digits = String::new();
            let mut d = den;
            while frac > 0 && d > 1 {
                d /= 10;
                digits.push(char::from(b'0' + (frac / d) as u8));
                frac %= d;
            }
            format!("{int}.{digits}")
        };
        match self {
            Unit::Bytes | Unit::KiloBytes => Some(
                value
                    .parse::<netcond::base::ByteSize>()
                    .map(|b| {
                        if self == Unit::Bytes {
                            b.bytes().to_string()
                        } else {
                            exact(u128::from(b.bytes()), 1000)
                        }
                    })
                    .map_err(|e| e.to_string()),
            ),
            Unit::Kbps | Unit::Mbps => Some(
                value
                    .parse::<netcond::base::Rate>()
                    .map(|r| {
                        let den = if self == Unit::Kbps { 1000 } else { 1_000_000 };
                        exact(u128::from(r.bits_per_sec()), den)
                    })
                    .map_err(|e| e.to_string()),
            ),
            _ => None,
        }
    }
}

impl ParamSpec {
    /// The parameter's unit, if its key names one.
    #[must_use]
    pub fn unit(&self) -> Option<Unit> {
        Unit::of_key(self.key)
    }

    /// A short description of the accepted values.
    #[must_use]
    pub fn accepts(&self) -> String {
        match self.kind {
            ParamKind::U64 { min, max } => format!("integer {min}..={max}"),
            ParamKind::F64 { min, max } => format!("number {min}..={max}"),
            ParamKind::Choice(c) => c.join("|"),
            ParamKind::Bool => "true|false".to_string(),
        }
    }

    fn check(&self, value: &str) -> Result<(), SimError> {
        let bad = |why: String| {
            SimError::Param(format!(
                "{}={value}: {why} (accepts {})",
                self.key,
                self.accepts()
            ))
        };
        match self.kind {
            ParamKind::U64 { min, max } => {
                let v: u64 = value
                    .parse()
                    .map_err(|_| bad("not an unsigned integer".into()))?;
                if v < min || v > max {
                    return Err(bad("out of range".into()));
                }
            }
            ParamKind::F64 { min, max } => {
                let v: f64 = value.parse().map_err(|_| bad("not a number".into()))?;
                if !(v >= min && v <= max) {
                    return Err(bad("out of range".into()));
                }
            }
            ParamKind::Choice(c) => {
                if !c.contains(&value) {
                    return Err(bad("not one of the choices".into()));
                }
            }
            ParamKind::Bool => {
                if value != "true" && value != "false" {
                    return Err(bad("not a boolean".into()));
                }
            }
        }
        Ok(())
    }
}

/// A validated set of values for a scenario's parameters.
#[derive(Clone, Debug)]
pub struct Params {
    specs: &'static [ParamSpec],
    values: BTreeMap<&'static str, String>,
}

impl Params {
    /// All defaults of `specs`.
    ///
    /// # Panics
    /// If a default does not validate (a bug in the scenario, caught by its tests).
    #[must_use]
    pub fn defaults(specs: &'static [ParamSpec]) -> Params {
        let mut values = BTreeMap::new();
        for s in specs {
            if let Err(e) = s.check(s.default) {
                panic!("bad default: {e}");
            }
            values.insert(s.key, s.default.to_string());
        }
        Params { specs, values }
    }

    /// Sets `key` to `value` after validating both. A key whose unit is a
    /// size or a rate also takes tc's units (`sr_mbps=10mbit`,
    /// `tb_bytes=32k`), converted exactly to the key's unit.
    ///
    /// A size or rate key may also be named without its unit suffix when the
    /// value is a tc size or rate (`capacity=10mbit` for `capacity_mbps`,
    /// `tb=32k` for `tb_bytes`); a plain number then means bit/s or bytes, as
    /// in tc.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SimError> {
        if !self.specs.iter().any(|s| s.key == key) {
            if let Some((spec, v)) = self.alias(key, value) {
                let v = v?;
                spec.check(&v)?;
                self.values.insert(spec.key, v);
                return Ok(());
            }
        }
        let Some(spec) = self.specs.iter().find(|s| s.key == key) else {
            let valid: Vec<&str> = self.specs.iter().map(|s| s.key).collect();
            return Err(SimError::Param(format!(
                "unknown key `{key}`; valid keys: {}",
                valid.join(", ")
            )));
        };
        let value = match spec.unit().and_then(|u| u.convert(value)) {
            Some(Ok(v)) => v,
            Some(Err(why)) => {
                return Err(SimError::Param(format!(
                    "{key}={value}: {why} (accepts {})",
                    spec.accepts()
                )))
            }
            None => value.to_string(),
        };
        spec.check(&value)?;
        self.values.insert(spec.key, value);
        Ok(())
    }

    /// The size or rate parameter `key` names without its unit suffix, with
    /// `value` (a tc size or rate) converted to that parameter's unit.
    fn alias(
        &self,
        key: &str,
        value: &str,
    ) -> Option<(&'static ParamSpec, Result<String, SimError>)> {
        let spec = self.specs.iter().find(|s| {
            s.key
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with('_'))
                && matches!(
                    s.unit(),
                    Some(Unit::Bytes | Unit::KiloBytes | Unit::Kbps | Unit::Mbps)
                )
        })?;
        let unit = spec.unit()?;
        // A plain number is a tc value here: bit/s or bytes.
        let tc = if value.parse::<f64>().is_ok() {
            match unit {
                Unit::Kbps | Unit::Mbps => format!("{value}bit"),
                _ => format!("{value}b"),
            }
        } else {
            value.to_string()
        };
        let converted = match unit.convert(&tc) {
            Some(Ok(v)) => Ok(v),
            Some(Err(why)) => Err(SimError::Param(format!(
                "{key}={value} (for {}): {why}",
                spec.key
            ))),
            None => Err(SimError::Param(format!(
                "{key}={value}: not a size or rate"
            ))),
        };
        Some((spec, converted))
    }

    /// Applies `key=value` assignments.
    pub fn set_all<S: AsRef<str>>(&mut self, assignments: &[S]) -> Result<(), SimError> {
        for a in assignments {
            let a = a.as_ref();
            let Some((k, v)) = a.split_once('=') else {
                return Err(SimError::Param(format!(
                    "`{a}` is not of the form key=value"
                )));
            };
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// A copy with `key=value` assignments applied.
    pub fn with<S: AsRef<str>>(&self, assignments: &[S]) -> Result<Params, SimError> {
        let mut p = self.clone();
        p.set_all(assignments)?;
        Ok(p)
    }

    fn raw(&self, key: &str) -> &str {
        match self.values.get(key) {
            Some(v) => v,
            None => panic!("scenario reads undeclared parameter `{key}`"),
        }
    }

    /// An integer parameter (validated when set).
    #[must_use]
    pub fn u64(&self, key: &str) -> u64 {
        self.raw(key).parse().unwrap_or(0)
    }

    /// A real parameter (validated when set).
    #[must_use]
    pub fn f64(&self, key: &str) -> f64 {
        self.raw(key).parse().unwrap_or(0.0)
    }

    /// A word parameter.
    #[must_use]
    pub fn str(&self, key: &str) -> &str {
        self.raw(key)
    }

    /// A boolean parameter.
    #[must_use]
    pub fn bool(&self, key: &str) -> bool {
        self.raw(key) == "true"
    }

    /// The specifications.
    #[must_use]
    pub fn specs(&self) -> &'static [ParamSpec] {
        self.specs
    }

    /// `key=value` for every parameter, in key order (for reports).
    #[must_use]
    pub fn listing(&self) -> Vec<String> {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }
}

/// A table listing `specs`: key, default, unit, accepted values and help.
#[must_use]
pub fn describe(specs: &[ParamSpec]) -> String {
    let mut out = String::new();
    let w = specs.iter().map(|s| s.key.len()).max().unwrap_or(0);
    let wd = specs.iter().map(|s| s.default.len()).max().unwrap_or(0);
    for s in specs {
        let unit = s
            .unit()
            .map_or(String::new(), |u| format!(" {}", u.symbol()));
        out.push_str(&format!(
            "  {:w$} = {:wd$}  [{}{unit}] {}\n",
            s.key,
            s.default,
            s.accepts(),
            s.help
        ));
    }
    out
}

/// The same as a per-scenario help: one block per key with its unit, range,
/// default and meaning (`netcond-sim run <scenario> --help`).
#[must_use]
pub fn help_text(specs: &[ParamSpec]) -> String {
    let mut out = String::from("Parameters (--set key=value):\n");
    for s in specs {
        let unit = s.unit().map_or("-", Unit::symbol);
        let tc = match s.unit() {
            Some(Unit::Bytes | Unit::KiloBytes) => ", or a tc size: 32k, 64kb, 1m",
            Some(Unit::Kbps | Unit::Mbps) => ", or a tc rate: 10mbit, 1.5gbit, 800kbps",
            _ => "",
        };
        let alias = match (s.unit(), s.key.rsplit_once('_')) {
            (Some(Unit::Bytes | Unit::KiloBytes | Unit::Kbps | Unit::Mbps), Some((stem, _))) => {
                format!(" (also as {stem}=<tc value>)")
            }
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {}{alias}\n      {}\n      unit: {unit}; accepts: {}{tc}; default: {}\n",
            s.key,
            s.help,
            s.accepts(),
            s.default
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[ParamSpec] = &[
        ParamSpec {
            key: "n",
            default: "3",
            kind: ParamKind::U64 { min: 1, max: 10 },
            help: "count",
        },
        ParamSpec {
            key: "mix",
            default: "cbr",
            kind: ParamKind::Choice(&["cbr", "vbr"]),
            help: "traffic",
        },
    ];

    #[test]
    fn set_validates_and_lists_valid_keys() {
        let mut p = Params::defaults(SPECS);
        assert_eq!(p.u64("n"), 3);
        p.set_all(&["n=7", "mix=vbr"]).unwrap();
        assert_eq!(p.u64("n"), 7);
        assert_eq!(p.str("mix"), "vbr");
        let e = p.set("x", "1").unwrap_err().to_string();
        assert!(e.contains("valid keys: n, mix"), "{e}");
        assert!(p.set("n", "11").is_err());
        assert!(p
            .set("mix", "abr")
            .unwrap_err()
            .to_string()
            .contains("cbr|vbr"));
        assert!(p.set_all(&["n"]).is_err());
    }
}
