//! Status codes: 0 for success, a negative `NETCOND_E_*` per configuration rule.
//!
//! The codes are written out one by one (cbindgen reads them as they are); the
//! table at the end maps each to the Rust error variant whose message
//! `netcond_strerror` returns, and each Rust error to its code.

use core::ffi::{c_int, CStr};

use aqm_delay::DelayError;
use aqm_red::RedError;
use pcn_meter::{AsMarkerError, EdgeError, EtMarkerError, EtMarkerSim48Error, Rfc5670Error};
use ras_shaper::{RasError, TbfError};
use rbcc_rate::{RbccError, RcpError};
use trtcm::{CompactError, PremiumPolicerError, Rfc4115Error, SrTcmError, TrTcmError};

use crate::{const_cstr, OK_MSG};

/// The status codes: 0 for success, a negative code per configuration rule.
/// Every constructor returns one of these as an `int`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_status {
    /// Success.
    NETCOND_OK = 0,
    /// A required pointer argument is NULL, or a profile was never configured
    /// successfully.
    NETCOND_E_NULL = -1,
    /// An enum argument is out of range.
    NETCOND_E_ENUM = -2,
    /// The library refused a configuration for a rule this header does not name.
    NETCOND_E_UNKNOWN = -3,
    /// `tick_hz` is zero.
    NETCOND_E_TICK = -4,
    /// An array argument (of states, or of packets for a bulk call) has zero elements.
    NETCOND_E_COUNT = -5,
    /// A `reserved` field of a parameters struct is not zero (zero them,
    /// e.g. with `= {0}` or `memset`, before setting the fields you use).
    NETCOND_E_RESERVED = -6,
    /// srTCM: CIR is zero.
    NETCOND_E_SRTCM_ZERO_CIR = -100,
    /// srTCM: CBS and EBS are both zero.
    NETCOND_E_SRTCM_ZERO_BURSTS = -101,
    /// srTCM: a bucket does not fit the token counter.
    NETCOND_E_SRTCM_TOO_LARGE = -102,
    /// trTCM: CIR is zero.
    NETCOND_E_TRTCM_ZERO_CIR = -110,
    /// trTCM: PIR is zero.
    NETCOND_E_TRTCM_ZERO_PIR = -111,
    /// trTCM: CBS is zero.
    NETCOND_E_TRTCM_ZERO_CBS = -112,
    /// trTCM: PBS is zero.
    NETCOND_E_TRTCM_ZERO_PBS = -113,
    /// trTCM: PIR is below CIR.
    NETCOND_E_TRTCM_PIR_BELOW_CIR = -114,
    /// trTCM: a bucket does not fit the token counter.
    NETCOND_E_TRTCM_TOO_LARGE = -115,
    /// RFC 4115: CIR and EIR are both zero.
    NETCOND_E_RFC4115_ZERO_RATES = -120,
    /// RFC 4115: CBS and EBS are both zero.
    NETCOND_E_RFC4115_ZERO_BURSTS = -121,
    /// RFC 4115: a bucket does not fit the token counter.
    NETCOND_E_RFC4115_TOO_LARGE = -122,
    /// Premium policer: the committed rate is zero.
    NETCOND_E_POLICER_ZERO_RATE = -130,
    /// Premium policer: TBs is zero.
    NETCOND_E_POLICER_ZERO_TBS = -131,
    /// Premium policer: the largest packet size is zero.
    NETCOND_E_POLICER_ZERO_MAX_PACKET = -132,
    /// Premium policer: TBs is below the largest packet.
    NETCOND_E_POLICER_TBS_BELOW_MAX_PACKET = -133,
    /// Premium policer: PBs is below the largest packet.
    NETCOND_E_POLICER_PBS_BELOW_MAX_PACKET = -134,
    /// Premium policer: the bucket does not fit the token counter.
    NETCOND_E_POLICER_TOO_LARGE = -135,
    /// Compact (16-byte) state: a bucket holds 2^32 token units or more.
    NETCOND_E_COMPACT_TOO_LARGE = -140,
    /// RED family: `w_q` is zero or above one.
    NETCOND_E_RED_WEIGHT_OUT_OF_RANGE = -200,
    /// RED family: a `max_p` is above one.
    NETCOND_E_RED_MAX_P_OUT_OF_RANGE = -201,
    /// RED family: `min_th >= max_th`.
    NETCOND_E_RED_THRESHOLD_ORDER = -202,
    /// RED family: the buffer limit is zero.
    NETCOND_E_RED_ZERO_LIMIT = -203,
    /// RED family: `max_th` is above the buffer limit.
    NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT = -204,
    /// RED family: the typical transmission time is zero.
    NETCOND_E_RED_ZERO_TRANSMISSION_TIME = -205,
    /// RED family: byte mode with a zero maximum packet size.
    NETCOND_E_RED_ZERO_MAX_PACKET_SIZE = -206,
    /// RIO: a better precedence could be dropped more than a worse one.
    NETCOND_E_RED_PRECEDENCE_ORDER = -207,
    /// AECN: `beta` is zero.
    NETCOND_E_RED_ZERO_BETA = -208,
    /// Adaptive RED: the interval is zero.
    NETCOND_E_RED_ZERO_INTERVAL = -210,
    /// AECN: `beta` is below one.
    NETCOND_E_RED_BETA_BELOW_ONE = -211,
    /// AECN: `alpha` is zero.
    NETCOND_E_RED_ZERO_ALPHA = -212,
    /// AECN: `alpha` is below one.
    NETCOND_E_RED_ALPHA_BELOW_ONE = -213,
    /// ECN: the hard-drop threshold is below a min_th.
    NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH = -214,
    /// ECN: the hard-drop threshold is above the buffer limit.
    NETCOND_E_RED_ECN_DROP_ABOVE_LIMIT = -215,
    /// ECN: a hard-drop threshold without ECN.
    NETCOND_E_RED_ECN_DROP_WITHOUT_ECN = -216,
    /// ET-marker: the bucket does not fit the token counter.
    NETCOND_E_ET_TOO_LARGE = -300,
    /// ET-marker: MTU is zero.
    NETCOND_E_ET_ZERO_MTU = -301,
    /// ET-marker: TB.size is below the MTU.
    NETCOND_E_ET_MTU_ABOVE_BUCKET = -302,
    /// ET-marker: SR is zero.
    NETCOND_E_ET_ZERO_RATE = -303,
    /// ET-marker: TB.size is zero.
    NETCOND_E_ET_ZERO_BUCKET = -304,
    /// ET-marker as simulated (`netcond_et_marker_sim48`): pcn_tb or pcn_px
    /// does not fit the token counter.
    NETCOND_E_ET48_TOO_LARGE = -305,
    /// ET-marker as simulated: pcn_pt is zero.
    NETCOND_E_ET48_ZERO_RATE = -306,
    /// ET-marker as simulated: pcn_tb is zero.
    NETCOND_E_ET48_ZERO_BUCKET = -307,
    /// AS-marker: the bucket does not fit the token counter.
    NETCOND_E_AS_TOO_LARGE = -310,
    /// AS-marker: TB.threshold exceeds TB.size.
    NETCOND_E_AS_THRESHOLD_ABOVE_SIZE = -311,
    /// AS-marker: AR is zero.
    NETCOND_E_AS_ZERO_RATE = -312,
    /// AS-marker: TB.size is zero.
    NETCOND_E_AS_ZERO_BUCKET = -313,
    /// RFC 5670 meter: the bucket does not fit the token counter.
    NETCOND_E_RFC5670_TOO_LARGE = -320,
    /// RFC 5670 meter: threshold exceeds BS_tm.
    NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE = -321,
    /// RFC 5670 meter: the reference rate is zero.
    NETCOND_E_RFC5670_ZERO_RATE = -322,
    /// RFC 5670 meter: the bucket depth is zero.
    NETCOND_E_RFC5670_ZERO_BUCKET = -323,
    /// PCN edge: a timeout or measurement interval is zero ticks.
    NETCOND_E_EDGE_ZERO_DURATION = -400,
    /// PCN edge: a timeout or interval exceeds 2^62 ticks.
    NETCOND_E_EDGE_DURATION_TOO_LONG = -401,
    /// PCN edge: the resume threshold exceeds the stop threshold.
    NETCOND_E_EDGE_CONTINUE_ABOVE_STOP = -402,
    /// PCN edge: a CLE threshold is above one.
    NETCOND_E_EDGE_FRACTION_ABOVE_ONE = -403,
    /// PCN edge: U is not above one.
    NETCOND_E_EDGE_U_NOT_ABOVE_ONE = -404,
    /// RBCC: the node id is zero.
    NETCOND_E_RBCC_NO_NODE_ID = -600,
    /// RBCC: the capacity is zero.
    NETCOND_E_RBCC_ZERO_CAPACITY = -601,
    /// RBCC: the capacity is 2^47 bit/s or more.
    NETCOND_E_RBCC_CAPACITY_TOO_LARGE = -602,
    /// RBCC: the data packet size is zero.
    NETCOND_E_RBCC_ZERO_DATA_BYTES = -603,
    /// RBCC: the ACK size is not below the data packet size.
    NETCOND_E_RBCC_ACK_NOT_SMALLER = -604,
    /// RBCC: the idle timeout is zero.
    NETCOND_E_RBCC_ZERO_IDLE_TIMEOUT = -605,
    /// RCP: the node id is zero.
    NETCOND_E_RCP_NO_NODE_ID = -610,
    /// RCP: the capacity is zero or 2^47 bit/s or more.
    NETCOND_E_RCP_BAD_CAPACITY = -611,
    /// RCP: alpha or beta has a zero denominator.
    NETCOND_E_RCP_ZERO_DENOMINATOR = -612,
    /// RCP: d0 or T is zero ticks.
    NETCOND_E_RCP_ZERO_TIME = -613,
    /// RCP: T exceeds 2^16 d0.
    NETCOND_E_RCP_INTERVAL_TOO_LONG = -614,
    /// RCP: the minimum rate is zero or above C.
    NETCOND_E_RCP_BAD_MIN_RATE = -615,
    /// RCP: the initial rate is outside [minimum, C].
    NETCOND_E_RCP_BAD_INITIAL = -616,
    /// RCP: alpha and beta are both zero.
    NETCOND_E_RCP_NO_GAIN = -617,
    /// RCP: alpha is zero.
    NETCOND_E_RCP_ZERO_ALPHA = -618,
    /// RCP: alpha is pi/2 or more.
    NETCOND_E_RCP_ALPHA_UNSTABLE = -619,
    /// RAS: CIR is zero.
    NETCOND_E_RAS_ZERO_CIR = -500,
    /// RAS: CIR exceeds MIR.
    NETCOND_E_RAS_CIR_ABOVE_MIR = -501,
    /// RAS: MIR exceeds the line rate.
    NETCOND_E_RAS_MIR_ABOVE_LINE_RATE = -502,
    /// RAS: CIR exceeds PIR.
    NETCOND_E_RAS_CIR_ABOVE_PIR = -503,
    /// RAS: PIR exceeds MIR.
    NETCOND_E_RAS_PIR_ABOVE_MIR = -504,
    /// RAS: CIR_th exceeds MIR_th.
    NETCOND_E_RAS_CIR_TH_ABOVE_MIR_TH = -505,
    /// RAS: CIR_th exceeds PIR_th.
    NETCOND_E_RAS_CIR_TH_ABOVE_PIR_TH = -506,
    /// RAS: PIR_th exceeds MIR_th.
    NETCOND_E_RAS_PIR_TH_ABOVE_MIR_TH = -507,
    /// RAS: MIR_th exceeds the buffer.
    NETCOND_E_RAS_MIR_TH_ABOVE_BUFFER = -508,
    /// RAS: the buffer is zero bytes.
    NETCOND_E_RAS_ZERO_BUFFER = -509,
    /// RAS: K is below one tick.
    NETCOND_E_RAS_ZERO_K = -510,
    /// RAS: K is 2^40 ticks or more.
    NETCOND_E_RAS_K_TOO_LONG = -511,
    /// RAS: the line rate is 2^40 bytes per tick or more.
    NETCOND_E_RAS_LINE_RATE_TOO_HIGH = -512,
    /// RAS: the maximum packet is zero bytes.
    NETCOND_E_RAS_ZERO_MAX_PACKET = -513,
    /// RAS: the buffer cannot hold a maximum-size packet.
    NETCOND_E_RAS_BUFFER_BELOW_MAX_PACKET = -514,
    /// RAS: a full buffer drains at CIR in 2^61 ticks or more.
    NETCOND_E_RAS_DRAIN_TOO_SLOW = -515,
    /// Delay AQM: TARGET is below one unit of the law's clock.
    NETCOND_E_DELAY_ZERO_TARGET = -700,
    /// Delay AQM: INTERVAL is below one unit of the law's clock.
    NETCOND_E_DELAY_ZERO_INTERVAL = -701,
    /// Delay AQM: TARGET is not below INTERVAL.
    NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL = -702,
    /// Delay AQM: INTERVAL is too long for the law's arithmetic.
    NETCOND_E_DELAY_INTERVAL_TOO_LONG = -703,
    /// Delay AQM: FQ-CoDel's quantum is zero.
    NETCOND_E_DELAY_ZERO_QUANTUM = -704,
    /// Delay AQM: FQ-CoDel's quantum is 2^31 bytes or more.
    NETCOND_E_DELAY_QUANTUM_TOO_LARGE = -705,
    /// Delay AQM: the packet limit is zero.
    NETCOND_E_DELAY_ZERO_LIMIT = -706,
    /// Delay AQM: a batch drop of zero packets.
    NETCOND_E_DELAY_ZERO_DROP_BATCH = -707,
    /// Delay AQM: PIE's T_UPDATE is below one tick.
    NETCOND_E_DELAY_ZERO_UPDATE = -708,
    /// Delay AQM: PIE's MTU is zero.
    NETCOND_E_DELAY_ZERO_MTU = -709,
    /// Delay AQM: a PIE time of 2^40 ns or more, or alpha or beta above 32/16.
    NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE = -710,
    /// Delay AQM: DualPI2's Classic target is below one tick.
    NETCOND_E_DELAY_DUALPI2_ZERO_TARGET = -711,
    /// Delay AQM: DualPI2's Tupdate is below one tick.
    NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE = -712,
    /// Delay AQM: DualPI2's coupling factor k is zero.
    NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING = -713,
    /// Delay AQM: DualPI2's L4S ramp ends below one tick.
    NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD = -714,
    /// Delay AQM: DualPI2's limit holds less than one MTU, or the MTU is zero.
    NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU = -715,
    /// Delay AQM: a DualPI2 round-robin weight is zero.
    NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT = -716,
    /// Delay AQM: a DualPI2 time of 2^40 ns or more, a gain above 1 kHz or k above 16.
    NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE = -717,
    /// Delay AQM: FQ-PIE with PIE's RFC law.
    NETCOND_E_DELAY_FQ_PIE_LINUX_ONLY = -718,
    /// Delay AQM: FQ-PIE's ecn_prob is above 100 percent.
    NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE = -719,
    /// Token bucket filter: the rate is zero.
    NETCOND_E_TBF_ZERO_RATE = -800,
    /// Token bucket filter: the burst is zero.
    NETCOND_E_TBF_ZERO_BURST = -801,
    /// Token bucket filter: the burst is above 4294967295 bytes.
    NETCOND_E_TBF_BURST_TOO_LARGE = -802,
    /// Token bucket filter: both a limit and a latency are given.
    NETCOND_E_TBF_LIMIT_AND_LATENCY = -803,
    /// Token bucket filter: neither a limit nor a latency is given.
    NETCOND_E_TBF_NO_LIMIT = -804,
    /// Token bucket filter: the peak rate does not exceed the rate.
    NETCOND_E_TBF_PEAK_NOT_ABOVE_RATE = -805,
    /// Token bucket filter: a peak rate with a zero mtu.
    NETCOND_E_TBF_ZERO_MTU = -806,
    /// Token bucket filter: the mtu is above 4294967295 bytes.
    NETCOND_E_TBF_MTU_TOO_LARGE = -807,
    /// Token bucket filter: a bucket does not fit the token counter.
    NETCOND_E_TBF_BUCKET_TOO_LARGE = -808,
}

