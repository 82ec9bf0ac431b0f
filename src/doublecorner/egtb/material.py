"""Material slices: which tables exist, their sizes, and the order they are built in."""

from __future__ import annotations

from typing import NamedTuple

from doublecorner.kernel.egtb_index import material_code, slice_size


class Material(NamedTuple):
    """The pieces of a slice: men and kings of each side (Black to move).

    >>> Material(1, 1, 0, 2).name, Material(1, 1, 0, 2).mirror().name
    ('1102', '0211')
    """

    black_men: int
    black_kings: int
    white_men: int
    white_kings: int

    @property
    def pieces(self) -> int:
        return sum(self)

    @property
    def men(self) -> int:
        return self.black_men + self.white_men

    @property
    def name(self) -> str:
        """Four digits: black men, black kings, white men, white kings."""
        return "".join(str(count) for count in self)

    @property
    def code(self) -> int:
        """The kernel's number for this material (an index into offset tables)."""
        return int(material_code(*self))

    @property
    def size(self) -> int:
        """The number of positions in the slice (placements, Black to move)."""
        return int(slice_size(*self))

    def mirror(self) -> Material:
        """The material of this slice's positions with White to move, colours swapped."""
        return Material(self.white_men, self.white_kings, self.black_men, self.black_kings)

    @classmethod
    def of(cls, black: int, white: int, kings: int) -> Material:
        """The material on a board."""
        return cls((black & ~kings).bit_count(), (black & kings).bit_count(),
                   (white & ~kings).bit_count(), (white & kings).bit_count())


def materials(max_pieces: int) -> list[Material]:
    """Every slice with at most ``max_pieces`` pieces, each side having at least one.

    >>> [m.name for m in materials(2)]
    ['1010', '1001', '0110', '0101']
    """
    found = []
    for pieces in range(2, max_pieces + 1):
        for black in range(1, pieces):
            white = pieces - black
            for black_kings in range(black + 1):
                for white_kings in range(white + 1):
                    found.append(Material(black - black_kings, black_kings,
                                          white - white_kings, white_kings))
    return found


def build_order(max_pieces: int) -> list[tuple[Material, ...]]:
    """The slices grouped in mirror pairs (one slice if it is its own mirror), in build order.

    A move that captures leads to fewer pieces and one that crowns to fewer
    men; every other move leads from a slice into its mirror. So pairs sorted
    by (pieces, men) find every slice their conversions reach already built.

    >>> [[m.name for m in pair] for pair in build_order(2)]
    [['0101'], ['0110', '1001'], ['1010']]
    """
    seen: set[Material] = set()
    pairs: list[tuple[Material, ...]] = []
    for material in materials(max_pieces):
        if material in seen:
            continue
        mirror = material.mirror()
        pair = (material,) if mirror == material else tuple(sorted((material, mirror)))
        seen.update(pair)
        pairs.append(pair)
    pairs.sort(key=lambda pair: (pair[0].pieces, pair[0].men, pair[0]))
    return pairs


def build_levels(max_pieces: int) -> list[list[tuple[Material, ...]]]:
    """:func:`build_order` cut into levels of the same (pieces, men), largest pair first.

    No pair converts into a pair of its own level (a conversion loses a piece
    or a man), so the pairs of a level can be solved at the same time once
    every earlier level is done.

    >>> [[[m.name for m in pair] for pair in level] for level in build_levels(2)]
    [[['0101']], [['0110', '1001']], [['1010']]]
    """
    levels: dict[tuple[int, int], list[tuple[Material, ...]]] = {}
    for pair in build_order(max_pieces):
        levels.setdefault((pair[0].pieces, pair[0].men), []).append(pair)
    return [sorted(level, key=lambda pair: -sum(m.size for m in pair))
            for level in levels.values()]


def total_positions(max_pieces: int) -> int:
    """Placements with at most ``max_pieces`` pieces: the number of stored positions.

    Each placement is stored once, with Black to move; its White-to-move twin
    is the colour-flipped placement, so this also counts the placements with
    either side to move, once each.

    >>> total_positions(4)
    6408836
    """
    return sum(material.size for material in materials(max_pieces))
