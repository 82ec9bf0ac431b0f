// Sentences the page builds from parts (moves, sides), kept in one place so that
// they can move to the message catalogues of each language as they are.

export const MESSAGES = {
  /** A move the server refused as illegal: why, and the moves there are. */
  illegalMove: (move, reason, legalMoves) => `Illegal move ${move}${reason ? `: ${reason}` : ""}.`
    + (legalMoves.length ? ` Legal moves: ${legalMoves.join(", ")}` : ""),
  /** A short capture that fits several routes. */
  ambiguousMove: (move, routes) => `Move ${move} could be ${routes.join(" or ")}: give the full path.`,
  /** A click on a piece of the side to move that has no move. */
  pieceHasNoMove: () => "That piece has no move.",
  /** A click on a piece that may not move because another must capture. */
  captureIsCompulsory: (captures) => `A capture is compulsory: ${captures.join(", ")}`,
  /** A click on a piece of the side not to move. */
  notTheSideToMove: (turn, piece) => `That is a ${piece} piece; ${turn} is to move.`,
};