pub(crate) const NETCOND_OK: c_int = netcond_status::NETCOND_OK as c_int;
pub(crate) const NETCOND_E_NULL: c_int = netcond_status::NETCOND_E_NULL as c_int;
pub(crate) const NETCOND_E_ENUM: c_int = netcond_status::NETCOND_E_ENUM as c_int;
pub(crate) const NETCOND_E_UNKNOWN: c_int = netcond_status::NETCOND_E_UNKNOWN as c_int;
pub(crate) const NETCOND_E_TICK: c_int = netcond_status::NETCOND_E_TICK as c_int;
pub(crate) const NETCOND_E_COUNT: c_int = netcond_status::NETCOND_E_COUNT as c_int;
pub(crate) const NETCOND_E_RESERVED: c_int = netcond_status::NETCOND_E_RESERVED as c_int;

/// `Err(NETCOND_E_RESERVED)` unless every one of a parameters struct's
/// `reserved` fields is zero: the first check of every profile constructor
/// whose struct has one, so that a later version can give them a meaning.
#[inline]
pub(crate) fn reserved_zero(fields: &[u64]) -> Result<(), c_int> {
    if fields.iter().all(|&f| f == 0) {
        Ok(())
    } else {
        Err(NETCOND_E_RESERVED)
    }
}
pub(crate) const NETCOND_E_SRTCM_ZERO_CIR: c_int =
    netcond_status::NETCOND_E_SRTCM_ZERO_CIR as c_int;
