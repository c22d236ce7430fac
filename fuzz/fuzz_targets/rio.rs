//! RIO / WRED with three drop precedences (RFC 2597; RIO-C, RIO-D and WRED
//! modes): the configuration is validated, then
//! `aqm_red::invariants::check_rio` drives the state machine through the
//! decoded operations and checks every color's average, p_b, the buffer and
//! ECN after every step.
#![no_main]

use aqm_red::invariants::check_rio;
use aqm_red::{Precedence, RioConfig, RioMode, RioProfile};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::aqm::{self, TxTicks, Units};
use netcond_fuzz::Frac;

#[derive(Arbitrary, Debug)]
struct Prec {
    min_th: Units,
    max_th: Units,
    max_p: Frac,
}

#[derive(Arbitrary, Debug)]
struct Input {
    mode: u8,
    w_q: Frac,
    /// `None`: RFC 2963 appendix A.1's setting.
    colors: Option<[Prec; 3]>,
    limit: Units,
    bytes: bool,
    gentle: bool,
    byte_mode: Option<Units>,
    ecn: bool,
    ecn_drop_th: Option<Units>,
    idle_tx: TxTicks,
    spreading: u8,
    seed: u64,
    ops: Vec<aqm::Op>,
}

fuzz_target!(|input: Input| {
    let mut cfg = RioConfig::rfc2963(input.limit.get());
    cfg.mode = match input.mode % 3 {
        0 => RioMode::Coupled,
        1 => RioMode::Decoupled,
        _ => RioMode::Wred,
    };
    cfg.queue.w_q = aqm::fx(input.w_q);
    if let Some(colors) = &input.colors {
        for (c, p) in cfg.colors.iter_mut().zip(colors) {
            *c = Precedence {
                min_th: p.min_th.get(),
                max_th: p.max_th.get(),
                max_p: aqm::fx(p.max_p),
            };
        }
    }
    cfg.queue.unit = aqm::unit(input.bytes);
    cfg.queue.gentle = input.gentle;
    cfg.queue.byte_mode = input.byte_mode.map(Units::get);
    cfg.queue.ecn = input.ecn;
    cfg.queue.ecn_drop_th = input.ecn_drop_th.map(Units::get);
    cfg.queue.typical_tx = input.idle_tx.duration();
    cfg.queue.spreading = aqm::spreading(input.spreading);
    let Ok(p) = RioProfile::new(&cfg) else {
        return;
    };
    let ops = aqm::ops(&input.ops);
    if let Err(e) = check_rio(&p, &ops, input.seed) {
        panic!("rio: {e} (config {cfg:?})");
    }
});
