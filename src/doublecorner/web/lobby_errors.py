"""The refusals of the lobby, challenges and profiles, each with the ``code`` a client words.

The app answers each kind with its status (400, 403, 404, 409, 429); the
``code`` of a class names its case for a client to say it in its own
language (docs/web-api.md, *Error codes*).
"""

from __future__ import annotations


class LobbyRequestError(ValueError):
    """A request that cannot be met as asked (400)."""

    code = "bad_request"


class CannotChallengeError(LobbyRequestError):
    """A challenge to oneself."""

    code = "cannot_challenge"


class LobbyForbiddenError(PermissionError):
    """A seek or challenge that is not the requester's to change (403)."""

    code = "forbidden"


class NotYourSeekError(LobbyForbiddenError):
    """Cancelling another account's seek."""

    code = "not_your_seek"


class NotYourChallengeError(LobbyForbiddenError):
    """Answering a challenge made to someone else, or cancelling someone else's."""

    code = "not_your_challenge"


class LobbyNotFoundError(LookupError):
    """No such seek, challenge or user (404)."""

    code = "not_found"


class SeekNotFoundError(LobbyNotFoundError):
    """No open seek has the id (it was accepted, cancelled or its author left)."""

    code = "seek_not_found"


class ChallengeNotFoundError(LobbyNotFoundError):
    """No open challenge has the id (it was answered, cancelled or it expired)."""

    code = "challenge_not_found"


class UserNotFoundError(LobbyNotFoundError):
    """No account has the username."""

    code = "user_not_found"


class LobbyStateError(RuntimeError):
    """A request the state of things forbids (409)."""

    code = "conflict"


class OwnSeekError(LobbyStateError):
    """Accepting one's own seek."""

    code = "own_seek"


class LobbyLimitError(RuntimeError):
    """Over a bound of the lobby (429): too many open seeks or challenges, or posted too
    fast (``retry_after`` seconds to wait, when waiting helps)."""

    code = "too_many_requests"

    def __init__(self, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooManySeeksError(LobbyLimitError):
    """The account, or the address, has as many open seeks as it may."""

    code = "too_many_seeks"


class TooManyChallengesError(LobbyLimitError):
    """The account, or the address, has as many open challenges as it may."""

    code = "too_many_challenges"
