"""The child side of the Rukh command channel, protocol ``rukh.ipc/1``, for Python.

Copy this one file next to your command program: it needs Python 3.8 or later
and nothing but the standard library. Give it one handler per command identity::

    #!/usr/bin/env python3
    from rukh_ipc import CommandFailure, run_command_process, text_result

    def greet(ctx):
        if not ctx.inputs.get("name"):
            raise CommandFailure("a name is required")
        ctx.log.info("greeting " + ctx.inputs["name"])
        return text_result("hello " + ctx.inputs["name"])

    run_command_process({"acme.hello/greet": greet})

The host starts the program with a private, authenticated channel on file
descriptor 3 and ``RUKH_IPC_FD=3`` in its environment. :func:`run_command_process`
removes that variable, reads the per-invocation secret from the channel (it is
never in the environment), completes the handshake, runs the handler of the
invoked command, sends its completion and exits: with status 0 after a
completion, 1 when the handler raised anything but :class:`CommandFailure` or
there is no handler, 2 on a channel or protocol failure or when the program was
not started by a host. It behaves like the Node runtime of ``@rukh/ipc``; the
wire protocol is specified in docs/ipc.md of the Rukh repository.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import stat
import struct
import sys
import threading
import time
import types
from typing import Any, Callable, Dict, List, Mapping, NoReturn, Optional, Sequence, Tuple

__all__ = ["CommandContext", "CommandFailure", "CommandLogger", "CommandSuccess", "IpcError"]
__all__ += ["run_command_process", "structured_result", "text_result"]

PROTOCOL = "rukh.ipc/1"
CHANNEL_FD = 3
CHANNEL_ENV = "RUKH_IPC_FD"
CANCEL_CAUSES = ("client", "owner", "deadline")
MAX_FRAME_BYTES = 1_048_576
MAX_TEXT_BYTES = 4_096
MAX_LOG_FRAMES = MAX_PROGRESS_FRAMES = 1_000
_MAX_DEPTH, _MAX_NODES, _MAX_ID, _MAX_REF, _MAX_ENTRIES = 48, 16_384, 256, 1_024, 256
_MAX_REMAINING_MS, _MAX_SAFE_INTEGER = 86_400_000, 2**53 - 1
_HOST_TO_CHILD, _CHILD_TO_HOST, _HEADER, _SECRET, _PREAMBLE = 1, 2, 40, 32, 64
_AUTHOR_LOG_LINES = MAX_LOG_FRAMES - 2  # one line each is kept for the dropped count and a failure
_EXIT_GRACE_SECONDS = 0.05
_INVOKE = "type invocationId command inputs explicitInputIds remainingMs features".split()
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*")
_COMMAND = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
_INPUT_ID = re.compile(r"[a-z][a-z0-9_]*")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")

Message = Dict[str, Any]
Effects = Optional[Sequence[str]]
Handler = Callable[["CommandContext"], Any]


class IpcError(Exception):
    """A channel or protocol failure; ``code`` is one of the stable codes of docs/ipc.md."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class CommandFailure(Exception):
    """Raise it to report a deliberate failure: a ``command_failed`` completion.

    ``message`` must be safe to show to the caller; ``command_result`` (any JSON
    value) and ``effects`` (unique reference strings) travel with it. Any other
    exception ends the process with status 1 and no completion.
    """

    def __init__(self, message: str, command_result: Any = None, effects: Effects = None) -> None:
        super().__init__(message)
        self.message, self.command_result, self.effects = str(message), command_result, effects


class CommandSuccess:
    """What a handler returns on success; build it with :func:`text_result` or
    :func:`structured_result`. A handler that returns ``None`` succeeds without a result."""

    __slots__ = ("command_result", "effects", "message")

    def __init__(self, command_result: Any = None, effects: Effects = None, message: Any = None):
        self.command_result, self.effects, self.message = command_result, effects, message


def text_result(
    text: str, effects: Effects = None, message: Optional[str] = None
) -> CommandSuccess:
    """A success carrying a command-result/1 text result, e.g. ``text_result("3 files changed")``."""
    return CommandSuccess({"kind": "text", "text": text}, effects, message)


