//! Input-color tables: a packet's color for the `*_color_aware_check` calls
//! from its DSCP or VLAN PCP (DPDK's `dscp_table` and `vlan_table`), the Rust
//! `netcond_core::ColorTable`.

use netcond_core::{Color, ColorTable};

use crate::errors::{NETCOND_E_NULL, NETCOND_OK};
use crate::netcond_color;

use super::c_int;

/// A table of input colors: one `netcond_color` value (0 green, 1 yellow,
/// 2 red; lookups read any other value as red) per DSCP and per VLAN PCP.
/// The fields are public: a caller may fill them directly or with
/// `netcond_color_table_init` / `netcond_color_table_rfc2597` and the setters.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct netcond_color_table {
    /// Input color per DSCP (0..63).
    pub dscp: [u8; 64],
    /// Input color per VLAN PCP (0..7).
    pub pcp: [u8; 8],
}

fn store(t: &mut netcond_color_table, table: &ColorTable) {
    for (d, c) in t.dscp.iter_mut().zip(table.dscp_table()) {
        *d = *c as u8;
    }
    for (d, c) in t.pcp.iter_mut().zip(table.pcp_table()) {
        *d = *c as u8;
    }
}

fn color(v: u8) -> netcond_color {
    crate::color_in(c_int::from(v)).into()
}

/// Fills `t` with `color` (a `netcond_color`; any other value is red) for
/// every DSCP and PCP. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `t` is NULL or points to a writable `netcond_color_table`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_init(
    t: *mut netcond_color_table,
    color: c_int,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { t.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    store(t, &ColorTable::uniform(crate::color_in(color)));
    NETCOND_OK
}

/// Fills `t` with RFC 2597's AF drop precedences (section 6): AFx1 (DSCP 10,
/// 18, 26, 34) green, AFx2 (12, 20, 28, 36) yellow, AFx3 (14, 22, 30, 38) red,
/// and `default_color` for every other DSCP and every PCP (`NETCOND_GREEN`
/// gives the Rust `ColorTable::RFC2597`). Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// As `netcond_color_table_init`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_rfc2597(
    t: *mut netcond_color_table,
    default_color: c_int,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { t.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    store(
        t,
        &ColorTable::rfc2597_with_default(crate::color_in(default_color)),
    );
    NETCOND_OK
}

/// Maps DSCP `dscp` (masked to 6 bits) to `color` in `t`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// As `netcond_color_table_init`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_set_dscp(
    t: *mut netcond_color_table,
    dscp: u8,
    color: c_int,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { t.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    if let Some(d) = t.dscp.get_mut(usize::from(dscp & 63)) {
        *d = crate::color_in(color) as u8;
    }
    NETCOND_OK
}

/// Maps VLAN PCP `pcp` (masked to 3 bits) to `color` in `t`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// As `netcond_color_table_init`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_set_pcp(
    t: *mut netcond_color_table,
    pcp: u8,
    color: c_int,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { t.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    if let Some(d) = t.pcp.get_mut(usize::from(pcp & 7)) {
        *d = crate::color_in(color) as u8;
    }
    NETCOND_OK
}

/// The input color of DSCP `dscp` (masked to 6 bits) in `t`; `NETCOND_RED`
/// if `t` is NULL.
///
/// # Safety
/// `t` is NULL or points to a readable `netcond_color_table`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_dscp(
    t: *const netcond_color_table,
    dscp: u8,
) -> netcond_color {
    // SAFETY: caller contract.
    match unsafe { t.as_ref() } {
        Some(t) => t
            .dscp
            .get(usize::from(dscp & 63))
            .map_or(netcond_color::NETCOND_RED, |&v| color(v)),
        None => Color::Red.into(),
    }
}

/// The input color of a packet whose IPv4 TOS / IPv6 Traffic Class byte is
/// `ds_field` (DSCP in its upper six bits) in `t`; `NETCOND_RED` if `t` is
/// NULL.
///
/// # Safety
/// As `netcond_color_table_dscp`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_ds_field(
    t: *const netcond_color_table,
    ds_field: u8,
) -> netcond_color {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_color_table_dscp(t, ds_field >> 2) }
}

/// The input color of VLAN PCP `pcp` (masked to 3 bits) in `t`;
/// `NETCOND_RED` if `t` is NULL.
///
/// # Safety
/// As `netcond_color_table_dscp`.
#[no_mangle]
pub unsafe extern "C" fn netcond_color_table_pcp(
    t: *const netcond_color_table,
    pcp: u8,
) -> netcond_color {
    // SAFETY: caller contract.
    match unsafe { t.as_ref() } {
        Some(t) => t
            .pcp
            .get(usize::from(pcp & 7))
            .map_or(netcond_color::NETCOND_RED, |&v| color(v)),
        None => Color::Red.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_c_table_is_the_rust_table() {
        let mut t = netcond_color_table {
            dscp: [9; 64],
            pcp: [9; 8],
        };
        // SAFETY: a valid table.
        unsafe {
            assert_eq!(netcond_color_table_rfc2597(&mut t, 0), NETCOND_OK);
            for d in 0..=255u8 {
                let want: netcond_color = ColorTable::RFC2597.dscp(d).into();
                assert_eq!(netcond_color_table_dscp(&t, d), want);
                let want: netcond_color = ColorTable::RFC2597.ds_field(d).into();
                assert_eq!(netcond_color_table_ds_field(&t, d), want);
            }
            assert_eq!(netcond_color_table_set_pcp(&mut t, 10, 1), NETCOND_OK);
            assert_eq!(
                netcond_color_table_pcp(&t, 2),
                netcond_color::NETCOND_YELLOW
            );
            t.dscp[5] = 77;
            assert_eq!(netcond_color_table_dscp(&t, 5), netcond_color::NETCOND_RED);
            assert_eq!(
                netcond_color_table_dscp(core::ptr::null(), 10),
                netcond_color::NETCOND_RED
            );
            assert_eq!(
                netcond_color_table_init(core::ptr::null_mut(), 0),
                NETCOND_E_NULL
            );
        }
    }
}
