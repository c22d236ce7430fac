//! A stage's `key=value` parameters, read by type.

use super::*;
use netcond::base::{ByteSize, LengthAdjust, Rate};
use std::collections::BTreeMap;
use std::time::Duration;

pub(super) struct Params<'a> {
    pub(super) stage: &'a str,
    pub(super) map: BTreeMap<&'a str, &'a str>,
}

impl<'a> Params<'a> {
    pub(super) fn take(&mut self, key: &str) -> Option<&'a str> {
        self.map.remove(key)
    }
    pub(super) fn rate(&mut self, key: &str) -> Result<Option<Rate>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<Rate>()
                .map(Some)
                .map_err(|e| ChainError(format!("{} {key}={v}: bad rate: {e}", self.stage))),
        }
    }
    pub(super) fn need_rate(&mut self, key: &str) -> Result<Rate, ChainError> {
        self.rate(key)?
            .ok_or_else(|| ChainError(format!("{}: missing {key}=<rate>", self.stage)))
    }
    pub(super) fn size(&mut self, key: &str) -> Result<Option<u64>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<ByteSize>()
                .map(|b| Some(b.bytes()))
                .map_err(|e| ChainError(format!("{} {key}={v}: bad size: {e}", self.stage))),
        }
    }
    pub(super) fn need_size(&mut self, key: &str) -> Result<u64, ChainError> {
        self.size(key)?
            .ok_or_else(|| ChainError(format!("{}: missing {key}=<size>", self.stage)))
    }
    pub(super) fn count(&mut self, key: &str) -> Result<Option<u32>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v.parse::<u32>().map(Some).map_err(|_| {
                ChainError(format!(
                    "{} {key}={v}: expected a whole number of packets",
                    self.stage
                ))
            }),
        }
    }
    pub(super) fn prob(&mut self, key: &str) -> Result<Option<f64>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
                _ => err(format!(
                    "{} {key}={v}: expected a number between 0 and 1",
                    self.stage
                )),
            },
        }
    }
    /// tc's `overhead`, `mpu` and `linklayer`.
    pub(super) fn adjust(&mut self) -> Result<LengthAdjust, ChainError> {
        let mut a = LengthAdjust::NONE;
        if let Some(v) = self.take("overhead") {
            a.overhead = v.parse::<i32>().map_err(|_| {
                ChainError(format!(
                    "{} overhead={v}: expected a whole number of bytes (negative allowed)",
                    self.stage
                ))
            })?;
        }
        if let Some(m) = self.size("mpu")? {
            a.mpu = u32::try_from(m).map_err(|_| {
                ChainError(format!("{} mpu={m}: at most 4294967295 bytes", self.stage))
            })?;
        }
        if let Some(v) = self.take("linklayer") {
            a.atm = match v.to_ascii_lowercase().as_str() {
                "atm" | "adsl" => true,
                "ethernet" => false,
                _ => {
                    return err(format!(
                        "{} linklayer={v}: expected atm or ethernet",
                        self.stage
                    ))
                }
            };
        }
        Ok(a)
    }
    pub(super) fn time(&mut self, key: &str) -> Result<Option<Duration>, ChainError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => parse_time(v)
                .map(Some)
                .map_err(|e| ChainError(format!("{} {key}={v}: bad time: {e}", self.stage))),
        }
    }
    pub(super) fn colors(&mut self) -> Result<Option<Colors>, ChainError> {
        match self.take("colors") {
            None => Ok(None),
            Some(v) => parse_colors(self.stage, v).map(Some),
        }
    }
    pub(super) fn done(self) -> Result<(), ChainError> {
        if let Some(k) = self.map.keys().next() {
            return err(format!("{}: unknown parameter '{k}'", self.stage));
        }
        Ok(())
    }
}