def structured_result(data: Any, effects: Effects = None, message: Any = None) -> CommandSuccess:
    """A success carrying a command-result/1 structured result; the host checks
    ``data`` against the command's declared schema."""
    return CommandSuccess({"kind": "structured", "data": data}, effects, message)


class CommandLogger:
    """Diagnostics for the owner's logs (never shown to the caller), sent as ``log``
    frames. A line over 4,096 UTF-8 bytes is shortened and ends in "…"; after 998
    lines, further ones are dropped and counted in one warning before the completion."""

    def __init__(self, emit: Callable[[str, Any], None]) -> None:
        self._emit = emit

    def debug(self, message: str) -> None:
        """Sends a ``debug`` line."""
        self._emit("debug", message)

    def info(self, message: str) -> None:
        """Sends an ``info`` line."""
        self._emit("info", message)

    def warn(self, message: str) -> None:
        """Sends a ``warn`` line (also available as ``warning``)."""
        self._emit("warn", message)

    warning = warn

    def error(self, message: str) -> None:
        """Sends an ``error`` line."""
        self._emit("error", message)


class CommandContext:
    """Everything a handler receives for one invocation.

    From the host: ``invocation_id``; ``command``, the identity
    ``<extension id>/<command id>``; ``inputs``, a dict already validated with
    defaults applied; ``explicit_input_ids`` and ``features``, tuples of str.
    ``deadline`` is the ``time.time()`` at which the invocation's time is up
    (advisory: the host enforces its own). ``cancelled`` is a
    :class:`threading.Event` set once the host cancels or the deadline passes;
    ``cancel_cause`` is then ``"client"``, ``"owner"`` or ``"deadline"``.
    """

    def __init__(self, run: _Invocation, invoke: Message, deadline: float) -> None:
        self._run = run
        self.invocation_id: str = invoke["invocationId"]
        self.command: str = invoke["command"]
        self.inputs: Dict[str, Any] = invoke["inputs"]
        self.explicit_input_ids: Tuple[str, ...] = tuple(invoke["explicitInputIds"])
        self.features: Tuple[str, ...] = tuple(invoke["features"])
        self.deadline = deadline
        self.cancelled: threading.Event = run.cancelled
        self.log = CommandLogger(lambda level, message: run.log(level, message, False))

    @property
    def cancel_cause(self) -> Optional[str]:
        """Why :attr:`cancelled` is set, or ``None`` while it is not."""
        return self._run.cause

    def progress(self, progress: float, total: Optional[float] = None, message: Any = None) -> None:
        """Reports progress: ``progress`` ≥ 0, optional ``total`` > 0 and ``message``.

        The first 1,000 reports are sent and later ones dropped; nothing is sent
        after the completion; progress never extends the deadline. Raises
        :class:`IpcError` (``invalid_message``) for numbers outside those bounds.
        """
        self._run.progress(progress, total, message)


def run_command_process(handlers: Mapping[str, Handler]) -> NoReturn:
    """Runs this process as a managed command, then exits it: it never returns.

    ``handlers`` maps each command identity the program implements to a function
    that takes a :class:`CommandContext` and returns ``None`` or a
    :class:`CommandSuccess`; an ``async def`` handler is run with ``asyncio.run``.
    Call it from the main thread, where the handler runs as well.
    """
    announced = os.environ.pop(CHANNEL_ENV, None)
    if announced != str(CHANNEL_FD):
        reason = '%s is not "%d": this program must be started by a Rukh host'
        _report(IpcError("not_managed", reason % (CHANNEL_ENV, CHANNEL_FD)))
        sys.exit(2)
    try:
        if not stat.S_ISSOCK(os.fstat(CHANNEL_FD).st_mode):
            raise OSError("not a socket")
        os.set_inheritable(CHANNEL_FD, False)  # processes the handler starts get no channel
        os.set_blocking(CHANNEL_FD, True)
    except OSError:
        _report(IpcError("not_managed", "fd %d is not a usable channel" % CHANNEL_FD))
        sys.exit(2)
    _Invocation(_Channel(CHANNEL_FD), handlers).run()


