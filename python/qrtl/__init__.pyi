"""Type stubs of qrtl's Python package (the extension module qrtl._native)."""

import os
from typing import Iterable, Literal, Optional, Sequence, Union, final

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

__version__: str

# Sources (queries, patterns, region maps): str is the text, os.PathLike a file.
_SourceArg = Union[str, "os.PathLike[str]"]
# Inputs (documents, trajectory CSV, streams): bytes are the content, str or
# os.PathLike a file.
_InputArg = Union[bytes, bytearray, str, "os.PathLike[str]"]

@final
class Diagnostic:
    """One diagnostic, as `qrtl` renders it: FILE:LINE:COLUMN: error[CODE]: MESSAGE."""

    file: str
    line: int
    column: int
    code: str
    message: str
    help: Optional[str]

class QueryError(ValueError):
    """A query, pattern or region-map error; str(e) is what `qrtl` prints."""

    diagnostics: list[Diagnostic]

class InputError(ValueError):
    """A trajectory file the engine cannot read (its bad rows)."""

    diagnostics: list[Diagnostic]

@final
class Result:
    """One document's answer: `qrtl xpath filter`'s JSON line and its note."""

    doc: Optional[str]
    status: Literal["ok", "malformed", "too_deep", "attr_limit"]
    reason: Optional[str]
    line: Optional[int]
    col: Optional[int]
    matched: list[int]

@final
class XPathFilter:
    """A query set (one query per line, `#` comments; a query's id is its index)."""

    def __new__(
        cls,
        queries: _SourceArg,
        mode: Literal["holistic", "paths", "pairs"] = "holistic",
        ordered: bool = False,
        max_depth: int = 32,
        max_attributes: int = 16,
        attr_name_bytes: int = 32,
        namespaces: Optional[dict[str, str]] = None,
        names: Literal["xpath", "raw"] = "xpath",
    ) -> "XPathFilter": ...
    @classmethod
    def from_file(
        cls,
        path: Union[str, "os.PathLike[str]"],
        mode: Literal["holistic", "paths", "pairs"] = "holistic",
        ordered: bool = False,
        max_depth: int = 32,
        max_attributes: int = 16,
        attr_name_bytes: int = 32,
        namespaces: Optional[dict[str, str]] = None,
        names: Literal["xpath", "raw"] = "xpath",
    ) -> "XPathFilter": ...
    def __len__(self) -> int: ...
    def filter(self, doc: _InputArg) -> Result: ...
    def filter_many(
        self, docs: Iterable[_InputArg], jobs: Optional[int] = None
    ) -> list[Result]: ...

@final
class TrackResult:
    """One trajectory's answer: `qrtl track filter`'s JSON line."""

    trajectory: str
    matched: list[int]
    events: int  # region events, as `qrtl track sim` and the hardware report

@final
class TrackFilter:
    """FlexTrack patterns, lowered against a region map (YAML grid)."""

    def __new__(
        cls,
        patterns: _SourceArg,
        regions: Optional[_SourceArg] = None,
        variables: Literal["exact", "or", "buffer", "expand"] = "exact",
    ) -> "TrackFilter": ...
    def __len__(self) -> int: ...
    def filter(self, *inputs: _InputArg) -> list[TrackResult]: ...

def rice_encode(
    ints: Sequence[int],
    k: int,
    *,
    unary: Literal["zeros", "ones"] = "zeros",
    bit_order: Literal["msb", "lsb"] = "msb",
    width: int = 64,
) -> bytes: ...
def rice_decode(
    data: _InputArg,
    k: int,
    count: Optional[int] = None,
    *,
    unary: Literal["zeros", "ones"] = "zeros",
    bit_order: Literal["msb", "lsb"] = "msb",
    width: int = 64,
) -> list[int]: ...
