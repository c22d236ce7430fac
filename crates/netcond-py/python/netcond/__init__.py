"""netcond: exact, fixed-point traffic conditioners from Python.

Meters and markers (RFC 2697 srTCM, RFC 2698 trTCM, RFC 4115), a policer,
PCN markers, RED and its relatives, delay-based AQMs and shapers, each as a
profile (validated constants) and a state, with per-packet calls and NumPy
bulk calls that release the GIL.

Time is an integer count of ticks of the profile's clock (``tick_hz``,
nanoseconds by default); rates are bits per second or tc strings such as
``"10mbit"``; sizes are bytes or tc strings such as ``"10kb"``.
"""

from ._enums import AqmVerdict, Color, Decision, PcnMark, TbfVerdict, Verdict
from ._netcond import (
    Aecn,
    AsMarker,
    AsMarkerProfile,
    EtMarker,
    EtMarkerProfile,
    AecnProfile,
    ExcessTrafficMeter,
    ExcessTrafficMeterProfile,
    ThresholdMeter,
    ThresholdMeterProfile,
    Codel,
    DualPi2,
    DualPi2Profile,
    FqCodel,
    FqCodelProfile,
    CodelProfile,
    Pie,
    PieProfile,
    PremiumPolicer,
    PremiumPolicerProfile,
    Red,
    Rio,
    RioProfile,
    RedProfile,
    Rfc4115,
    Rfc4115Profile,
    SrTcm,
    SrTcmProfile,
    Tbf,
    TbfProfile,
    TrTcm,
    TrTcmProfile,
)
from ._netcond import __version__
from . import sim

__all__ = [
    "Color",
    "Verdict",
    "AqmVerdict",
    "Decision",
    "TbfVerdict",
    "TbfProfile",
    "Tbf",
    "PcnMark",
    "ThresholdMeterProfile",
    "ThresholdMeter",
    "ExcessTrafficMeterProfile",
    "ExcessTrafficMeter",
    "RedProfile",
    "Red",
    "RioProfile",
    "Rio",
    "AecnProfile",
    "Aecn",
    "AsMarkerProfile",
    "AsMarker",
    "EtMarkerProfile",
    "EtMarker",
    "PieProfile",
    "Pie",
    "CodelProfile",
    "Codel",
    "DualPi2Profile",
    "DualPi2",
    "FqCodelProfile",
    "FqCodel",
    "SrTcmProfile",
    "SrTcm",
    "TrTcmProfile",
    "TrTcm",
    "Rfc4115Profile",
    "Rfc4115",
    "PremiumPolicerProfile",
    "PremiumPolicer",
    "sim",
    "__version__",
]