class _Channel:
    """Frames in both directions, each authenticated with HMAC-SHA256 over the
    protocol id, direction, sequence number and payload (docs/ipc.md §4)."""

    def __init__(self, fd: int) -> None:
        self._fd, self._buffer, self._secret = fd, bytearray(), b""
        self._send_seq = self._recv_seq = 0

    def read_preamble(self) -> str:
        """Reads the secret and the host nonce; returns the nonce in hex."""
        self._fill(_PREAMBLE)
        self._secret, nonce = bytes(self._buffer[:_SECRET]), self._buffer[_SECRET:_PREAMBLE].hex()
        del self._buffer[:_PREAMBLE]
        return nonce

    def receive(self) -> Message:
        """The next host message. Raises :class:`IpcError` at the first fault,
        checked in the order the protocol prescribes."""
        self._fill(4)
        (length,) = struct.unpack_from(">I", self._buffer)
        if length == 0:
            raise IpcError("malformed_frame", "a frame has an empty payload")
        if length > MAX_FRAME_BYTES:
            raise IpcError("frame_too_large", "a frame announces %d payload bytes" % length)
        self._fill(_HEADER + length)
        frame = bytes(self._buffer[: _HEADER + length])
        del self._buffer[: _HEADER + length]
        (sequence,), payload = struct.unpack_from(">I", frame, 4), frame[_HEADER:]
        if not hmac.compare_digest(frame[8:_HEADER], self._mac(_HOST_TO_CHILD, sequence, payload)):
            raise IpcError("bad_mac", "host frame %d fails its HMAC check" % self._recv_seq)
        if sequence != self._recv_seq:
            expected = "frame carries sequence number %d; expected %d"
            raise IpcError("out_of_sequence", expected % (sequence, self._recv_seq))
        self._recv_seq += 1
        return _check_host_message(_decode_json(payload))

    def send(self, message: Message) -> None:
        """Checks, frames and writes one message. Raises :class:`IpcError`."""
        payload = _encode(message)
        mac = self._mac(_CHILD_TO_HOST, self._send_seq, payload)
        data = memoryview(struct.pack(">II", len(payload), self._send_seq) + mac + payload)
        self._send_seq += 1
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as error:
            raise IpcError("channel_error", "channel I/O failed: %s" % error) from None

    def _mac(self, direction: int, sequence: int, payload: bytes) -> bytes:
        head = PROTOCOL.encode("ascii") + struct.pack(">BBI", 0, direction, sequence)
        return hmac.new(self._secret, head + payload, hashlib.sha256).digest()

    def _fill(self, size: int) -> None:
        while len(self._buffer) < size:
            try:
                chunk = os.read(self._fd, max(65_536, size - len(self._buffer)))
            except OSError as error:
                raise IpcError("channel_error", "channel I/O failed: %s" % error) from None
            if not chunk and self._buffer:
                raise IpcError("truncated_frame", "the channel ended inside a frame")
            if not chunk:
                raise IpcError("closed_before_completion", "the host closed the channel")
            self._buffer += chunk