pub(crate) const NETCOND_E_SRTCM_ZERO_BURSTS: c_int =
    netcond_status::NETCOND_E_SRTCM_ZERO_BURSTS as c_int;
pub(crate) const NETCOND_E_SRTCM_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_SRTCM_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_TRTCM_ZERO_CIR: c_int =
    netcond_status::NETCOND_E_TRTCM_ZERO_CIR as c_int;
pub(crate) const NETCOND_E_TRTCM_ZERO_PIR: c_int =
    netcond_status::NETCOND_E_TRTCM_ZERO_PIR as c_int;
pub(crate) const NETCOND_E_TRTCM_ZERO_CBS: c_int =
    netcond_status::NETCOND_E_TRTCM_ZERO_CBS as c_int;
pub(crate) const NETCOND_E_TRTCM_ZERO_PBS: c_int =
    netcond_status::NETCOND_E_TRTCM_ZERO_PBS as c_int;
pub(crate) const NETCOND_E_TRTCM_PIR_BELOW_CIR: c_int =
    netcond_status::NETCOND_E_TRTCM_PIR_BELOW_CIR as c_int;
pub(crate) const NETCOND_E_TRTCM_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_TRTCM_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_RFC4115_ZERO_RATES: c_int =
    netcond_status::NETCOND_E_RFC4115_ZERO_RATES as c_int;
