//! tc's length adjustment (`overhead`, `mpu`, `linklayer atm`) for the
//! byte-mode meters, the Rust `netcond_core::LengthAdjust`: a caller charges
//! the meter `netcond_length_adjust_apply(&a, len)` bytes instead of `len`.

use netcond_core::LengthAdjust;

/// How a packet's length is charged (tc-police(8) and tc-tbf(8)'s knobs):
/// `max(len + overhead, mpu, 0)` bytes, then, with `linklayer_atm`, the 53-byte
/// ATM cells that carry them (`ceil(n / 48) x 53`); at most 4294967295.
/// All zero charges the length as it is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_length_adjust {
    /// Bytes added to every packet (tc's `overhead`), may be negative.
    pub overhead: i32,
    /// The least a packet is charged (tc's `mpu`), bytes.
    pub mpu: u32,
    /// Non-zero: charge in ATM cells (tc's `linklayer atm`).
    pub linklayer_atm: u32,
}

impl From<&netcond_length_adjust> for LengthAdjust {
    fn from(a: &netcond_length_adjust) -> LengthAdjust {
        LengthAdjust::NONE
            .with_overhead(a.overhead)
            .with_mpu(a.mpu)
            .with_atm(a.linklayer_atm != 0)
    }
}

/// The bytes a packet of `len` bytes is charged under `a` (`len` itself when
/// `a` is NULL). Exact; saturates at 4294967295.
///
/// # Safety
/// `a` is NULL or points to a readable `netcond_length_adjust`.
#[no_mangle]
pub unsafe extern "C" fn netcond_length_adjust_apply(
    a: *const netcond_length_adjust,
    len: u32,
) -> u32 {
    // SAFETY: caller contract.
    match unsafe { a.as_ref() } {
        Some(a) => LengthAdjust::from(a).apply(len),
        None => len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C call equals the Rust rule, and the rule read in i128, on every
    /// combination of edge values.
    #[test]
    fn equals_the_rust_rule_on_edge_values() {
        let overheads = [i32::MIN, -100, -1, 0, 1, 10, 4096, i32::MAX];
        let mpus = [0, 1, 64, 1500, u32::MAX];
        let lens = [0, 1, 47, 48, 49, 100, 1500, u32::MAX - 53, u32::MAX];
        for &overhead in &overheads {
            for &mpu in &mpus {
                for atm in [0, 1, 7] {
                    let a = netcond_length_adjust {
                        overhead,
                        mpu,
                        linklayer_atm: atm,
                    };
                    for &len in &lens {
                        // SAFETY: a valid pointer.
                        let got = unsafe { netcond_length_adjust_apply(&a, len) };
                        let n = (i128::from(len) + i128::from(overhead))
                            .max(i128::from(mpu))
                            .max(0);
                        let n = if atm != 0 { (n + 47) / 48 * 53 } else { n };
                        let want = n.min(i128::from(u32::MAX)) as u32;
                        assert_eq!(got, want, "{a:?} len {len}");
                        assert_eq!(got, LengthAdjust::from(&a).apply(len));
                    }
                }
            }
        }
        // SAFETY: NULL is allowed.
        assert_eq!(
            unsafe { netcond_length_adjust_apply(core::ptr::null(), 77) },
            77
        );
    }
}
