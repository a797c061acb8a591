#!/usr/bin/env python3
"""Derive queries/nitf-vocab.txt from YFilter's NITF documents (run once; output is checked in).

usage: python3 bench/nitf-vocab.py /work/shared/data/yfilter-nitf/docs > queries/nitf-vocab.txt
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

docs_dir = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/yfilter-nitf/docs"
order = []          # elements in first-seen order
children = {}       # element -> {child: repeated?} (insertion-ordered)
present = {}        # element -> {child: number of parent instances having it}
instances = {}      # element -> number of instances
attrs = {}          # element -> [attr] (first-seen order)
text = set()        # elements seen with non-whitespace text
roots = []
max_depth = 0
MIN_REQUIRED = 5


def walk(e, depth):
    global max_depth
    max_depth = max(max_depth, depth)
    if e.tag not in children:
        order.append(e.tag)
        children[e.tag] = {}
        present[e.tag] = {}
        attrs[e.tag] = []
        instances[e.tag] = 0
    instances[e.tag] += 1
    for a in e.attrib:
        if a not in attrs[e.tag]:
            attrs[e.tag].append(a)
    if (e.text or "").strip() or any((c.tail or "").strip() for c in e):
        text.add(e.tag)
    counts = {}
    for c in e:
        counts[c.tag] = counts.get(c.tag, 0) + 1
    for c, n in counts.items():
        kids = children[e.tag]
        kids[c] = kids.get(c, False) or n > 1
        present[e.tag][c] = present[e.tag].get(c, 0) + 1
    for c in e:
        walk(c, depth + 1)


files = sorted(glob.glob(os.path.join(docs_dir, "*.xml")))
for f in files:
    root = ET.parse(f).getroot()
    if root.tag not in roots:
        roots.append(root.tag)
    walk(root, 1)

print("# NITF vocabulary: element names, the children and attributes seen under each.")
print(f"# Derived once from YFilter's NITF documents ({len(files)} files) by bench/nitf-vocab.py.")
print("# Format: `element [#text] : child? child* child+ child ... | attr attr ...`")
print("#   DTD-style occurrence: `?` optional, `*` optional and repeatable, `+` required and")
print(f"#   repeatable, none: required. Required = present in every instance of the parent")
print(f"#   (parents seen at least {MIN_REQUIRED} times); repeatable = seen more than once under one parent.")
print("#   #text: carries character data.")
print(f"# Deepest nesting seen: {max_depth}.")
print("root " + " ".join(roots))
for el in order:
    def mark(c, rep):
        req = instances[el] >= MIN_REQUIRED and present[el][c] == instances[el]
        return c + {(False, False): "?", (False, True): "*", (True, False): "", (True, True): "+"}[(req, rep)]
    kids = " ".join(mark(c, rep) for c, rep in children[el].items())
    head = el + (" #text" if el in text else "")
    print(f"{head} : {kids} | {' '.join(attrs[el])}".rstrip())