pub(crate) const NETCOND_E_RFC4115_ZERO_BURSTS: c_int =
    netcond_status::NETCOND_E_RFC4115_ZERO_BURSTS as c_int;
pub(crate) const NETCOND_E_RFC4115_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_RFC4115_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_POLICER_ZERO_RATE: c_int =
    netcond_status::NETCOND_E_POLICER_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_POLICER_ZERO_TBS: c_int =
    netcond_status::NETCOND_E_POLICER_ZERO_TBS as c_int;
pub(crate) const NETCOND_E_POLICER_ZERO_MAX_PACKET: c_int =
    netcond_status::NETCOND_E_POLICER_ZERO_MAX_PACKET as c_int;
pub(crate) const NETCOND_E_POLICER_TBS_BELOW_MAX_PACKET: c_int =
    netcond_status::NETCOND_E_POLICER_TBS_BELOW_MAX_PACKET as c_int;
pub(crate) const NETCOND_E_POLICER_PBS_BELOW_MAX_PACKET: c_int =
    netcond_status::NETCOND_E_POLICER_PBS_BELOW_MAX_PACKET as c_int;
pub(crate) const NETCOND_E_POLICER_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_POLICER_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_COMPACT_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_COMPACT_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_RED_WEIGHT_OUT_OF_RANGE: c_int =
    netcond_status::NETCOND_E_RED_WEIGHT_OUT_OF_RANGE as c_int;
pub(crate) const NETCOND_E_RED_MAX_P_OUT_OF_RANGE: c_int =
    netcond_status::NETCOND_E_RED_MAX_P_OUT_OF_RANGE as c_int;
pub(crate) const NETCOND_E_RED_THRESHOLD_ORDER: c_int =
    netcond_status::NETCOND_E_RED_THRESHOLD_ORDER as c_int;
pub(crate) const NETCOND_E_RED_ZERO_LIMIT: c_int =
    netcond_status::NETCOND_E_RED_ZERO_LIMIT as c_int;
pub(crate) const NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT: c_int =
    netcond_status::NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT as c_int;
pub(crate) const NETCOND_E_RED_ZERO_TRANSMISSION_TIME: c_int =
    netcond_status::NETCOND_E_RED_ZERO_TRANSMISSION_TIME as c_int;
pub(crate) const NETCOND_E_RED_ZERO_MAX_PACKET_SIZE: c_int =
    netcond_status::NETCOND_E_RED_ZERO_MAX_PACKET_SIZE as c_int;
pub(crate) const NETCOND_E_RED_PRECEDENCE_ORDER: c_int =
    netcond_status::NETCOND_E_RED_PRECEDENCE_ORDER as c_int;
pub(crate) const NETCOND_E_RED_ZERO_BETA: c_int = netcond_status::NETCOND_E_RED_ZERO_BETA as c_int;
pub(crate) const NETCOND_E_RED_ZERO_INTERVAL: c_int =
    netcond_status::NETCOND_E_RED_ZERO_INTERVAL as c_int;
pub(crate) const NETCOND_E_RED_BETA_BELOW_ONE: c_int =
    netcond_status::NETCOND_E_RED_BETA_BELOW_ONE as c_int;
pub(crate) const NETCOND_E_RED_ZERO_ALPHA: c_int =
    netcond_status::NETCOND_E_RED_ZERO_ALPHA as c_int;
pub(crate) const NETCOND_E_RED_ALPHA_BELOW_ONE: c_int =
    netcond_status::NETCOND_E_RED_ALPHA_BELOW_ONE as c_int;
pub(crate) const NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH: c_int =
    netcond_status::NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH as c_int;
pub(crate) const NETCOND_E_RED_ECN_DROP_ABOVE_LIMIT: c_int =
    netcond_status::NETCOND_E_RED_ECN_DROP_ABOVE_LIMIT as c_int;
pub(crate) const NETCOND_E_RED_ECN_DROP_WITHOUT_ECN: c_int =
    netcond_status::NETCOND_E_RED_ECN_DROP_WITHOUT_ECN as c_int;
pub(crate) const NETCOND_E_ET_TOO_LARGE: c_int = netcond_status::NETCOND_E_ET_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_ET_ZERO_MTU: c_int = netcond_status::NETCOND_E_ET_ZERO_MTU as c_int;
pub(crate) const NETCOND_E_ET_MTU_ABOVE_BUCKET: c_int =
    netcond_status::NETCOND_E_ET_MTU_ABOVE_BUCKET as c_int;
pub(crate) const NETCOND_E_ET_ZERO_RATE: c_int = netcond_status::NETCOND_E_ET_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_ET_ZERO_BUCKET: c_int =
    netcond_status::NETCOND_E_ET_ZERO_BUCKET as c_int;
pub(crate) const NETCOND_E_ET48_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_ET48_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_ET48_ZERO_RATE: c_int =
    netcond_status::NETCOND_E_ET48_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_ET48_ZERO_BUCKET: c_int =
    netcond_status::NETCOND_E_ET48_ZERO_BUCKET as c_int;
pub(crate) const NETCOND_E_AS_TOO_LARGE: c_int = netcond_status::NETCOND_E_AS_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_AS_THRESHOLD_ABOVE_SIZE: c_int =
    netcond_status::NETCOND_E_AS_THRESHOLD_ABOVE_SIZE as c_int;
