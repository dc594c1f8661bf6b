"""Runs of identical blocks in a trace, for the writer to emit once each as a repeat group
(workloads/SCHEMA.md, "Repeated blocks").

A block is a run of consecutive layers whose names agree up to a component that ends in the same
integer (`layers.12` in `layers.12.self-attn.core`; `res0` and `attn0` in `unet.down.0.res0.conv1`,
`unet.down.0.attn0.proj-in`: a ResBlock and the transformer that follows it). Two consecutive blocks
are copies when every layer's rendered text is the same once that integer reads `{i}` and the index
goes up by one from copy to copy. Only exact equality counts, so expanding a group gives back the flat text line for line
(tests/workloads/test_generator.py checks it for every trace).
"""

import re
from dataclasses import dataclass

#: What a block's layer names write in place of the copy's index.
PLACEHOLDER = "{i}"
#: A name component that ends in an index: letters or dashes, then an integer without leading zeros.
_INDEXED = re.compile(r"^([a-z-]*)(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class RepeatGroup:
    """`count` copies of `block`, the first with index `first_index`; `block` holds (name with
    PLACEHOLDER, rendered lines after the name) per layer."""

    first_index: int
    count: int
    block: tuple


def _index_components(name):
    """Positions of the dotted components of `name` that end in an index, outermost first."""
    return [j for j, part in enumerate(name.split(".")) if _INDEXED.match(part)]


def _index(part):
    """The index a component ends in, or None."""
    match = _INDEXED.match(part)
    return int(match.group(2)) if match else None


def _template(parts, j):
    return ".".join(parts[:j] + [_INDEXED.match(parts[j]).group(1) + PLACEHOLDER] + parts[j + 1:])


def _block_at(entries, start, j):
    """The block that starts at `start`: the following layers whose names share its components before j
    and whose component j ends in the same index."""
    first = entries[start][0].split(".")
    block = []
    for name, body in entries[start:]:
        parts = name.split(".")
        if parts[:j] != first[:j] or len(parts) <= j or _index(parts[j]) != _index(first[j]):
            break
        block.append((_template(parts, j), body))
    return tuple(block)


def _copies(entries, start, j, block):
    """How many consecutive copies of `block` (index component j) begin at `start`."""
    first_index = _index(entries[start][0].split(".")[j])
    count = 1
    while start + (count + 1) * len(block) <= len(entries):
        copy = entries[start + count * len(block):start + (count + 1) * len(block)]
        for (name, body), expected in zip(copy, block):
            parts = name.split(".")
            if len(parts) <= j or _index(parts[j]) != first_index + count or (_template(parts, j), body) != expected:
                return count
        count += 1
    return count


def _group_at(entries, start):
    """The repeat group that begins at `start`, outermost index first, or None if no block repeats there."""
    for j in _index_components(entries[start][0]):
        block = _block_at(entries, start, j)
        count = _copies(entries, start, j, block)
        if count >= 2:
            return RepeatGroup(_index(entries[start][0].split(".")[j]), count, block)
    return None


def group_repeats(entries):
    """`entries` ([(layer name, rendered lines after the name)] in order) as a list of the entries
    that stay single and RepeatGroups for runs of at least two identical blocks, in order."""
    out = []
    start = 0
    while start < len(entries):
        group = _group_at(entries, start)
        if group is None:
            out.append(entries[start])
            start += 1
        else:
            out.append(group)
            start += group.count * len(group.block)
    return out


def expand(items):
    """The entries that `group_repeats` grouped, copies written out (the reader's expansion)."""
    entries = []
    for item in items:
        if isinstance(item, RepeatGroup):
            for index in range(item.first_index, item.first_index + item.count):
                entries += [(name.replace(PLACEHOLDER, str(index)), body) for name, body in item.block]
        else:
            entries.append(item)
    return entries
