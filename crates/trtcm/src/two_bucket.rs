//! The parts the three markers (srTCM, trTCM, RFC 4115) and the premium
//! policer share word for word, written once as macros: the configurations'
//! `with_...` builders, the profiles' bucket and mode accessors, and the
//! states' constructors, counts and clock. Each marker's own rules (its
//! validation, its refill, its colors) stay in its file.
//!
//! cargo-mutants does not mutate inside a `macro_rules!` body, so what the
//! macros write is checked item by item in `tests/two_bucket.rs`; the logic
//! they call (`crate::carry_pair`, the buckets) is plain code and mutated.
//!
//! Macros rather than a generic type: the profiles and states are distinct
//! public types with their own field names in their accessors (`tp` against
//! `te`), `const fn`s, and the per-packet code must compile exactly as when
//! each was written out.

/// `with_<field>` builders for a configuration: `with_cir(self, cir: Rate)`
/// returns the configuration with `cir` replaced, documented as "This
/// configuration with `cir` set to `cir`."
macro_rules! config_builders {
    ($config:ident { $($field:ident : $ty:ty => $with:ident),+ $(,)? }) => {
        impl $config {
            $(
                #[doc = concat!(
                    "This configuration with `", stringify!($field), "` set to `",
                    stringify!($field), "`."
                )]
                #[must_use]
                pub const fn $with(self, $field: $ty) -> $config {
                    $config { $field, ..self }
                }
            )+
        }
    };
}

/// The accessors of a two-bucket marker's profile (fields `c`, the second
/// bucket, `c_lim`, the second bucket's limits, `packets`, `fast`,
/// `fast_pkt`): `committed`, the second bucket's accessor (documented by the
/// caller), `mode`, `units`, the general path's buckets, and in test builds
/// `on_fast_path` and `general_path_only`.
macro_rules! marker_profile {
    (
        $profile:ident,
        $(#[$second_doc:meta])*
        second: $second:ident ($lim:ident) => $accessor:ident, $bucket:ident
    ) => {
        impl $profile {
            /// Bucket C: CIR and CBS.
            #[inline]
            #[must_use]
            pub const fn committed(&self) -> &BucketProfile {
                &self.c
            }

            $(#[$second_doc])*
            #[inline]
            #[must_use]
            pub const fn $accessor(&self) -> &BucketProfile {
                &self.$second
            }

            /// Byte mode or packet mode.
            #[inline]
            #[must_use]
            pub const fn mode(&self) -> Mode {
                if self.packets {
                    Mode::Packets
                } else {
                    Mode::Bytes
                }
            }

            /// The length a packet of `len` bytes is charged: `len`, or 1 in packet mode.
            #[inline(always)]
            pub(crate) const fn units(&self, len: u32) -> u32 {
                if self.packets {
                    1
                } else {
                    len
                }
            }

            /// Bucket C with the general path's limits.
            #[inline(always)]
            pub(crate) fn bucket_c(&self) -> Bucket {
                Bucket::join(self.c, self.c_lim)
            }

            #[doc = concat!(
                "Bucket ", stringify!($second), " with the general path's limits."
            )]
            #[inline(always)]
            pub(crate) fn $bucket(&self) -> Bucket {
                Bucket::join(self.$second, self.$lim)
            }
        }

        #[cfg(test)]
        impl $profile {
            /// Whether packets take the fast path.
            pub(crate) const fn on_fast_path(&self) -> bool {
                self.fast
            }

            /// The same profile, with every packet sent down the general path.
            pub(crate) const fn general_path_only(mut self) -> $profile {
                self.fast = false;
                self.fast_pkt = false;
                self
            }
        }
    };
}