pub(crate) const NETCOND_E_AS_ZERO_RATE: c_int = netcond_status::NETCOND_E_AS_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_AS_ZERO_BUCKET: c_int =
    netcond_status::NETCOND_E_AS_ZERO_BUCKET as c_int;
pub(crate) const NETCOND_E_RFC5670_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_RFC5670_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE: c_int =
    netcond_status::NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE as c_int;
pub(crate) const NETCOND_E_RFC5670_ZERO_RATE: c_int =
    netcond_status::NETCOND_E_RFC5670_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_RFC5670_ZERO_BUCKET: c_int =
    netcond_status::NETCOND_E_RFC5670_ZERO_BUCKET as c_int;
pub(crate) const NETCOND_E_EDGE_ZERO_DURATION: c_int =
    netcond_status::NETCOND_E_EDGE_ZERO_DURATION as c_int;
pub(crate) const NETCOND_E_EDGE_DURATION_TOO_LONG: c_int =
    netcond_status::NETCOND_E_EDGE_DURATION_TOO_LONG as c_int;
pub(crate) const NETCOND_E_EDGE_CONTINUE_ABOVE_STOP: c_int =
    netcond_status::NETCOND_E_EDGE_CONTINUE_ABOVE_STOP as c_int;
pub(crate) const NETCOND_E_EDGE_FRACTION_ABOVE_ONE: c_int =
    netcond_status::NETCOND_E_EDGE_FRACTION_ABOVE_ONE as c_int;
pub(crate) const NETCOND_E_EDGE_U_NOT_ABOVE_ONE: c_int =
    netcond_status::NETCOND_E_EDGE_U_NOT_ABOVE_ONE as c_int;
pub(crate) const NETCOND_E_RBCC_NO_NODE_ID: c_int =
    netcond_status::NETCOND_E_RBCC_NO_NODE_ID as c_int;
pub(crate) const NETCOND_E_RBCC_ZERO_CAPACITY: c_int =
    netcond_status::NETCOND_E_RBCC_ZERO_CAPACITY as c_int;
pub(crate) const NETCOND_E_RBCC_CAPACITY_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_RBCC_CAPACITY_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_RBCC_ZERO_DATA_BYTES: c_int =
    netcond_status::NETCOND_E_RBCC_ZERO_DATA_BYTES as c_int;
pub(crate) const NETCOND_E_RBCC_ACK_NOT_SMALLER: c_int =
    netcond_status::NETCOND_E_RBCC_ACK_NOT_SMALLER as c_int;
pub(crate) const NETCOND_E_RBCC_ZERO_IDLE_TIMEOUT: c_int =
    netcond_status::NETCOND_E_RBCC_ZERO_IDLE_TIMEOUT as c_int;
pub(crate) const NETCOND_E_RCP_NO_NODE_ID: c_int =
    netcond_status::NETCOND_E_RCP_NO_NODE_ID as c_int;
pub(crate) const NETCOND_E_RCP_BAD_CAPACITY: c_int =
    netcond_status::NETCOND_E_RCP_BAD_CAPACITY as c_int;
pub(crate) const NETCOND_E_RCP_ZERO_DENOMINATOR: c_int =
    netcond_status::NETCOND_E_RCP_ZERO_DENOMINATOR as c_int;
pub(crate) const NETCOND_E_RCP_ZERO_TIME: c_int = netcond_status::NETCOND_E_RCP_ZERO_TIME as c_int;
pub(crate) const NETCOND_E_RCP_INTERVAL_TOO_LONG: c_int =
    netcond_status::NETCOND_E_RCP_INTERVAL_TOO_LONG as c_int;
pub(crate) const NETCOND_E_RCP_BAD_MIN_RATE: c_int =
    netcond_status::NETCOND_E_RCP_BAD_MIN_RATE as c_int;
pub(crate) const NETCOND_E_RCP_BAD_INITIAL: c_int =
    netcond_status::NETCOND_E_RCP_BAD_INITIAL as c_int;
pub(crate) const NETCOND_E_RCP_NO_GAIN: c_int = netcond_status::NETCOND_E_RCP_NO_GAIN as c_int;
pub(crate) const NETCOND_E_RCP_ZERO_ALPHA: c_int =
    netcond_status::NETCOND_E_RCP_ZERO_ALPHA as c_int;
pub(crate) const NETCOND_E_RCP_ALPHA_UNSTABLE: c_int =
    netcond_status::NETCOND_E_RCP_ALPHA_UNSTABLE as c_int;
pub(crate) const NETCOND_E_RAS_ZERO_CIR: c_int = netcond_status::NETCOND_E_RAS_ZERO_CIR as c_int;
pub(crate) const NETCOND_E_RAS_CIR_ABOVE_MIR: c_int =
    netcond_status::NETCOND_E_RAS_CIR_ABOVE_MIR as c_int;
pub(crate) const NETCOND_E_RAS_MIR_ABOVE_LINE_RATE: c_int =
    netcond_status::NETCOND_E_RAS_MIR_ABOVE_LINE_RATE as c_int;
pub(crate) const NETCOND_E_RAS_CIR_ABOVE_PIR: c_int =
    netcond_status::NETCOND_E_RAS_CIR_ABOVE_PIR as c_int;
pub(crate) const NETCOND_E_RAS_PIR_ABOVE_MIR: c_int =
    netcond_status::NETCOND_E_RAS_PIR_ABOVE_MIR as c_int;
pub(crate) const NETCOND_E_RAS_CIR_TH_ABOVE_MIR_TH: c_int =
    netcond_status::NETCOND_E_RAS_CIR_TH_ABOVE_MIR_TH as c_int;
pub(crate) const NETCOND_E_RAS_CIR_TH_ABOVE_PIR_TH: c_int =
    netcond_status::NETCOND_E_RAS_CIR_TH_ABOVE_PIR_TH as c_int;
pub(crate) const NETCOND_E_RAS_PIR_TH_ABOVE_MIR_TH: c_int =
    netcond_status::NETCOND_E_RAS_PIR_TH_ABOVE_MIR_TH as c_int;
pub(crate) const NETCOND_E_RAS_MIR_TH_ABOVE_BUFFER: c_int =
    netcond_status::NETCOND_E_RAS_MIR_TH_ABOVE_BUFFER as c_int;
