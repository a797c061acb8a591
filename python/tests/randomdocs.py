"""A seeded generator of query sets and documents for comparing the package
with the `qrtl` binary: small tag and value alphabets so that queries match,
twigs, `//`, `*`, attribute, `text()` and positional predicates, and
documents that are sometimes malformed or deeper than a small max_depth."""

import random

TAGS = ["a", "b", "c", "d", "e"]
VALUES = ["x", "y", "zz"]


def _step(rng: random.Random, depth: int) -> str:
    name = rng.choice(TAGS + ["*"])
    preds = []
    if rng.random() < 0.3:
        preds.append(f'@k="{rng.choice(VALUES)}"')
    if depth < 2 and rng.random() < 0.3:
        preds.append(_path(rng, depth + 1, relative=True))
    if rng.random() < 0.15:
        preds.append(f'text()="{rng.choice(VALUES)}"')
    return name + "".join(f"[{p}]" for p in preds)


def _path(rng: random.Random, depth: int, relative: bool = False) -> str:
    out = ".//" if relative and rng.random() < 0.5 else ""
    for i in range(rng.randint(1, 3)):
        sep = "" if i == 0 and relative else rng.choice(["/", "//"])
        out += sep + _step(rng, depth)
    return out


def queries(seed: int, count: int) -> str:
    rng = random.Random(seed)
    return "".join(_path(rng, 0) + "\n" for _ in range(count))


def _element(rng: random.Random, depth: int, out: list) -> None:
    tag = rng.choice(TAGS)
    attr = f' k="{rng.choice(VALUES)}"' if rng.random() < 0.4 else ""
    out.append(f"<{tag}{attr}>")
    if depth < 7:
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.3:
                out.append(rng.choice(VALUES))
            else:
                _element(rng, depth + 1, out)
    out.append(f"</{tag}>")


def document(rng: random.Random) -> bytes:
    parts: list = []
    _element(rng, 1, parts)
    doc = "".join(parts).encode()
    roll = rng.random()
    if roll < 0.1:
        return doc[: rng.randrange(1, len(doc))]  # cut short
    if roll < 0.15:
        return doc.replace(b"</", b"</q", 1)  # a close tag that does not match
    return doc


def documents(seed: int, count: int) -> list:
    rng = random.Random(seed)
    return [document(rng) for _ in range(count)]