class _Invocation:
    """One invocation's state (handshake → running → done), its diagnostics
    budget and its cancellation. The lock keeps frames whole and in order."""

    def __init__(self, channel: _Channel, handlers: Mapping[str, Handler]) -> None:
        self._channel, self._handlers, self._lock = channel, handlers, threading.RLock()
        self._state, self._host_cancelled = "handshake", False
        self._timer: Optional[threading.Timer] = None
        self._log_lines = self._dropped = self._progress_frames = 0
        self.cancelled = threading.Event()
        self.cause: Optional[str] = None

    def run(self) -> NoReturn:
        try:
            nonce = self._channel.read_preamble()
            self._channel.send({"type": "hello", "protocol": PROTOCOL, "hostNonce": nonce})
            invoke = self._channel.receive()
            if invoke["type"] != "invoke":
                raise IpcError("unexpected_message", "the host sent %s first" % invoke["type"])
        except IpcError as error:
            self._fail(error)
        self._state = "running"
        threading.Thread(target=self._read_host, name="rukh-ipc-reader", daemon=True).start()
        self._exit(self._execute(invoke))

    def _execute(self, invoke: Message) -> int:
        handler = self._handlers.get(invoke["command"])
        if handler is None:
            self.log("error", "no handler for command %s" % invoke["command"], True)
            return 1
        seconds = invoke["remainingMs"] / 1000
        self._timer = threading.Timer(seconds, self._abort, ("deadline",))
        self._timer.daemon = True
        self._timer.start()
        context = CommandContext(self, invoke, time.time() + seconds)
        try:
            completion = _completion("succeeded", _success(handler(context)))
        except CommandFailure as failure:
            completion = _completion("command_failed", failure)
        except Exception:  # anything else is reported to the owner, then the process exits 1
            import traceback

            self.log("error", "handler failed: " + traceback.format_exc().rstrip(), True)
            return 1
        with self._lock:
            try:
                if self._dropped:
                    dropped = "%d log lines dropped (limit %d)" % (self._dropped, _AUTHOR_LOG_LINES)
                    self._send({"type": "log", "level": "warn", "message": dropped})
                self._send(completion)
            except IpcError as error:
                self.log("error", "cannot send the completion: %s" % error, True)
                return 1
            self._state = "done"
        return 0

    def _read_host(self) -> None:
        try:
            while True:
                message = self._channel.receive()
                with self._lock:
                    if message["type"] != "cancel" or self._host_cancelled:
                        wrong = "the host sent %s out of order" % message["type"]
                        raise IpcError("unexpected_message", wrong)
                    self._host_cancelled = True
                    self._abort(message["cause"])
        except IpcError as error:
            self._fail(error)

    def _abort(self, cause: str) -> None:
        with self._lock:
            if self.cause is not None:
                return
            self.cause = cause
            if self._timer is not None:
                self._timer.cancel()
        self.cancelled.set()

    def log(self, level: str, message: Any, reserved: bool) -> None:
        with self._lock:
            if self._state != "running":
                return
            if not reserved and self._log_lines >= _AUTHOR_LOG_LINES:
                self._dropped += 1
                return
            self._log_lines += 0 if reserved else 1
            self._send({"type": "log", "level": level, "message": _clip(message)})

    def progress(self, progress: float, total: Optional[float], message: Any) -> None:
        with self._lock:
            if self._state != "running" or self._progress_frames >= MAX_PROGRESS_FRAMES:
                return
            self._progress_frames += 1
            frame: Message = {"type": "progress", "progress": progress}
            if total is not None:
                frame["total"] = total
            if message is not None:
                frame["message"] = _clip(message)
            self._send(frame)

    def _send(self, message: Message) -> None:
        try:
            self._channel.send(message)
        except IpcError as error:
            if error.code == "channel_error":
                self._fail(error)
            raise

    def _fail(self, error: IpcError) -> None:
        """Exits with status 2 at once, unless the completion is already sent."""
        with self._lock:
            if self._state == "done":
                return
            self._state = "done"
            self._abort("owner")
            _report(error)
            os._exit(2)

    def _exit(self, code: int) -> NoReturn:
        with self._lock:
            self._state = "done"
            if self._timer is not None:
                self._timer.cancel()
        _report(None)
        # Like the Node runtime, do not let threads the handler left behind keep the process.
        watchdog = threading.Timer(_EXIT_GRACE_SECONDS, os._exit, (code,))
        watchdog.daemon = True
        watchdog.start()
        sys.exit(code)


def _success(result: Any) -> CommandSuccess:
    if isinstance(result, types.CoroutineType):
        import asyncio

        result = asyncio.run(result)
    if result is None:
        return CommandSuccess()
    if not isinstance(result, CommandSuccess):
        wrong = "a handler returns None or a CommandSuccess (see text_result), not %s"
        raise TypeError(wrong % type(result).__name__)
    return result


def _completion(outcome: str, source: Any) -> Message:
    message: Message = {"type": "completion", "outcome": outcome}
    if source.command_result is not None:
        message["commandResult"] = source.command_result
    if source.effects is not None:
        message["effects"] = source.effects
    if source.message is not None:
        message["message"] = _clip(source.message)
    return message


