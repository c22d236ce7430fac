//! The RFC 5670 threshold meter (section 2.3, appendix A.1) and excess-traffic
//! meter (section 2.4, appendix A.2), with their marking per RFC 6660.
//!
//! RFC 5670 sizes buckets in bits; this crate takes bytes, like every other
//! netcond meter (divide the RFC's bit values by 8).
//!
//! The meters themselves are in `threshold_meter.rs` and
//! `excess_traffic_meter.rs`; this module holds what they share.

netcond_core::config_error! {
    /// Why an RFC 5670 meter configuration was refused.
    pub enum Rfc5670Error {
        /// The bucket does not fit the token counter.
        TooLarge => "bucket size times the clock resolution must stay below 2^62 token units; \
                     use a coarser clock or a smaller bucket",
        /// The threshold lies above the bucket.
        ThresholdAboveSize => "threshold must not exceed BS_tm (RFC 5670 section 2.3: an \
                               intermediate depth of the token bucket)",
        /// The reference rate is zero.
        ZeroRate => "the reference rate (PCN-threshold-rate, PCN-excess-rate) must be greater \
                     than zero (RFC 5670 sections 2.3 and 2.4: tokens are added at the \
                     reference rate; at zero none ever is, and no rate is metered)",
        /// The bucket depth is zero.
        ZeroBucket => "the bucket depth (BS_tm, BS_etm) must be greater than zero (RFC 5670 \
                       sections 2.3 and 2.4: tokens are added to a maximum value BS; a bucket \
                       of depth 0 holds none, and every packet would be marked at any rate)",
    }
}
