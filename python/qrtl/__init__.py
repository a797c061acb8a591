from ._native import (
    Diagnostic,
    InputError,
    QueryError,
    Result,
    TrackFilter,
    TrackResult,
    XPathFilter,
    __doc__,
    __version__,
    rice_decode,
    rice_encode,
)

__all__ = [
    "Diagnostic",
    "InputError",
    "QueryError",
    "Result",
    "TrackFilter",
    "TrackResult",
    "XPathFilter",
    "rice_decode",
    "rice_encode",
]