def _clip(value: Any) -> str:
    """Well-formed text of at most 4,096 UTF-8 bytes, cut at a character boundary with "…"."""
    text = str(value)
    if _SURROGATE.search(text):  # pairs join as in JavaScript; lone surrogates become U+FFFD
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    data = text.encode("utf-8")
    if len(data) <= MAX_TEXT_BYTES:
        return text
    end = MAX_TEXT_BYTES - 3
    while end > 0 and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end].decode("utf-8") + "\u2026"


def _report(error: Optional[IpcError]) -> None:
    """Flushes stdio, then writes ``rukh ipc: <code>: <message>`` for an error."""
    try:
        sys.stdout.flush()
        if error is not None:
            sys.stderr.write("rukh ipc: %s: %s\n" % (error.code, error))
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass


# Strict JSON and the message schemas (docs/ipc.md §4 and §6).


def _unique_members(pairs: List[Tuple[str, Any]]) -> Message:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise ValueError("an object has duplicate keys")
    return members


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_members)


def _decode_json(payload: bytes) -> Any:
    """Parses a payload strictly: UTF-8 without a byte order mark, one value, unique
    keys, no lone surrogates, safe integers, finite numbers, bounded depth and size."""
    try:
        if payload.startswith(b"\xef\xbb\xbf"):
            raise ValueError("it starts with a byte order mark")
        value = _DECODER.decode(payload.decode("utf-8"))
        nodes, stack = 0, [(value, 0)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, str) and _SURROGATE.search(item):
                raise ValueError("a string holds a lone surrogate")
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError("a number is not finite")
            if isinstance(item, int) and abs(item) > _MAX_SAFE_INTEGER:
                raise ValueError("an integer is outside \u00b1(2^53\u22121)")
            if isinstance(item, (dict, list)):
                depth, nodes = depth + 1, nodes + len(item)
                if depth > _MAX_DEPTH or nodes > _MAX_NODES:
                    limits = (_MAX_DEPTH, _MAX_NODES)
                    raise ValueError("over %d levels deep or %d members and elements" % limits)
                if isinstance(item, dict):
                    stack.extend((key, depth) for key in item)
                    item = item.values()
                stack.extend((member, depth) for member in item)
    except (ValueError, RecursionError) as error:
        raise IpcError("invalid_json", "frame payload is not strict JSON: %s" % error) from None
    return value


def _encode(message: Message) -> bytes:
    """Serializes an outgoing message, then reads it back as the host will, so
    that this side never sends what the host would reject."""
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        payload = text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        raise IpcError("invalid_message", "message is not JSON data: %s" % error) from None
    if len(payload) > MAX_FRAME_BYTES:
        too_large = "a %s message of %d bytes exceeds %d"
        raise IpcError(
            "frame_too_large", too_large % (message["type"], len(payload), MAX_FRAME_BYTES)
        )
    _check_child_message(_decode_json(payload))
    return payload


def _invalid(path: str, expected: str) -> IpcError:
    return IpcError("invalid_message", 'invalid message at "%s": expected %s' % (path, expected))


def _members(value: Message, required: Sequence[str]) -> None:
    for key in required:
        if key not in value:
            raise _invalid("/" + key, "a member")
    for key in value:
        if key not in required:
            raise _invalid("/" + key.replace("~", "~0").replace("/", "~1"), "no such member")


def _text(value: Any, path: str, max_bytes: int, pattern: Any = None) -> str:
    if not isinstance(value, str):
        raise _invalid(path, "a string")
    if len(value.encode("utf-8")) > max_bytes:
        raise _invalid(path, "at most %d UTF-8 bytes" % max_bytes)
    if pattern is not None and not pattern.fullmatch(value):
        raise _invalid(path, "a string matching %s" % pattern.pattern)
    return str(value)


def _list(value: Any, path: str, check: Callable[[Any, str], Any]) -> None:
    if not isinstance(value, list) or len(value) > _MAX_ENTRIES:
        raise _invalid(path, "an array of at most %d entries" % _MAX_ENTRIES)
    for index, entry in enumerate(value):
        check(entry, "%s/%d" % (path, index))
        if entry in value[:index]:
            raise _invalid("%s/%d" % (path, index), "unique entries")


