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

impl ParamSpec {
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

    /// Sets `key` to `value` after validating both.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SimError> {
        let Some(spec) = self.specs.iter().find(|s| s.key == key) else {
            let valid: Vec<&str> = self.specs.iter().map(|s| s.key).collect();
            return Err(SimError::Param(format!(
                "unknown key `{key}`; valid keys: {}",
                valid.join(", ")
            )));
        };
        spec.check(value)?;
        self.values.insert(spec.key, value.to_string());
        Ok(())
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

/// A table listing `specs`: key, default, accepted values and help.
#[must_use]
pub fn describe(specs: &[ParamSpec]) -> String {
    let mut out = String::new();
    let w = specs.iter().map(|s| s.key.len()).max().unwrap_or(0);
    let wd = specs.iter().map(|s| s.default.len()).max().unwrap_or(0);
    for s in specs {
        out.push_str(&format!(
            "  {:w$} = {:wd$}  [{}] {}\n",
            s.key,
            s.default,
            s.accepts(),
            s.help
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
