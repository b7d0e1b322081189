"""One session of a link: everything an endpoint knows of it, and nothing that outlives it.

An :class:`firmware_bridge.link.Endpoint` holds its current :class:`Session`; starting a new
session (``Endpoint.reset``, a device following a new HELLO, a new pairing) makes a new
object, so nothing of the old session (its keys, counters, window, timers, refusal) can leak
into the next. What outlives a session (the pairing secret, the counters of ``LinkStats``,
the frame decoder, the events not yet taken) is the endpoint's own.
"""

from __future__ import annotations

from enum import Enum

from firmware_bridge.auth import Opener, Sealer, new_nonce
from firmware_bridge.events import Identity
from firmware_bridge.link_messages import HelloReply
from firmware_bridge.reliable import ReceiveSequence, SendWindow, Timing


class LinkState(Enum):
    """Where an endpoint's session stands."""

    IDLE = "idle"  # never started
    HANDSHAKING = "handshaking"  # station: sending HELLO; device: waiting for one
    CONNECTED = "connected"
    DOWN = "down"  # LinkDown reported; call reset()
    REFUSED = "refused"  # HandshakeRefused reported; call reset()


#: One queued frame: type number, sequence number, flags and plain payload. The header's
#: ack (and the seal) are added when the frame goes out (``Endpoint.data_to_send``).
Queued = tuple[int, int, int, bytes]


class Session:
    """The state of one session (see the module docstring); a slots class: the endpoint
    reads it on every frame."""

    __slots__ = (
        "ack_at",
        "ack_due",
        "ack_held",
        "ack_owed",
        "check_name",
        "check_reason",
        "check_until",
        "hello_at",
        "hello_tries",
        "hold_until",
        "hurry",
        "last_rx",
        "last_tx",
        "leading_delimiter",
        "nonce",
        "opener",
        "outbox",
        "peer",
        "peer_session",
        "refusal",
        "refused_session",
        "reply",
        "rx",
        "sealer",
        "session",
        "state",
        "window",
    )

    def __init__(self, number: int, timing: Timing, now: float) -> None:
        """A session numbered ``number`` (0: none yet), opening at ``now``."""
        self.state = LinkState.HANDSHAKING
        #: This side's session number and the peer's (0 until its HELLO or reply).
        self.session = number
        self.peer_session = 0
        #: The peer's identity from its HELLO or reply, once read.
        self.peer: Identity | None = None
        #: Frames queued to go out (``Queued``).
        self.outbox: list[Queued] = []
        #: The first bytes of a session flush whatever partial frame the peer holds.
        self.leading_delimiter = True
        self.window = SendWindow(timing)
        self.rx = ReceiveSequence()
        #: An ack owed: since when, how many frames, sent at ``ack_at`` at the latest.
        self.ack_due = False
        self.ack_owed = 0
        self.ack_at = now
        #: Held acknowledgement (``Endpoint.hold_acks``): the ack sent while messages the
        #: application has not released are held, and until when at the latest (None: none).
        self.ack_held = 0
        self.hold_until: float | None = None
        #: The last reliable frames out carry ``ACK_NOW`` until what was queued has gone.
        self.hurry = False
        self.last_rx = now
        self.last_tx = now
        #: The station's HELLO: when it last went out, and how often.
        self.hello_at = now
        self.hello_tries = 0
        #: The session refused (by either side) and the reason this side gave, if it did.
        self.refused_session = 0
        self.refusal = ""
        #: This side's half of the session keys, and the keys once derived.
        self.nonce = new_nonce()
        self.sealer: Sealer | None = None
        self.opener: Opener | None = None
        #: The device's HELLO_REPLY, sent again for a HELLO of the same session.
        self.reply: HelloReply | None = None
        #: An unsealed end under check (section 4c): until when, why, and what claimed it.
        self.check_until: float | None = None
        self.check_reason = ""
        self.check_name = ""