def _number(value: Any, path: str, expected: str, accept: Callable[[float], bool]) -> None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or not accept(value):
        raise _invalid(path, expected)


# The effects contract's forms (docs/contracts/effects.md), as written: the
# same grammar the host checks (which also parses an https URL and wants it
# printed back exactly; these patterns admit nothing it would print otherwise).
_PCHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})"
_DNS_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_HTTPS = re.compile(
    r"https://(?:" + _DNS_LABEL + r"(?:\." + _DNS_LABEL + r")*|" + _OCTET + r"(?:\." + _OCTET + r"){3}"
    r"|\[[0-9a-f:.]+\])(?::(?!443(?![0-9]))[1-9][0-9]{0,4})?(?:/" + _PCHAR + r"*)+"
    r"(?:\?(?:[A-Za-z0-9\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?"
)
_URN = re.compile(r"urn:[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]:" + _PCHAR + r"(?:" + _PCHAR + r"|/)*")
_DOT_SEGMENT = re.compile(r"/\.{1,2}(?=/|\?|$)")
_PORT = re.compile(r"https://[^/]*:([0-9]+)/")


def _safe_reference(value: str) -> bool:
    if _URN.fullmatch(value):
        return True
    if not _HTTPS.fullmatch(value) or _DOT_SEGMENT.search(value[8:]):
        return False
    port = _PORT.match(value)
    return port is None or int(port.group(1)) <= 65535


def _reference(value: Any, path: str) -> None:
    if not _text(value, path, _MAX_REF) or _CONTROL.search(value):
        raise _invalid(path, "a non-empty string without control characters")
    if not _safe_reference(value):
        raise _invalid(
            path,
            "an https URL (lowercase host, a path, no user info, port 443 or fragment) "
            "or a urn:<nid>:<nss> (the effects contract)",
        )


def _identifier(value: Any, path: str, pattern: Any = _TOKEN) -> str:
    return _text(value, path, _MAX_ID, pattern)


def _check_host_message(value: Any) -> Message:
    if not isinstance(value, dict):
        raise _invalid("", "a JSON object")
    if value.get("type") == "invoke":
        _members(value, _INVOKE)
        _identifier(value["invocationId"], "/invocationId")
        _identifier(value["command"], "/command", _COMMAND)
        inputs = value["inputs"]
        if not isinstance(inputs, dict):
            raise _invalid("/inputs", "a JSON object")
        for key in inputs:
            _identifier(key, "/inputs", _INPUT_ID)

        def explicit(entry: Any, path: str) -> None:
            if _identifier(entry, path, _INPUT_ID) not in inputs:
                raise _invalid(path, "the id of a member of /inputs")

        _list(value["explicitInputIds"], "/explicitInputIds", explicit)
        remaining = "an integer from 1 to %d" % _MAX_REMAINING_MS
        _number(value["remainingMs"], "/remainingMs", remaining, _is_remaining_ms)
        value["remainingMs"] = int(value["remainingMs"])
        _list(value["features"], "/features", _identifier)
    elif value.get("type") == "cancel":
        _members(value, ("type", "cause"))
        if not isinstance(value["cause"], str) or value["cause"] not in CANCEL_CAUSES:
            raise _invalid("/cause", 'one of "client", "owner", "deadline"')
    else:
        raise _invalid("/type", '"invoke" or "cancel" from the host')
    return value


def _is_remaining_ms(n: float) -> bool:
    return n == int(n) and 1 <= n <= _MAX_REMAINING_MS


def _check_child_message(value: Message) -> None:
    if "effects" in value:
        _list(value["effects"], "/effects", _reference)
    if "message" in value:
        _text(value["message"], "/message", MAX_TEXT_BYTES)
    if value["type"] == "progress":
        _number(value["progress"], "/progress", "a finite number \u2265 0", lambda n: n >= 0)
        if "total" in value:
            _number(value["total"], "/total", "a finite number > 0", lambda n: n > 0)
