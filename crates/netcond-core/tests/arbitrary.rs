//! The `arbitrary` feature: the core types generated from fuzzer bytes.
#![cfg(feature = "arbitrary")]

use arbitrary::{Arbitrary, Unstructured};
use netcond_core::{Instant, Rate, TickRate};

#[test]
fn tick_rates_are_never_zero() {
    let zero = TickRate::arbitrary(&mut Unstructured::new(&[0; 8])).unwrap();
    assert_eq!(zero.hz(), 1);
    for bytes in [
        [5, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 9],
        [0xff; 8],
    ] {
        let v = u64::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        assert_ne!(v, 0);
        let t = TickRate::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        assert_eq!(t.hz(), v);
    }
    assert_eq!(TickRate::size_hint(0), (8, Some(8)));
}

#[test]
fn instants_and_rates_take_any_value() {
    let bytes = 0x0123_4567_89ab_cdef_u64.to_le_bytes();
    let v = u64::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
    let i = Instant::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
    assert_eq!(i.ticks(), v);
    let r = Rate::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
    assert_ne!(r, Rate::ZERO);
}