pub(crate) const NETCOND_E_RAS_ZERO_BUFFER: c_int =
    netcond_status::NETCOND_E_RAS_ZERO_BUFFER as c_int;
pub(crate) const NETCOND_E_RAS_ZERO_K: c_int = netcond_status::NETCOND_E_RAS_ZERO_K as c_int;
pub(crate) const NETCOND_E_RAS_K_TOO_LONG: c_int =
    netcond_status::NETCOND_E_RAS_K_TOO_LONG as c_int;
pub(crate) const NETCOND_E_RAS_LINE_RATE_TOO_HIGH: c_int =
    netcond_status::NETCOND_E_RAS_LINE_RATE_TOO_HIGH as c_int;
pub(crate) const NETCOND_E_RAS_ZERO_MAX_PACKET: c_int =
    netcond_status::NETCOND_E_RAS_ZERO_MAX_PACKET as c_int;
pub(crate) const NETCOND_E_RAS_BUFFER_BELOW_MAX_PACKET: c_int =
    netcond_status::NETCOND_E_RAS_BUFFER_BELOW_MAX_PACKET as c_int;
pub(crate) const NETCOND_E_RAS_DRAIN_TOO_SLOW: c_int =
    netcond_status::NETCOND_E_RAS_DRAIN_TOO_SLOW as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_TARGET: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_TARGET as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_INTERVAL: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_INTERVAL as c_int;
pub(crate) const NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL: c_int =
    netcond_status::NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL as c_int;
pub(crate) const NETCOND_E_DELAY_INTERVAL_TOO_LONG: c_int =
    netcond_status::NETCOND_E_DELAY_INTERVAL_TOO_LONG as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_QUANTUM: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_QUANTUM as c_int;
pub(crate) const NETCOND_E_DELAY_QUANTUM_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_DELAY_QUANTUM_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_LIMIT: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_LIMIT as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_DROP_BATCH: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_DROP_BATCH as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_UPDATE: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_UPDATE as c_int;
pub(crate) const NETCOND_E_DELAY_ZERO_MTU: c_int =
    netcond_status::NETCOND_E_DELAY_ZERO_MTU as c_int;
pub(crate) const NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_ZERO_TARGET: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_ZERO_TARGET as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT as c_int;
pub(crate) const NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_DELAY_FQ_PIE_LINUX_ONLY: c_int =
    netcond_status::NETCOND_E_DELAY_FQ_PIE_LINUX_ONLY as c_int;
pub(crate) const NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_TBF_ZERO_RATE: c_int = netcond_status::NETCOND_E_TBF_ZERO_RATE as c_int;
pub(crate) const NETCOND_E_TBF_ZERO_BURST: c_int =
    netcond_status::NETCOND_E_TBF_ZERO_BURST as c_int;
pub(crate) const NETCOND_E_TBF_BURST_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_TBF_BURST_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_TBF_LIMIT_AND_LATENCY: c_int =
    netcond_status::NETCOND_E_TBF_LIMIT_AND_LATENCY as c_int;
pub(crate) const NETCOND_E_TBF_NO_LIMIT: c_int = netcond_status::NETCOND_E_TBF_NO_LIMIT as c_int;
pub(crate) const NETCOND_E_TBF_PEAK_NOT_ABOVE_RATE: c_int =
    netcond_status::NETCOND_E_TBF_PEAK_NOT_ABOVE_RATE as c_int;
pub(crate) const NETCOND_E_TBF_ZERO_MTU: c_int = netcond_status::NETCOND_E_TBF_ZERO_MTU as c_int;
pub(crate) const NETCOND_E_TBF_MTU_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_TBF_MTU_TOO_LARGE as c_int;
pub(crate) const NETCOND_E_TBF_BUCKET_TOO_LARGE: c_int =
    netcond_status::NETCOND_E_TBF_BUCKET_TOO_LARGE as c_int;

/// Defines, from one list, each Rust error's code and each code's message.
macro_rules! status_table {
    (
        generic { $( $gcode:ident => $gmsg:literal ),+ $(,)? }
        $( $ty:ident => $to_code:ident { $( $variant:ident = $code:ident ),+ $(,)? } )+
    ) => {
        $(
            /// The status code of a Rust configuration error.
            #[allow(dead_code)]
            pub(crate) fn $to_code(e: $ty) -> c_int {
                #[allow(unreachable_patterns)]
                match e {
                    $( $ty::$variant => $code, )+
                    _ => NETCOND_E_UNKNOWN,
                }
            }
        )+

        /// The message of a status code.
        #[deny(unreachable_patterns)]
        pub(crate) fn message(code: c_int) -> &'static CStr {
            match code {
                NETCOND_OK => OK_MSG,
                $( $gcode => const_cstr!($gmsg), )+
                $( $( $code => const_cstr!($ty::$variant.message()), )+ )+
                _ => c"unknown netcond status",
            }
        }

        /// Every error code with the message its Rust error displays (the generic
        /// codes with their own message), for the tests.
        #[cfg(test)]
        pub(crate) const ALL: &[(c_int, &str)] = &[
            $( ($gcode, $gmsg), )+
            $( $( ($code, $ty::$variant.message()), )+ )+
        ];
    };
}

