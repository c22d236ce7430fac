"""The enumerations the state machines return (IntEnums: they compare equal to
the integers that the bulk calls put in their uint8 arrays)."""

from enum import IntEnum


class Color(IntEnum):
    """A three-color marker's color (RFC 2697, RFC 2698, RFC 4115)."""

    GREEN = 0
    YELLOW = 1
    RED = 2


class Verdict(IntEnum):
    """The premium policer's verdict on a packet."""

    ADMITTED = 0
    POLICER_DROP = 1
    BUFFER_DROP = 2


class AqmVerdict(IntEnum):
    """A delay-based AQM's verdict on the packet at the head of the queue."""

    DELIVER = 0
    MARK = 1
    DROP = 2


class Decision(IntEnum):
    """RED's decision on an arriving packet."""

    ENQUEUE = 0
    MARK = 1
    DROP_EARLY = 2
    DROP_FORCED = 3


class PcnMark(IntEnum):
    """A packet's PCN state as RFC 6660's 3-in-1 encoding writes it in the ECN field."""

    NOT_PCN = 0b00
    THM = 0b01
    NM = 0b10
    ETM = 0b11


class TbfVerdict(IntEnum):
    """A token bucket filter's verdict on an arriving packet."""

    ACCEPT = 0
    DROP_OVER_LIMIT = 1
    DROP_TOO_BIG = 2