/// The constructors and readers of a two-bucket marker's state (fields `tc`,
/// the second count, `last`; the profile's buckets `c` and the second):
/// `new` and `from_parts` (documented by the caller), `from_counts`,
/// `second_count`, `tc`, the second count's reader (documented by the
/// caller), `last`, `tc_at`, and `move_to` (its first paragraph by the
/// caller; the profile's `refill_pair` gives both counts refilled).
macro_rules! marker_state {
    (
        $state:ident, $profile:ident,
        new: { $(#[$new_doc:meta])* },
        from_parts: { $(#[$parts_doc:meta])* },
        move_to: { $(#[$move_doc:meta])* },
        $(#[$count_doc:meta])*
        second: $t2:ident in $b2:ident
    ) => {
        impl $state {
            $(#[$new_doc])*
            #[inline]
            #[must_use]
            pub const fn new(profile: &$profile, now: Instant) -> $state {
                $state {
                    tc: profile.c.full(),
                    $t2: profile.$b2.full(),
                    last: now,
                }
            }

            $(#[$parts_doc])*
            #[inline]
            #[must_use]
            pub fn from_parts(profile: &$profile, tc: u64, $t2: u64, last: Instant) -> $state {
                $state {
                    tc: tc.min(profile.c.full()),
                    $t2: $t2.min(profile.$b2.full()),
                    last,
                }
            }

            #[doc = concat!(
                "A state with counts `[tc, ", stringify!($t2),
                "]` already within the buckets, for\n[`Compact`](crate::Compact)."
            )]
            #[inline(always)]
            pub(crate) const fn from_counts(counts: [u64; 2], last: Instant) -> $state {
                $state {
                    tc: counts[0],
                    $t2: counts[1],
                    last,
                }
            }

            /// The second bucket's count, for [`Compact`](crate::Compact).
            #[inline(always)]
            pub(crate) const fn second_count(&self) -> u64 {
                self.$t2
            }

            /// Token count of C at the last update.
            #[inline]
            #[must_use]
            pub const fn tc(&self) -> u64 {
                self.tc
            }

            $(#[$count_doc])*
            #[inline]
            #[must_use]
            pub const fn $t2(&self) -> u64 {
                self.$t2
            }

            /// The time of the last update.
            #[inline]
            #[must_use]
            pub const fn last(&self) -> Instant {
                self.last
            }

            /// The token count C would hold at `now` if no packet arrived, without changing
            /// anything. An instant older than the last update gives the current count.
            #[inline]
            #[must_use]
            pub fn tc_at(&self, profile: &$profile, now: Instant) -> u64 {
                profile.c.refill(self.tc, now.ticks_since(self.last))
            }

            $(#[$move_doc])*
            ///
            /// The token counts are carried over exactly in bytes (packets in packet
            /// mode): a count of `t` units of `1/scale_old` byte becomes
            /// `floor(t x scale_new / scale_old)` units of `1/scale_new` byte, which
            /// drops only a fraction of one new unit and never holds more than the old
            /// state had, then capped at the new bucket's size. The clock is kept:
            /// the buckets are first refilled to `now` under `old` (an instant older
            /// than the last update refills nothing and leaves it alone), so the next
            /// packet refills at the new rates from there. O(1), no allocation; it
            /// divides, so it is for configuration changes, not for every packet.
            /// A change of [`Mode`] has no exchange rate between bytes and packets: the
            /// buckets then start full under `new`, as [`new`](Self::new) would, with
            /// the clock kept.
            pub fn move_to(&mut self, old: &$profile, new: &$profile, now: Instant) {
                let dt = self.last.advance_to(now);
                let [tc, t2] = old.refill_pair(self.tc, self.$t2, dt);
                [self.tc, self.$t2] = crate::carry_pair(
                    [tc, t2],
                    [&old.c, &old.$b2],
                    [&new.c, &new.$b2],
                    [old.packets, new.packets],
                );
            }
        }
    };
}

/// A marker's [`Meter`](crate::Meter) alias and its `new`.
macro_rules! meter_alias {
    ($alias:ident = $state:ident, $config:ident, $profile:ident, $error:ident) => {
        #[doc = concat!("A ", stringify!($state), " profile paired with one flow's state;")]
        /// see [`Meter`](crate::Meter).
        pub type $alias = crate::Meter<$state>;

        impl $config {
            /// Validates the configuration and starts one flow on it with full
            /// buckets at `now`: the profile and the state as a pair.
            pub fn meter(&self, now: Instant) -> Result<$alias, $error> {
                Ok(netcond_core::WithProfile::new($profile::new(self)?, now))
            }
        }
    };
}

/// The tests every marker module shares: `dpdk()`, the profile of the
/// configuration's defaults (DPDK's meter test values: CIR 46e6 B/s, PIR/EIR
/// 69e6 B/s, CBS 2048, PBS/EBS 4096) on DPDK's 2.3 GHz TSC clock, and the
/// tests that the marker gives DPDK's colors on it ([`crate::dpdk_facts`]), on
/// its fast path and on the general path alone.
#[cfg(test)]
macro_rules! dpdk_tests {
    ($state:ident, $cfg:ident, $profile:ident) => {
        fn dpdk() -> $profile {
            let tick = TickRate::from_hz(2_300_000_000).unwrap();
            $profile::new(&$cfg {
                tick,
                ..$cfg::default()
            })
            .unwrap()
        }

        #[test]
        fn dpdk_facts() {
            crate::dpdk_facts::<$state>(&dpdk());
        }

        #[test]
        fn dpdk_facts_on_the_general_path() {
            let p = dpdk();
            assert!(p.on_fast_path());
            let g = p.general_path_only();
            assert!(!g.on_fast_path());
            crate::dpdk_facts::<$state>(&g);
        }
    };
}
