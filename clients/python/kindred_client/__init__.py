"""Python client for Kindred: starts `kindred serve` and calls its JSON-RPC methods.

    from kindred_client import Client
    with Client.start(db="journal.sqlite") as k:
        k.records_upsert(owner="me", records=[{"id": "d1", "revision": 1, "text": "I missed the train again."}], wait_for_index=True)
        print(k.search_query(owner="me", text="missing a train")["results"][0]["id"])

Standard library only.
"""

from .client import METHODS, Client, Request
from .errors import (
    BY_CODE,
    BinaryNotFound,
    ConstraintConflict,
    EmbedderUnavailable,
    InternalError,
    InvalidParams,
    InvalidRequest,
    KindredError,
    LimitExceeded,
    MethodNotFound,
    NotFound,
    ParseError,
    RequestCancelled,
    RevisionConflict,
    ServerExited,
    ShardUnavailable,
    ServerNotInitialized,
    StaleGroupVersion,
    StorageFailure,
)
from .vectors import vector_base64, vector_from_base64

__all__ = [
    "Client", "Request", "METHODS", "BY_CODE", "BinaryNotFound", "KindredError", "ServerExited", "ParseError", "InvalidRequest",
    "MethodNotFound", "InvalidParams", "InternalError", "ServerNotInitialized", "RequestCancelled", "NotFound",
    "RevisionConflict", "ConstraintConflict", "StaleGroupVersion", "EmbedderUnavailable", "LimitExceeded",
    "StorageFailure", "ShardUnavailable", "vector_base64", "vector_from_base64",
]
