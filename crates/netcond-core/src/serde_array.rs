//! Serde for arrays of any length: `#[serde(with = "netcond_core::serde_array")]`
//! on a field `[T; N]` (serde's own impls stop at 32 elements).
//!
//! An array is written as a tuple of its `N` elements, as serde writes the
//! arrays it knows. Reading one back needs no allocation and no `T: Default`:
//! the first element read fills the array, and each later one overwrites its
//! place, so `T` must be `Copy`. Input with fewer or more than `N` elements is
//! refused with [`serde::de::Error::invalid_length`].
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Table {
//!     #[serde(with = "netcond_core::serde_array")]
//!     rows: [u16; 100],
//! }
//! ```

use core::fmt;
use core::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, Error, IgnoredAny, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTuple, Serializer};

/// Writes `array` as a tuple of its `N` elements.
///
/// # Errors
///
/// Whatever the serializer returns.
pub fn serialize<S, T, const N: usize>(array: &[T; N], serializer: S) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    T: Serialize,
{
    let mut tuple = serializer.serialize_tuple(N)?;
    for element in array {
        tuple.serialize_element(element)?;
    }
    tuple.end()
}

/// Reads an array of exactly `N` elements written by [`serialize`].
///
/// # Errors
///
/// `invalid_length` when the input holds fewer or more than `N` elements, and
/// whatever the deserializer returns for an element.
pub fn deserialize<'de, D, T, const N: usize>(deserializer: D) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy,
{
    deserializer.deserialize_tuple(N, ArrayVisitor(PhantomData))
}

struct ArrayVisitor<T, const N: usize>(PhantomData<T>);

impl<'de, T, const N: usize> Visitor<'de> for ArrayVisitor<T, N>
where
    T: Deserialize<'de> + Copy,
{
    type Value = [T; N];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of {N} elements")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
        let mut array = match seq.next_element::<T>()? {
            // Only N = 0 converts from the empty slice; any other N has
            // been given too few elements.
            None => {
                return <[T; N]>::try_from(&[][..]).map_err(|_| A::Error::invalid_length(0, &self))
            }
            Some(_) if N == 0 => return Err(A::Error::invalid_length(1, &self)),
            Some(first) => [first; N],
        };
        for (i, slot) in array.iter_mut().enumerate().skip(1) {
            match seq.next_element::<T>()? {
                Some(element) => *slot = element,
                None => return Err(A::Error::invalid_length(i, &self)),
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::invalid_length(N + 1, &self));
        }
        Ok(array)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    /// An element type that is `Copy` but has no `Default`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
    struct Cell {
        key: u32,
        on: bool,
        slot: Option<(u64, i8)>,
    }

    #[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
    struct Holder<const N: usize> {
        before: u8,
        #[serde(with = "super")]
        cells: [Cell; N],
        after: u8,
    }

    fn holder<const N: usize>() -> Holder<N> {
        let mut cells = [Cell {
            key: 0,
            on: false,
            slot: None,
        }; N];
        for (i, c) in cells.iter_mut().enumerate() {
            let i = i as u32;
            *c = Cell {
                key: i.wrapping_mul(2_654_435_761),
                on: i % 3 == 1,
                slot: (i % 2 == 0).then_some((u64::from(i) << 33 | 7, (i as i8).wrapping_neg())),
            };
        }
        Holder {
            before: 0xA5,
            cells,
            after: 0x5A,
        }
    }

    fn round_trip<const N: usize>() {
        let h = holder::<N>();
        let text = serde_json::to_string(&h).unwrap();
        let back: Holder<N> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, h);
        // Written as a JSON array of N elements.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["cells"].as_array().unwrap().len(), N);
    }

    #[test]
    fn round_trips_any_length() {
        round_trip::<0>();
        round_trip::<1>();
        round_trip::<2>();
        round_trip::<33>();
        round_trip::<1024>();
    }

    #[test]
    fn distinct_elements_keep_their_places() {
        let h = holder::<33>();
        let back: Holder<33> = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
        assert_ne!(back.cells[0], back.cells[1]);
        assert_eq!(back.cells[32], h.cells[32]);
        assert_eq!(back.cells[32].key, 32u32.wrapping_mul(2_654_435_761));
    }

    /// The JSON of a holder whose array has `len` copies of a cell.
    fn with_len(len: usize) -> String {
        let cell = r#"{"key":1,"on":true,"slot":null}"#;
        let cells: Vec<&str> = core::iter::repeat(cell).take(len).collect();
        format!(r#"{{"before":1,"cells":[{}],"after":2}}"#, cells.join(","))
    }

    fn refused<const N: usize>(len: usize) -> String {
        serde_json::from_str::<Holder<N>>(&with_len(len))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn wrong_lengths_are_refused() {
        assert!(serde_json::from_str::<Holder<33>>(&with_len(33)).is_ok());
        assert!(serde_json::from_str::<Holder<0>>(&with_len(0)).is_ok());
        let e = refused::<33>(32);
        assert!(
            e.starts_with("invalid length 32, expected an array of 33 elements"),
            "{e}"
        );
        let e = refused::<33>(0);
        assert!(
            e.starts_with("invalid length 0, expected an array of 33 elements"),
            "{e}"
        );
        let e = refused::<33>(34);
        assert!(
            e.starts_with("invalid length 34, expected an array of 33 elements"),
            "{e}"
        );
        let e = refused::<33>(40);
        assert!(e.starts_with("invalid length 34,"), "{e}");
        let e = refused::<1>(0);
        assert!(
            e.starts_with("invalid length 0, expected an array of 1 elements"),
            "{e}"
        );
        let e = refused::<1>(2);
        assert!(e.starts_with("invalid length 2,"), "{e}");
        let e = refused::<0>(1);
        assert!(
            e.starts_with("invalid length 1, expected an array of 0 elements"),
            "{e}"
        );
    }

    #[test]
    fn malformed_input_is_an_error() {
        for text in [
            r#"{"before":1,"cells":5,"after":2}"#,
            r#"{"before":1,"cells":[1,2],"after":2}"#,
            r#"{"before":1,"cells":{"a":1},"after":2}"#,
            r#"{"before":1,"cells":[{"key":1,"on":true,"slot":null},7],"after":2}"#,
        ] {
            assert!(serde_json::from_str::<Holder<2>>(text).is_err(), "{text}");
        }
    }
}
