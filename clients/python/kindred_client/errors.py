"""One exception class per JSON-RPC error code the server documents (docs/methods.md, Error codes)."""

import os


class KindredError(Exception):
    """An error answer from the server: `code`, `message` and `data` (a dict, or None)."""

    code = None

    def __init__(self, code, message, data=None, method=None):
        super().__init__(f"{method + ': ' if method else ''}{message} ({code})")
        self.code = code
        self.message = message
        self.data = data
        self.method = method

    @property
    def field(self):
        """The parameter the error names (`data.field`), when it names one."""
        return self.data.get("field") if isinstance(self.data, dict) else None


class ParseError(KindredError): code = -32700
class InvalidRequest(KindredError): code = -32600
class MethodNotFound(KindredError): code = -32601
class InvalidParams(KindredError): code = -32602
class InternalError(KindredError): code = -32603
class ServerNotInitialized(KindredError): code = -32002
class RequestCancelled(KindredError): code = -32800
class NotFound(KindredError): code = -32001
class RevisionConflict(KindredError): code = -32010
class ConstraintConflict(KindredError): code = -32020
class StaleGroupVersion(KindredError): code = -32021
class EmbedderUnavailable(KindredError): code = -32030
class LimitExceeded(KindredError): code = -32040
class StorageFailure(KindredError): code = -32050
class ShardUnavailable(KindredError): code = -32060


BY_CODE = {cls.code: cls for cls in KindredError.__subclasses__()}


def from_response(error, method=None):
    """The exception for a JSON-RPC error object; unknown codes give a plain `KindredError`."""
    code = error.get("code")
    cls = BY_CODE.get(code, KindredError)
    return cls(code, error.get("message", ""), error.get("data"), method)


class ServerExited(Exception):
    """The server process ended (or closed its output) while a request was waiting."""


class BinaryNotFound(FileNotFoundError):
    """No `kindred` program where the client looked: says where it looked and how to point it at one."""

    def __init__(self, binary):
        self.binary = binary
        super().__init__(
            f"cannot start the Kindred server: no program {binary!r} "
            + ("on the PATH" if os.sep not in binary else "there")
            + ". Point the client at the binary with Client.start(..., binary='/path/to/kindred') or "
            "KINDRED_BIN=/path/to/kindred (after `swift build -c release` it is .build/release/kindred in the "
            "repository), or put `kindred` on the PATH (scripts/setup.sh links it into /usr/local/bin when it can).")

    def __str__(self):
        return self.args[0]
