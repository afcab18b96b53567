"""What every skrank scorer needs of scikit-learn's metadata routing.

The ranking, survival and uplift scorers each declare which metadata they request
(``set_score_request``); the sentinel, the check that routing is on and the validation of a
request are written once here.
"""

from __future__ import annotations

from typing import Any

from ._validation import param_error

__all__ = ["UNCHANGED", "require_routing", "routing_enabled", "score_request", "set_requests"]


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


#: Default of ``set_score_request`` arguments: leave that request as it is.
UNCHANGED: Any = _Unchanged()


def routing_enabled() -> bool:
    """Whether scikit-learn's metadata routing is enabled in the current configuration."""
    import sklearn

    return bool(sklearn.get_config().get("enable_metadata_routing", False))


def require_routing() -> None:
    """Raise the error ``set_score_request`` gives when routing is off."""
    if not routing_enabled():
        raise RuntimeError(
            "set_score_request is only available when metadata routing is enabled. "
            "Enable it with sklearn.set_config(enable_metadata_routing=True) or inside "
            "`with sklearn.config_context(enable_metadata_routing=True):`."
        )


def set_requests(requests: dict[str, Any], *, identifiers: bool = False,
                 **aliases: Any) -> None:
    """Store each request of ``aliases`` (True, False, None or an alias) in ``requests``,
    skipping those left ``UNCHANGED``; ``identifiers`` also requires aliases that are valid
    Python identifiers."""
    for param, alias in aliases.items():
        if alias is UNCHANGED:
            continue
        if not (alias is None or isinstance(alias, (bool, str))):
            raise param_error(param, "True, False, None or an alias (str)", alias,
                              "set_score_request")
        if identifiers and isinstance(alias, str) and not alias.isidentifier():
            raise param_error(param, "an alias that is a valid identifier", alias,
                              "set_score_request")
        requests[param] = alias


def score_request(owner: Any, requests: dict[str, Any]) -> Any:
    """A scorer's ``get_metadata_routing()``: its ``requests`` (param -> True, False, None or
    an alias) as a scikit-learn ``MetadataRequest`` of the ``score`` method."""
    from sklearn.utils.metadata_routing import MetadataRequest

    request = MetadataRequest(owner=owner)
    for param, alias in requests.items():
        request.score.add_request(param=param, alias=alias)
    return request