status_table! {
    generic {
        NETCOND_E_NULL => "a required pointer is NULL, or the profile was never configured",
        NETCOND_E_ENUM => "an enum argument is out of range",
        NETCOND_E_UNKNOWN => "the configuration breaks a rule this version of netcond.h does not name",
        NETCOND_E_TICK => "tick_hz must be greater than zero",
        NETCOND_E_COUNT => "an array argument must hold at least one element (a state or a packet)",
        NETCOND_E_RESERVED => "every reserved field of a parameters struct must be zero",
    }
    SrTcmError => srtcm_code {
        ZeroCir = NETCOND_E_SRTCM_ZERO_CIR,
        ZeroBursts = NETCOND_E_SRTCM_ZERO_BURSTS,
        TooLarge = NETCOND_E_SRTCM_TOO_LARGE,
    }
    TrTcmError => trtcm_code {
        ZeroCir = NETCOND_E_TRTCM_ZERO_CIR,
        ZeroPir = NETCOND_E_TRTCM_ZERO_PIR,
        ZeroCbs = NETCOND_E_TRTCM_ZERO_CBS,
        ZeroPbs = NETCOND_E_TRTCM_ZERO_PBS,
        PirBelowCir = NETCOND_E_TRTCM_PIR_BELOW_CIR,
        TooLarge = NETCOND_E_TRTCM_TOO_LARGE,
    }
    Rfc4115Error => rfc4115_code {
        ZeroRates = NETCOND_E_RFC4115_ZERO_RATES,
        ZeroBursts = NETCOND_E_RFC4115_ZERO_BURSTS,
        TooLarge = NETCOND_E_RFC4115_TOO_LARGE,
    }
    PremiumPolicerError => policer_code {
        ZeroRate = NETCOND_E_POLICER_ZERO_RATE,
        ZeroTbs = NETCOND_E_POLICER_ZERO_TBS,
        ZeroMaxPacket = NETCOND_E_POLICER_ZERO_MAX_PACKET,
        TbsBelowMaxPacket = NETCOND_E_POLICER_TBS_BELOW_MAX_PACKET,
        PbsBelowMaxPacket = NETCOND_E_POLICER_PBS_BELOW_MAX_PACKET,
        TooLarge = NETCOND_E_POLICER_TOO_LARGE,
    }
    CompactError => compact_code {
        TooLarge = NETCOND_E_COMPACT_TOO_LARGE,
    }
    RedError => red_code {
        WeightOutOfRange = NETCOND_E_RED_WEIGHT_OUT_OF_RANGE,
        MaxPOutOfRange = NETCOND_E_RED_MAX_P_OUT_OF_RANGE,
        ThresholdOrder = NETCOND_E_RED_THRESHOLD_ORDER,
        ZeroLimit = NETCOND_E_RED_ZERO_LIMIT,
        ThresholdAboveLimit = NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT,
        ZeroTransmissionTime = NETCOND_E_RED_ZERO_TRANSMISSION_TIME,
        ZeroMaxPacketSize = NETCOND_E_RED_ZERO_MAX_PACKET_SIZE,
        PrecedenceOrder = NETCOND_E_RED_PRECEDENCE_ORDER,
        ZeroBeta = NETCOND_E_RED_ZERO_BETA,
        ZeroInterval = NETCOND_E_RED_ZERO_INTERVAL,
        BetaBelowOne = NETCOND_E_RED_BETA_BELOW_ONE,
        ZeroAlpha = NETCOND_E_RED_ZERO_ALPHA,
        AlphaBelowOne = NETCOND_E_RED_ALPHA_BELOW_ONE,
        EcnDropBelowMinTh = NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH,
        EcnDropAboveLimit = NETCOND_E_RED_ECN_DROP_ABOVE_LIMIT,
        EcnDropWithoutEcn = NETCOND_E_RED_ECN_DROP_WITHOUT_ECN,
    }
    EtMarkerError => et_code {
        TooLarge = NETCOND_E_ET_TOO_LARGE,
        ZeroMtu = NETCOND_E_ET_ZERO_MTU,
        MtuAboveBucket = NETCOND_E_ET_MTU_ABOVE_BUCKET,
        ZeroRate = NETCOND_E_ET_ZERO_RATE,
        ZeroBucket = NETCOND_E_ET_ZERO_BUCKET,
    }
    EtMarkerSim48Error => et48_code {
        TooLarge = NETCOND_E_ET48_TOO_LARGE,
        ZeroRate = NETCOND_E_ET48_ZERO_RATE,
        ZeroBucket = NETCOND_E_ET48_ZERO_BUCKET,
    }
    AsMarkerError => as_code {
        TooLarge = NETCOND_E_AS_TOO_LARGE,
        ThresholdAboveSize = NETCOND_E_AS_THRESHOLD_ABOVE_SIZE,
        ZeroRate = NETCOND_E_AS_ZERO_RATE,
        ZeroBucket = NETCOND_E_AS_ZERO_BUCKET,
    }
    Rfc5670Error => rfc5670_code {
        TooLarge = NETCOND_E_RFC5670_TOO_LARGE,
        ThresholdAboveSize = NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE,
        ZeroRate = NETCOND_E_RFC5670_ZERO_RATE,
        ZeroBucket = NETCOND_E_RFC5670_ZERO_BUCKET,
    }
    EdgeError => edge_code {
        ZeroDuration = NETCOND_E_EDGE_ZERO_DURATION,
        DurationTooLong = NETCOND_E_EDGE_DURATION_TOO_LONG,
        ContinueAboveStop = NETCOND_E_EDGE_CONTINUE_ABOVE_STOP,
        FractionAboveOne = NETCOND_E_EDGE_FRACTION_ABOVE_ONE,
        UNotAboveOne = NETCOND_E_EDGE_U_NOT_ABOVE_ONE,
    }
    RbccError => rbcc_code {
        NoNodeId = NETCOND_E_RBCC_NO_NODE_ID,
        ZeroCapacity = NETCOND_E_RBCC_ZERO_CAPACITY,
        CapacityTooLarge = NETCOND_E_RBCC_CAPACITY_TOO_LARGE,
        ZeroDataBytes = NETCOND_E_RBCC_ZERO_DATA_BYTES,
        AckNotSmaller = NETCOND_E_RBCC_ACK_NOT_SMALLER,
        ZeroIdleTimeout = NETCOND_E_RBCC_ZERO_IDLE_TIMEOUT,
    }
    RcpError => rcp_code {
        NoNodeId = NETCOND_E_RCP_NO_NODE_ID,
        BadCapacity = NETCOND_E_RCP_BAD_CAPACITY,
        ZeroDenominator = NETCOND_E_RCP_ZERO_DENOMINATOR,
        ZeroTime = NETCOND_E_RCP_ZERO_TIME,
        IntervalTooLong = NETCOND_E_RCP_INTERVAL_TOO_LONG,
        BadMinRate = NETCOND_E_RCP_BAD_MIN_RATE,
        BadInitial = NETCOND_E_RCP_BAD_INITIAL,
        NoGain = NETCOND_E_RCP_NO_GAIN,
        ZeroAlpha = NETCOND_E_RCP_ZERO_ALPHA,
        AlphaUnstable = NETCOND_E_RCP_ALPHA_UNSTABLE,
    }
    RasError => ras_code {
        ZeroCir = NETCOND_E_RAS_ZERO_CIR,
        CirAboveMir = NETCOND_E_RAS_CIR_ABOVE_MIR,
        MirAboveLineRate = NETCOND_E_RAS_MIR_ABOVE_LINE_RATE,
        CirAbovePir = NETCOND_E_RAS_CIR_ABOVE_PIR,
        PirAboveMir = NETCOND_E_RAS_PIR_ABOVE_MIR,
        CirThAboveMirTh = NETCOND_E_RAS_CIR_TH_ABOVE_MIR_TH,
        CirThAbovePirTh = NETCOND_E_RAS_CIR_TH_ABOVE_PIR_TH,
        PirThAboveMirTh = NETCOND_E_RAS_PIR_TH_ABOVE_MIR_TH,
        MirThAboveBuffer = NETCOND_E_RAS_MIR_TH_ABOVE_BUFFER,
        ZeroBuffer = NETCOND_E_RAS_ZERO_BUFFER,
        ZeroK = NETCOND_E_RAS_ZERO_K,
        KTooLong = NETCOND_E_RAS_K_TOO_LONG,
        LineRateTooHigh = NETCOND_E_RAS_LINE_RATE_TOO_HIGH,
        ZeroMaxPacket = NETCOND_E_RAS_ZERO_MAX_PACKET,
        BufferBelowMaxPacket = NETCOND_E_RAS_BUFFER_BELOW_MAX_PACKET,
        DrainTooSlow = NETCOND_E_RAS_DRAIN_TOO_SLOW,
    }
    DelayError => delay_code {
        ZeroTarget = NETCOND_E_DELAY_ZERO_TARGET,
        ZeroInterval = NETCOND_E_DELAY_ZERO_INTERVAL,
        TargetNotBelowInterval = NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL,
        IntervalTooLong = NETCOND_E_DELAY_INTERVAL_TOO_LONG,
        ZeroQuantum = NETCOND_E_DELAY_ZERO_QUANTUM,
        QuantumTooLarge = NETCOND_E_DELAY_QUANTUM_TOO_LARGE,
        ZeroLimit = NETCOND_E_DELAY_ZERO_LIMIT,
        ZeroDropBatch = NETCOND_E_DELAY_ZERO_DROP_BATCH,
        ZeroUpdate = NETCOND_E_DELAY_ZERO_UPDATE,
        ZeroMtu = NETCOND_E_DELAY_ZERO_MTU,
        PieParameterTooLarge = NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE,
        DualPi2ZeroTarget = NETCOND_E_DELAY_DUALPI2_ZERO_TARGET,
        DualPi2ZeroUpdate = NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE,
        DualPi2ZeroCoupling = NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING,
        DualPi2ZeroThreshold = NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD,
        DualPi2LimitBelowMtu = NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU,
        DualPi2ZeroWeight = NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT,
        DualPi2ParameterTooLarge = NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE,
        FqPieLinuxOnly = NETCOND_E_DELAY_FQ_PIE_LINUX_ONLY,
        FqPieEcnProbTooLarge = NETCOND_E_DELAY_FQ_PIE_ECN_PROB_TOO_LARGE,
    }
    TbfError => tbf_code {
        ZeroRate = NETCOND_E_TBF_ZERO_RATE,
        ZeroBurst = NETCOND_E_TBF_ZERO_BURST,
        BurstTooLarge = NETCOND_E_TBF_BURST_TOO_LARGE,
        LimitAndLatency = NETCOND_E_TBF_LIMIT_AND_LATENCY,
        NoLimit = NETCOND_E_TBF_NO_LIMIT,
        PeakNotAboveRate = NETCOND_E_TBF_PEAK_NOT_ABOVE_RATE,
        ZeroMtu = NETCOND_E_TBF_ZERO_MTU,
        MtuTooLarge = NETCOND_E_TBF_MTU_TOO_LARGE,
        BucketTooLarge = NETCOND_E_TBF_BUCKET_TOO_LARGE,
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_rust_message() {
        let mut seen: [c_int; 192] = [0; 192];
        for (n, &(code, msg)) in ALL.iter().enumerate() {
            assert!(code < 0, "{code}");
            assert!(!seen[..n].contains(&code), "duplicate code {code}");
            seen[n] = code;
            let got = crate::netcond_strerror(code);
            // SAFETY: netcond_strerror returns a static NUL-terminated string.
            let got = unsafe { CStr::from_ptr(got) }.to_str().unwrap();
            assert_eq!(got, msg, "code {code}");
        }
        assert_eq!(message(0).to_str().unwrap(), "ok");
        assert_eq!(message(1).to_str().unwrap(), "unknown netcond status");
        assert_eq!(message(-9999).to_str().unwrap(), "unknown netcond status");
    }

    #[test]
    fn rust_errors_map_to_their_codes() {
        assert_eq!(
            trtcm_code(TrTcmError::PirBelowCir),
            NETCOND_E_TRTCM_PIR_BELOW_CIR
        );
        assert_eq!(
            srtcm_code(SrTcmError::ZeroBursts),
            NETCOND_E_SRTCM_ZERO_BURSTS
        );
        assert_eq!(red_code(RedError::ZeroBeta), NETCOND_E_RED_ZERO_BETA);
        assert_eq!(
            message(trtcm_code(TrTcmError::TooLarge)).to_str().unwrap(),
            TrTcmError::TooLarge.to_string()
        );
    }

    #[test]
    fn reserved_fields_must_all_be_zero() {
        assert_eq!(reserved_zero(&[]), Ok(()));
        assert_eq!(reserved_zero(&[0, 0]), Ok(()));
        assert_eq!(reserved_zero(&[1]), Err(NETCOND_E_RESERVED));
        assert_eq!(reserved_zero(&[0, u64::MAX]), Err(NETCOND_E_RESERVED));
        assert_eq!(NETCOND_E_RESERVED, -6);
    }
}
