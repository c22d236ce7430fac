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

/// `values` builds each value from its own 512 bytes of the seed's stream:
/// the same as building them by hand, the same for the same seed, and
/// different for another seed.
#[test]
fn values_come_from_the_seeds_stream_in_512_byte_steps() {
    use netcond_core::arbitrary::{next_value, values, BYTES_PER_VALUE};
    use netcond_core::SplitMix64;

    let got: Vec<[u64; 64]> = values(5, 11).unwrap();
    let mut rng = SplitMix64::new(11);
    for v in &got {
        let want: [u64; 64] = core::array::from_fn(|_| rng.next_u64());
        assert_eq!(*v, want);
    }
    assert_eq!(BYTES_PER_VALUE, 64 * 8);
    // A value takes the next 512 bytes however little of them it reads.
    let mut rng = SplitMix64::new(11);
    let first: u64 = next_value(&mut rng).unwrap();
    assert_eq!(first, got[0][0]);
    let second: u64 = next_value(&mut rng).unwrap();
    assert_eq!(second, got[1][0]);
    assert_eq!(values::<Instant>(3, 11).unwrap().len(), 3);
    assert!(values::<[u64; 64]>(0, 11).unwrap().is_empty());
    assert_ne!(values::<u64>(4, 12).unwrap(), values::<u64>(4, 11).unwrap());
}

/// A type that refuses some byte strings: the first refusal is the error.
#[test]
fn values_passes_on_a_refusal() {
    #[derive(Debug)]
    struct Picky;
    impl<'a> Arbitrary<'a> for Picky {
        fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
            if u8::arbitrary(u)? < 128 {
                Ok(Picky)
            } else {
                Err(arbitrary::Error::IncorrectFormat)
            }
        }
    }
    let r = netcond_core::arbitrary::values::<Picky>(64, 3);
    assert!(matches!(r, Err(arbitrary::Error::IncorrectFormat)));
    let mut ok = 0;
    let mut rng = netcond_core::SplitMix64::new(3);
    for _ in 0..64 {
        ok += usize::from(netcond_core::arbitrary::next_value::<Picky>(&mut rng).is_ok());
    }
    assert!(ok > 0 && ok < 64, "{ok}");
}
