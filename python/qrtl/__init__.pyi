"""Type stubs of qrtl's Python package (the extension module qrtl._native)."""

import os
from typing import Iterable, Literal, Optional, Sequence, Union

__version__: str

# Sources (queries, patterns, region maps): str is the text, os.PathLike a file.
SourceArg = Union[str, "os.PathLike[str]"]
# Inputs (documents, trajectory CSV, streams): bytes are the content, str or
# os.PathLike a file.
InputArg = Union[bytes, bytearray, str, "os.PathLike[str]"]

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

class Result:
    """One document's answer: `qrtl xpath filter`'s JSON line and its note."""

    doc: Optional[str]
    status: Literal["ok", "malformed", "too_deep"]
    reason: Optional[str]
    line: Optional[int]
    col: Optional[int]
    matched: list[int]

class XPathFilter:
    """A query set (one query per line, `#` comments; a query's id is its index)."""

    def __init__(
        self,
        queries: SourceArg,
        mode: Literal["holistic", "paths", "pairs"] = "holistic",
        ordered: bool = False,
        max_depth: int = 32,
    ) -> None: ...
    @classmethod
    def from_file(
        cls,
        path: Union[str, "os.PathLike[str]"],
        mode: Literal["holistic", "paths", "pairs"] = "holistic",
        ordered: bool = False,
        max_depth: int = 32,
    ) -> "XPathFilter": ...
    def __len__(self) -> int: ...
    def filter(self, doc: InputArg) -> Result: ...
    def filter_many(
        self, docs: Iterable[InputArg], jobs: Optional[int] = None
    ) -> list[Result]: ...

class TrackResult:
    """One trajectory's answer: `qrtl track filter`'s JSON line."""

    trajectory: str
    matched: list[int]
    events: int  # region events, as `qrtl track sim` and the hardware report

class TrackFilter:
    """FlexTrack patterns, lowered against a region map (YAML grid)."""

    def __init__(
        self,
        patterns: SourceArg,
        regions: Optional[SourceArg] = None,
        variables: Literal["exact", "or", "buffer", "expand"] = "exact",
    ) -> None: ...
    def __len__(self) -> int: ...
    def filter(self, *inputs: InputArg) -> list[TrackResult]: ...

def rice_encode(
    ints: Sequence[int],
    k: int,
    *,
    unary: Literal["zeros", "ones"] = "zeros",
    bit_order: Literal["msb", "lsb"] = "msb",
    width: int = 64,
) -> bytes: ...
def rice_decode(
    data: InputArg,
    k: int,
    count: Optional[int] = None,
    *,
    unary: Literal["zeros", "ones"] = "zeros",
    bit_order: Literal["msb", "lsb"] = "msb",
    width: int = 64,
) -> list[int]: ...
